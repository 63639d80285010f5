"""The quick compile: TOML data -> the compiled configuration without building the config model.

`cagr ci` compiles the configuration on every run (CI trusts no kept form), and most of what
that cost was importing attrs and cattrs, building the model's classes and cattrs' structuring
functions, not the work. This reads each source's table into plain values with the model's
field names, defaults and conversions (`FIELDS` mirrors the attrs classes field by field), then
judges and compiles them with the model's own code (`checks.validate`, `compile`), so the only
thing of its own is the structuring and the rules' digest data.

It is sure only of what it structures exactly as cattrs does: the exact TOML types the model
accepts, every key known, every required key present, code rules not at all (ast-grep reads
those). Anything else, any issue validation finds, any error at all, and it returns None: the
caller then runs the model's way (`load.load_sources`), which says every problem as it always
has. tests/property/test_quick_compile.py holds the two to the same compiled form over generated
configurations, valid and invalid, and tests/core/test_quick_compile.py its fields to the model's.
"""

from __future__ import annotations

import enum
from typing import Any

from cagr_core.changes import Status
from cagr_core.pull_request import Phase
from cagr_core.severity import Severity
from cagr_core.when import When
from cagr_core.whitespace import Whitespace

from .checks import digest_of, validate
from .compile import compiled_of
from .compiled import Compiled
from .tables import branch_problems, cagr_table, join_sources


class Unsure(Exception):  # not an error: the model's way decides
    """The quick compile is not sure of this configuration."""


_REQUIRED = object()


class Plain:
    """A structured value: the model class's fields as attributes, by name."""

    __slots__ = ("__dict__", "_model")

    def __init__(self, model: str, fields: dict[str, Any]) -> None:
        self._model = model
        self.__dict__.update(fields)
        if model == "SiblingRule":
            target = fields["target"]
            self.targets = (target,) if isinstance(target, str) else target
        elif model in _KINDS:
            self.kind = _KINDS[model]

    def all_rules(self) -> tuple[Plain, ...]:
        """Every rule of a Config, in the model's order (change, code, layout, guard)."""
        config: Any = self
        return (
            *config.changes.rules,
            *config.code.rules,
            *config.layout.rules,
            *config.guards.rules,
        )


_KINDS = {"CodeRule": "code", "LayoutRule": "layout", "GuardRule": "guard"}  # a property there


