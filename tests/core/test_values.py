"""Core values: changes and status, change sets, fixtures, pattern and template errors."""

import pytest

from cagr_config.examples import Example, FixtureChange, FixtureError, fixture_changeset
from cagr_config.globs import check_pattern, compile_matcher
from cagr_core.changes import Change, ChangeSet, Kind, Side, Status
from cagr_core.errors import PatternError, TemplateError
from cagr_core.templates import Template
from tests.support.build import (
    EXECUTABLE,
    GITLINK,
    REGULAR,
    SYMLINK,
    added,
    deleted,
    modified,
    side,
)


class TestChange:
    @pytest.mark.parametrize(
        ("old_mode", "new_mode", "status"),
        [
            (REGULAR, EXECUTABLE, Status.MODIFIED),
            (REGULAR, REGULAR, Status.MODIFIED),
            (SYMLINK, SYMLINK, Status.MODIFIED),
            (GITLINK, GITLINK, Status.MODIFIED),
            (REGULAR, SYMLINK, Status.TYPE_CHANGED),
            (SYMLINK, GITLINK, Status.TYPE_CHANGED),
            (EXECUTABLE, GITLINK, Status.TYPE_CHANGED),
        ],
    )
    def test_status_follows_git(self, old_mode: int, new_mode: int, status: Status) -> None:
        assert modified("p", "a", "b", old_mode, new_mode).status is status

    def test_added_and_deleted(self) -> None:
        assert added("p").status is Status.ADDED
        assert deleted("p").status is Status.DELETED

    def test_same_entry_on_both_sides_is_rejected(self) -> None:
        with pytest.raises(ValueError, match="no change"):
            Change("p", side("a"), side("a"))

    @pytest.mark.parametrize("path", ["", "/abs", "dir/"])
    def test_paths_are_repo_relative(self, path: str) -> None:
        with pytest.raises(ValueError, match="repo-relative"):
            added(path)

    def test_unknown_mode_is_rejected(self) -> None:
        with pytest.raises(ValueError, match="not a git file mode"):
            Side(0o100600, "x")

    def test_kinds(self) -> None:
        assert [Kind.from_mode(m) for m in (REGULAR, EXECUTABLE, SYMLINK, GITLINK)] == list(Kind)


class TestChangeSet:
    def test_sorted_and_unique(self) -> None:
        changes = ChangeSet((added("b"), added("a")))
        assert [c.path for c in changes.changes] == ["a", "b"]
        with pytest.raises(ValueError, match="twice"):
            ChangeSet((added("a"), deleted("a")))

    def test_odd_names_survive(self) -> None:
        names = ["sp ace", "tab\there", "new\nline", "glob*[x]?{a,b}", "bad\udcffbyte"]
        changes = ChangeSet(tuple(added(n) for n in names))
        assert sorted(c.path for c in changes.changes) == sorted(names)


class TestFixtures:
    def test_statuses_imply_sides(self) -> None:
        example = Example(
            changes=[
                FixtureChange(path="a", status=Status.ADDED, after="x"),
                FixtureChange(path="d", status=Status.DELETED),
                FixtureChange(path="m", status=Status.MODIFIED),
                FixtureChange(path="t", status=Status.TYPE_CHANGED),
            ]
        )
        changes = fixture_changeset(example).changes
        assert [c.status for c in changes] == [
            Status.ADDED,
            Status.DELETED,
            Status.MODIFIED,
            Status.TYPE_CHANGED,
        ]
        assert changes[0].new is not None
        assert changes[0].new.content == b"x"

    @pytest.mark.parametrize(
        ("item", "said"),
        [
            (FixtureChange(path="a", status=Status.ADDED, before="x"), "no before side"),
            (FixtureChange(path="a", status=Status.DELETED, after="x"), "no after side"),
            (FixtureChange(path="a", status=Status.MODIFIED, before="x", after="x"), "no change"),
            (FixtureChange(path="/a", status=Status.ADDED), "repo-relative"),
        ],
    )
    def test_impossible_fixtures(self, item: FixtureChange, said: str) -> None:
        with pytest.raises(FixtureError, match=said):
            fixture_changeset(Example(changes=[item]))

    def test_duplicate_paths(self) -> None:
        item = FixtureChange(path="a", status=Status.ADDED)
        with pytest.raises(FixtureError, match="more than once"):
            fixture_changeset(Example(changes=[item, item]))


class TestPatternErrors:
    @pytest.mark.parametrize(
        ("pattern", "caret", "said"),
        [
            ("!**/*.test.ts", "^", "no negation"),
            ("migrations/", " " * 10 + "^", "trailing /"),
            ("src/../x", " " * 4 + "^^", "no .. components"),
            ("src//x", " " * 4 + "^", "empty path component"),
            ("**/{,c}/**", " " * 3 + "^", "alternative '**//**' has an empty path component"),
            ("a/{b,}", " " * 2 + "^", "alternative 'a/' has an empty path component"),
            ("{/a,b}", " ^", "anchors only at the start"),
            ("src/{a,b", " " * 4 + "^", "unclosed {"),
            ("  ", "^^", "blank pattern"),
        ],
    )
    def test_points_at_the_bad_part(self, pattern: str, caret: str, said: str) -> None:
        with pytest.raises(PatternError) as error:
            check_pattern(pattern)
        lines = str(error.value).splitlines()
        assert said in lines[0]
        assert lines[2] == "  " + caret

    @pytest.mark.parametrize(
        "pattern",
        [
            "\\!literal",
            "**",
            "/package.json",
            "src/**/*.{ts,tsx}",
            "[{]x",
            "a,/b",
            "src/{,generated/}*.py",
        ],
    )
    def test_accepted(self, pattern: str) -> None:
        check_pattern(pattern)

    def test_exclamation_inside_a_pattern_is_literal(self) -> None:
        assert compile_matcher(["a!b"]).matches("x/a!b")


class TestTemplateErrors:
    @pytest.mark.parametrize(
        ("template", "caret", "said"),
        [
            ("{dir}/{Nme}.test.{ext}", " " * 6 + "^^^^^", "unknown placeholder {Nme}"),
            ("/{dir}/{name}", "^", "relative to the root"),
            ("{dir}/*.test.ts", " " * 6 + "^", "glob syntax"),
            ("{dir}/../{name}", " " * 6 + "^^", "no .. components"),
            ("{dir}//{name}", " " * 6 + "^", "empty path component"),
            ("", "^", "cannot be empty"),
        ],
    )
    def test_points_at_the_bad_part(self, template: str, caret: str, said: str) -> None:
        with pytest.raises(TemplateError) as error:
            Template.parse(template)
        lines = str(error.value).splitlines()
        assert said in lines[0]
        assert lines[2] == "  " + caret
