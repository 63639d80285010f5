"""`cagr init --hooks AGENT`: cagr's entries merged into each agent's settings, nothing lost."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cagr_cli.main import main
from cagr_hooks.install import MISSING, SETTINGS_FILES, entries, installed_command

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
    assert f"&& cagr hook --agent {agent} ||" in json.dumps(hooks)
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
        "command": "command -v .venv/bin/cagr >/dev/null 2>&1 && .venv/bin/cagr hook --agent"
        " gemini || true",
        "timeout": 90_000,
    }
    assert data["BeforeTool"][0]["matcher"] == "run_shell_command"
    assert data["SessionStart"][0]["hooks"][0]["command"].endswith(f"|| echo '{MISSING}' >&2")


def test_a_path_of_this_machine_is_refused(repo: Path, capsys: Capture) -> None:
    assert init(repo, "--hooks", "claude", "--hook-command", "/home/me/.venv/bin/cagr hook") == 2
    assert not (repo / ".claude").exists()
    assert "is a path on this machine" in capsys.readouterr().err
    assert (
        init(repo, "--hooks", "claude", "--hook-command", '"$CLAUDE_PROJECT_DIR"/v/cagr hook') == 0
    )


def test_the_installed_command_runs_the_hook(repo: Path) -> None:
    """What init writes runs `cagr hook` with arguments it accepts."""
    init(repo, "--hooks", "claude")
    command = settings(repo, "claude")["hooks"]["Stop"][0]["hooks"][0]["command"]
    assert installed_command(settings(repo, "claude")["hooks"]) == "cagr hook"
    args = command.split(" && ")[1].split(" || ")[0].split()
    assert args[:2] == ["cagr", "hook"]
    assert main(["hook", *args[2:]]) == 0  # stdin is empty under pytest: nothing to decide


GEMINI_WITH_COMMENTS = """{
    // the person's own settings, with their comments and layout
    "theme": "GitHub",   /* kept */
    "hooks": {
        "BeforeTool": [
            {"matcher": "write_file", "hooks": [{"type": "command", "command": "lint.sh"}]}
        ]
    },
    "tail": [1, 2, 3]
}
"""


def test_comments_and_layout_outside_cagrs_entries_are_kept(repo: Path) -> None:
    path = repo / ".gemini" / "settings.json"
    path.parent.mkdir()
    path.write_text(GEMINI_WITH_COMMENTS)
    assert init(repo, "--hooks", "gemini") == 0
    text = path.read_text()
    for line in GEMINI_WITH_COMMENTS.splitlines():  # every original line, in order, unchanged
        if line.strip() not in ("]", "}", "},"):
            assert line in text, line
    assert text.index("// the person's") < text.index('"theme"') < text.index('"tail"')
    assert '\n                "matcher": "run_shell_command",' in text  # their indentation
    before = text
    assert init(repo, "--hooks", "gemini") == 0
    assert path.read_text() == before  # a second run finds everything in place


def test_an_outdated_entry_is_updated_where_it_stands(repo: Path) -> None:
    path = repo / ".claude" / "settings.json"
    path.parent.mkdir()
    theirs = '{\n  "hooks": {\n    "Stop": [\n      {"hooks": [{"type": "command", "command": "notify.sh"}, {"type": "command", "command": "cagr hook --agent claude"}]}\n    ]\n  },\n  "model": "opus"\n}\n'
    path.write_text(theirs)
    assert init(repo, "--hooks", "claude") == 0
    text = path.read_text()
    assert '{"type": "command", "command": "notify.sh"}, {\n' in text  # only cagr's hook object
    assert text.endswith('  "model": "opus"\n}\n')
    assert json.loads(text)["hooks"]["Stop"][0]["hooks"][1]["command"].startswith("command -v")


@pytest.mark.parametrize("content", ['{"hooks": {}, }', "{ // unclosed", '{"a": 1} extra'])
def test_a_file_it_cannot_read_is_refused_with_the_block_to_paste(
    repo: Path, content: str, capsys: Capture
) -> None:
    path = repo / ".gemini" / "settings.json"
    path.parent.mkdir()
    path.write_text(content)
    assert init(repo, "--hooks", "gemini") == 2
    assert path.read_text() == content
    err = capsys.readouterr().err
    assert "Merge cagr's entries into it by hand" in err
    block = json.loads(err[err.index("{") :])
    assert set(block["hooks"]) == set(entries("gemini", "cagr hook"))