# Each model class's fields in order: (name, shape, default). A shape is "str", "bool", an
# enum class, ("literal", value), ("optional", shape), ("tuple", shape), a model class's name,
# or "rule" (a change rule by its kind), "requirement", "targets", "none" (a list that must be
# empty: code rules are the model's).
_EXAMPLES = ("examples", "Examples", "Examples")
_RULE_TAIL: tuple[tuple[str, Any, Any], ...] = (
    ("reason", "str", _REQUIRED),
    ("note", ("optional", "str"), None),
    ("severity", Severity, Severity.ERROR),
    ("waive_label", ("optional", "str"), None),
    ("waive_authors", ("tuple", "str"), ()),
    _EXAMPLES,
)
_RULE_HEAD: tuple[tuple[str, Any, Any], ...] = (
    ("id", "str", _REQUIRED),
    ("paths", ("tuple", "str"), _REQUIRED),
    ("ignores", ("tuple", "str"), ()),
)
_FORMAT = ("format", ("optional", ("literal", "requirements")), None)
FIELDS: dict[str, tuple[tuple[str, Any, Any], ...]] = {
    "FixtureChange": (
        ("path", "str", _REQUIRED),
        ("status", Status, _REQUIRED),
        ("before", ("optional", "str"), None),
        ("after", ("optional", "str"), None),
    ),
    "Example": (
        ("changes", ("tuple", "FixtureChange"), _REQUIRED),
        ("pr_body", ("optional", "str"), None),
        ("phase", Phase, Phase.CI),
    ),
    "Examples": (("valid", ("tuple", "Example"), ()), ("invalid", ("tuple", "Example"), ())),
    "RequireAdded": (("path", "str", _REQUIRED), ("status", ("literal", "added"), _REQUIRED)),
    "RequiresRule": (
        _RULE_HEAD[0],
        ("kind", ("literal", "requires"), "requires"),
        *_RULE_HEAD[1:],
        ("when", When, When.CHANGED),
        _FORMAT,
        ("require", ("tuple", "requirement"), _REQUIRED),
        ("ignore_dependencies", ("tuple", "str"), ()),
        *_RULE_TAIL,
    ),
    "AddOnlyRule": (
        _RULE_HEAD[0],
        ("kind", ("literal", "add_only"), "add_only"),
        *_RULE_HEAD[1:],
        ("ignore_whitespace", ("optional", Whitespace), None),
        *_RULE_TAIL,
    ),
    "SiblingRule": (
        _RULE_HEAD[0],
        ("kind", ("literal", "sibling"), "sibling"),
        *_RULE_HEAD[1:],
        ("target", "targets", _REQUIRED),
        *_RULE_TAIL,
    ),
    "PrBodyRule": (
        _RULE_HEAD[0],
        ("kind", ("literal", "pr_body"), "pr_body"),
        *_RULE_HEAD[1:],
        ("when", When, When.CHANGED),
        _FORMAT,
        ("section", "str", _REQUIRED),
        ("contains", ("optional", "str"), None),
        ("placeholders", ("optional", ("tuple", "str")), None),
        ("checklist", "bool", False),
        ("ignore_dependencies", ("tuple", "str"), ()),
        *_RULE_TAIL,
    ),
    "LayoutRule": (
        *_RULE_HEAD,
        ("name", ("optional", "str"), None),
        ("forbid", "bool", False),
        *_RULE_TAIL,
    ),
    "GuardExample": (("command", "str", _REQUIRED),),
    "GuardExamples": (
        ("valid", ("tuple", "GuardExample"), ()),
        ("invalid", ("tuple", "GuardExample"), ()),
    ),
    "GuardRule": (
        ("id", "str", _REQUIRED),
        ("commands", ("tuple", "str"), _REQUIRED),
        ("reason", "str", _REQUIRED),
        ("note", ("optional", "str"), None),
        ("examples", "GuardExamples", "GuardExamples"),
    ),
    "StackCommand": (("run", "str", _REQUIRED), ("paths", ("tuple", "str"), ())),
    "StackConfig": (
        ("on_turn_end", ("tuple", "StackCommand"), ()),
        ("ci", ("tuple", "StackCommand"), ()),
    ),
    "GitConfig": (("protected_branch", ("optional", "str"), None),),
    "ReviewConfig": (("pr_sections", ("tuple", "str"), ()),),
    "ChangesConfig": (("rules", ("tuple", "rule"), ()),),
    "CodeConfig": (("rules", "none", ()),),
    "LayoutConfig": (("rules", ("tuple", "LayoutRule"), ()),),
    "GuardsConfig": (("rules", ("tuple", "GuardRule"), ()), ("disable", ("tuple", "str"), ())),
    "Config": (
        ("changes", "ChangesConfig", "ChangesConfig"),
        ("code", "CodeConfig", "CodeConfig"),
        ("layout", "LayoutConfig", "LayoutConfig"),
        ("guards", "GuardsConfig", "GuardsConfig"),
        ("git", "GitConfig", "GitConfig"),
        ("review", "ReviewConfig", "ReviewConfig"),
        ("stack", "StackConfig", "StackConfig"),
    ),
}
_RULE_KINDS = {
    "requires": "RequiresRule",
    "add_only": "AddOnlyRule",
    "sibling": "SiblingRule",
    "pr_body": "PrBodyRule",
}


def structure(value: object, model: str) -> Plain:
    """One model class's value from TOML data, as cattrs structures it; Unsure otherwise."""
    if type(value) is not dict:
        raise Unsure(model)
    fields = FIELDS[model]
    if not value.keys() <= {name for name, _, _ in fields}:
        raise Unsure(model)  # an unknown key: the model says which
    out: dict[str, Any] = {}
    for name, shape, default in fields:
        if name in value:
            out[name] = _shaped(value[name], shape)
        elif default is _REQUIRED:
            raise Unsure(f"{model}.{name}")
        elif isinstance(default, str) and default in FIELDS:
            out[name] = structure({}, default)  # a factory default
        else:
            out[name] = default
    return Plain(model, out)


