"""Properties of named parts (docs/rules.md, "Named parts") and of sections named with their
level, with wcmatch and mistune as the oracles where they apply."""

from __future__ import annotations

import mistune
from hypothesis import assume, given
from hypothesis import strategies as st
from wcmatch import glob

from cagr_config.compile import compile_rules
from cagr_config.globs import check_pattern, compile_matcher
from cagr_config.rules import RequireAdded, RequiresRule
from cagr_core.errors import PatternError
from cagr_core.globs import fill
from cagr_core.sections import Found, find_section
from tests.property.strategies import component, plain_component
from tests.support.build import added, check, modified
from tests.support.evaluation import document

_FLAGS = glob.GLOBSTAR | glob.BRACE | glob.DOTGLOB | glob.FORCEUNIX | glob.CASE
_parts = st.sampled_from(["a", "b", "a*", "*", "?", "[ab]", ".a", "{a,b}", "**", "{x}", "x{y}"])
named_patterns = st.lists(_parts, min_size=1, max_size=6).map("/".join)
paths = st.lists(st.sampled_from(["a", "b", "ab", ".a", "xa", "xya", "c"]), min_size=1, max_size=7)


class TestAWildcardThatNames:
    """A named part matches what `?*` matches (one or more characters other than `/`): wcmatch
    with `?*` in its place is the oracle."""

    @given(named_patterns, paths.map("/".join))
    def test_same_answer_as_wcmatch(self, pattern: str, path: str) -> None:
        try:
            check_pattern(pattern, "bind")
        except PatternError:
            assume(False)
        wildcard = pattern.replace("{x}", "?*").replace("{y}", "?*")
        flags = _FLAGS | (0 if "/" in pattern else glob.MATCHBASE)
        expected = glob.globmatch(path, wildcard, flags=flags, limit=0)
        assert compile_matcher([pattern], "bind").matches(path) == expected

    @given(named_patterns, paths.map("/".join))
    def test_every_match_binds_and_each_binding_rebuilds_a_match(
        self, pattern: str, path: str
    ) -> None:
        """A match rebuilds the path: each binding put back into the pattern (literally)
        matches the path again."""
        try:
            check_pattern(pattern, "bind")
        except PatternError:
            assume(False)
        matcher = compile_matcher([pattern], "bind")
        bindings = matcher.bindings(path)
        assert bool(bindings) == (matcher.matches(path) and bool(matcher.parts))
        for binding in bindings:
            again = compile_matcher([fill(pattern, dict(binding))])
            assert again.matches(path)

    @given(named_patterns, paths.map("/".join), st.lists(st.sampled_from(["a", "ab", "ya", ".a"])))
    def test_filing_by_binding_is_matching_the_bound_form(
        self, pattern: str, path: str, chosen: list[str]
    ) -> None:
        """Where each part has one place (`binds`), a path's bindings are exactly the values
        whose bound form matches it: the evaluator may file companions by binding."""
        try:
            check_pattern(pattern, "fill")
        except PatternError:
            assume(False)
        matcher = compile_matcher([pattern], "fill")
        assume(matcher.binds)
        values = {n: [*chosen, "a", "a"][i] for i, n in enumerate(sorted(matcher.parts))}
        binding = tuple(sorted(values.items()))
        bound = matcher.bind(values, (fill(pattern, values),))
        assert bound.matches(path) == (binding in matcher.bindings(path))


class TestLiteralValues:
    """The substituted text is literal: a value with glob characters matches only itself."""

    @given(component, st.lists(plain_component, min_size=1, max_size=3))
    def test_a_value_is_taken_literally(self, value: str, names: list[str]) -> None:
        assume("/" not in value)
        require = compile_matcher(["lib/{app}/" + "/".join(names)], "fill")
        bound = require.bind({"app": value}, ("shown",))
        assert bound.matches(f"lib/{value}/" + "/".join(names))
        assert not bound.matches(f"lib/{value}x/" + "/".join(names))
        assert not bound.matches("lib/" + "/".join(names))

    @given(st.lists(component, min_size=1, max_size=4))
    def test_an_escaped_path_with_its_names_as_parts_binds_them(self, names: list[str]) -> None:
        pattern = "/".join(f"{{p{n}}}" for n in range(len(names)))
        matcher = compile_matcher(["/" + pattern], "bind")
        path = "/".join(names)
        assert matcher.bindings(path) == (tuple(sorted((f"p{n}", v) for n, v in enumerate(names))),)
        filled = compile_matcher(["/" + fill(pattern, {f"p{n}": v for n, v in enumerate(names)})])
        assert filled.matches(path)
        assert not filled.matches(path + "x")


