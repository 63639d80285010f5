"""Further hardening: a BOM, impossible fixture paths, and a branch that edits cagr's own
configuration."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.adversarial import RULE, Outcome
from tests.support.git import commit, git, write

Cagr = Callable[..., Outcome]


@pytest.mark.parametrize("name", ["cagr.toml", "pyproject.toml", ".cagr/rules.toml"])
def test_byte_order_mark(feature: Path, cagr: Cagr, name: str) -> None:
    text = (feature / "cagr.toml").read_text()
    (feature / "cagr.toml").unlink()
    (feature / name).parent.mkdir(exist_ok=True)
    if name == "pyproject.toml":
        text = text.replace("[[changes.rules]]", "[[tool.cagr.changes.rules]]")
    (feature / name).write_bytes(b"\xef\xbb\xbf" + text.encode())
    for args in (("rules", "check"), ("rules", "test")):
        outcome = cagr(feature, *args)
        assert outcome.code == 2
        assert f"{name}: starts with a byte-order mark" in outcome.err
        assert "remove it" in outcome.err


def _with_valid_example(root: Path, changes: str) -> None:
    text = (root / "cagr.toml").read_text()
    text = text.replace("examples.valid = [", f"examples.valid = [{{ changes = [{changes}] }}, ", 1)
    (root / "cagr.toml").write_text(text)


@pytest.mark.parametrize(
    "changes",
    [
        '{ path = "../x", status = "A" }',
        '{ path = "a//b", status = "A" }',
        '{ path = "./a", status = "A" }',
        '{ path = "a/./b", status = "A" }',
        '{ path = "a/", status = "A" }',
        '{ path = "a", status = "M" }, { path = "a/b", status = "A" }',
        '{ path = "a", status = "D" }, { path = "a/b/c", status = "D" }',
    ],
)
def test_impossible_fixture_paths_are_config_errors(
    feature: Path, cagr: Cagr, changes: str
) -> None:
    _with_valid_example(feature, changes)
    for args in (("rules", "test"), ("rules", "check")):
        outcome = cagr(feature, *args)
        assert outcome.code == 2, outcome
        assert "examples.valid[0]" in outcome.err


@pytest.mark.parametrize(
    "changes",
    [
        '{ path = "a", status = "D" }, { path = "a/b", status = "A" }',  # file became a folder
        '{ path = "a/b", status = "D" }, { path = "a", status = "A" }',  # folder became a file
    ],
)
def test_a_file_replaced_by_a_folder_is_a_possible_fixture(
    feature: Path, cagr: Cagr, changes: str
) -> None:
    _with_valid_example(feature, changes)
    assert cagr(feature, "rules", "test").code == 0


def _json(cagr: Cagr, root: Path, *args: str) -> dict:
    return json.loads(cagr(root, "rules", "check", "--format", "json", *args).out)


def test_a_branch_that_deletes_its_rules_is_told_so(feature: Path, cagr: Cagr) -> None:
    (feature / "cagr.toml").unlink()
    outcome = cagr(feature, "rules", "check")
    assert outcome.code == 0  # reading the checkout's config is the design: visible, not hidden
    assert "This change edits cagr's own configuration (cagr.toml)" in outcome.out
    assert "rules removed: schema-out" in outcome.out
    data = _json(cagr, feature)
    assert data["config_changes"]["rules_removed"] == ["schema-out"]
    assert data["config_changes"]["files"] == ["cagr.toml"]


def test_a_branch_that_names_itself_the_protected_branch(feature: Path, cagr: Cagr) -> None:
    with (feature / "cagr.toml").open("a") as handle:
        handle.write('\n[git]\nprotected_branch = "feature"\n')
    commit(feature, "switch it off")
    outcome = cagr(feature, "rules", "check", "--committed")
    assert outcome.code == 0  # an empty range: the branch is compared with itself, and says so
    assert "settings changed: git.protected_branch" in outcome.out
    assert "names feature, the branch being checked" in outcome.out
    record = json.loads((feature / ".git" / "cagr" / "gate.json").read_text())
    assert record["report"]["config_changes"]["settings_changed"] == ["git.protected_branch"]


def test_added_and_changed_rules_and_fragments(feature: Path, cagr: Cagr) -> None:
    text = (feature / "cagr.toml").read_text()
    (feature / "cagr.toml").write_text(text.replace("Regenerate", "Please regenerate"))
    (feature / ".cagr").mkdir()
    (feature / ".cagr" / "more.toml").write_text(text.replace('"schema-out"', '"another"'))
    data = _json(cagr, feature)
    assert data["config_changes"] == {
        "files": [".cagr/more.toml", "cagr.toml"],
        "rules_added": ["another"],
        "rules_removed": [],
        "rules_changed": ["schema-out"],
        "settings_changed": [],
        "note": None,
    }


def test_no_note_when_the_rules_are_the_same(feature: Path, cagr: Cagr) -> None:
    with (feature / "cagr.toml").open("a") as handle:
        handle.write("\n# a comment only\n")
    write(feature, "pyproject.toml", "[project]\nname = 'x'\n")
    assert _json(cagr, feature)["config_changes"] is None
    assert "own configuration" not in cagr(feature, "rules", "check").out


def test_an_invalid_configuration_at_the_merge_base_is_said(feature: Path, cagr: Cagr) -> None:
    git(feature, "checkout", "-q", "main")
    write(feature, "cagr.toml", "[[changes.rules]]\n")
    commit(feature, "broken rules on main")
    git(feature, "checkout", "-q", "-b", "fix")
    (feature / "cagr.toml").write_text(RULE)
    data = _json(cagr, feature)
    assert data["config_changes"]["note"].startswith("its rules at the merge base are not valid")
