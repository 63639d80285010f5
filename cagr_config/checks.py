"""What types cannot say about a structured configuration: non-blank text, ids, globs,
templates, possible examples; and the rules' digest.

Standard library (and the pattern compiler) only. Rules are read through their attributes and
told apart by `kind`, so the config model's values (structured by cattrs in `validate`) and the
quick compile's plain ones (`quick`) are judged by this same code.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any, cast

from cagr_core.changes import ChangeSet
from cagr_core.dependencies import FORMATS
from cagr_core.errors import ConfigIssue, PatternError, RuleError, TemplateError
from cagr_core.guards import BUILT_IN
from cagr_core.ruleset import CompiledRule
from cagr_core.sections import HeadingError, heading_level, placeholder_words, visible_text
from cagr_core.templates import parse_target
from cagr_core.when import When

from .compile import code_config, compile_code_rule, compile_layout_rule, compile_rule
from .fixtures import FixtureError, fixture_changeset, path_problem
from .globs import check_pattern
from .manifest_globs import could_be_read

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .document import AnyRule, Config, StackCommand
    from .examples import Example
    from .rule_kinds import CodeRule, GuardRule, LayoutRule
    from .rules import Rule, SiblingRule

_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*\Z")


def digest_of(plain_rules: list[dict[str, Any]]) -> str:
    """The digest of rules given as plain data (each with its `kind`): sorted by id, as
    canonical JSON, hashed."""
    ordered = sorted(plain_rules, key=lambda data: str(data["id"]))
    canonical = json.dumps(ordered, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8", "surrogateescape")).hexdigest()


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
    if rule.kind == "guard":
        return problems + _guard_problems(cast("GuardRule", rule))
    rule = cast("CodeRule | LayoutRule", rule)
    globs = [
        (f"{key}[{index}]", message)
        for key, patterns in (("paths", rule.paths), ("ignores", rule.ignores))
        for index, pattern in enumerate(patterns)
        if (message := _pattern_problem(pattern))
    ]
    if not rule.paths:
        globs.append(("paths", "list at least one glob"))
    problems += globs
    if rule.kind == "code":
        return problems + _code_problems(cast("CodeRule", rule), globs_ok=not globs)
    return problems + _layout_problems(cast("LayoutRule", rule), globs_ok=not globs)


def _shared_text_problems(rule: CodeRule | LayoutRule | GuardRule) -> list[tuple[str, str]]:
    texts = {"reason": rule.reason, "note": rule.note}
    problems = [
        (key, "cannot be blank" + ("; say what to do instead" if key == "reason" else ""))
        for key, text in texts.items()
        if text is not None and not visible_text(text).strip()
    ]
    if rule.kind == "guard":
        return problems
    rule = cast("CodeRule | LayoutRule", rule)
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
    from .rule_kinds import LANGUAGES  # noqa: PLC0415  # the model's (a quick compile defers)

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
    body = rule if rule.kind == "pr_body" else None
    if body is not None:
        texts |= {"contains": body.contains}
    problems = [
        (key, "cannot be blank" + ("; say what to do instead" if key == "reason" else ""))
        for key, text in texts.items()
        if text is not None and not visible_text(text).strip()
    ]
    if body is not None:
        heading = _heading_problem(body.section)
        if heading:
            problems.append(("section", heading))
        for index, word in enumerate(body.placeholders or ()):
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
    if rule.kind == "requires":
        lists["require"] = tuple(
            entry if isinstance(entry, str) else entry.path for entry in rule.require
        )
    if rule.kind in ("requires", "pr_body"):
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
    problems = _target_problems(rule) if rule.kind == "sibling" else []
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
