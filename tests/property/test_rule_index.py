"""The indexed evaluator against the naive one: the same Report, always; and the deadline."""

from __future__ import annotations

import itertools
import sys
from collections.abc import Callable
from typing import Any
from unittest import mock

from hypothesis import given
from hypothesis import strategies as st
from wcmatch.glob import escape

from cagr_config.compile import compile_rules
from cagr_config.globs import check_pattern, compile_matcher
from cagr_config.rules import AddOnlyRule, PrBodyRule, RequiresRule, Rule, SiblingRule
from cagr_core.changes import ChangeSet, Stage, Unchecked
from cagr_core.errors import PatternError
from cagr_core.evaluator import _evaluate_naive, evaluate
from cagr_core.pull_request import Phase, PrBody
from cagr_core.report import Report
from cagr_core.rule_index import RuleIndex
from cagr_core.ruleset import RuleSet
from cagr_core.templates import RenderError, Template
from cagr_core.when import When
from cagr_manifests import read_changes
from cagr_markdown import parsed
from tests.property.strategies import changes, component, sides
from tests.support.evaluation import judge

EVALUATE = sys.modules["cagr_core.evaluator"]

# Path components that the patterns below often match, and odd ones (glob characters, spaces,
# escapes, dots) that they must not match by accident.
NAMES = (
    "a",
    "b",
    "ab",
    "src",
    "lib",
    "x.ts",
    "y.test.ts",
    "x.test.ts",
    "a.b.c",
    ".hidden",
    "package.json",
    "CHANGELOG.md",
    "migrations",
    "001.sql",
    "1",
    "x",
)
path_component = st.one_of(st.sampled_from(NAMES), component)
random_paths = st.lists(path_component, min_size=1, max_size=4).map("/".join)
# Paths a git tree never holds, but a Change or an unreadable path's name may: wcmatch treats
# empty, `.` and `..` components specially, so the index must leave them to it.
odd_paths = st.lists(st.sampled_from(["a", "", ".", "..", "x.ts"]), min_size=2, max_size=4).map(
    "/".join
)

# Pattern components, with path components each matches: literal (plain and escaped), `*`, `**`
# (start, middle, end), `?`, classes, braces (with a slash inside, empty, single, nested, ranges)
# and literal braces.
PIECES = {
    "a": ("a",),
    "b": ("b",),
    "src": ("src",),
    "lib": ("lib",),
    "migrations": ("migrations",),
    "package.json": ("package.json",),
    ".hidden": (".hidden",),
    "*": ("x", "ab", ".hidden"),
    "**": ("", "a", "src/b", ".hidden/x"),
    "?": ("a", "1"),
    "a?": ("ab",),
    "[ab]": ("a", "b"),
    "[!a]*": ("b", "x.ts"),
    "[a-c]*": ("ab", "c"),
    "*.ts": ("x.ts", ".ts", "y.test.ts"),
    "*.test.ts": ("y.test.ts",),
    "x.*": ("x.ts", "x."),
    "a*": ("a", "ab"),
    "*b": ("b", "ab"),
    "{a,b}": ("a", "b"),
    "{src,lib/a}": ("src", "lib/a"),
    "{x,y}.ts": ("x.ts",),
    "*.{ts,sql}": ("x.ts", "001.sql"),
    "{a,}": ("a", ""),
    "{a,{b,src}}": ("src", "b"),
    "{1..3}": ("1", "2"),
    "a{b}c": ("a{b}c",),
    "\\*": ("*",),
    "\\[ab]": ("[ab]",),
}
# Escaped odd names are few: a pattern with an escape is tried on every path, which would hide
# the index's mistakes on the group's other patterns.
piece = st.integers(0, 9).flatmap(
    lambda roll: (
        component.map(lambda name: (escape(name), (name,)))
        if roll == 0
        else st.sampled_from(sorted(PIECES.items()))
    )
)


