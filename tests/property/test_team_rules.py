"""Properties of the forms teams need: added-only `require` entries, `target` lists, severity
and waivers — each against a direct oracle over the change set."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from cagr_config.compile import compile_rules
from cagr_config.globs import compile_matcher
from cagr_config.rules import RequireAdded, RequiresRule, Severity, SiblingRule
from cagr_core.changes import Change, ChangeSet
from cagr_core.pull_request import Phase, PrBody
from cagr_core.report import waive
from cagr_core.templates import Template
from tests.property.strategies import changes, plain_component, plain_path, sides
from tests.support.build import side
from tests.support.evaluation import judge

TRIGGER = "src/**"
REQUIRED = "mig/**"
SIBLING_PATHS = ["src/**/*.py"]
TEMPLATES = [
    "{dir}/test_{name}.{ext}",
    "tests/{dir}/test_{name}.{ext}",
    "{dir}/__tests__/{name}.{ext}",
    "{dir}/{name}_test.{ext}",
]
# Paths that fall under the rules' globs, their targets, and elsewhere.
paths = st.one_of(
    st.builds(lambda p: f"src/{p}.py", plain_path),
    st.builds(lambda p: f"src/{p}/test_{p}.py", plain_component),
    st.builds(lambda p: f"tests/src/test_{p}.py", plain_component),
    st.builds(lambda p: f"mig/{p}", plain_path),
    plain_path,
)


@st.composite
def sources_and_targets(draw: st.DrawFn) -> list[Change]:
    """Added sources under src/, each with some of its rendered targets changed in any way
    (added, edited, deleted, turned into a symlink), plus unrelated changes."""
    found = {c.path: c for c in draw(changes(paths))}
    for stem in draw(st.lists(plain_path, min_size=1, max_size=3, unique=True)):
        source = f"src/{stem}.py"
        found[source] = Change(source, None, side(stem))
        for template in TEMPLATES:
            target = Template.parse(template).render(source)
            if target in found or not draw(st.booleans()):
                continue
            old, new = draw(st.none() | sides()), draw(st.none() | sides())
            if old is None and new is None:
                new = draw(sides())
            if old is not None and new is not None and (old.mode, old.oid) == (new.mode, new.oid):
                continue
            found[target] = Change(target, old, new)
    return list(found.values())


def _report(rule: RequiresRule | SiblingRule, found: list[Change]):  # type: ignore[no-untyped-def]
    return judge(compile_rules([rule]), ChangeSet(tuple(found)), PrBody(None), Phase.CI)


class TestAddedRequirement:
    """An added-only entry is met exactly when a matching path was added as a regular file; an
    edit of an existing match never meets it, and a plain glob is met by either."""

    @given(changes(paths), st.booleans())
    def test_met_exactly_when_a_match_was_added(self, found: list[Change], added: bool) -> None:
        entry = RequireAdded(path=REQUIRED, status="added") if added else REQUIRED
        rule = RequiresRule(id="r", paths=[TRIGGER], require=[entry], reason="x")
        fired = any(compile_matcher([TRIGGER]).matches(c.path) for c in found)
        matcher = compile_matcher([REQUIRED])
        met = any(
            matcher.matches(c.path) and c.exists_as_file and (not added or c.old is None)
            for c in found
        )
        report = _report(rule, found)
        assert report.unchecked == ()
        assert bool(report.findings) == (fired and not met)

    @given(changes(paths))
    def test_added_only_is_never_weaker_than_the_plain_glob(self, found: list[Change]) -> None:
        strict = RequiresRule(
            id="r",
            paths=[TRIGGER],
            require=[RequireAdded(path=REQUIRED, status="added")],
            reason="x",
        )
        plain = RequiresRule(id="r", paths=[TRIGGER], require=[REQUIRED], reason="x")
        if _report(plain, found).findings:
            assert _report(strict, found).findings


class TestTargetLists:
    """A list of targets is met when any one rendered target is a regular file in the result;
    one template in a list behaves as that template alone; the order of the list changes no
    verdict; and each template keeps the single-template rules (it never names the added file,
    it never escapes the root)."""

    @given(sources_and_targets(), st.lists(st.sampled_from(TEMPLATES), min_size=1, max_size=4))
    def test_any_one_target_satisfies(self, found: list[Change], chosen: list[str]) -> None:
        rule = SiblingRule(id="s", paths=SIBLING_PATHS, target=chosen, reason="x")
        by_path = {c.path: c for c in found}
        selector = compile_matcher(SIBLING_PATHS)
        expected = set()
        for change in found:
            if change.old is not None or change.new is None or not selector.matches(change.path):
                continue
            targets = [Template.parse(t).render(change.path) for t in chosen]
            if not any(t in by_path and by_path[t].exists_as_file for t in targets):
                expected.add(change.path)
        report = _report(rule, found)
        assert report.unchecked == ()
        assert {f.paths[0] for f in report.findings} == expected
        for finding in report.findings:
            assert set(finding.targets) <= {
                Template.parse(t).render(finding.paths[0]) for t in chosen
            }
            assert all(t in finding.message for t in finding.targets)

    @given(sources_and_targets(), st.sampled_from(TEMPLATES))
    def test_a_list_of_one_is_the_template_alone(self, found: list[Change], source: str) -> None:
        alone = _report(SiblingRule(id="s", paths=SIBLING_PATHS, target=source, reason="x"), found)
        listed = _report(
            SiblingRule(id="s", paths=SIBLING_PATHS, target=[source], reason="x"), found
        )
        assert alone == listed

    @given(sources_and_targets(), st.permutations(TEMPLATES))
    def test_order_changes_no_verdict(self, found: list[Change], order: list[str]) -> None:
        first = _report(
            SiblingRule(id="s", paths=SIBLING_PATHS, target=TEMPLATES, reason="x"), found
        )
        other = _report(SiblingRule(id="s", paths=SIBLING_PATHS, target=order, reason="x"), found)
        assert [f.paths[0] for f in first.findings] == [f.paths[0] for f in other.findings]
        assert [set(f.targets) for f in first.findings] == [set(f.targets) for f in other.findings]

    @given(st.lists(st.sampled_from(TEMPLATES), min_size=1, max_size=4), plain_path)
    def test_each_template_keeps_the_template_rules(self, chosen: list[str], stem: str) -> None:
        path = f"src/{stem}.py"
        rule = SiblingRule(id="s", paths=SIBLING_PATHS, target=chosen, reason="x")
        report = _report(rule, [Change(path, None, side("x"))])
        (finding,) = report.findings
        assert path not in finding.targets
        for target in finding.targets:
            assert not target.startswith("/")
            assert all(part not in ("", ".", "..") for part in target.split("/"))

    @given(plain_path)
    def test_a_template_that_cannot_render_leaves_it_unchecked(self, stem: str) -> None:
        """`{ext}` on a path without one: never a finding that may be wrong, never a pass."""
        path = f"src/{stem}"
        rule = SiblingRule(
            id="s",
            paths=["src/**"],
            target=["{dir}/{name}.test.{ext}", "{dir}/tests/{name}"],
            reason="x",
        )
        report = _report(rule, [Change(path, None, side("x"))])
        assert report.findings == ()
        assert report.status == "unchecked"


class TestSeverityAndWaivers:
    """`warn` findings never change the verdict; a waiver moves exactly the findings of rules
    whose label is present, and never turns a report into a pass."""

    @given(changes(paths), st.sampled_from(list(Severity)))
    def test_warn_never_fails(self, found: list[Change], severity: Severity) -> None:
        rule = RequiresRule(
            id="r", paths=[TRIGGER], require=[REQUIRED], reason="x", severity=severity
        )
        report = _report(rule, found)
        if severity is Severity.WARN:
            assert report.status == "pass"
            assert all(f.severity is Severity.WARN for f in report.findings)
        else:
            assert report.status == ("fail" if report.findings else "pass")

    @given(changes(paths), st.frozensets(st.sampled_from(["a", "b", "fix"])))
    def test_waive_moves_only_labelled_rules(
        self, found: list[Change], labels: frozenset[str]
    ) -> None:
        rules = [
            RequiresRule(
                id="r", paths=[TRIGGER], require=[REQUIRED], reason="x", waive_label="fix"
            ),
            SiblingRule(id="s", paths=SIBLING_PATHS, target=TEMPLATES[0], reason="y"),
        ]
        report = judge(compile_rules(rules), ChangeSet(tuple(found)), PrBody(None), Phase.CI)
        after = waive(report, labels)
        assert len(after.findings) + len(after.waived) == len(report.findings)
        assert all(w.finding.rule == "r" and w.label == "fix" for w in after.waived)
        assert bool(after.waived) == (
            "fix" in labels and any(f.rule == "r" for f in report.findings)
        )
        if after.waived:
            assert after.status in ("waived", "fail")
        else:
            assert after.status == report.status
