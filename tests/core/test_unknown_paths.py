"""Paths whose change could not be read: only the rules that look at them go undecided."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from cagr_config.compile import compile_rules
from cagr_core.changes import ChangeSet, Stage, Unchecked
from cagr_core.pull_request import Phase, PrBody
from tests.support.build import added, modified
from tests.support.evaluation import judge
from tests.support.rules import GUARDS, MIGRATIONS, SCHEMA

RULES = compile_rules([SCHEMA, GUARDS, MIGRATIONS])


def unknown(path: str) -> Unchecked:
    return Unchecked(None, Stage.COLLECT, f"{path}: git applies `filter=lfs` to it.", path)


def check(*changes, gaps: tuple[Unchecked, ...] = ()):  # type: ignore[no-untyped-def]
    return judge(RULES, ChangeSet(changes, unchecked=gaps), PrBody(None), Phase.CI)


def test_an_unknown_path_no_rule_looks_at_changes_nothing() -> None:
    report = check(modified("src/config/schema.ts"), gaps=(unknown("assets/logo.png"),))
    assert report.status == "fail"
    assert [f.rule for f in report.findings] == ["schema-companion"]
    assert report.unchecked == ()


def test_an_unknown_companion_leaves_that_rule_undecided() -> None:
    report = check(modified("src/config/schema.ts"), gaps=(unknown("schema/cagr.schema.json"),))
    assert report.findings == ()
    (item,) = report.unchecked
    assert (item.rule, item.path) == ("schema-companion", "schema/cagr.schema.json")
    assert item.message.endswith("This rule looks at that path, so it was not decided.")


def test_an_unknown_trigger_leaves_that_rule_undecided() -> None:
    report = check(gaps=(unknown("migrations/001.sql"),))
    assert [u.rule for u in report.unchecked] == ["immutable-migrations"]


def test_an_unknown_sibling_target_leaves_that_rule_undecided() -> None:
    report = check(added("src/guards/new.ts"), gaps=(unknown("src/guards/new.test.ts"),))
    assert report.status == "unchecked"
    assert [u.rule for u in report.unchecked] == ["guard-tests"]


def test_a_whole_set_gap_still_decides_nothing() -> None:
    whole = Unchecked(None, Stage.COLLECT, "unresolved conflicts in x.")
    report = check(modified("src/config/schema.ts"), gaps=(whole,))
    assert report.findings == ()
    assert report.unchecked == (whole,)


class TestNeverAPassOnUnknownInput:
    """A rule that looks at an unknown path never passes; the other rules decide as before."""

    @given(
        st.lists(
            st.sampled_from(
                [
                    "src/config/schema.ts",
                    "schema/cagr.schema.json",
                    "src/guards/a.ts",
                    "src/guards/a.test.ts",
                    "migrations/001.sql",
                    "README.md",
                ]
            ),
            unique=True,
        ),
        st.sampled_from(
            ["schema/cagr.schema.json", "src/guards/a.test.ts", "migrations/002.sql", "docs/x.md"]
        ),
    )
    def test_property(self, present: list[str], gap: str) -> None:
        changes = tuple(added(p) if "guards" in p else modified(p) for p in present if p != gap)
        with_gap = check(*changes, gaps=(unknown(gap),))
        without = check(*changes)
        undecided = {u.rule for u in with_gap.unchecked}
        for finding in without.findings:
            assert finding.rule in undecided or finding in with_gap.findings
        assert {f.rule for f in with_gap.findings}.isdisjoint(undecided)
        assert [f for f in without.findings if f.rule not in undecided] == list(with_gap.findings)
