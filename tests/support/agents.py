"""The four agents' hook runners, as their sources and references describe them.

tests/agents checks them against the real Claude Code, Codex and Gemini CLI: fed the answers
cagr gave inside each real agent, they must do what that agent did.

Each runs a settings file's command the way that agent does (its shell, its working folder,
JSON on stdin with the pipe closed), then reads the exit code, stdout and stderr by that agent's
rules, and says what the agent does: block (deny the tool call, or keep the turn going), show a
message to the person, give context to the model. The rules:

- Gemini CLI (packages/core/src/hooks/hookRunner.ts): `bash -c COMMAND`; the text read is
  stdout, or stderr when stdout is empty; exit 0: JSON is the output, other text is
  `{decision: allow, systemMessage: text}`; exit 1: allow with `Warning: text`; any other exit
  (127 from a missing program, 126, 2) is `{decision: deny, reason: text}`. `block`/`deny`
  block; `systemMessage` is shown to the person.
- Codex (codex-rs/hooks, command_runner.rs and events/*.rs): `$SHELL -lc COMMAND` in the
  session's folder; exit 0: empty stdout is nothing, else JSON (invalid JSON is a failed hook);
  exit 2: stderr is the block reason; anything else is a failed hook that blocks nothing.
- Claude Code (hooks reference): exit 0: stdout JSON is read; exit 2: blocks with stderr;
  anything else is a non-blocking error.
- Cursor (hooks reference): exit 0: stdout JSON (`permission`, `followup_message`); exit 2
  blocks; any other exit lets the action through unless the entry sets `failClosed`; stderr is
  shown to nobody.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

TIMEOUT = 60


class Outcome:
    """What the agent makes of one hook call."""

    def __init__(self, code: int, stdout: str, stderr: str) -> None:
        self.code = code
        self.stdout = stdout
        self.stderr = stderr
        self.blocked = False  # the tool call denied, or the turn kept going
        self.asked = False  # Cursor: the person is asked to approve
        self.shown: list[str] = []  # what the person sees
        self.context: list[str] = []  # what the model reads
        self.failed = False  # the agent records a failed hook (and carries on)


def _run(argv: list[str], payload: dict[str, Any], cwd: Path, env: dict[str, str]) -> Outcome:
    result = subprocess.run(
        argv,
        input=json.dumps(payload).encode(),
        capture_output=True,
        cwd=cwd,
        env=env,
        timeout=TIMEOUT,
        check=False,
    )
    return Outcome(result.returncode, result.stdout.decode(), result.stderr.decode())


def gemini(command: str, payload: dict[str, Any], cwd: Path, env: dict[str, str]) -> Outcome:
    out = _run(["bash", "-c", command], payload, cwd, env)
    text = out.stdout.strip() or out.stderr.strip()
    output: dict[str, Any] = {}
    if text:
        try:
            parsed = json.loads(text)
            output = parsed if isinstance(parsed, dict) else {}
        except ValueError:
            if out.code == 0:
                output = {"decision": "allow", "systemMessage": text}
            elif out.code == 1:
                output = {"decision": "allow", "systemMessage": f"Warning: {text}"}
            else:
                output = {"decision": "deny", "reason": text}
    out.failed = out.code != 0
    out.blocked = output.get("decision") in ("block", "deny")
    if output.get("systemMessage"):
        out.shown.append(output["systemMessage"])
    if out.blocked:
        out.context.append(output.get("reason", ""))
    specific = output.get("hookSpecificOutput")
    if isinstance(specific, dict) and specific.get("additionalContext"):
        out.context.append(specific["additionalContext"])  # SessionStart, BeforeAgent, AfterTool
    return out


def codex(command: str, payload: dict[str, Any], cwd: Path, env: dict[str, str]) -> Outcome:
    shell = env.get("SHELL", "/bin/sh")
    out = _run([shell, "-lc", command], payload, cwd, env)
    if out.code == 0:
        if out.stdout.strip():
            try:
                output = json.loads(out.stdout)
            except ValueError:
                out.failed = out.stdout.lstrip().startswith(("{", "["))
                return out
            _claude_like(out, output)
    elif out.code == 2 and out.stderr.strip():
        out.blocked = True
        out.context.append(out.stderr.strip())
    else:
        out.failed = True
    return out


def claude(command: str, payload: dict[str, Any], cwd: Path, env: dict[str, str]) -> Outcome:
    out = _run(["bash", "-c", command], payload, cwd, env)
    if out.code == 0 and out.stdout.strip():
        try:
            _claude_like(out, json.loads(out.stdout))
        except ValueError:
            out.context.append(out.stdout)  # plain text: context at session start and prompts
    elif out.code == 2:
        out.blocked = True
        out.context.append(out.stderr.strip())
    elif out.code != 0:
        out.failed = True
        out.shown.append(out.stderr.strip())  # a non-blocking error, shown with its stderr
    return out


def _claude_like(out: Outcome, output: object) -> None:
    """Claude Code's and Codex's JSON: decisions, systemMessage and additionalContext."""
    if not isinstance(output, dict):
        out.failed = True
        return
    specific = output.get("hookSpecificOutput") or {}
    decision = specific.get("permissionDecision")
    if decision not in (None, "deny"):
        out.failed = True  # Codex treats a bare allow (or ask) as a failed hook
    if decision == "deny" or output.get("decision") == "block":
        out.blocked = True
        out.context.append(specific.get("permissionDecisionReason") or output.get("reason", ""))
    if output.get("systemMessage"):
        out.shown.append(output["systemMessage"])
    if specific.get("additionalContext"):
        out.context.append(specific["additionalContext"])


def cursor(
    command: str, payload: dict[str, Any], cwd: Path, env: dict[str, str], fail_closed: bool = False
) -> Outcome:
    out = _run(["sh", "-c", command], payload, cwd, env)
    if out.code == 2 or (out.code != 0 and fail_closed):
        out.blocked = True
        return out
    if out.code != 0:
        out.failed = True
        return out
    output = json.loads(out.stdout) if out.stdout.strip() else {}
    permission = output.get("permission")
    out.blocked = permission == "deny" or bool(output.get("followup_message"))
    out.asked = permission == "ask"
    if output.get("user_message"):
        out.shown.append(output["user_message"])
    for key in ("agent_message", "followup_message", "additional_context"):
        if output.get(key):
            out.context.append(output[key])
    return out


RUNNERS = {"claude": claude, "codex": codex, "cursor": cursor, "gemini": gemini}


def environment(path: str, home: Path) -> dict[str, str]:
    """An environment with this PATH, and a login profile that keeps it (Codex's `-lc` reads
    the profile, and a system profile may reset the PATH)."""
    home.mkdir(parents=True, exist_ok=True)
    for profile in (".bash_profile", ".profile"):
        (home / profile).write_text(f'PATH="{path}"\nexport PATH\n')
    keep = {k: v for k, v in os.environ.items() if k.startswith(("GIT_", "LANG", "LC_"))}
    return {**keep, "PATH": path, "HOME": str(home), "SHELL": "/bin/bash"}
