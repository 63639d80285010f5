"""A `checklist = true` section at the `gh pr create` gate: deferred at the committed check,
kept in the gate record, judged against the command's body (the django-cms case: the heading
kept, its items replaced by prose); `cagr explain` says what the rule asks."""

from __future__ import annotations

from pathlib import Path

import pytest

from cagr_cli.main import main
from tests.support.configs import CHECKLIST_RULE as RULES
from tests.support.git import commit, git, write
from tests.support.hooks import committed_check, denied, gate, hook, payload


@pytest.fixture
def project(repo: Path) -> Path:
    write(repo, "cagr.toml", RULES)
    write(repo, "a.py", "x = 1\n")
    commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "work")
    write(repo, "a.py", "x = 2\n")
    commit(repo, "a change")
    return repo


def test_the_gate_judges_the_deferred_checklist(project: Path) -> None:
    assert committed_check(project) == 0  # deferred: the pull request will owe it
    (project / "prose.md").write_text(
        "## Description\nA fix.\n\n## Checklist\n\nI added tests and updated the docs.\n"
    )
    (project / "kept.md").write_text("## Description\nA fix.\n\n## Checklist\n\n* [ ] tests\n")
    (project / "ticked.md").write_text("## Checklist\n- [x] tests\n- [X] docs\n")
    (project / "fenced.md").write_text("## Checklist\nSee:\n```\n- [ ] tests\n```\n")
    answer = gate(project, "gh pr create -t T -F prose.md")
    assert denied("claude", answer.json)
    assert "`## Checklist` has no checklist: keep the template's `- [ ]` items" in answer.text
    assert not denied("claude", gate(project, "gh pr create -t T -F kept.md").json)
    assert not denied("claude", gate(project, "gh pr create -t T -F ticked.md").json)
    assert denied("claude", gate(project, "gh pr create -t T -F fenced.md").json)


def test_explain_says_the_checklist_is_required(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--repo", str(project), "explain", "pr-template-checklist"]) == 0
    assert "checklist: the section must keep a task-list item" in capsys.readouterr().out


def test_the_examples_pass(project: Path) -> None:
    assert main(["--repo", str(project), "rules", "test"]) == 0


def test_the_session_brief_names_the_checklist(project: Path) -> None:
    answer = hook(payload("claude", 2, project), "--agent", "claude")
    assert "needs its checklist (`- [ ]` items, ticked or not) and an explanation" in answer.text
