"""The config validator: plain TOML data -> Config, every problem found at once with its key path.

cattrs does the structuring (unknown keys, wrong types, missing keys); a second pass (`checks`)
checks what types cannot say (non-blank text, valid globs and templates, possible examples).
"""

from __future__ import annotations

import re
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs
import cattrs
from cattrs.errors import ForbiddenExtraKeysError, IterableValidationError, IterableValidationNote

from cagr_core.changes import Status
from cagr_core.errors import ConfigIssue
from cagr_core.pull_request import Phase
from cagr_core.whitespace import Whitespace

from .checks import _other_problems, _rule_problems, digest_of, validate
from .document import AnyRule, Config
from .rule_kinds import CodeRule, GuardRule, LayoutRule
from .rules import RULE_KINDS, RequireAdded, Requirement, Rule, Severity, Targets, When

_ENUMS: tuple[type, ...] = (Status, Phase, When, Severity, Whitespace)


def _strict_str(value: object, _: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {_toml_type(value)}")
    return value


def _strict_bool(value: object, _: object) -> bool:
    if not isinstance(value, bool):  # cattrs' own would take bool(value): "false" is True
        raise TypeError(f"expected true or false, got {_toml_type(value)}")
    return value


def _toml_type(value: object) -> str:
    names = {bool: "a boolean", int: "an integer", float: "a float", str: "a string"}
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    return names.get(type(value), type(value).__name__)


def _is_tuple(kind: object) -> bool:
    origin: object = typing.get_origin(kind)
    return origin is tuple


def _is_literal(kind: object) -> bool:
    return typing.get_origin(kind) is typing.Literal


def _is_table(kind: object) -> bool:
    origin: object = typing.get_origin(kind)
    return origin is dict


def _table(value: object, _: object) -> dict[str, Any]:
    """An ast-grep rule object (or constraints): a TOML table, taken as it is."""
    if not isinstance(value, dict):
        raise TypeError(f"expected a table (an ast-grep rule object), got {_toml_type(value)}")
    return value


def _make_converter() -> cattrs.Converter:
    converter = cattrs.Converter(forbid_extra_keys=True)
    converter.register_structure_hook(str, _strict_str)
    converter.register_structure_hook(bool, _strict_bool)

    def tuple_hook(kind: Any) -> Callable[[object, object], tuple[Any, ...]]:
        (item,) = [a for a in typing.get_args(kind) if a is not Ellipsis]

        def structure(value: object, _: object) -> tuple[Any, ...]:
            if not isinstance(value, list | tuple):
                raise TypeError(f"expected an array, got {_toml_type(value)}")
            out: list[Any] = []
            errors: list[Exception] = []
            for index, element in enumerate(value):
                try:
                    out.append(converter.structure(element, item))
                except Exception as error:  # collected: every error is reported
                    error.__notes__ = [
                        *getattr(error, "__notes__", []),
                        IterableValidationNote(f"@ index {index}", index, item),
                    ]
                    errors.append(error)
            if errors:
                raise IterableValidationError(f"While structuring {kind}", errors, kind)
            return tuple(out)

        return structure

    converter.register_structure_hook_factory(_is_tuple, tuple_hook)
    converter.register_structure_hook_func(_is_table, _table)

    def model_hook(kind: Any) -> Callable[[object, object], Any]:
        inner = converter.gen_structure_attrs_fromdict(kind)

        def structure(value: object, given: object) -> Any:
            if not isinstance(value, dict):  # else cattrs' own code fails inside, unreadably
                raise TypeError(f"expected a table, got {_toml_type(value)}")
            return inner(value, given)

        return structure

    converter.register_structure_hook_factory(attrs.has, model_hook)

    def literal_hook(value: object, kind: Any) -> Any:
        allowed = typing.get_args(kind)
        if value not in allowed:
            listed = ", ".join(repr(a) for a in allowed)
            raise ValueError(f"expected {listed}, got {value!r}")
        return value

    converter.register_structure_hook_func(_is_literal, literal_hook)
    for enum_type in _ENUMS:

        def enum_hook(value: object, kind: Any) -> Any:
            allowed = [member.value for member in kind]
            if value not in allowed:
                listed = ", ".join(repr(a) for a in allowed)
                raise ValueError(f"expected one of {listed}, got {value!r}")
            return kind(value)

        converter.register_structure_hook(enum_type, enum_hook)

    _register_rule_shapes(converter)
    return converter


def _register_rule_shapes(converter: cattrs.Converter) -> None:
    """A rule by its `kind`, a `require` entry (a glob or an added-only table), a `target` (one
    template or a list)."""

    def rule_hook(value: object, _: object) -> Rule:
        if not isinstance(value, dict):
            raise TypeError(f"a rule is a table, got {_toml_type(value)}")
        kind = value.get("kind")
        if kind not in RULE_KINDS:
            listed = ", ".join(repr(k) for k in RULE_KINDS)
            raise ValueError(f"`kind` must be one of {listed}, got {kind!r}")
        rule: Rule = converter.structure(value, RULE_KINDS[kind])
        return rule

    converter.register_structure_hook(Rule, rule_hook)

    def requirement_hook(value: object, _: object) -> Requirement:
        if isinstance(value, str):
            return value
        if not isinstance(value, dict):
            raise TypeError(
                f'expected a glob or a table {{ path = GLOB, status = "added" }}, got'
                f" {_toml_type(value)}"
            )
        if value.get("status") != "added":
            raise ValueError(
                f'`status` must be "added" (only an added file satisfies the entry; write a'
                f" plain glob for an added or modified one), got {value.get('status')!r}"
            )
        entry: RequireAdded = converter.structure(value, RequireAdded)
        return entry

    converter.register_structure_hook(Requirement, requirement_hook)

    def targets_hook(value: object, _: object) -> Targets:
        if isinstance(value, str):
            return value
        if not isinstance(value, list):
            raise TypeError(f"expected a template or an array of them, got {_toml_type(value)}")
        targets: tuple[str, ...] = converter.structure(value, tuple[str, ...])
        return targets

    converter.register_structure_hook(Targets, targets_hook)


CONVERTER = _make_converter()


def _format(error: BaseException, _: type | None) -> str:
    if isinstance(error, KeyError):
        return "a required key is missing"
    if isinstance(error, ForbiddenExtraKeysError):
        keys = [a.name for a in error.cl.__attrs_attrs__]  # type: ignore[attr-defined]
        names = ", ".join(_with_suggestion(name, keys) for name in sorted(error.extra_fields))
        return f"unknown key {names}; the keys here are: {', '.join(keys)}"
    if isinstance(error, TypeError | ValueError):
        return str(error)
    return f"{type(error).__name__}: {error}"


def _with_suggestion(name: str, keys: list[str]) -> str:
    """`name`, with the valid key one edit away from it, if there is one (a typo, or a kind's
    key used in another kind: `requires` for `require`)."""
    close = [key for key in keys if _one_edit_apart(name, key)]
    return f"{name} (did you mean `{close[0]}`?)" if close else name


def _one_edit_apart(typed: str, key: str) -> bool:
    """One inserted, deleted or replaced character, or two neighbours swapped."""
    if typed == key or abs(len(typed) - len(key)) > 1:
        return False
    start = 0
    while start < min(len(typed), len(key)) and typed[start] == key[start]:
        start += 1
    a, b = typed[start:], key[start:]
    if len(a) == len(b):
        return a[1:] == b[1:] or (len(a) >= 2 and a[0] == b[1] and a[1] == b[0] and a[2:] == b[2:])
    return a[1:] == b if len(a) > len(b) else a == b[1:]


def _where(path: str, data: Mapping[str, Any]) -> str:
    """`$.changes.rules[2].require` -> `changes.rules[2] (id 'x').require`."""
    where = path.removeprefix("$").removeprefix(".")
    match = re.match(r"(changes|code|layout|guards)\.rules\[(\d+)\]", where)
    section = data.get(match.group(1)) if match else None
    rules = section.get("rules") if isinstance(section, dict) else None
    if match and isinstance(rules, list) and int(match.group(2)) < len(rules):
        rule = rules[int(match.group(2))]
        if isinstance(rule, dict) and isinstance(rule.get("id"), str):
            where = f"{match.group(0)} (id {rule['id']!r}){where[match.end() :]}"
    return where


def structure_config(
    data: Mapping[str, Any], source: str
) -> tuple[Config | None, list[ConfigIssue]]:
    """Structure one source's data; on failure, every issue cattrs found, with key paths."""
    try:
        config = CONVERTER.structure(dict(data), Config)
    except (cattrs.BaseValidationError, TypeError, ValueError) as error:
        messages = (
            cattrs.transform_error(error, path="$", format_exception=_format)
            if isinstance(error, cattrs.BaseValidationError)
            else [f"{error} @ $"]
        )
        issues = []
        for message in messages:
            text, _, path = message.rpartition(" @ ")
            issues.append(ConfigIssue(source, _where(path, data), text))
        found = [*issues, *_problems_of_rules_that_structure(data, source)]
        return None, sorted(found, key=_rule_order)
    return config, validate(config, source)


_RULE_CLASSES: tuple[tuple[str, Any], ...] = (
    ("changes", Rule),
    ("code", CodeRule),
    ("layout", LayoutRule),
    ("guards", GuardRule),
)


def _problems_of_rules_that_structure(data: Mapping[str, Any], source: str) -> list[ConfigIssue]:
    """When the whole source does not structure (a key or a type is wrong somewhere), what is
    wrong with each rule that does on its own (globs, templates, examples), so that one run
    names every problem instead of two rounds."""
    issues: list[ConfigIssue] = []
    for section, kind in _RULE_CLASSES:
        table = data.get(section)
        rules = table.get("rules") if isinstance(table, Mapping) else None
        for index, item in enumerate(rules if isinstance(rules, list) else ()):
            rule = _known_keys_structured(item, kind)
            if rule is None:
                continue  # reported with the structural problems
            where = f"{section}.rules[{index}] (id {rule.id!r})"
            problems = _rule_problems(rule) if section == "changes" else _other_problems(rule)
            issues.extend(ConfigIssue(source, f"{where}.{key}", text) for key, text in problems)
    return issues


def _known_keys_structured(item: object, kind: Any) -> Any:
    """A rule from its table without the keys its kind does not know (already reported), or
    None when it still does not structure."""
    if not isinstance(item, dict):
        return None
    cls = RULE_KINDS.get(str(item.get("kind"))) if kind is Rule else kind
    if cls is None:
        return None
    known = {a.name for a in attrs.fields(cls)}
    try:
        return CONVERTER.structure({k: v for k, v in item.items() if k in known}, kind)
    except (cattrs.BaseValidationError, TypeError, ValueError):
        return None


def _rule_order(issue: ConfigIssue) -> tuple[str, int]:
    """Issues of one rule together, rules in their order (the rest first, as found)."""
    found = re.match(r"(changes|code|layout|guards)\.rules\[(\d+)\]", issue.where)
    return (found.group(1), int(found.group(2))) if found else ("", -1)


def unstructure_rule(rule: AnyRule) -> dict[str, Any]:
    """A rule as plain data (what explain --format json prints, and what the digest hashes);
    a code, layout or guard rule with its `kind` too."""
    data: dict[str, Any] = CONVERTER.unstructure(rule)
    data.setdefault("kind", rule.kind)
    return data


def rules_digest(rules: Sequence[AnyRule]) -> str:
    """A digest of the effective change rules: stable across formatting and source order."""
    return digest_of([unstructure_rule(rule) for rule in rules])


__all__ = [
    "CONVERTER",
    "rules_digest",
    "structure_config",
    "unstructure_rule",
    "validate",
]
