"""JSON read on the hook's fast path: the json module's own C scanner, without importing json.

Importing `json` imports `re` (and with it enum, functools, collections): 4-5 ms, about half a
bare interpreter start, on every shell command an agent runs, where the payload and the guard
file are all that is read. This module hands `_json.make_scanner`, the scanner
`json.JSONDecoder` itself uses, the settings `json.loads` gives it, so the values and what is
rejected are json's; where the C scanner is missing, or bytes are not UTF-8 the way json reads
them (a BOM, UTF-16 or UTF-32), it is `json.loads` itself. `tests/property/test_json_read.py`
holds it to `json.loads`. Errors are ValueError, as json's are.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

_SPACE = " \t\n\r"  # JSON's whitespace, as json.decoder.WHITESPACE
_CONSTANTS = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}
_NOT_UTF8 = (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")  # BOMs json.detect_encoding reads


class _Settings:
    """What `json.loads` (a default JSONDecoder) gives its scanner."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = _CONSTANTS.__getitem__


_scan_once: Callable[[str, int], tuple[object, int]] | None
try:
    from _json import make_scanner
except ImportError:  # pragma: no cover - CPython has it; elsewhere json itself reads
    _scan_once = None
else:
    _scan_once = make_scanner(_Settings())  # type: ignore[arg-type]  # json's duck-typed context


def scan(text: str, start: int) -> tuple[object, int]:
    """The JSON value starting at `start` in `text` and where it ends (`JSONDecoder.raw_decode`)."""
    if _scan_once is None:  # pragma: no cover
        import json  # noqa: PLC0415

        return json.JSONDecoder().raw_decode(text, start)
    try:
        return _scan_once(text, start)
    except StopIteration as stop:
        raise ValueError(f"Expecting value: char {stop.value}") from None


def loads(data: bytes | str) -> object:
    """`json.loads(data)`."""
    if isinstance(data, bytes):
        if _scan_once is None or data.startswith(_NOT_UTF8) or b"\x00" in data[:4]:
            import json  # noqa: PLC0415  # json.detect_encoding's other encodings

            return json.loads(data)
        data = data.decode("utf-8", "surrogatepass")
    if data.startswith("\ufeff"):
        raise ValueError("Unexpected UTF-8 BOM (decode using utf-8-sig)")
    value, end = scan(data, len(data) - len(data.lstrip(_SPACE)))
    if data[end:].strip(_SPACE):
        raise ValueError(f"Extra data: char {end}")
    return value
