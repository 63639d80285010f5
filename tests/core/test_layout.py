"""Layout rules' name conventions, judged on the stem: the base name up to its first dot after
the first character."""

from __future__ import annotations

import pytest

from cagr_core.layout import CONVENTIONS, follows, name_regex, stem


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("src/test_app.py", "test_app"),
        ("a/b/Button.test.tsx", "Button"),
        (".eslintrc.json", ".eslintrc"),
        ("Makefile", "Makefile"),
        ("dir.d/file", "file"),
        ("x.", "x"),
    ],
)
def test_the_stem_ends_at_the_first_dot_after_the_first_character(path: str, expected: str) -> None:
    assert stem(path) == expected


@pytest.mark.parametrize(
    ("convention", "good", "bad"),
    [
        (
            "snake_case",
            ["a", "user_profile", "v2_api"],
            ["UserProfile", "user-profile", "_x", "a__b"],
        ),
        ("kebab-case", ["a", "user-profile", "v2-api"], ["user_profile", "UserProfile", "-x"]),
        ("camelCase", ["a", "userProfile", "parseHTTP"], ["UserProfile", "user_profile"]),
        ("PascalCase", ["A", "UserProfile", "Http2Server"], ["userProfile", "User_Profile"]),
        ("SCREAMING_SNAKE_CASE", ["A", "MAX_SIZE", "V2"], ["Max_Size", "max_size", "A-B"]),
    ],
)
def test_each_convention(convention: str, good: list[str], bad: list[str]) -> None:
    regex = name_regex(convention)
    assert all(follows(regex, f"src/{name}.py") for name in good)
    assert not any(follows(regex, f"src/{name}.py") for name in bad)


def test_a_regex_convention_matches_the_whole_stem() -> None:
    regex = name_regex("regex:[0-9]{4}_[a-z_]+")
    assert follows(regex, "migrations/0001_initial.py")
    assert not follows(regex, "migrations/initial_0001.py")
    assert not follows(regex, "migrations/0001_initial_X.py")


def test_an_unknown_convention_is_a_key_error() -> None:
    with pytest.raises(KeyError):
        name_regex("Title Case")
    assert set(CONVENTIONS) == {
        "snake_case",
        "kebab-case",
        "camelCase",
        "PascalCase",
        "SCREAMING_SNAKE_CASE",
    }
