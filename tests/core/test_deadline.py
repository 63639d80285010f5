"""The caller's deadline: undecided rules are unchecked, what was found before it stands."""

import itertools
import sys
from collections.abc import Callable
from unittest import mock

from cagr_config.compile import compile_rules
from cagr_config.rules import AddOnlyRule, RequiresRule
from cagr_core.changes import ChangeSet, Stage, Unchecked
from cagr_core.pull_request import Phase, PrBody
from cagr_core.render import render_text
from tests.support.build import RANGE, modified
from tests.support.evaluation import judge

EVALUATE = sys.modules["cagr_core.evaluator"]
FROZEN = AddOnlyRule(id="a-frozen", paths=["migrations/**"], reason="Add a new migration.")
CHANGELOG = RequiresRule(
    id="b-changelog", paths=["src/**"], require=["/CHANGELOG.md"], reason="Add an entry."
)
MESSAGE = (
    "the time for this check ran out before this rule was decided. Run `cagr rules check`"
    " to decide it without the time limit."
)


def _after(answers: int) -> Callable[[], bool]:
    """A deadline that passes once it has been asked `answers` times."""
    count = itertools.count(1)
    return lambda: next(count) > answers


def _check(changes: ChangeSet, expired: Callable[[], bool]) -> tuple[set[str], int]:
    """The undecided rules and the number of findings."""
    report = judge(
        compile_rules([FROZEN, CHANGELOG]), changes, PrBody(None), Phase.CI, expired=expired
    )
    undecided = {u.rule for u in report.unchecked if u.stage is Stage.DEADLINE and u.rule}
    assert report.status != "pass" or not undecided
    return undecided, len(report.findings)


def test_a_passed_deadline_leaves_every_rule_unchecked() -> None:
    report = judge(
        compile_rules([FROZEN, CHANGELOG]),
        ChangeSet((), RANGE),
        PrBody(None),
        Phase.CI,
        expired=lambda: True,
    )
    assert report.unchecked == (
        Unchecked("a-frozen", Stage.DEADLINE, MESSAGE),
        Unchecked("b-changelog", Stage.DEADLINE, MESSAGE),
    )
    assert report.status == "unchecked"
    assert "Unchecked (deadline): change rule a-frozen: the time for this check ran out" in (
        render_text(report)
    )


def test_no_deadline_and_one_that_never_passes_agree() -> None:
    changes = ChangeSet((modified("migrations/001.sql"), modified("src/a.ts")), RANGE)
    assert _check(changes, lambda: False) == (set(), 2)


def test_long_loops_ask_periodically() -> None:
    # Asked before the first rule (not yet), then again within the walk over the paths.
    changes = ChangeSet(tuple(modified(f"migrations/{n:04}.sql") for n in range(1000)), RANGE)
    assert _check(changes, _after(1)) == ({"a-frozen", "b-changelog"}, 0)


def test_every_cut_keeps_what_was_found_and_leaves_the_rest_unchecked() -> None:
    changes = ChangeSet(
        (
            modified("migrations/001.sql"),
            modified("migrations/002.sql"),
            modified("migrations/003.sql"),
            modified("src/a.ts"),
        ),
        RANGE,
    )
    seen = []
    with mock.patch.object(EVALUATE, "_CHECK_EVERY", 1):  # ask at every step
        for answers in range(40):
            seen.append(_check(changes, _after(answers)))
    assert seen[-1] == (set(), 4)  # enough time: three add_only findings and the requires one
    assert seen[0] == ({"a-frozen", "b-changelog"}, 0)  # no time at all
    # Cut inside the add_only rule, after some of its findings: they are kept.
    assert any(undecided == {"a-frozen", "b-changelog"} and 0 < n < 3 for undecided, n in seen)
    # Cut after the first rule was decided: its findings are all there.
    assert ({"b-changelog"}, 3) in seen
    # Findings only ever grow with more time.
    counts = [n for _, n in seen]
    assert counts == sorted(counts)
