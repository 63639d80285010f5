"""Config that git has but the disk lacks: a sparse checkout without `.cagr/`, or an index entry
marked skip-worktree or assume-unchanged whose file is gone. git counts such a file as
unchanged, so its rules are in force; a working-tree check cannot read them and is unchecked,
naming the file. A committed check reads HEAD's, and CI too; the PR gate keeps using a record
made on these files.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.adversarial import RULE, Outcome
from tests.support.ci import cagr_ci
from tests.support.git import commit, git, write
from tests.support.hooks import hook, payload

Cagr = Callable[..., Outcome]
FRAGMENT = ".cagr/rules.toml"
PYPROJECT = "[project]\nname = 'x'\n\n" + RULE.replace(
    "[[changes.rules]]", "[[tool.cagr.changes.rules]]"
)


def _hide(root: Path, how: str) -> str:
    """Take the rules off the disk while git keeps them; the file that holds them."""
    if how in ("skip-worktree", "assume-unchanged"):
        git(root, "update-index", f"--{how}", "cagr.toml")
        (root / "cagr.toml").unlink()
        return "cagr.toml"
    if how == "pyproject skip-worktree":
        git(root, "update-index", "--skip-worktree", "pyproject.toml")
        (root / "pyproject.toml").unlink()
        return "pyproject.toml"
    if how == "sparse, no cone":
        git(root, "sparse-checkout", "set", "--no-cone", "/*", "!/.cagr/")
    else:  # cone mode keeps the root's files; .cagr/ is a folder it leaves out
        git(root, "sparse-checkout", "set", "--cone", "src", "schema")
    return FRAGMENT


HOW = ["skip-worktree", "assume-unchanged", "pyproject skip-worktree", "sparse, no cone", "cone"]


@pytest.fixture(params=HOW)
def hidden(request: pytest.FixtureRequest, repo: Path) -> tuple[Path, str]:
    """The adversarial setup (src/schema.ts edited on `feature`, its companion not), with the
    rule in cagr.toml, pyproject.toml or a fragment as `how` needs, hidden from the disk."""
    how: str = request.param
    git(repo, "init", "-q", "-b", "main")
    if how.startswith("pyproject"):
        write(repo, "pyproject.toml", PYPROJECT)
    elif how.startswith(("sparse", "cone")):
        write(repo, FRAGMENT, RULE)
    else:
        write(repo, "cagr.toml", RULE)
    write(repo, "src/schema.ts", "one\n")
    write(repo, "schema/out.json", "{}\n")
    commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "feature")
    name = _hide(repo, how)
    assert not (repo / name).exists()
    write(repo, "src/schema.ts", "two\n")
    assert git(repo, "status", "--porcelain").decode().split() == ["M", "src/schema.ts"]
    return repo, name


def test_a_working_tree_check_is_unchecked_and_names_the_file(
    hidden: tuple[Path, str], cagr: Cagr
) -> None:
    root, name = hidden
    outcome = cagr(root, "rules", "check")
    assert outcome.code == 3, outcome
    assert f"{name} is tracked but not in the working tree" in outcome.out
    data = json.loads(cagr(root, "rules", "check", "--format", "json").out)
    assert data["status"] == "unchecked"
    assert any(name in item["message"] for item in data["unchecked"])


def test_a_committed_check_is_judged_by_head_and_says_the_file_is_missing(
    hidden: tuple[Path, str], cagr: Cagr
) -> None:
    root, name = hidden
    commit(root, "edit the schema source only")
    outcome = cagr(root, "rules", "check", "--committed")
    assert outcome.code == 1, outcome  # HEAD's rule fires
    assert "Change rule schema-out failed" in outcome.out
    assert f"{name} is committed but not in the working tree" in outcome.out
    data = json.loads(cagr(root, "rules", "check", "--committed", "--format", "json").out)
    assert data["config_from"] == "HEAD"


def test_the_turn_end_hook_lets_the_agent_stop_with_a_notice_naming_the_file(
    hidden: tuple[Path, str],
) -> None:
    root, name = hidden
    answer = hook(payload("claude", 0, root))
    assert answer.code == 0
    assert f"{name} is tracked but not in the working tree" in answer.text
    assert "could not all be checked" in answer.text


def test_doctor_names_the_file(hidden: tuple[Path, str], cagr: Cagr) -> None:
    root, name = hidden
    outcome = cagr(root, "doctor")
    assert outcome.code == 3, outcome
    assert f"UNCHECKED: {name} is tracked but not in the working tree" in outcome.out


def test_changes_says_the_target_may_not_be_the_configured_one(
    hidden: tuple[Path, str], cagr: Cagr
) -> None:
    root, name = hidden
    outcome = cagr(root, "changes")
    assert outcome.code == 3, outcome
    assert "chosen without [git] protected_branch" in outcome.out
    assert name in outcome.out
    assert cagr(root, "changes", "--base", "main").code == 0  # no configuration needed


def test_ci_in_a_sparse_checkout_is_judged_by_head(hidden: tuple[Path, str]) -> None:
    root, _ = hidden
    commit(root, "edit the schema source only")
    result = cagr_ci(root, {}, "--base", "main")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Change rule schema-out failed" in result.stdout


def test_the_pr_gate_goes_by_a_record_made_on_these_files(hidden: tuple[Path, str]) -> None:
    root, _ = hidden
    commit(root, "edit the schema source only")
    assert hook(payload("claude", 0, root)).code == 0  # the turn end refreshes the record
    answer = hook(payload("claude", 1, root, command="gh pr create --fill --base main"))
    decision = (answer.json or {}).get("hookSpecificOutput", {}).get("permissionDecision")
    assert decision == "deny", answer.text
    assert "schema-out" in answer.text


def test_a_deleted_config_file_is_a_change_git_shows(feature: Path, cagr: Cagr) -> None:
    """Not hidden: a plain deletion is the change removing its rules, reported as such."""
    (feature / "cagr.toml").unlink()
    outcome = cagr(feature, "rules", "check")
    assert outcome.code == 0
    assert "rules removed: schema-out" in outcome.out
    assert "not in the working tree" not in outcome.out


def test_ci_asks_heads_pr_sections_in_a_sparse_checkout(
    hidden: tuple[Path, str], tmp_path: Path
) -> None:
    root, name = hidden
    table = "[tool.cagr.review]" if name == "pyproject.toml" else "[review]"
    git(root, "checkout", "-q", "main")
    git(root, "update-index", "--no-skip-worktree", "--no-assume-unchanged", name)
    git(root, "sparse-checkout", "disable")
    with (root / name).open("a") as handle:
        handle.write(f'\n{table}\npr_sections = ["Summary"]\n')
    commit(root, "every PR needs a summary")
    git(root, "checkout", "-q", "-b", "sections")
    _hide(
        root,
        {"cagr.toml": "skip-worktree", "pyproject.toml": "pyproject skip-worktree"}.get(
            name, "cone"
        ),
    )
    write(root, "schema/out.json", '{"v": 2}\n')
    commit(root, "a change the rule allows")
    body = tmp_path / "body.md"
    body.write_text("No summary heading.\n")
    result = cagr_ci(root, {}, "--base", "main", "--body-file", str(body))
    assert result.returncode == 1, result.stdout + result.stderr
    assert "has no `## Summary` section" in result.stdout


def test_rules_test_says_which_rules_it_could_not_test(
    hidden: tuple[Path, str], cagr: Cagr
) -> None:
    root, name = hidden
    outcome = cagr(root, "rules", "test")
    assert outcome.code == 3, outcome
    assert f"unchecked: {name} is committed at HEAD but not in the working tree" in outcome.out
    data = json.loads(cagr(root, "rules", "test", "--format", "json").out)
    assert (data["status"], data["not_on_disk"]) == ("unchecked", [name])
    explained = cagr(root, "explain", "schema-out")
    assert explained.code == 2
    assert f"{name} is committed at HEAD but not in the working tree" in explained.err


def test_the_session_brief_says_the_rules_on_disk_are_not_all(hidden: tuple[Path, str]) -> None:
    root, name = hidden
    answer = hook(payload("claude", 2, root))
    assert f"{name} is committed but not in this working tree" in answer.text


@pytest.mark.parametrize("how", ["assume-unchanged", "skip-worktree"])
def test_a_trusted_config_file_edited_on_disk_is_unchecked(
    feature: Path, cagr: Cagr, how: str
) -> None:
    """git does not look at the file, so its view keeps the rule; the disk drops it."""
    git(feature, "update-index", f"--{how}", "cagr.toml")
    (feature / "cagr.toml").write_text("# no rules here any more\n")
    if how == "assume-unchanged":  # git sees no change at all
        assert git(feature, "status", "--porcelain").decode().split() == ["M", "src/schema.ts"]
    outcome = cagr(feature, "rules", "check")
    if how == "skip-worktree" and outcome.code == 0:  # git 2.37+ sees a file present on disk
        assert "rules removed: schema-out" in outcome.out  # as an edit: the change says so
        return
    assert outcome.code == 3, outcome
    assert "cagr.toml is not what git has in the working tree" in outcome.out


@pytest.mark.parametrize("attributes", ["", "* text=auto\n"])
def test_line_ends_converted_on_the_way_into_git_are_not_a_difference(
    feature: Path, cagr: Cagr, attributes: str
) -> None:
    if attributes:
        write(feature, ".gitattributes", attributes)
        commit(feature, "normalise line ends")
    git(feature, "config", "core.autocrlf", "true")
    text = (feature / "cagr.toml").read_text()
    (feature / "cagr.toml").write_bytes(text.replace("\n", "\r\n").encode())
    outcome = cagr(feature, "rules", "check")
    assert outcome.code == 1, outcome
    assert "not what git has" not in outcome.out


def test_the_turn_end_with_no_rules_on_disk_still_checks_what_git_has(feature: Path) -> None:
    git(feature, "update-index", "--assume-unchanged", "cagr.toml")
    (feature / "cagr.toml").write_text("# no rules here any more\n")
    answer = hook(payload("claude", 0, feature))
    assert "cagr.toml is not what git has in the working tree" in answer.text
