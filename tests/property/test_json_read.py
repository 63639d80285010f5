"""cagr_repo.json_read against json.loads, its oracle: the same value for every text json reads,
a ValueError for every text json rejects; and the hook's fast path imports neither json nor re."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from cagr_repo import json_read

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text()
)
VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)
SPACE = st.text(alphabet=" \t\n\r\x0b\x0c\xa0\u2028", max_size=3)


def _same(ours: object, theirs: object) -> bool:
    if isinstance(ours, float) and isinstance(theirs, float):
        return (math.isnan(ours) and math.isnan(theirs)) or ours == theirs
    if isinstance(ours, list) and isinstance(theirs, list):
        return len(ours) == len(theirs) and all(map(_same, ours, theirs))
    if isinstance(ours, dict) and isinstance(theirs, dict):
        return ours.keys() == theirs.keys() and all(_same(ours[k], theirs[k]) for k in ours)
    return type(ours) is type(theirs) and ours == theirs


def _agree(data: str | bytes) -> None:
    try:
        theirs = json.loads(data)
    except (ValueError, RecursionError):
        with pytest.raises((ValueError, RecursionError)):
            json_read.loads(data)
        return
    assert _same(json_read.loads(data), theirs)


@given(VALUES, SPACE, SPACE, st.booleans())
def test_what_json_writes_reads_back_as_json_reads_it(
    value: object, before: str, after: str, ascii: bool
) -> None:
    text = before + json.dumps(value, ensure_ascii=ascii) + after
    _agree(text)
    _agree(text.encode("utf-8", "surrogatepass"))


@given(st.text(alphabet='{}[]",:0123456789.eE+-truefalsnNaIiy \\u\n\t\ufeff\x00', max_size=30))
@example("")
@example(" ")
@example("\ufeff{}")
@example("{} {}")
@example('{"a": 1}x')
@example("[1,]")
@example("NaN")
@example("-Infinity")
@example('"\\ud800"')
@example('"a\tb"')  # a raw tab in a string: strict json rejects it
def test_any_text_is_read_or_rejected_as_json_does(text: str) -> None:
    _agree(text)


@given(st.binary(max_size=24))
@example(b"\xef\xbb\xbf{}")
@example('{"a": 1}'.encode("utf-16"))
@example('{"a": 1}'.encode("utf-32-le"))
@example(b'"\xed\xa0\x80"')  # an encoded surrogate: json reads it with surrogatepass
@example(b"\xff")
def test_any_bytes_are_read_or_rejected_as_json_does(data: bytes) -> None:
    _agree(data)


def test_scan_reads_one_value_and_says_where_it_ends() -> None:
    text = '  {"a": [1, 2]} trailing'
    assert json_read.scan(text, 2) == json.JSONDecoder().raw_decode(text, 2)
    with pytest.raises(ValueError, match="Expecting value"):
        json_read.scan("   ", 1)


def test_the_module_imports_neither_json_nor_re() -> None:
    code = (
        "import sys; import cagr_repo.json_read; print(sorted({'json', 're'} & set(sys.modules)))"
    )
    result = subprocess.run(
        [sys.executable, "-S", "-c", f"import sys; sys.path[:0] = {sys.path!r}; {code}"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.strip() == "[]"
