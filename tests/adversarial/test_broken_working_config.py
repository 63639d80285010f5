"""A broken `pyproject.toml` in the working tree (a syntax error mid-edit, a folder, a FIFO)
stops only what reads the working tree's rules. `cagr changes` needs no rules, a committed
check and CI are judged by HEAD's configuration, and the PR gate compares file bytes. The root
`pyproject.toml` is often a dependency manifest first and cagr's config second.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.adversarial import Outcome
from tests.support.ci import cagr_ci
from tests.support.git import commit, write
from tests.support.hooks import hook, payload

Cagr = Callable[..., Outcome]
BREAKS = ["syntax error", "folder", "fifo"]


def _break(root: Path, how: str) -> None:
    path = root / "pyproject.toml"
    path.unlink()
    if how == "syntax error":  # mid-edit of cagr's table: it may hold rules
        path.write_text("[project]\nname = 'x'\n[tool.cagr\n")
    elif how == "folder":
        path.mkdir()
        (path / "keep").write_text("x\n")
    else:
        os.mkfifo(path)


@pytest.fixture(params=BREAKS)
def broken(request: pytest.FixtureRequest, feature: Path) -> Path:
    """The feature branch, its edit committed (HEAD's rule fires), with a committed
    pyproject.toml that is then broken in the working tree."""
    write(feature, "pyproject.toml", "[project]\nname = 'x'\ndependencies = []\n")
    commit(feature, "edit the schema source only, and a pyproject")
    _break(feature, request.param)
    return feature


def test_the_working_tree_rules_check_says_the_config_is_invalid(broken: Path, cagr: Cagr) -> None:
    outcome = cagr(broken, "rules", "check")
    assert outcome.code == 2, outcome
    assert "pyproject.toml" in outcome.err
    for command in (("rules", "test"), ("explain", "schema-out")):
        assert cagr(broken, *command).code == 2


def test_a_committed_check_is_judged_by_heads_config(broken: Path, cagr: Cagr) -> None:
    outcome = cagr(broken, "rules", "check", "--committed")
    assert outcome.code == 1, outcome  # HEAD's rule, on HEAD's change
    assert "Change rule schema-out failed" in outcome.out
    assert "it is invalid: pyproject.toml" in outcome.out
    data = json.loads(cagr(broken, "rules", "check", "--committed", "--format", "json").out)
    assert data["status"] == "fail"
    assert data["config_from"] == "HEAD"
    assert data["uncommitted_config"]["note"].startswith("it is invalid: pyproject.toml")
    record = json.loads((broken / ".git" / "cagr" / "gate.json").read_text())
    assert record["report"]["status"] == "fail"


def test_changes_needs_no_rules(broken: Path, cagr: Cagr) -> None:
    for args in (("--base", "main"), ("--committed", "--base", "main")):
        outcome = cagr(broken, "changes", *args)
        assert outcome.code in (0, 3), outcome  # 3 only for what the FIFO leaves unknown
        assert "src/schema.ts" in outcome.out
        assert "invalid" not in outcome.err
    committed = cagr(broken, "changes", "--committed")
    assert committed.code == 0, committed  # HEAD's configuration names no other target


def test_changes_without_base_says_the_target_ignored_the_broken_config(
    broken: Path, cagr: Cagr
) -> None:
    outcome = cagr(broken, "changes")
    assert outcome.code == 3, outcome
    assert "chosen without [git] protected_branch" in outcome.out
    assert "pyproject.toml" in outcome.out


def test_ci_is_judged_by_heads_config(broken: Path) -> None:
    result = cagr_ci(broken, {}, "--base", "main")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Change rule schema-out failed" in result.stdout


def test_doctor_lists_the_problem_and_still_reads_the_gate_record(broken: Path, cagr: Cagr) -> None:
    assert cagr(broken, "rules", "check", "--committed").code == 1
    outcome = cagr(broken, "doctor", "--format", "json")
    assert outcome.code == 2
    data = json.loads(outcome.out)
    assert any("pyproject.toml" in problem for problem in data["config"]["problems"])
    assert data["gate_record"]["state"] == "current"
    assert data["gate_record"]["result"] == "fail"


def test_the_pr_gate_still_denies_on_the_failing_record(broken: Path, cagr: Cagr) -> None:
    assert cagr(broken, "rules", "check", "--committed").code == 1
    answer = hook(payload("claude", 1, broken, command="gh pr create --fill --base main"))
    decision = (answer.json or {}).get("hookSpecificOutput", {}).get("permissionDecision")
    assert decision == "deny", answer.text


def test_the_turn_end_lets_the_agent_stop_and_says_why(broken: Path) -> None:
    answer = hook(payload("claude", 0, broken))
    assert answer.code == 0
    assert "configuration is invalid" in answer.text


def test_rules_in_pyproject_at_head_judge_a_committed_check(feature: Path, cagr: Cagr) -> None:
    rules = (feature / "cagr.toml").read_text()
    (feature / "cagr.toml").unlink()
    write(
        feature, "pyproject.toml", rules.replace("[[changes.rules]]", "[[tool.cagr.changes.rules]]")
    )
    commit(feature, "rules in pyproject, and the edit")
    _break(feature, "syntax error")
    outcome = cagr(feature, "rules", "check", "--committed")
    assert outcome.code == 1, outcome
    assert "Change rule schema-out failed" in outcome.out


def test_no_rules_at_head_and_an_unreadable_working_config_is_unchecked(
    repo: Path, cagr: Cagr
) -> None:
    from tests.support.git import git  # noqa: PLC0415

    git(repo, "init", "-q", "-b", "main")
    write(repo, "pyproject.toml", "[project]\nname = 'x'\n")
    commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, "a.txt", "x\n")
    commit(repo, "work")
    _break(repo, "syntax error")
    outcome = cagr(repo, "rules", "check", "--committed")
    assert outcome.code == 3, outcome  # the working tree may hold rules HEAD lacks
    assert "HEAD has no change rules committed" in outcome.out


def test_an_invalid_config_at_head_is_a_config_error_for_a_committed_check(
    feature: Path, cagr: Cagr
) -> None:
    """The reverse: the working tree's is fixed, HEAD's is not. Nothing can be evaluated."""
    good = (feature / "cagr.toml").read_text()
    write(feature, "cagr.toml", "[[changes.rules]]\n")
    commit(feature, "broken rules")
    write(feature, "cagr.toml", good)
    outcome = cagr(feature, "rules", "check", "--committed")
    assert outcome.code == 2, outcome
    assert "the configuration committed at HEAD is invalid" in outcome.err
    assert cagr(feature, "rules", "check").code == 1  # the working tree's rules judge it
    assert not (feature / ".git" / "cagr" / "gate.json").exists()


def test_the_library_judges_a_committed_check_by_heads_config(broken: Path) -> None:
    import cagr  # noqa: PLC0415

    assert cagr.check(broken, committed=True).report.status == "fail"
    with pytest.raises(cagr.ConfigErrors):
        cagr.check(broken)


def test_the_record_refreshed_after_a_shell_command_is_judged_by_head(
    broken: Path, cagr: Cagr
) -> None:
    after = payload("claude", 1, broken, command="git commit -m x")
    after["hook_event_name"] = "PostToolUse"
    assert hook(after).code == 0
    record = json.loads((broken / ".git" / "cagr" / "gate.json").read_text())
    assert record["report"]["status"] == "fail"  # HEAD's rule, though the working tree's is broken


def test_a_broken_pyproject_that_cannot_hold_cagrs_table_is_not_its_config(
    feature: Path, cagr: Cagr
) -> None:
    """A project's own edit of its manifest, mid-way, is none of cagr's: the rules elsewhere
    judge, and the gate record is not made stale by it."""
    write(feature, "pyproject.toml", "[project]\nname = 'x'\ndependencies = []\n")
    commit(feature, "edit the schema source only, and a pyproject")
    assert cagr(feature, "rules", "check", "--committed").code == 1
    record = (feature / ".git" / "cagr" / "gate.json").read_text()
    (feature / "pyproject.toml").write_text("[project\nname = 'x'\n")
    outcome = cagr(feature, "rules", "check")
    assert outcome.code == 1, outcome  # the rule in cagr.toml still fails; no config error
    assert "pyproject.toml" not in outcome.err
    assert "Sources: " not in outcome.out or "pyproject.toml" not in outcome.out
    doctor = json.loads(cagr(feature, "doctor", "--format", "json").out)
    assert "pyproject.toml" not in doctor["config"]["sources"]
    answer = hook(payload("claude", 1, feature, command="gh pr create -t T -b x"))
    assert "configuration changed" not in answer.text
    assert (feature / ".git" / "cagr" / "gate.json").read_text() == record
