"""What `init --hooks` installs, run by each agent's own rules: a missing or broken cagr never
blocks anything (Gemini CLI denies on exit 127), and a working one still blocks and denies."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from cagr_cli.main import main
from cagr_hooks.install import MISSING, SETTINGS_FILES
from tests.support.agents import RUNNERS, environment
from tests.support.git import commit, write
from tests.support.hooks import EVENTS, payload, project

AGENTS = tuple(SETTINGS_FILES)
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"


def installed(root: Path, agent: str) -> dict[str, str]:
    """Each event's command, as the settings file holds it."""
    hooks = json.loads((root / SETTINGS_FILES[agent]).read_text())["hooks"]
    commands = {}
    for event, listed in hooks.items():
        entry = listed[0]
        commands[event] = entry["hooks"][0]["command"] if "hooks" in entry else entry["command"]
    return commands


@pytest.fixture
def failing(repo: Path) -> Path:
    work = project(repo)
    write(work, "src/schema.py", "v2")
    commit(work, "source only")
    write(work, "src/schema.py", "v3")
    return work


def calls(agent: str, root: Path) -> list[tuple[str, dict]]:
    """One payload per event cagr installs for `agent`: turn end, a PR command, after a shell
    command, session start, prompt."""
    turn_end, before, start, prompt = EVENTS[agent]
    after = {"claude": "PostToolUse", "codex": "PostToolUse", "cursor": "afterShellExecution",
             "gemini": "AfterTool"}[agent]  # fmt: skip
    pr = payload(agent, 1, root, command="gh pr create -t T -b x")
    return [
        (turn_end, payload(agent, 0, root)),
        (before, pr),
        (after, {**pr, "hook_event_name": after}),
        (start, payload(agent, 2, root)),
        (prompt, payload(agent, 3, root)),
    ]


@pytest.mark.skipif(shutil.which("cagr", path=SYSTEM_PATH) is not None, reason="cagr is global")
@pytest.mark.parametrize("agent", AGENTS)
def test_a_missing_cagr_blocks_nothing_and_says_so_at_session_start(
    failing: Path, agent: str, tmp_path: Path
) -> None:
    assert main(["--repo", str(failing), "init", "--hooks", agent]) == 0
    env = environment(SYSTEM_PATH, tmp_path / "home")
    commands = installed(failing, agent)
    for event, data in calls(agent, failing):
        outcome = RUNNERS[agent](commands[event], data, failing, env)
        assert (outcome.code, outcome.stdout, outcome.blocked) == (0, "", False), event
        assert not outcome.failed, event
        if agent == "gemini":  # the one agent that shows stderr after exit 0
            assert outcome.shown == ([MISSING] if event == "SessionStart" else []), event


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize(
    "broken", ["#!/nowhere/python\n", "#!/bin/sh\necho Traceback >&2\nexit 2\n"]
)
def test_a_cagr_that_cannot_start_blocks_nothing(
    failing: Path, agent: str, broken: str, tmp_path: Path
) -> None:
    """A virtualenv that moved (its interpreter is gone: exit 126), or a cagr that fails
    before its hook runs (even with exit 2, which agents read as a block)."""
    assert main(["--repo", str(failing), "init", "--hooks", agent]) == 0
    bin_folder = tmp_path / "bin"
    bin_folder.mkdir()
    (bin_folder / "cagr").write_text(broken)
    (bin_folder / "cagr").chmod(0o755)
    env = environment(f"{bin_folder}:{SYSTEM_PATH}", tmp_path / "home")
    commands = installed(failing, agent)
    for event, data in calls(agent, failing):
        outcome = RUNNERS[agent](commands[event], data, failing, env)
        assert (outcome.code, outcome.blocked) == (0, False), (event, outcome.stderr)


@pytest.mark.parametrize("agent", AGENTS)
def test_a_working_cagr_still_blocks_and_denies(failing: Path, agent: str, tmp_path: Path) -> None:
    assert main(["--repo", str(failing), "init", "--hooks", agent]) == 0
    assert main(["--repo", str(failing), "rules", "check", "--committed"]) == 1
    env = environment(f"{Path(sys.executable).parent}:{SYSTEM_PATH}", tmp_path / "home")
    commands = installed(failing, agent)
    outcomes = {event: RUNNERS[agent](commands[event], data, failing, env)
                for event, data in calls(agent, failing)}  # fmt: skip
    turn_end, before, _, _ = EVENTS[agent]
    assert outcomes[turn_end].blocked
    assert outcomes[before].blocked
    assert any("schema-companion" in text for text in outcomes[before].context)
    assert not any(o.failed for o in outcomes.values()), {e: o.stderr for e, o in outcomes.items()}


@pytest.mark.skipif(shutil.which("cagr", path=SYSTEM_PATH) is not None, reason="cagr is global")
def test_the_runner_is_faithful_a_bare_command_would_deny_under_gemini(
    failing: Path, tmp_path: Path
) -> None:
    """The control: the command cagr used to install (`cagr hook --agent gemini`) exits 127
    when cagr is missing, and Gemini CLI turns that into a deny of every call."""
    env = environment(SYSTEM_PATH, tmp_path / "home")
    _, data = calls("gemini", failing)[1]
    outcome = RUNNERS["gemini"]("cagr hook --agent gemini", data, failing, env)
    assert outcome.code == 127
    assert outcome.blocked
