"""`cagr init --hooks AGENT`: cagr's entries merged into each agent's settings, nothing lost."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cagr_cli.main import main
from cagr_hooks.install import SETTINGS_FILES, entries

Capture = pytest.CaptureFixture[str]
AGENTS = tuple(SETTINGS_FILES)


def init(root: Path, *args: str) -> int:
    return main(["--repo", str(root), "init", *args])


def settings(root: Path, agent: str) -> dict:
    return json.loads((root / SETTINGS_FILES[agent]).read_text())


@pytest.mark.parametrize("agent", AGENTS)
def test_a_new_settings_file_gets_every_event(repo: Path, agent: str, capsys: Capture) -> None:
    assert init(repo, "--hooks", agent) == 0
    hooks = settings(repo, agent)["hooks"]
    assert set(hooks) == set(entries(agent, "cagr hook"))
    assert f"cagr hook --agent {agent}" in json.dumps(hooks)
    assert "added" in capsys.readouterr().out


@pytest.mark.parametrize("agent", AGENTS)
def test_running_twice_changes_nothing(repo: Path, agent: str, capsys: Capture) -> None:
    init(repo, "--hooks", agent)
    before = (repo / SETTINGS_FILES[agent]).read_bytes()
    capsys.readouterr()
    assert init(repo, "--hooks", agent) == 0
    assert (repo / SETTINGS_FILES[agent]).read_bytes() == before
    assert "nothing changed" in capsys.readouterr().out


def test_other_settings_and_hooks_are_kept(repo: Path) -> None:
    path = repo / ".claude" / "settings.json"
    path.parent.mkdir()
    theirs = {
        "permissions": {"allow": ["Bash(npm test)"]},
        "hooks": {
            "PreToolUse": [
                {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "lint.sh"}]}
            ],
            "Stop": [
                {
                    "hooks": [
                        {"type": "command", "command": "notify.sh"},
                        {"type": "command", "command": "cagr hook --agent claude", "timeout": 5},
                    ]
                }
            ],
        },
    }
    path.write_text(json.dumps(theirs))
    assert init(repo, "--hooks", "claude") == 0
    data = settings(repo, "claude")
    assert data["permissions"] == theirs["permissions"]
    pre = data["hooks"]["PreToolUse"]
    assert pre[0] == theirs["hooks"]["PreToolUse"][0]
    assert pre[1]["matcher"] == "Bash"
    (stop,) = data["hooks"]["Stop"]  # a group shared with another hook: only ours is updated
    assert stop["hooks"][0] == {"type": "command", "command": "notify.sh"}
    assert stop["hooks"][1]["timeout"] == 90


def test_duplicates_of_cagrs_entry_are_removed(repo: Path) -> None:
    ours = {"hooks": [{"type": "command", "command": "cagr hook --agent claude"}]}
    path = repo / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"hooks": {"Stop": [ours, ours]}}))
    init(repo, "--hooks", "claude")
    assert len(settings(repo, "claude")["hooks"]["Stop"]) == 1


@pytest.mark.parametrize("content", ["{not json", "[1]", '{"hooks": []}', '{"hooks": {"Stop": 3}}'])
def test_a_file_it_cannot_merge_is_left_alone(repo: Path, content: str, capsys: Capture) -> None:
    path = repo / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(content)
    assert init(repo, "--hooks", "claude") == 2
    assert path.read_text() == content
    assert "left as it was" in capsys.readouterr().err


def test_a_custom_command(repo: Path) -> None:
    init(repo, "--hooks", "gemini", "--hook-command", ".venv/bin/cagr hook")
    data = settings(repo, "gemini")["hooks"]
    assert data["AfterAgent"][0]["hooks"][0] == {
        "type": "command",
        "command": ".venv/bin/cagr hook --agent gemini",
        "timeout": 90_000,
    }
    assert data["BeforeTool"][0]["matcher"] == "run_shell_command"


def test_the_installed_command_runs_the_hook(repo: Path) -> None:
    """What init writes is a command line that `cagr hook` accepts as it is."""
    init(repo, "--hooks", "claude")
    command = settings(repo, "claude")["hooks"]["Stop"][0]["hooks"][0]["command"]
    program, subcommand, *args = command.split()
    assert (program, subcommand) == ("cagr", "hook")
    assert main(["hook", *args]) == 0  # stdin is empty under pytest: nothing to decide
