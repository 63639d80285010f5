"""Properties of path globs (docs/rules.md: anchored, basename and `**` patterns)."""

from hypothesis import assume, given
from hypothesis import strategies as st
from wcmatch import glob
from wcmatch.glob import escape

from cagr_config.globs import check_pattern, compile_matcher, matches
from cagr_core.errors import PatternError
from tests.property.strategies import component, folder, plain_component, repo_path


class TestBasenamePatterns:
    """A pattern without a slash matches basenames anywhere."""

    @given(folder, component)
    def test_literal_basename_matches_in_every_folder(self, where: str, name: str) -> None:
        assume(name.strip())  # blank patterns are rejected: a name of spaces is written [ ]
        path = f"{where}/{name}" if where else name
        assert matches(escape(name), path)

    @given(folder, plain_component, st.sampled_from(["ts", "py", "json"]))
    def test_star_extension_matches_in_every_folder(self, where: str, stem: str, ext: str) -> None:
        path = f"{where}/{stem}.{ext}" if where else f"{stem}.{ext}"
        assert matches(f"*.{ext}", path)
        assert not matches(f"*.{ext}x", path)


class TestAnchoredPatterns:
    """A leading `/` anchors at the config root."""

    @given(component, st.lists(component, min_size=1, max_size=3).map("/".join))
    def test_anchored_name_matches_only_at_root(self, name: str, where: str) -> None:
        assert matches("/" + escape(name), name)
        assert not matches("/" + escape(name), f"{where}/{name}")

    @given(repo_path)
    def test_an_escaped_path_matches_exactly_itself(self, path: str) -> None:
        assert matches("/" + escape(path), path)
        assert not matches("/" + escape(path), path + "x")
        assert not matches("/" + escape(path), "x/" + path)


class TestBraces:
    """Braces give alternatives: the set matches exactly the union of its expansions."""

    @given(
        st.lists(plain_component, min_size=2, max_size=4, unique=True),
        st.lists(plain_component, min_size=1, max_size=3).map("/".join),
        st.sampled_from(["", "src/"]),
    )
    def test_brace_expansion_equals_union(self, names: list[str], path: str, prefix: str) -> None:
        braced = prefix + "{" + ",".join(names) + "}"
        union = any(matches(prefix + name, path) for name in names)
        assert matches(braced, path) == union


class TestMatcherSet:
    """A compiled set matches when any of its patterns matches; case is significant."""

    @given(
        st.lists(st.sampled_from(["*.ts", "/package.json", "src/**", "docs/*.md"]), max_size=4),
        repo_path,
    )
    def test_set_is_any(self, patterns: list[str], path: str) -> None:
        compiled = compile_matcher(patterns)
        assert compiled.matches(path) == any(matches(p, path) for p in patterns)

    @given(st.text(alphabet="abcxyz", min_size=1, max_size=8))
    def test_case_sensitive(self, name: str) -> None:
        assert not matches(name.upper(), name)


# Patterns built from a few names, wildcards and `**`, against paths over the same names.
_name_parts = st.sampled_from(["a", "b", "a*", "*", "?", "*b", "[ab]", ".a", "{a,b}"])
_segments = st.lists(st.one_of(_name_parts, st.just("**")), min_size=1, max_size=6)
glob_patterns = _segments.map("/".join).filter(lambda p: "/" in p)
deep_paths = st.lists(st.sampled_from(["a", "b", "ab", "ba", ".a", "c"]), min_size=1, max_size=8)


class TestDeepGlobstars:
    """Two or more `**` folders are matched folder by folder, leftmost first: the same answers
    as wcmatch's regular expression, in time linear in the path's depth."""

    @given(glob_patterns, deep_paths.map("/".join))
    def test_same_answer_as_wcmatch(self, pattern: str, path: str) -> None:
        flags = glob.GLOBSTAR | glob.BRACE | glob.DOTGLOB | glob.FORCEUNIX | glob.CASE
        assert matches(pattern, path) == glob.globmatch(path, pattern, flags=flags)

    def test_a_long_chain_on_a_deep_path_is_decided(self) -> None:
        pattern = "**/a*/**/a*/**/a*/**/a*/**/a*/**/b"
        deep = "/".join(["a"] * 80)
        matcher = compile_matcher([pattern])
        assert not matcher.matches(deep + "/c")
        assert matcher.matches(deep + "/b")


class TestBeneathAFolder:
    """`could_match_below(folder)` never says no when some path beneath the folder matches."""

    @given(glob_patterns, deep_paths, deep_paths)
    def test_never_a_false_no(self, pattern: str, folder: list[str], below: list[str]) -> None:
        matcher = compile_matcher([pattern])
        if matcher.matches("/".join(folder + below)):
            assert matcher.could_match_below("/".join(folder) + "/")

    def test_unrelated_folders_are_ruled_out(self) -> None:
        matcher = compile_matcher(["src/**", "/docs/*.md"])
        assert matcher.could_match_below("src/gen/")
        assert matcher.could_match_below("docs/")
        assert not matcher.could_match_below("docs/deep/")
        assert not matcher.could_match_below("lib/")
        assert compile_matcher(["*.ts"]).could_match_below("anything/")


_rich_parts = st.one_of(
    _name_parts,
    st.just("**"),
    component.map(escape),
    st.sampled_from(
        ["x{1..3}", "[!a]*", "?b", "*.{ts,tsx}", "\\*", "a b", "{,c}", "x{,c}", "{,c/}b"]
    ),
)
rich_patterns = st.tuples(
    st.sampled_from(["", "/"]), st.lists(_rich_parts, min_size=1, max_size=5).map("/".join)
).map("".join)
odd_paths = st.lists(
    st.sampled_from(["a", "b", "ab", ".a", "c", "x1", "x.ts", "a b", "*", "\\"]),
    min_size=1,
    max_size=7,
).map("/".join)


class TestRegularExpressions:
    """A matcher made once (wcmatch translating) and matched with `re` alone answers as
    wcmatch's own matcher does, for every pattern cagr accepts."""

    @given(rich_patterns, st.one_of(odd_paths, repo_path))
    def test_same_answer_as_wcmatch(self, pattern: str, path: str) -> None:
        try:
            check_pattern(pattern)
        except PatternError:
            assume(False)
        anchored = pattern.startswith("/")
        flags = glob.GLOBSTAR | glob.BRACE | glob.DOTGLOB | glob.FORCEUNIX | glob.CASE
        flags |= 0 if anchored else glob.MATCHBASE
        expected = glob.globmatch(path, pattern.removeprefix("/"), flags=flags, limit=0)
        assert compile_matcher([pattern]).matches(path) == expected


class TestCheckedOnce:
    """A pattern that passed its check is not checked again in the process; one that failed
    fails every time, with the same message, whatever was checked before."""

    @given(st.sampled_from(["src/**", "a/{b,c}/*.py", "**/x", "src/", "!a", "a//b", "{a,/b}",
                            "src/{app}/x", "a/**.ts"]),
           st.sampled_from(["none", "bind", "fill"]))  # fmt: skip
    def test_a_second_check_says_what_the_first_said(self, pattern: str, parts: str) -> None:
        outcomes = []
        for _ in range(2):
            try:
                check_pattern(pattern, parts)
                outcomes.append(None)
            except PatternError as error:
                outcomes.append(error.render())
        assert outcomes[0] == outcomes[1]
