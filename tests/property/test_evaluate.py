"""Invariants of the evaluator over generated change sets."""

from hypothesis import given
from hypothesis import strategies as st

from cagr_config.compile import compile_rules
from cagr_config.rules import AddOnlyRule, PrBodyRule, RequiresRule, SiblingRule
from cagr_core.changes import Change, ChangeSet, Stage, Unchecked
from cagr_core.pull_request import Phase, PrBody
from tests.property.strategies import changes, repo_path
from tests.support.build import added
from tests.support.evaluation import judge

RULES = [
    RequiresRule(id="req", paths=["src/**"], require=["gen/**", "/CHANGELOG.md"], reason="Do it."),
    AddOnlyRule(id="frozen", paths=["migrations/**"], reason="Add a new migration."),
    SiblingRule(
        id="sib",
        paths=["src/**/*.py"],
        ignores=["test_*"],
        target="tests/{dir}/test_{name}.{ext}",
        reason="Add a test.",
    ),
    PrBodyRule(id="body", paths=["*.json"], section="Risk", reason="Explain the risk."),
]
paths = st.one_of(
    repo_path,
    st.sampled_from(
        [
            "src/a.py",
            "src/b/c.py",
            "tests/src/test_a.py",
            "gen/x",
            "CHANGELOG.md",
            "migrations/001.sql",
            "package.json",
        ]
    ),
)
bodies = st.sampled_from([None, "", "## Risk\nLow.", "## Risk\nTODO"])


class TestOrderIndependence:
    """Rule order and change order do not change the report."""

    @given(changes(paths), bodies, st.sampled_from(Phase), st.randoms(use_true_random=False))
    def test_permutations(
        self, items: list[Change], body: str | None, phase: Phase, rng: object
    ) -> None:
        rules, shuffled_rules = RULES[:], RULES[:]
        shuffled = items[:]
        rng.shuffle(shuffled)  # type: ignore[attr-defined]
        rng.shuffle(shuffled_rules)  # type: ignore[attr-defined]
        first = judge(compile_rules(rules), ChangeSet(tuple(items)), PrBody(body), phase)
        second = judge(
            compile_rules(shuffled_rules), ChangeSet(tuple(shuffled)), PrBody(body), phase
        )
        assert first == second


class TestNeverAFalsePass:
    """An incomplete snapshot or an exceeded cap is never a pass, and never crashes."""

    @given(changes(paths))
    def test_incomplete_change_set_is_unchecked(self, items: list[Change]) -> None:
        gap = Unchecked(None, Stage.COLLECT, "conflicts")
        report = judge(
            compile_rules(RULES), ChangeSet(tuple(items), unchecked=(gap,)), PrBody(""), Phase.CI
        )
        assert report.status == "unchecked"
        assert report.findings == ()

    @given(changes(paths), bodies)
    def test_turn_end_never_fails_on_the_body(self, items: list[Change], body: str | None) -> None:
        report = judge(compile_rules(RULES), ChangeSet(tuple(items)), PrBody(body), Phase.TURN)
        assert all(f.kind != "pr_body" for f in report.findings)

    @given(changes(paths))
    def test_adding_the_companions_never_adds_findings(self, items: list[Change]) -> None:
        rules = compile_rules(RULES[:1])
        before = judge(rules, ChangeSet(tuple(items)), PrBody(None), Phase.CI)
        taken = {c.path for c in items}
        extra = tuple(added(p) for p in ("gen/x", "CHANGELOG.md") if p not in taken)
        after = judge(rules, ChangeSet(tuple(items) + extra), PrBody(None), Phase.CI)
        assert len(after.findings) <= len(before.findings)
