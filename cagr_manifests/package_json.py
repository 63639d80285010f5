"""package.json: the names in `dependencies`, `devDependencies`, `optionalDependencies` and
`peerDependencies`. npm names are compared exactly (they are lowercase by rule)."""

from __future__ import annotations

import json

from cagr_core.dependencies import Declared, DependencySection

from ._reading import Malformed

TYPE_CHECKING = False  # not typing's: a check that reads a manifest need not import it
if TYPE_CHECKING:
    from typing import Any

SECTIONS = ("dependencies", "devDependencies", "optionalDependencies", "peerDependencies")


class _Number:
    """Any JSON number: never converted, so a 5,000-digit one reads too."""


_NUMBER = _Number()


def _any_number(_: str) -> _Number:
    return _NUMBER


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    return "a number"  # _NUMBER, or NaN and Infinity, which json reads as floats


def read(text: str) -> Declared:
    """The sections of one package.json side; Malformed when it is not a JSON object with
    object sections."""
    try:
        data: Any = json.loads(text, parse_int=_any_number, parse_float=_any_number)
    except json.JSONDecodeError as error:
        raise Malformed(
            f"is not valid JSON ({error.msg} at line {error.lineno} column {error.colno})"
        ) from error
    except RecursionError as error:
        raise Malformed("nests too deeply to read") from error
    if not isinstance(data, dict):
        raise Malformed(f"is JSON but {_kind(data)}, not an object")
    sections = []
    for name in SECTIONS:
        value = data.get(name, {})
        if not isinstance(value, dict):
            raise Malformed(f"has {name} as {_kind(value)}, not an object")
        specs = {key: spec if isinstance(spec, str) else _kind(spec) for key, spec in value.items()}
        sections.append(DependencySection(name, name, {key: key for key in value}, specs))
    return Declared(tuple(sections))
