"""Whole turns as each agent runs them: the settings `init --hooks` writes, run by the agent's
own runner rules, around real git commands.

The usual turn — edit, commit, push, `gh pr create` — must meet a gate that judges the commits
the PR will hold: the record the last stop wrote is for an older HEAD by then, so the hook after
each shell command refreshes it when HEAD moved.
"""

from __future__ import annotations

import json
import shlex
import sys
import time
from pathlib import Path

import pytest

from cagr_cli.main import main
from cagr_hooks.install import SETTINGS_FILES
from tests.support.agents import RUNNERS, Outcome, environment
from tests.support.git import commit, git, write
from tests.support.hooks import payload, project

AGENTS = tuple(SETTINGS_FILES)
AFTER = {"claude": "PostToolUse", "codex": "PostToolUse", "cursor": "afterShellExecution",
         "gemini": "AfterTool"}  # fmt: skip
BODY = "## Summary\nSchema v2."


class Session:
    """One agent session in `root`: hooks run as that agent runs them."""

    def __init__(self, agent: str, root: Path, home: Path) -> None:
        self.agent = agent
        self.root = root
        self.run = RUNNERS[agent]
        self.env = environment(f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin", home)
        hooks = json.loads((root / SETTINGS_FILES[agent]).read_text())["hooks"]
        self.commands = {
            event: (listed[0]["hooks"][0] if "hooks" in listed[0] else listed[0])["command"]
            for event, listed in hooks.items()
        }

    def hook(self, moment: int, **extra: object) -> Outcome:
        data = payload(self.agent, moment, self.root, **extra)
        return self.run(self.commands[data["hook_event_name"]], data, self.root, self.env)

    def shell(self, command: str) -> Outcome:
        """The agent runs a shell command: the hook before, the command (unless denied), the
        hook after. The outcome is the one before."""
        before = self.hook(1, command=command)
        if before.blocked:
            return before
        if not command.startswith("gh "):
            git(self.root, *command.split()[1:]) if command.startswith("git ") else None
        data = payload(self.agent, 1, self.root, command=command)
        data["hook_event_name"] = AFTER[self.agent]
        after = self.run(self.commands[AFTER[self.agent]], data, self.root, self.env)
        assert (after.code, after.stdout.strip() in ("", "{}"), after.blocked) == (0, True, False)
        return before


@pytest.fixture
def cloned(repo: Path, tmp_path: Path) -> Path:
    """A project with a remote to push to, as a clone has."""
    work = project(repo)
    remote = tmp_path / "origin.git"
    git(repo, "init", "-q", "--bare", str(remote))
    git(work, "remote", "add", "origin", str(remote))
    git(work, "push", "-q", "origin", "main")
    git(work, "fetch", "-q", "origin")
    return work


@pytest.mark.parametrize("agent", AGENTS)
def test_edit_commit_push_and_open_the_pr_in_one_turn(
    cloned: Path, agent: str, tmp_path: Path
) -> None:
    assert main(["--repo", str(cloned), "init", "--hooks", agent]) == 0
    git(cloned, "add", "-A")
    git(cloned, "commit", "-qm", "hooks")
    session = Session(agent, cloned, tmp_path / "home")
    start = session.hook(2)
    assert any("schema-companion" in text for text in start.context)
    session.hook(3, prompt="Bump the schema to v2 and open a PR.")
    write(cloned, "src/schema.py", "v2")  # the agent's edit
    assert not session.shell("git add -A").blocked
    assert not session.shell("git commit -qm schema-v2").blocked
    assert not session.shell("git push -q origin work").blocked
    denied = session.shell(f"gh pr create -t 'Schema v2' -b {json.dumps(BODY)}")
    assert denied.blocked, "the PR's commits fail, and the gate judged them"
    reason = " ".join(denied.context + denied.shown)
    assert "Change rule schema-companion failed" in reason
    write(cloned, "schema.json", '{"v": 2}')  # the agent fixes it, as the reason says
    for step in ("git add -A", "git commit -qm companion", "git push -q origin work"):
        assert not session.shell(step).blocked
    opened = session.shell(f"gh pr create -t 'Schema v2' -b {json.dumps(BODY)}")
    assert not opened.blocked
    assert not opened.asked
    assert opened.shown == []
    stop = session.hook(0)
    assert not stop.blocked
    assert not stop.failed


@pytest.mark.parametrize("agent", AGENTS)
def test_a_commit_and_the_pr_on_one_line_are_split(
    cloned: Path, agent: str, tmp_path: Path
) -> None:
    assert main(["--repo", str(cloned), "init", "--hooks", agent]) == 0
    session = Session(agent, cloned, tmp_path / "home")
    write(cloned, "src/schema.py", "v2")
    line = f"git add -A && git commit -qm v2 && gh pr create -t T -b {json.dumps(BODY)}"
    outcome = session.hook(1, command=line)
    assert outcome.blocked
    assert "as a command of its own" in " ".join(outcome.context + outcome.shown)


def test_after_a_command_that_moves_nothing_the_hook_returns_at_once(
    cloned: Path, tmp_path: Path
) -> None:
    """The refresh runs when HEAD moved; otherwise the call only reads (speed is measured in
    benchmarks/hooks.py)."""
    assert main(["--repo", str(cloned), "init", "--hooks", "claude"]) == 0
    session = Session("claude", cloned, tmp_path / "home")
    write(cloned, "src/schema.py", "v2")
    session.shell("git add -A")
    session.shell("git commit -qm v2")
    record = cloned / ".git" / "cagr" / "gate.json"
    written = record.stat().st_mtime_ns
    time.sleep(0.01)
    session.shell("git status")
    assert record.stat().st_mtime_ns == written  # nothing moved: no check ran
    assert (
        json.loads(record.read_text())["head"] == git(cloned, "rev-parse", "HEAD").decode().strip()
    )


@pytest.mark.parametrize("agent", ["cursor"])
def test_cursor_hears_a_stops_notice_at_the_next_session_start(
    cloned: Path, agent: str, tmp_path: Path
) -> None:
    """Cursor's stop has no field for a notice: the agent gets it with the next brief."""
    assert main(["--repo", str(cloned), "init", "--hooks", agent]) == 0
    session = Session(agent, cloned, tmp_path / "home")
    write(cloned, "src/schema.py", "v2")
    outcomes = [session.hook(0) for _ in range(3)]
    assert [o.blocked for o in outcomes] == [True, True, False]
    assert outcomes[2].shown == []
    assert outcomes[2].context == []
    start = session.hook(2)
    text = " ".join(start.context)
    assert "at the end of an earlier turn here" in text
    assert "still fail after 2 blocked stops" in text
    assert "at the end of an earlier turn" not in " ".join(session.hook(2).context)  # once


@pytest.mark.parametrize("agent", AGENTS)
def test_a_gate_notice_reaches_the_person(cloned: Path, agent: str, tmp_path: Path) -> None:
    """No record at all: the notice asks for a check. Cursor shows nothing from stderr, so it
    asks the person to approve the command, with the text."""
    assert main(["--repo", str(cloned), "init", "--hooks", agent]) == 0
    session = Session(agent, cloned, tmp_path / "home")
    outcome = session.hook(1, command="gh pr create -t T -b x")
    assert not outcome.blocked
    assert any("no prepared change-rule result" in text for text in outcome.shown)
    if agent == "cursor":
        assert outcome.asked
    if agent in ("claude", "codex", "cursor"):  # and the model reads it too
        assert any("no prepared change-rule result" in text for text in outcome.context)


def test_a_deleted_config_is_a_config_change_at_the_gate(cloned: Path) -> None:
    """An uncommitted deletion (or a skip-worktree file gone from disk) gives the notice an
    edit gives, never silence."""
    write(cloned, "src/schema.py", "v2")
    commit(cloned, "v2")
    assert main(["--repo", str(cloned), "rules", "check", "--committed"]) == 1
    (cloned / "cagr.toml").unlink()
    data = payload("claude", 1, cloned, command="gh pr create -t T -b x")
    from tests.support.hooks import hook  # noqa: PLC0415

    answer = hook(data, "--agent", "claude")
    assert "the cagr configuration changed since" in answer.text
    assert "failed change rules: schema-companion" in answer.text
    git(cloned, "checkout", "--", "cagr.toml")
    git(cloned, "update-index", "--skip-worktree", "cagr.toml")
    (cloned / "cagr.toml").unlink()
    assert "the cagr configuration changed since" in hook(data, "--agent", "claude").text


def test_a_record_made_for_another_target_is_renewed_for_it(cloned: Path, tmp_path: Path) -> None:
    """The person checked against `develop`; the refresh after a commit keeps `develop`."""
    git(cloned, "branch", "develop", "main")
    assert main(["--repo", str(cloned), "init", "--hooks", "claude"]) == 0
    assert main(["--repo", str(cloned), "rules", "check", "--committed", "--base", "develop"]) == 0
    session = Session("claude", cloned, tmp_path / "home")
    write(cloned, "src/schema.py", "v2")
    session.shell("git add -A")
    session.shell("git commit -qm v2")
    record = json.loads((cloned / ".git" / "cagr" / "gate.json").read_text())
    assert record["target_name"] == "develop"
    assert record["head"] == git(cloned, "rev-parse", "HEAD").decode().strip()
    assert session.hook(1, command="gh pr create -B develop -t T -b x").blocked


RISK = "## Risk\nDependency reason: left-pad pads."


@pytest.mark.parametrize("agent", AGENTS)
def test_a_body_the_gate_met_is_not_owed_at_the_turn_end(
    cloned: Path, agent: str, tmp_path: Path
) -> None:
    """The PR was opened with the section the rules ask for: the turn end says nothing is owed
    for that HEAD; a later commit is a new change, whose description the rules judge again."""
    assert main(["--repo", str(cloned), "init", "--hooks", agent]) == 0
    session = Session(agent, cloned, tmp_path / "home")
    write(cloned, "package.json", '{"dependencies": {"left-pad": "1"}}')
    for step in ("git add -A", "git commit -qm left-pad", "git push -q origin work"):
        assert not session.shell(step).blocked
    before = session.hook(0)
    assert any("the pull request will owe this" in t for t in before.shown + before.context) or (
        agent == "cursor"  # Cursor's stop shows no one: the notice waits for the next brief
    )
    opened = session.shell(f"gh pr create -t 'Pad' -b {shlex.quote(RISK)}")
    assert not opened.blocked, opened.context
    after = session.hook(0)
    assert (after.blocked, after.shown, after.context) == (False, [], [])
    write(cloned, "package.json", '{"dependencies": {"left-pad": "1", "right-pad": "1"}}')
    session.shell("git commit -qam right-pad")
    later = session.hook(0)
    assert any("will owe" in t for t in later.shown + later.context) or agent == "cursor"


def test_a_body_that_missed_a_section_is_still_owed(cloned: Path, tmp_path: Path) -> None:
    assert main(["--repo", str(cloned), "init", "--hooks", "claude"]) == 0
    session = Session("claude", cloned, tmp_path / "home")
    write(cloned, "package.json", '{"dependencies": {"left-pad": "1"}}')
    session.shell("git add -A")
    session.shell("git commit -qm left-pad")
    assert session.shell("gh pr create -t Pad -b 'No risk section.'").blocked
    assert any("will owe" in text for text in session.hook(0).shown)


def test_a_record_for_another_target_follows_the_target_the_pr_names(
    cloned: Path, tmp_path: Path
) -> None:
    """The person checked against `develop`, then the agent opened the PR without `--base`
    (cagr's default, main): the gate's notice says the record is for another target, and the
    next turn end renews it for main instead of keeping develop."""
    git(cloned, "branch", "develop", "main")
    assert main(["--repo", str(cloned), "init", "--hooks", "claude"]) == 0
    session = Session("claude", cloned, tmp_path / "home")
    write(cloned, "schema.json", '{"v": 2}')
    session.shell("git add -A")
    session.shell("git commit -qm v2")
    assert main(["--repo", str(cloned), "rules", "check", "--committed", "--base", "develop"]) == 0
    stale = session.hook(1, command=f"gh pr create -t T -b {json.dumps(BODY)}")
    assert any("it was made for target refs/heads/develop" in text for text in stale.shown)
    session.hook(0)
    record = json.loads((cloned / ".git" / "cagr" / "gate.json").read_text())
    assert record["target_ref"] == record["default_target_ref"] == "refs/remotes/origin/main"
    current = session.hook(1, command=f"gh pr create -t T -b {json.dumps(BODY)}")
    assert (current.blocked, current.shown) == (False, [])
