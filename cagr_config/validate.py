"""The config validator: plain TOML data -> Config, every problem found at once with its key path.

cattrs does the structuring (unknown keys, wrong types, missing keys); a second pass checks what
types cannot say (non-blank text, valid globs and templates, possible examples).
"""

from __future__ import annotations

import hashlib
import json
import re
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs
import cattrs
from cattrs.errors import ForbiddenExtraKeysError, IterableValidationError, IterableValidationNote

from cagr_core.changes import ChangeSet, Status
from cagr_core.dependencies import FORMATS
from cagr_core.errors import ConfigIssue, PatternError, RuleError, TemplateError
from cagr_core.guards import BUILT_IN
from cagr_core.pull_request import Phase
from cagr_core.ruleset import CompiledRule
from cagr_core.sections import HeadingError, heading_level, placeholder_words, visible_text
from cagr_core.templates import parse_target

from .compile import code_config, compile_code_rule, compile_layout_rule, compile_rule
from .document import AnyRule, Config, StackCommand
from .examples import Example, FixtureError, fixture_changeset, path_problem
from .globs import check_pattern
from .manifest_globs import could_be_read
from .rule_kinds import LANGUAGES, CodeRule, GuardRule, LayoutRule
from .rules import (
    RULE_KINDS,
    PrBodyRule,
    RequireAdded,
    Requirement,
    RequiresRule,
    Rule,
    Severity,
    SiblingRule,
    Targets,
    When,
    require_glob,
)

_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*\Z")
_ENUMS: tuple[type, ...] = (Status, Phase, When, Severity)