def _shaped(value: object, shape: Any) -> Any:  # one return per shape
    if shape == "str":
        if type(value) is not str:
            raise Unsure(shape)
        return value
    if shape == "bool":
        if type(value) is not bool:  # cattrs would take bool(value): the model decides
            raise Unsure(shape)
        return value
    if isinstance(shape, type) and issubclass(shape, enum.Enum):
        if type(value) is not str:
            raise Unsure(shape.__name__)
        return shape(value)  # ValueError for another value: Unsure, by the caller
    if isinstance(shape, str) and shape in FIELDS:
        return structure(value, shape)
    if shape == "rule":
        kind = value.get("kind") if type(value) is dict else None
        if type(kind) is not str or kind not in _RULE_KINDS:
            raise Unsure(shape)
        return structure(value, _RULE_KINDS[kind])
    if shape == "requirement":
        if type(value) is str:
            return value
        return structure(value, "RequireAdded")
    if shape == "targets":
        return value if type(value) is str else _shaped(value, ("tuple", "str"))
    if shape == "none":
        if type(value) is not list or value:
            raise Unsure("code rules")
        return ()
    outer, inner = shape
    if outer == "literal":
        if type(value) is not str or value != inner:
            raise Unsure(shape)
        return value
    if outer == "optional":
        return _shaped(value, inner)  # TOML has no null: the value is never None
    if type(value) is not list:  # outer == "tuple"
        raise Unsure(shape)
    return tuple(_shaped(item, inner) for item in value)


def plain_data(value: Any) -> Any:
    """A structured value as cattrs unstructures the model's (what the digest hashes)."""
    if isinstance(value, Plain):
        data = {name: plain_data(getattr(value, name)) for name, _, _ in FIELDS[value._model]}
        if value._model in _KINDS:
            data.setdefault("kind", _KINDS[value._model])
        return data
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, tuple):
        return [plain_data(item) for item in value]
    return value


def quick_compile(
    read: list[tuple[str, bytes]], problems: list[tuple[str, str]]
) -> Compiled | None:
    """The compiled configuration of these sources, exactly as `load.load_sources` compiles it;
    None when this is not sure of it (then the model's way decides, and says every problem)."""
    if problems:
        return None
    try:
        return _compile(read)
    except Exception:  # Unsure, or any other doubt at all: the model's way decides
        return None


def _compile(read: list[tuple[str, bytes]]) -> Compiled | None:
    parts: list[tuple[str, Plain]] = []
    for name, data in read:
        table, issue = cagr_table(name, data)
        if issue is not None:
            return None
        if table is None:
            continue
        config: Any = structure(table, "Config")
        if validate(config, name) or branch_problems(name, config.git.protected_branch):
            return None
        parts.append((name, config))
    combined = _combine(parts)
    if combined is None:
        return None
    config, rule_sources = combined
    digest = digest_of([plain_data(rule) for rule in config.all_rules()])
    return compiled_of(config, rule_sources, digest)


def _combine(parts: list[tuple[str, Any]]) -> tuple[Any, tuple[tuple[str, str], ...]] | None:
    """The parts joined as the model's way joins them; None for anything it calls an issue."""
    joined, issues = join_sources(parts)
    if issues:
        return None
    rules = joined.rules
    config = Plain(
        "Config",
        {
            "changes": Plain("ChangesConfig", {"rules": rules["changes"]}),
            "code": Plain("CodeConfig", {"rules": rules["code"]}),
            "layout": Plain("LayoutConfig", {"rules": rules["layout"]}),
            "guards": Plain("GuardsConfig", {"rules": rules["guards"], "disable": joined.disable}),
            "git": Plain("GitConfig", {"protected_branch": joined.protected_branch}),
            "review": Plain("ReviewConfig", {"pr_sections": joined.pr_sections}),
            "stack": Plain("StackConfig", {"on_turn_end": joined.on_turn_end, "ci": joined.ci}),
        },
    )
    return config, joined.rule_sources
