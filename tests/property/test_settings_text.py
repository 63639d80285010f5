"""Settings files read with their comments and edited in place: json is the oracle."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cagr_hooks.settings_text import Edits, SettingsSyntax, parse

_scalar = st.one_of(st.none(), st.booleans(), st.integers(-(10**6), 10**6), st.text(max_size=8))
_value = st.recursive(
    _scalar,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)
_layout = st.sampled_from([None, 0, 2, 4, "\t"])


def _commented(text: str) -> str:
    """The same JSON with a comment after every comma, colon and opening bracket."""
    out, in_string, escaped = [], False, False
    for char in text:
        out.append(char)
        if escaped:
            escaped = False
        elif in_string:
            escaped, in_string = char == "\\", char != '"'
        elif char == '"':
            in_string = True
        elif char in ",:[{":
            out.append(" /* c */ // line\n ")
    return "".join(out)


class TestParse:
    """A settings file's value is json's value of it, comments or not."""

    @given(_value, _layout)
    def test_its_value_is_jsons(self, value: object, indent: int | str | None) -> None:
        text = json.dumps(value, indent=indent)
        assert parse(text).value == value
        assert parse(_commented(text)).value == value

    @given(st.text(max_size=60))
    def test_any_text_is_a_value_or_a_syntax_error(self, text: str) -> None:
        try:
            parse(text)
        except SettingsSyntax:
            return

    def test_deep_nesting_is_a_syntax_error_not_a_crash(self) -> None:
        with pytest.raises(SettingsSyntax):
            parse("[" * 50_000 + "]" * 50_000)


class TestEdits:
    """An edit changes the value as asked and leaves the text before and after it alone."""

    @given(st.dictionaries(st.text(max_size=5), _value, min_size=1, max_size=4), _layout)
    def test_added_members_join_the_object(self, data: dict, indent: int | str | None) -> None:
        text = _commented(json.dumps(data, indent=indent))
        root = parse(text)
        edits = Edits(text)
        edits.add_members(root, {"hooks": {"Stop": [1]}, "version": 1})
        result = edits.apply()
        assert parse(result).value == {**data, "hooks": {"Stop": [1]}, "version": 1}
        last = list(root.members.values())[-1]
        assert result.startswith(text[: last.end])
        assert result.endswith(text[last.end :])

    @given(st.lists(_value, min_size=1, max_size=4), _value, _layout)
    def test_an_item_is_appended_or_replaced_in_place(
        self, items: list, new: object, indent: int | str | None
    ) -> None:
        text = _commented(json.dumps({"list": items, "after": True}, indent=indent))
        array = parse(text).members["list"]
        appended = Edits(text)
        appended.append(array, new)
        assert parse(appended.apply()).value == {"list": [*items, new], "after": True}
        replaced = Edits(text)
        replaced.replace(array.items[0], new)
        result = replaced.apply()
        assert parse(result).value == {"list": [new, *items[1:]], "after": True}
        assert result.endswith(text[array.items[0].end :])
        inside = text[array.items[0].start : array.items[0].end].count("/* c */")
        assert re.sub(r"\s", "", result).count("/*c*/") == text.count("/* c */") - inside