def _strict_str(value: object, _: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {_toml_type(value)}")
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


def validate(config: Config, source: str) -> list[ConfigIssue]:
    """What types cannot say: non-blank text, ids, globs, templates, and possible examples."""
    issues: list[ConfigIssue] = []
    for index, rule in enumerate(config.changes.rules):
        where = f"changes.rules[{index}] (id {rule.id!r})"
        issues.extend(
            ConfigIssue(source, f"{where}.{key}", text) for key, text in _rule_problems(rule)
        )
    kinds: list[tuple[str, tuple[CodeRule | LayoutRule | GuardRule, ...]]] = [
        ("code.rules", config.code.rules),
        ("layout.rules", config.layout.rules),
        ("guards.rules", config.guards.rules),
    ]
    for key, rules in kinds:
        for index, other in enumerate(rules):
            where = f"{key}[{index}] (id {other.id!r})"
            issues.extend(
                ConfigIssue(source, f"{where}.{k}", text) for k, text in _other_problems(other)
            )
    for index, disabled in enumerate(config.guards.disable):
        if disabled not in BUILT_IN:
            issues.append(
                ConfigIssue(
                    source,
                    f"guards.disable[{index}]",
                    f"{disabled!r} is no built-in guard; the built-in ones are"
                    f" {', '.join(BUILT_IN)} (a guard of your own is turned off by removing it)",
                )
            )
    for name in ("on_turn_end", "ci"):
        commands: tuple[StackCommand, ...] = getattr(config.stack, name)
        for index, command in enumerate(commands):
            where = f"stack.{name}[{index}]"
            if not command.run.strip():
                issues.append(ConfigIssue(source, f"{where}.run", "write the command to run"))
            issues.extend(
                ConfigIssue(source, f"{where}.paths[{i}]", message)
                for i, p in enumerate(command.paths)
                if (message := _pattern_problem(p))
            )
    for index, section in enumerate(config.review.pr_sections):
        problem = _heading_problem(section)
        if problem:
            issues.append(ConfigIssue(source, f"review.pr_sections[{index}]", problem))
    branch = config.git.protected_branch
    if branch is not None and not branch.strip():
        issues.append(ConfigIssue(source, "git.protected_branch", "name the branch, e.g. main"))
    return issues


def _heading_problem(section: str) -> str:
    """What is wrong with a section name (`Risk`, `### AI usage`), if anything."""
    if not visible_text(section).strip():
        return "a heading cannot be blank"
    try:
        _, text = heading_level(section)
    except HeadingError as error:
        return str(error)
    return "" if visible_text(text).strip() else "a heading cannot be blank"


def _pattern_problem(pattern: str, parts: str = "none") -> str:
    try:
        check_pattern(pattern, parts)
    except PatternError as error:
        return error.render()
    return ""


def _rule_problems(rule: Rule) -> list[tuple[str, str]]:
    """Every problem of one rule as (key, message)."""
    glob_problems = _glob_problems(rule)
    compiled, template_problems = _compile(rule, globs_ok=not glob_problems)
    return [
        *_id_problems(rule),
        *_text_problems(rule),
        *glob_problems,
        *_manifest_problems(rule, globs_ok=not glob_problems),
        *template_problems,
        *_example_problems(rule, compiled),
    ]


def _other_problems(rule: CodeRule | LayoutRule | GuardRule) -> list[tuple[str, str]]:
    """Every problem of one code, layout or guard rule as (key, message)."""
    problems = [*_id_problems(rule), *_shared_text_problems(rule)]
    if isinstance(rule, GuardRule):
        return problems + _guard_problems(rule)
    globs = [
        (f"{key}[{index}]", message)
        for key, patterns in (("paths", rule.paths), ("ignores", rule.ignores))
        for index, pattern in enumerate(patterns)
        if (message := _pattern_problem(pattern))
    ]
    if not rule.paths:
        globs.append(("paths", "list at least one glob"))
    problems += globs
    if isinstance(rule, CodeRule):
        return problems + _code_problems(rule, globs_ok=not globs)
    return problems + _layout_problems(rule, globs_ok=not globs)


def _shared_text_problems(rule: CodeRule | LayoutRule | GuardRule) -> list[tuple[str, str]]:
    texts = {"reason": rule.reason, "note": rule.note}
    problems = [
        (key, "cannot be blank" + ("; say what to do instead" if key == "reason" else ""))
        for key, text in texts.items()
        if text is not None and not visible_text(text).strip()
    ]
    if isinstance(rule, GuardRule):
        return problems
    if rule.waive_label is not None and not rule.waive_label.strip():
        problems.append(("waive_label", "cannot be blank"))
    for index, author in enumerate(rule.waive_authors):
        if not author.strip() or author != author.strip() or "," in author:
            problems.append(
                (f"waive_authors[{index}]", "write the account's login: no spaces, no commas")
            )
    return problems + _label_problems(rule.waive_label)


def _code_problems(rule: CodeRule, globs_ok: bool) -> list[tuple[str, str]]:
    """The language, the ast-grep rule object (as ast-grep reads it, when it is installed)
    and the examples of a code rule."""
    problems: list[tuple[str, str]] = []
    if rule.language not in LANGUAGES:
        problems.append(
            ("language", f"{rule.language!r} is no ast-grep language cagr knows: use one of"
             f" {', '.join(LANGUAGES)}")
        )  # fmt: skip
    if not rule.rule:
        problems.append(("rule", 'write an ast-grep rule object, e.g. { pattern = "print($A)" }'))
    compiled = None
    if not problems and globs_ok:
        try:
            compiled = compile_code_rule(rule)
        except RuleError as error:
            problems.append((error.key, error.message))
    if compiled is not None:
        # ast-grep's own reading of the rule, when it is installed (cagr's `code` extra)
        from cagr_code import rule_problem  # noqa: PLC0415

        config: dict[str, Any] = json.loads(code_config(rule))
        said = rule_problem(rule.language, config)
        if said is not None:
            problems.append(("rule", f"ast-grep cannot use it: {said}"))
    for label in ("valid", "invalid"):
        examples = getattr(rule.examples, label)
        if not examples:
            shape = '{ path = "src/a.py", after = "..." }'
            problems.append((f"examples.{label}", f"add at least one {label} example: {shape}"))
        for index, example in enumerate(examples):
            where = f"examples.{label}[{index}]"
            problem = path_problem(example.path)
            if problem is not None:
                problems.append((where, f"{example.path!r}: {problem}"))
            elif example.before is None and example.after is None:
                problems.append((where, "give `after` (the file), `before` too for an edit"))
            elif example.before == example.after:
                problems.append((where, "before and after are the same, which is no change"))
            elif compiled is not None and not compiled.selector.selects(example.path):
                problems.append(
                    (where, f"{example.path} is not selected by this rule's paths and ignores")
                )
    return problems


def _layout_problems(rule: LayoutRule, globs_ok: bool) -> list[tuple[str, str]]:
    problems: list[tuple[str, str]] = []
    if globs_ok:
        try:
            compile_layout_rule(rule)
        except RuleError as error:
            problems.append((error.key, error.message))
    return problems + _example_problems(rule, None)


def _guard_problems(rule: GuardRule) -> list[tuple[str, str]]:
    problems: list[tuple[str, str]] = []
    if not rule.commands:
        problems.append(("commands", 'list at least one command pattern, e.g. "git push --force"'))
    problems.extend(
        (f"commands[{index}]", "write the program and the words to deny, e.g. terraform destroy")
        for index, pattern in enumerate(rule.commands)
        if not pattern.split()
    )
    for label in ("valid", "invalid"):
        examples = getattr(rule.examples, label)
        if not examples:
            problems.append(
                (f"examples.{label}", f'add at least one {label} example: {{ command = "..." }}')
            )
        problems.extend(
            (f"examples.{label}[{index}].command", "write the command line")
            for index, example in enumerate(examples)
            if not example.command.strip()
        )
    return problems


def _id_problems(rule: AnyRule) -> list[tuple[str, str]]:
    if _ID.match(rule.id):
        return []
    return [("id", "use letters, digits, '.', '_' and '-', starting with a letter or digit")]


def _text_problems(rule: Rule) -> list[tuple[str, str]]:
    texts = {"reason": rule.reason, "note": rule.note, "waive_label": rule.waive_label}
    if isinstance(rule, PrBodyRule):
        texts |= {"contains": rule.contains}
    problems = [
        (key, "cannot be blank" + ("; say what to do instead" if key == "reason" else ""))
        for key, text in texts.items()
        if text is not None and not visible_text(text).strip()
    ]
    if isinstance(rule, PrBodyRule):
        heading = _heading_problem(rule.section)
        if heading:
            problems.append(("section", heading))
        for index, word in enumerate(rule.placeholders or ()):
            if not placeholder_words((word,)):
                problems.append(
                    (
                        f"placeholders[{index}]",
                        "a placeholder needs a letter or number (lines without any are never an"
                        " answer anyway)",
                    )
                )
    for index, author in enumerate(rule.waive_authors):
        if not author.strip() or author != author.strip() or "," in author:
            problems.append(
                (
                    f"waive_authors[{index}]",
                    "write the account's login as the forge shows it (renovate[bot]): no"
                    " spaces around it, no commas",
                )
            )
    return problems + _label_problems(rule.waive_label)


def _label_problems(label: str | None) -> list[tuple[str, str]]:
    """A label must read back exactly from a comma-separated list (GitLab's, `--labels`)."""
    if label is None or not label.strip():
        return []
    if "," in label:
        return [("waive_label", "cannot hold a comma: CI passes labels as a comma-separated list")]
    if label != label.strip():
        return [("waive_label", "remove the spaces around the label")]
    return []


_PARTS = {"paths": "bind", "ignores": "none", "require": "fill", "ignore_dependencies": "none"}


def _glob_problems(rule: Rule) -> list[tuple[str, str]]:
    lists = {"paths": rule.paths, "ignores": rule.ignores}
    if isinstance(rule, RequiresRule):
        lists["require"] = tuple(require_glob(entry) for entry in rule.require)
    if isinstance(rule, RequiresRule | PrBodyRule):
        lists["ignore_dependencies"] = rule.ignore_dependencies
    problems = [
        (f"{key}[{index}]", message)
        for key, patterns in lists.items()
        for index, pattern in enumerate(patterns)
        if (message := _pattern_problem(pattern, _PARTS[key]))
    ]
    problems.extend(
        (key, "list at least one glob") for key in ("paths", "require") if lists.get(key) == ()
    )
    return problems


def _manifest_problems(rule: Rule, globs_ok: bool) -> list[tuple[str, str]]:
    """`format` and `ignore_dependencies` without a dependency trigger, and trigger globs it
    cannot read."""
    when = getattr(rule, "when", When.CHANGED)
    chosen = getattr(rule, "format", None)
    if not when.reads_manifests:
        problems = []
        if chosen is not None:
            problems.append(
                ("format", 'only a `when = "dependency_added"` rule reads manifests; remove it')
            )
        if getattr(rule, "ignore_dependencies", ()):
            problems.append(
                (
                    "ignore_dependencies",
                    'only a rule with `when = "dependency_added"` or `"dependency_changed"`'
                    " reads dependencies; remove it, or set `when`",
                )
            )
        return problems
    if chosen is not None or not globs_ok:
        return []
    return [
        (
            f"paths[{index}]",
            f'`when = "{when.value}"` reads {FORMATS}; {pattern} can match none of them.'
            ' Select those manifests, or set `format = "requirements"` for a pip requirements'
            " file named otherwise",
        )
        for index, pattern in enumerate(rule.paths)
        if not could_be_read(pattern)
    ]


def _compile(rule: Rule, globs_ok: bool) -> tuple[CompiledRule | None, list[tuple[str, str]]]:
    """The compiled rule when its globs and templates are good; every template problem."""
    problems = _target_problems(rule) if isinstance(rule, SiblingRule) else []
    if not globs_ok or problems:
        return None, problems
    try:
        return compile_rule(rule), []
    except RuleError as error:  # what the checks above do not foresee
        return None, [(error.key, error.message)]


def _target_problems(rule: SiblingRule) -> list[tuple[str, str]]:
    """Every bad template of a sibling rule, keyed by its place in a list."""
    if not rule.targets:
        return [("target", "list at least one target template")]
    problems = []
    for index, source in enumerate(rule.targets):
        key = "target" if isinstance(rule.target, str) else f"target[{index}]"
        try:
            parse_target(source)
        except TemplateError as error:
            problems.append((key, error.render()))
    return problems


def _example_problems(
    rule: Rule | LayoutRule, compiled: CompiledRule | None
) -> list[tuple[str, str]]:
    """Missing or impossible examples, and examples the dependency selector cannot read."""
    problems: list[tuple[str, str]] = []
    for label in ("valid", "invalid"):
        examples: tuple[Example, ...] = getattr(rule.examples, label)
        if not examples:
            shape = "{ changes = [{ path = ..., status = ... }] }"
            problems.append((f"examples.{label}", f"add at least one {label} example: {shape}"))
        for index, example in enumerate(examples):
            try:
                changes = fixture_changeset(example)
            except FixtureError as error:
                problems.append((f"examples.{label}[{index}]", str(error)))
                continue
            if compiled is not None and compiled.when.reads_manifests:
                problems.extend(
                    (f"examples.{label}[{index}]", message)
                    for message in _missing_content(compiled, changes)
                )
    return problems


def _missing_content(compiled: CompiledRule, changes: ChangeSet) -> list[str]:
    return [
        f"{change.path} needs `{side_name}` content: the dependency selector reads both sides"
        " that exist"
        for change in changes.changes
        if compiled.selector.selects(change.path)
        for side_name, side in (("before", change.old), ("after", change.new))
        if side is not None and side.content is None
    ]


def unstructure_rule(rule: AnyRule) -> dict[str, Any]:
    """A rule as plain data (what explain --format json prints, and what the digest hashes);
    a code, layout or guard rule with its `kind` too."""
    data: dict[str, Any] = CONVERTER.unstructure(rule)
    data.setdefault("kind", rule.kind)
    return data


def rules_digest(rules: Sequence[AnyRule]) -> str:
    """A digest of the effective change rules: stable across formatting and source order."""
    ordered = sorted((unstructure_rule(rule) for rule in rules), key=lambda data: str(data["id"]))
    canonical = json.dumps(ordered, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8", "surrogateescape")).hexdigest()


__all__ = [
    "CONVERTER",
    "rules_digest",
    "structure_config",
    "unstructure_rule",
    "validate",
]
