"""cagr's git config reader against git itself: random config files, read by both."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from cagr_git.gitconfig import GitConfigError, parse_boolean, parse_config

# Pieces of config syntax, good and bad, so that random files hit every branch of the grammar.
_SECTION = st.sampled_from(
    [
        "[core]",
        "[Core]",
        '[remote "Origin"]',
        '[a "x\\"y"]',
        "[a.B]",
        '[a.b "C"]',
        "[ core ]",
        "[core",
        "[]",
        '[x "un',
        "[x-y.z]",
        "[bad_name]",
        '[s "a\\\\b"]',
    ]
)
_NAME = st.sampled_from(["autocrlf", "FileMode", "x-y", "a1", "1bad", "na_me", "k"])
_VALUE = st.lists(
    st.sampled_from([*'ab "\\\t#;=ntbx\r', "\\\n", "\\n", "\xa0", "\u00e9"]), max_size=12
).map("".join)
_LINE = st.one_of(
    _SECTION,
    st.builds(lambda n, v: f"\t{n} = {v}", _NAME, _VALUE),
    st.builds(lambda n, v: f"{n}={v}", _NAME, _VALUE),
    _NAME,
    st.builds(lambda n: f"{n} # comment", _NAME),
    st.sampled_from(["# comment", "; comment", "", "  ", "\r", "[core] bare", "[core] k = v"]),
)
_FILE = st.lists(_LINE, max_size=8).map(lambda lines: "[core]\n" + "\n".join(lines))


def _git_list(path: Path) -> list[tuple[str, str | None]] | None:
    """git's reading of one file (`git config --list`), or None when git refuses it."""
    result = subprocess.run(
        ["git", "config", "--file", str(path), "--no-includes", "--list", "-z"],
        capture_output=True,
        check=False,
    )
    if result.returncode != 0:
        return None
    entries = []
    for item in result.stdout.split(b"\0")[:-1]:
        key, newline, value = item.partition(b"\n")
        entries.append(
            (key.decode("utf-8", "surrogateescape"), value.decode() if newline else None)
        )
    return entries


def _ours(data: bytes, path: str) -> list[tuple[str, str | None]] | None:
    try:
        settings_ = parse_config(data, path)
    except GitConfigError:
        return None
    out = []
    for (section, sub, name), value in settings_:
        key = f"{section}.{sub}.{name}" if sub is not None else f"{section}.{name}"
        out.append((key, value))
    return out


class TestAgainstGit:
    """A config file reads as `git config --list` reads it, or is refused where git refuses."""

    @settings(max_examples=300)
    @given(text=_FILE)
    def test_random_files(self, text: str) -> None:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "config"
            data = text.encode("utf-8")
            path.write_bytes(data)
            assert _ours(data, str(path)) == _git_list(path), text


class TestBooleans:
    """git's booleans: true/yes/on/1 and any non-zero number, false/no/off/0 and empty."""

    @given(st.sampled_from(["true", "YES", "On", "1", "-3", "0x10", None]))
    def test_true(self, value: str | None) -> None:
        assert parse_boolean(value) is True

    @given(st.sampled_from(["false", "No", "OFF", "0", ""]))
    def test_false(self, value: str) -> None:
        assert parse_boolean(value) is False

    def test_neither(self) -> None:
        assert parse_boolean("maybe") is None