_apps = st.sets(st.sampled_from(["blog", "shop", "auth", "cart", "a*b", "[x]"]), max_size=5)


class TestPerBinding:
    """Obligations are per binding and independent: an app lacks its migration exactly when its
    own is missing, whatever the other apps do."""

    @given(_apps, _apps, _apps)
    def test_findings_are_the_apps_without_their_own(
        self, edited: set[str], migrated: set[str], edited_migrations: set[str]
    ) -> None:
        rule = RequiresRule(
            id="m",
            paths=["apps/{app}/models.py"],
            require=[RequireAdded(path="apps/{app}/migrations/*.py", status="added")],
            reason="x",
        )
        changes = [modified(f"apps/{app}/models.py") for app in sorted(edited)]
        changes += [added(f"apps/{app}/migrations/0002.py") for app in sorted(migrated)]
        changes += [modified(f"apps/{app}/migrations/0001.py") for app in sorted(edited_migrations)]
        report = check(rule, *changes)
        owing = {dict(f.parts)["app"] for f in report.findings}
        assert owing == edited - migrated
        assert len(report.findings) == len(owing)
        compile_rules([rule])  # the rule itself is valid


_levels = st.integers(min_value=1, max_value=6)
_names = st.sampled_from(["Risk", "AI usage", "Notes"])
_blocks = st.lists(
    st.one_of(
        st.tuples(st.just("heading"), _levels, _names),
        st.tuples(st.just("text"), st.just(0), st.sampled_from(["alpha", "beta", "gamma"])),
    ),
    max_size=10,
)


def _oracle(markdown: str, level: int, name: str) -> tuple[Found, tuple[str, ...]]:
    """The section as mistune's own token tree has it: from a level-N heading of the name to
    the next heading of level N or less."""
    tokens = mistune.create_markdown(renderer=None)(markdown)
    assert isinstance(tokens, list)
    bodies: list[list[str]] = []
    current: list[str] | None = None
    for token in tokens:
        if token["type"] == "heading":
            if token["attrs"]["level"] > level:
                continue
            current = None
            text = "".join(child.get("raw", "") for child in token["children"])
            if token["attrs"]["level"] == level and text.casefold() == name.casefold():
                current = []
                bodies.append(current)
        elif token["type"] == "paragraph" and current is not None:
            current.append("".join(child.get("raw", "") for child in token["children"]))
    if not bodies:
        return Found.MISSING, ()
    if len(bodies) > 1:
        return Found.DUPLICATE, ()
    return Found.FOUND, tuple(bodies[0])


class TestHeadingLevels:
    """A section named with its marks is that level's, and ends at the next heading of that
    level or a higher one: the same sections as mistune's token tree."""

    @given(_blocks, _levels, _names)
    def test_same_section_as_mistunes_tree(
        self, blocks: list[tuple[str, int, str]], level: int, name: str
    ) -> None:
        markdown = "\n\n".join(
            f"{'#' * n} {text}" if kind == "heading" else text for kind, n, text in blocks
        )
        found = find_section(document(markdown), f"{'#' * level} {name}")
        expected = _oracle(markdown, level, name)
        assert (found.found, found.lines if found.found is Found.FOUND else ()) == expected

    @given(_blocks, _names, st.sampled_from(["setext", "html"]))
    def test_a_heading_github_renders_is_a_second_one(
        self, blocks: list[tuple[str, int, str]], name: str, form: str
    ) -> None:
        markdown = "\n\n".join(
            f"{'#' * n} {text}" if kind == "heading" else text for kind, n, text in blocks
        )
        second = f"{name}\n----" if form == "setext" else f"<h2>{name}</h2>"
        with_it = f"## {name}\n\nalpha\n\n{second}\n\n{markdown}"
        assert find_section(document(with_it), name).found is Found.DUPLICATE
