"""What the manifest readers share: decoding, TOML, table checks (the values are the core's)."""

from __future__ import annotations

import re
from collections.abc import Mapping

from cagr_core.data import json_kind

TYPE_CHECKING = False  # not typing's: a check need not import it
if TYPE_CHECKING:
    from typing import Any

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+\Z")


class Malformed(ValueError):
    """A manifest side that its format's rules reject; the message completes "the new side ..."."""


def canonical(value: object) -> str:
    """A requirement written as a table (Cargo, Poetry), as one text: keys sorted, so a table
    rewritten in another order reads the same."""
    import json  # noqa: PLC0415 - only a TOML manifest pays for it

    return json.dumps(value, sort_keys=True, default=str, ensure_ascii=False)


def decode(content: bytes) -> str:
    """UTF-8 text (a leading byte-order mark dropped); Malformed otherwise."""
    try:
        return content.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise Malformed(f"is not UTF-8 ({error.reason} at byte {error.start})") from error


def load_toml(text: str) -> dict[str, Any]:
    """The TOML document as data; Malformed with tomllib's own message and line."""
    import tomllib  # noqa: PLC0415 - only a TOML manifest pays for it

    from .toml_bounds import parts_problem  # noqa: PLC0415 - with tomllib

    too_deep = parts_problem(text)  # before tomllib, whose time grows with their square
    if too_deep is not None:
        raise Malformed(too_deep)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise Malformed(f"is not valid TOML ({error})") from error
    except ValueError as error:  # an integer with more digits than Python converts
        raise Malformed("holds a number with more digits than cagr reads") from error
    except RecursionError as error:
        raise Malformed("nests arrays or tables too deeply to read") from error


def kind_of(value: object) -> str:
    """The TOML name of a value's type, for messages: as JSON's, but a table or a date."""
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, bool | int | float | str | list):
        return json_kind(value)
    return "a date or time"


def label(*keys: str) -> str:
    """Dotted keys as TOML writes them: `target.'cfg(unix)'.dependencies`."""
    return ".".join(key if _BARE_KEY.match(key) else _quoted(key) for key in keys)


def _quoted(key: str) -> str:
    if "'" not in key and "\n" not in key:
        return f"'{key}'"
    escaped = key.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def as_table(value: object, *where: str) -> dict[str, Any]:
    """`value` when it is a table; Malformed naming `where` (its dotted keys) otherwise."""
    if not isinstance(value, dict):
        raise Malformed(f"has {label(*where)} as {kind_of(value)}, not a table")
    return value


def as_array(value: object, *where: str) -> list[Any]:
    """`value` when it is an array; Malformed naming `where` otherwise."""
    if not isinstance(value, list):
        raise Malformed(f"has {label(*where)} as {kind_of(value)}, not an array")
    return value


def table(parent: Mapping[str, Any], *where: str) -> dict[str, Any]:
    """The table at the last of `where` (the keys that lead to it) in `parent`; {} when absent."""
    return as_table(parent.get(where[-1], {}), *where)


def array(parent: Mapping[str, Any], *where: str) -> list[Any]:
    """The array at the last of `where` in `parent`; [] when absent."""
    return as_array(parent.get(where[-1], []), *where)