@st.composite
def pattern_and_path(draw: st.DrawFn) -> tuple[str, str]:
    """A pattern, and a path built to match it (mostly: brace and `**` pieces can leave an
    empty component, which the pattern then does not match)."""
    anchored = draw(st.booleans())
    pieces = draw(st.lists(piece, min_size=1, max_size=4))
    pattern = ("/" if anchored else "") + "/".join(text for text, _ in pieces)
    parts = [draw(st.sampled_from(matching)) for _, matching in pieces]
    if not anchored and len(pieces) == 1:  # a basename pattern: any folder may come before
        parts.insert(0, draw(st.sampled_from(["", "a", "src/x", ".hidden"])))
    path = "/".join(part for part in parts if part)
    return pattern, path or "a"


def _valid(pattern: str) -> bool:
    try:
        check_pattern(pattern)
        compile_matcher([pattern])
    except (PatternError, ValueError):
        return False
    return True


valid_pattern_and_path = pattern_and_path().filter(lambda pair: _valid(pair[0]))
TARGETS = ("{dir}/{name}.test.{ext}", "tests/{name}.py", "{dir}/x", "src/{name}.{ext}.md")
# Named parts: a trigger pattern, a companion filled in from it, and paths for both.
NAMED = (
    ("src/{p}/*.ts", "lib/{p}/*.ts", ("src/a/x.ts", "src/b/x.ts", "lib/a/y.ts", "lib/b/x.ts")),
    ("{p}/**/a", "{p}.md", ("src/a", "lib/b/a", "src.md", "lib.md", "a.md")),
    ("**/{p}/package.json", "{p}/x", ("a/package.json", "b/a/package.json", "a/x", "b/x")),
    ("a/{p}/{q}.ts", "b/{q}/{p}", ("a/src/x.ts", "a/lib/x.ts", "b/x/src", "b/x/lib")),
)
MANIFESTS = ("a", "{}", '{"dependencies": {"x": "1"}}', '{"dependencies": {"x": "1", "y": "2"}}')


def _rendered(template: Template, paths: list[str]) -> list[str]:
    """The sibling targets of these paths, for those that have one."""
    targets = []
    for path in paths:
        try:
            targets.append(template.render(path))
        except RenderError:
            continue
    return targets


@st.composite
def rules_and_paths(draw: st.DrawFn) -> tuple[list[Rule], list[str]]:
    """Rules of all four kinds, and paths their patterns (and sibling targets) would match."""
    pool: list[str] = []

    def some(min_size: int) -> list[str]:
        pairs = draw(st.lists(valid_pattern_and_path, min_size=min_size, max_size=3))
        pool.extend(path for _, path in pairs)
        return [pattern for pattern, _ in pairs]

    out: list[Rule] = []
    for number in range(draw(st.integers(1, 6))):
        common: dict[str, Any] = {
            "id": f"r{number}",
            "paths": some(1),
            "ignores": some(0),
            "reason": "Fix it.",
        }
        kind = draw(st.sampled_from(["requires", "add_only", "sibling", "pr_body", "named"]))
        if kind == "named":
            paths, require, examples = draw(st.sampled_from(NAMED))
            pool.extend(examples)
            named = {**common, "paths": [paths], "require": [require]}
            out.append(RequiresRule(**named, when=draw(st.sampled_from(When))))
        elif kind == "requires":
            out.append(RequiresRule(**common, require=some(1), when=draw(st.sampled_from(When))))
        elif kind == "add_only":
            out.append(AddOnlyRule(**common))
        elif kind == "sibling":
            target = draw(st.sampled_from(TARGETS))
            out.append(SiblingRule(**common, target=target))
            pool.extend(_rendered(Template.parse(target), pool))
        else:
            out.append(
                PrBodyRule(
                    **common,
                    section="Risk",
                    contains=draw(st.sampled_from([None, "Risk:"])),
                    when=draw(st.sampled_from(When)),
                )
            )
    return out, pool


@st.composite
def change_sets(draw: st.DrawFn, pool: list[str]) -> ChangeSet:
    """Changes and unreadable paths, mostly from the pool, some random, some odd."""
    from_pool = st.sampled_from(pool)
    paths = st.one_of(from_pool, from_pool, random_paths)
    known = draw(changes(paths, sides(MANIFESTS)))
    taken = {change.path for change in known}
    # Unreadable paths block the rules that look at them: in about half the cases only.
    unreadable = draw(st.just([]) | st.lists(paths | odd_paths, max_size=3, unique=True))
    unknown = tuple(
        Unchecked(None, Stage.COLLECT, f"cannot read {path}.", path)
        for path in unreadable
        if path not in taken
    )
    return ChangeSet(tuple(known), unchecked=unknown)


