"""Reading JSON data back into values, checked: each helper returns the value when it has the
type it should, and raises Damaged otherwise, so a stored form that is not exactly what its
writer wrote is never half-trusted."""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: the PR gate reads records with these
if TYPE_CHECKING:
    from typing import Any


class Damaged(ValueError):
    """The data is not what its writer writes."""


def json_kind(value: object) -> str:
    """What a JSON value is, in words, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    return "a number"  # json reads NaN and Infinity as numbers too


def table(value: object) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise Damaged(f"expected an object, got {type(value).__name__}")
    return value


def array(value: object) -> list[Any]:
    if not isinstance(value, list):
        raise Damaged(f"expected an array, got {type(value).__name__}")
    return value


def text(value: object) -> str:
    if not isinstance(value, str):
        raise Damaged(f"expected a string, got {type(value).__name__}")
    return value


def text_or_none(value: object) -> str | None:
    return None if value is None else text(value)


def texts(value: object) -> tuple[str, ...]:
    return tuple(text(item) for item in array(value))


def flag(value: object) -> bool:
    if not isinstance(value, bool):
        raise Damaged(f"expected a boolean, got {type(value).__name__}")
    return value


def whole(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise Damaged(f"expected an integer, got {type(value).__name__}")
    return value


def number_or_none(value: object) -> float | None:
    if value is None:
        return None
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise Damaged(f"expected a number, got {type(value).__name__}")
    return float(value)
