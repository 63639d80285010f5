"""Driving `cagr hook` as an agent does: a subprocess with the agent's JSON on stdin."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from cagr_cli.main import main
from tests.support.configs import TWO_RULES as RULES
from tests.support.git import commit, git, write

EVENTS = {  # agent -> (turn end, command before, session start, prompt)
    "claude": ("Stop", "PreToolUse", "SessionStart", "UserPromptSubmit"),
    "codex": ("Stop", "PreToolUse", "SessionStart", "UserPromptSubmit"),
    "cursor": ("stop", "beforeShellExecution", "sessionStart", "beforeSubmitPrompt"),
    "gemini": ("AfterAgent", "BeforeTool", "SessionStart", "BeforeAgent"),
}


def project(repo: Path) -> Path:
    """A repository with the two rules, a base commit on main, and branch `work` checked out."""
    write(repo, "cagr.toml", RULES)
    write(repo, "src/schema.py", "v1")
    write(repo, "schema.json", "{}")
    write(repo, "package.json", "{}")
    commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "work")
    return repo


def payload(
    agent: str, moment: int, root: Path, session: str = "s1", **extra: Any
) -> dict[str, Any]:
    """The JSON `agent` sends at one moment (0 turn end, 1 command, 2 session start, 3 prompt)."""
    event = EVENTS[agent][moment]
    data: dict[str, Any] = {"hook_event_name": event}
    if agent == "cursor":
        data |= {
            "conversation_id": session,
            "generation_id": "g1",
            "workspace_roots": [str(root)],
            "transcript_path": None,
        }
    else:
        data |= {"session_id": session, "cwd": str(root)}
    if agent == "codex" and moment != 2:  # Codex 0.171's session start has no turn yet
        data["turn_id"] = "t1"
    if moment == 0:
        data |= {"status": "completed", "loop_count": 0} if agent == "cursor" else {}
        data |= {"stop_hook_active": False} if agent != "cursor" else {}
    if moment == 1:
        command = extra.pop("command")
        if agent == "cursor":
            data |= {"command": command, "cwd": str(root)}
        else:
            tool = "run_shell_command" if agent == "gemini" else "Bash"
            data |= {"tool_name": tool, "tool_input": {"command": command}}
    if moment == 3:
        data["prompt"] = extra.pop("prompt", "go on")
    return data | extra


class Answer:
    """What the hook printed: the JSON object (None: nothing), stderr and the exit code."""

    def __init__(self, result: subprocess.CompletedProcess[bytes]) -> None:
        self.code = result.returncode
        self.stderr = result.stderr.decode()
        self.raw = result.stdout.decode()
        out = self.raw.strip()
        self.json: dict[str, Any] | None = json.loads(out) if out else None

    @property
    def text(self) -> str:
        """Every string in the answer, joined: what the agent or person is told."""
        return " ".join(strings(self.json)) + self.stderr


def strings(value: Any) -> list[str]:
    """Every string in a hook's JSON answer: what the agent or the person is told."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    return []


def hook(data: dict[str, Any] | bytes, *args: str, cwd: Path | None = None) -> Answer:
    stdin = data if isinstance(data, bytes) else json.dumps(data).encode()
    result = subprocess.run(
        [sys.executable, "-m", "cagr_cli", "hook", *args],
        input=stdin,
        capture_output=True,
        cwd=cwd,
        check=False,
    )
    return Answer(result)


def denied(agent: str, answer_json: dict | None) -> bool:
    if answer_json is None:
        return False
    if agent == "cursor":
        return answer_json.get("permission") == "deny"
    if agent == "gemini":
        return answer_json.get("decision") == "deny"
    output = answer_json.get("hookSpecificOutput", {})
    return output.get("permissionDecision") == "deny"


def gate(root: Path, command: str, agent: str = "claude", cwd: Path | None = None):  # type: ignore[no-untyped-def]
    answer = hook(payload(agent, 1, cwd or root, command=command), "--agent", agent)
    assert answer.code == 0
    assert not allowed_explicitly(answer.json)
    return answer


def committed_check(root: Path, *args: str) -> int:
    return main(["--repo", str(root), "rules", "check", "--committed", *args])


def allowed_explicitly(answer_json: dict | None) -> bool:
    text = str(answer_json)
    return "'allow'" in text or '"allow"' in text