bodies = st.sampled_from(
    [None, "", "## Risk\nLow.", "## Risk\nRisk: low, it is a test.", "## Risk"]
)
Case = tuple[RuleSet, ChangeSet, PrBody, Phase]


@st.composite
def cases(draw: st.DrawFn) -> Case:
    rule_list, pool = draw(rules_and_paths())
    change_set = draw(change_sets(pool))
    rules = compile_rules(rule_list)
    # As the check service gives them: manifests read, the body parsed.
    return (
        rules,
        read_changes(rules, change_set),
        parsed(PrBody(draw(bodies))),
        draw(st.sampled_from(Phase)),
    )


class TestIndex:
    """The index finds exactly the paths each matcher matches."""

    @given(
        st.lists(st.lists(pattern_and_path(), min_size=1, max_size=3), min_size=1, max_size=6),
        st.lists(random_paths | odd_paths),
    )
    def test_matches_like_every_matcher(
        self, groups: list[list[tuple[str, str]]], others: list[str]
    ) -> None:
        valid = [[p for p, _ in group if _valid(p)] for group in groups]
        matchers = [compile_matcher(group) for group in valid if group]
        items = [path for group in groups for _, path in group] + others
        found = RuleIndex.build(matchers).match(items)
        for matcher in matchers:
            expected = [n for n, path in enumerate(items) if matcher.matches(path)]
            assert found.positions(matcher) == expected, matcher.patterns


class TestSameReportAsNaive:
    """The indexed evaluator returns exactly the naive evaluator's Report."""

    @given(cases())
    def test_equal_reports(self, case: Case) -> None:
        assert judge(*case) == judge(*case, naive=True)


def _expires_after(calls: int) -> Callable[[], bool]:
    """A deadline that passes at the (calls + 1)-th question."""
    count = itertools.count(1)
    return lambda: next(count) > calls


def _of(report: Report, rule: str) -> tuple[set[object], set[object], set[object]]:
    return (
        {f for f in report.findings if f.rule == rule},
        {u for u in report.unchecked if u.rule == rule and u.stage is not Stage.DEADLINE},
        {d for d in report.deferred if d.rule == rule},
    )


class TestDeadline:
    """Past the deadline, undecided rules are unchecked; nothing is invented or half-judged."""

    @given(cases(), st.sampled_from([evaluate, _evaluate_naive]), st.data())
    def test_decided_rules_are_exact_and_the_rest_unchecked(
        self, case: Case, evaluator: Callable[..., Report], data: st.DataObject
    ) -> None:
        full = judge(*case, naive=True)
        asked = itertools.count()
        with mock.patch.object(EVALUATE, "_CHECK_EVERY", 1):  # ask at every step of every loop
            assert evaluator(*case, expired=lambda: next(asked) < 0) == full
            # Cut anywhere from before the first question to after the last.
            cut = evaluator(*case, expired=_expires_after(data.draw(st.integers(0, next(asked)))))
        ruleset, change_set = case[0], case[1]
        if not change_set.complete:
            assert cut == full
            return
        ids = [c.id for c in ruleset.rules]
        undecided = {u.rule for u in cut.unchecked if u.stage is Stage.DEADLINE}
        # Rules run in id order: once one is undecided, so is every later one.
        assert undecided == set(ids[len(ids) - len(undecided) :])
        for rule in ids:
            if rule in undecided:
                for partial, complete in zip(_of(cut, rule), _of(full, rule), strict=True):
                    assert partial <= complete
            else:
                assert _of(cut, rule) == _of(full, rule)
        assert {u for u in cut.unchecked if u.rule is None} == {
            u for u in full.unchecked if u.rule is None
        }
        if undecided:
            assert cut.status != "pass"

    @given(cases())
    def test_a_deadline_that_never_passes_changes_nothing(self, case: Case) -> None:
        with mock.patch.object(EVALUATE, "_CHECK_EVERY", 1):
            cut = judge(*case, expired=lambda: False)
        assert cut == judge(*case, naive=True)
