"""The editor JSON Schema, derived from the config classes themselves (one schema engine)."""

from __future__ import annotations

import enum
import types
import typing
from typing import Any

import attrs

from .document import Config
from .rules import RULE_KINDS, Rule


class _Builder:
    """Walks attrs classes; each class becomes one entry of `definitions`, referenced by name."""

    def __init__(self) -> None:
        self.defs: dict[str, Any] = {}

    def type_schema(self, kind: Any, any_text: bool = False) -> dict[str, Any]:
        origin = typing.get_origin(kind)
        args = typing.get_args(kind)
        if kind is Rule:
            return self.rule_ref()
        if kind is str:
            return {"type": "string"} if any_text else {"type": "string", "minLength": 1}
        if kind is bool:
            return {"type": "boolean"}
        if origin is dict:
            return {"type": "object"}
        if origin is typing.Literal:
            return {"const": args[0]} if len(args) == 1 else {"enum": list(args)}
        if isinstance(kind, type) and issubclass(kind, enum.Enum):
            return {"enum": [member.value for member in kind]}
        if origin is tuple:
            return {"type": "array", "items": self.type_schema(args[0])}
        if origin in (typing.Union, types.UnionType):
            present = [arg for arg in args if arg is not type(None)]
            if len(present) == 1:
                return self.type_schema(present[0], any_text)
            return {"oneOf": [self.type_schema(arg, any_text) for arg in present]}
        if attrs.has(kind):
            return self.ref(kind)
        raise TypeError(f"no schema for {kind!r}")

    def ref(self, cls: type) -> dict[str, Any]:
        if cls.__name__ not in self.defs:
            self.defs[cls.__name__] = {}  # placeholder first: classes may nest
            self.defs[cls.__name__] = self.class_schema(cls)
        return {"$ref": f"#/definitions/{cls.__name__}"}

    def rule_ref(self) -> dict[str, Any]:
        """A rule, discriminated on `kind`: its kind's class judges every other key, so an editor
        reports the one wrong key instead of every kind's mismatch."""
        if "Rule" not in self.defs:
            self.defs["Rule"] = {
                "type": "object",
                "description": "One change rule; its `kind` says which keys it takes.",
                "properties": {"kind": {"description": "The rule kind.", "enum": list(RULE_KINDS)}},
                "required": ["kind"],
                "allOf": [
                    {
                        "if": {"properties": {"kind": {"const": name}}, "required": ["kind"]},
                        "then": self.ref(cls),
                    }
                    for name, cls in RULE_KINDS.items()
                ],
            }
        return {"$ref": "#/definitions/Rule"}

    def class_schema(self, cls: type) -> dict[str, Any]:
        hints = typing.get_type_hints(cls)
        properties: dict[str, Any] = {}
        required: list[str] = []
        for attribute in attrs.fields(cls):
            meta = attribute.metadata
            schema = self.type_schema(hints[attribute.name], any_text=meta.get("any_text", False))
            if "doc" in meta:
                schema = {"description": meta["doc"], **schema}
            is_required = attribute.default is attrs.NOTHING or meta.get("required", False)
            default = attribute.default
            if not is_required and not isinstance(default, attrs.Factory):  # type: ignore[arg-type]
                default = default.value if isinstance(default, enum.Enum) else default
                if default not in (None, ()):
                    schema["default"] = default
            properties[attribute.name] = schema
            if is_required:
                required.append(attribute.name)
        out: dict[str, Any] = {"type": "object"}
        if cls.__doc__:
            out["description"] = cls.__doc__.strip().splitlines()[0]
        out["properties"] = properties
        if required:
            out["required"] = required
        out["additionalProperties"] = False
        return out


def json_schema() -> dict[str, Any]:
    """The JSON Schema of cagr.toml and `.cagr/**/*.toml` fragments.

    It has no `$id`: cagr publishes the schema at no URL, so editors refer to the written file
    (`#:schema ./cagr.schema.json`), and a made-up URL would only mislead resolvers.
    """
    builder = _Builder()
    root = builder.class_schema(Config)
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "cagr configuration",
        **root,
        "definitions": dict(sorted(builder.defs.items())),
    }
