"""A target that cannot name one commit is a usage error (exit 2, with a message, in text and
JSON), said before anything is read: never "unchecked" (3), which reads as a check that ran."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.adversarial import Outcome
from tests.support.git import commit

Cagr = Callable[..., Outcome]
NOT_A_TARGET = [
    "main..x",
    "main...x",
    "main@{1}",
    "@{-1}",
    "main:cagr.toml",
    "-x",
    "--all",
    "^main",
]
NOT_A_COMMIT = ["main^{tree}", "main^{/fix}", "main~1^{blob}"]
COMMANDS = [
    ("rules", "check"),
    ("rules", "check", "--committed"),
    ("changes",),
    ("changes", "--committed"),
    ("ci",),
]


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
@pytest.mark.parametrize("base", NOT_A_TARGET)
def test_a_base_that_names_no_commit_is_a_usage_error(
    feature: Path, cagr: Cagr, command: tuple[str, ...], base: str
) -> None:
    outcome = cagr(feature, *command, f"--base={base}")
    assert outcome.code == 2, outcome
    assert f"--base {base!r} is not a revision cagr can read as one commit" in outcome.err
    data = json.loads(cagr(feature, *command, "--format", "json", f"--base={base}").out)
    assert data["status"] == "error"
    assert "is not a revision cagr can read as one commit" in data["errors"][0]["message"]


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_a_blank_base_is_a_usage_error_everywhere(
    feature: Path, cagr: Cagr, command: tuple[str, ...]
) -> None:
    outcome = cagr(feature, *command, "--base", " ")
    assert outcome.code == 2, outcome
    assert "--base is empty" in outcome.err


def test_a_base_given_as_an_option_is_a_usage_error(feature: Path, cagr: Cagr) -> None:
    outcome = cagr(feature, "rules", "check", "--base", "-x")
    assert outcome.code == 2
    assert "--base" in outcome.err


@pytest.mark.parametrize("branch", ["main..x", "main@{1}", "main:cagr.toml", "-x"])
@pytest.mark.parametrize(
    "command", [("rules", "check"), ("rules", "check", "--committed"), ("doctor",)], ids=" ".join
)
def test_a_protected_branch_that_names_no_commit_is_a_config_error(
    feature: Path, cagr: Cagr, branch: str, command: tuple[str, ...]
) -> None:
    with (feature / "cagr.toml").open("a") as handle:
        handle.write(f"\n[git]\nprotected_branch = {json.dumps(branch)}\n")
    commit(feature, "a protected branch")
    outcome = cagr(feature, *command)
    assert outcome.code == 2, outcome
    assert "git.protected_branch" in outcome.err + outcome.out
    assert "is not a revision cagr can read as one commit" in outcome.err + outcome.out


def test_revisions_that_name_one_commit_still_work(feature: Path, cagr: Cagr) -> None:
    commit(feature, "edit")
    for base in ("main", "HEAD~1", "main~0", "main^{commit}", "refs/heads/main"):
        assert cagr(feature, "rules", "check", "--committed", f"--base={base}").code in (0, 1)


@pytest.mark.parametrize("base", NOT_A_COMMIT)
def test_a_base_peeled_to_something_else_than_a_commit_is_a_usage_error(
    feature: Path, cagr: Cagr, base: str
) -> None:
    outcome = cagr(feature, "rules", "check", f"--base={base}")
    assert outcome.code == 2, outcome
    assert "a change's target is a commit" in outcome.err
