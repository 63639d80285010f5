"""Configuration cagr does not read is said, never read as "no rules": a git directory has no
work tree to read it from (exit 2), a fragment named `.TOML` is a problem in every check, and a
`cagr.toml` below the root is named beside "0 rule(s) checked"."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.adversarial import Outcome, run_process
from tests.support.git import commit, git, write

Cagr = Callable[..., Outcome]
GIT_DIRECTORY = "is in git's own directory"


@pytest.mark.parametrize("args", [("rules", "test"), ("explain",), ("explain", "schema-out")])
def test_inside_dot_git_nothing_is_said_to_be_configured(
    feature: Path, args: tuple[str, ...]
) -> None:
    outcome = run_process(list(args), feature / ".git")
    assert outcome.code == 2, outcome  # before: 0, "no change rules are configured"
    assert GIT_DIRECTORY in outcome.err


def test_nor_in_a_bare_repository(feature: Path, tmp_path: Path) -> None:
    commit(feature, "edit")
    git(tmp_path, "clone", "-q", "--bare", str(feature), "bare.git")
    for args in (["rules", "test"], ["explain"]):
        outcome = run_process(args, tmp_path / "bare.git")
        assert outcome.code == 2, outcome
        assert GIT_DIRECTORY in outcome.err


def test_a_fragment_named_dot_toml_in_capitals_is_a_problem_in_every_check(
    feature: Path, cagr: Cagr
) -> None:
    rules = (feature / "cagr.toml").read_text()
    (feature / "cagr.toml").unlink()
    write(feature, ".cagr/changes.TOML", rules)
    commit(feature, "rules in a fragment cagr does not read")
    said = ".cagr/changes.TOML: is not read: a fragment is read only when its name ends in .toml"
    for args in (("rules", "test"), ("rules", "check"), ("rules", "check", "--committed")):
        outcome = cagr(feature, *args)
        assert outcome.code == 2, outcome  # before: 0, or "commit your rules" (3)
        assert said in outcome.err
    ci = run_process(["ci", "--base", "main"], feature)
    assert ci.code == 2, ci
    assert said in ci.out + ci.err


def test_a_cagr_toml_below_the_root_is_named(feature: Path, cagr: Cagr) -> None:
    git(feature, "checkout", "-q", "--", "src/schema.ts")
    git(feature, "checkout", "-q", "main")
    rules = (feature / "cagr.toml").read_text()
    (feature / "cagr.toml").unlink()
    write(feature, "service/cagr.toml", rules)
    commit(feature, "rules in a subfolder")
    git(feature, "checkout", "-q", "feature")
    git(feature, "rebase", "-q", "main")
    write(feature, "src/schema.ts", "two\n")
    said = "service/cagr.toml is not read: cagr reads cagr.toml, .cagr/**/*.toml"
    tested = cagr(feature, "rules", "test")
    assert tested.code == 0
    assert said in tested.out  # before: only "no change rules are configured"
    checked = cagr(feature, "rules", "check", "--format", "json")
    assert said in json.loads(checked.out)["not_read"]
    text = cagr(feature, "rules", "check").out
    assert said in text
    assert "0 rule(s) checked" in text
    commit(feature, "edit")
    ci = run_process(["ci", "--base", "main"], feature)
    assert ci.code == 0, ci
    assert said in ci.out
