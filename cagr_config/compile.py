"""Compiling configured rules into the core's values: patterns and templates checked and
compiled once (globs to the regular expressions wcmatch matches with).

Rules are read through their attributes and told apart by `kind`, never by class: the config
model's values and the quick compile's plain ones (`quick`) compile by this same code, which
loads no part of the model.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import cast

from cagr_core.dependencies import NameFilter
from cagr_core.errors import PatternError, RuleError, TemplateError
from cagr_core.globs import PathMatcher
from cagr_core.guards import Guard, compile_pattern
from cagr_core.layout import name_regex
from cagr_core.ruleset import CompiledRule, RuleSet, Selector
from cagr_core.templates import Template, parse_target
from cagr_core.values import replace
from cagr_core.when import When

from .compiled import Compiled, Settings, StackRun
from .globs import ANCHORED, DOTGLOB, Parts, compile_matcher, expand, glob_translate

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .document import Config
    from .rule_kinds import CodeRule, GuardRule, LayoutRule
    from .rules import Rule, SiblingRule

    JudgedRule = Rule | CodeRule | LayoutRule  # the kinds a RuleSet holds (guards are apart)


def compiled_of(config: Config, rule_sources: tuple[tuple[str, str], ...], digest: str) -> Compiled:
    """What a check reads of a valid combined configuration, given each rule's source and the
    rules' digest; RuleError when a rule cannot be compiled (validation should have found it)."""
    rules = compile_rules((*config.changes.rules, *config.code.rules, *config.layout.rules))
    settings = Settings(
        config.git.protected_branch,
        config.review.pr_sections,
        tuple(StackRun(c.run, c.paths) for c in config.stack.on_turn_end),
        tuple(StackRun(c.run, c.paths) for c in config.stack.ci),
    )
    return Compiled(
        rules,
        settings,
        digest,
        rule_sources,
        compile_guards(config.guards.rules),
        config.guards.disable,
    )


def compile_rules(rules: Iterable[JudgedRule]) -> RuleSet:
    """The rule set these configured rules make; RuleError names the first bad rule."""
    return RuleSet.of(compile_any(rule) for rule in rules)


def compile_any(rule: JudgedRule) -> CompiledRule:
    """Check and compile a change, code or layout rule."""
    if rule.kind == "code":
        return compile_code_rule(cast("CodeRule", rule))
    if rule.kind == "layout":
        return compile_layout_rule(cast("LayoutRule", rule))
    return compile_rule(cast("Rule", rule))


def code_config(rule: CodeRule) -> str:
    """The ast-grep rule object and constraints as canonical JSON text (what the core keeps);
    RuleError when TOML gave it what JSON cannot hold (a date or time)."""
    config: dict[str, object] = {"rule": rule.rule}
    if rule.constraints is not None:
        config["constraints"] = rule.constraints
    try:
        return json.dumps(config, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    except (TypeError, ValueError) as error:
        raise RuleError(
            rule.id, "rule", f"holds a value ast-grep cannot read ({error}); write it as text"
        ) from error


def _selector(rule: CodeRule | LayoutRule) -> Selector:
    if not rule.paths:
        raise RuleError(rule.id, "paths", "needs at least one pattern")
    return Selector(
        _matcher(rule, "paths", rule.paths, "none"), _matcher(rule, "ignores", rule.ignores, "none")
    )


def compile_code_rule(rule: CodeRule) -> CompiledRule:
    """A code rule for the core: its selector, language and canonical ast-grep rule."""
    return CompiledRule(
        rule.id,
        "code",
        rule.reason,
        _selector(rule),
        severity=rule.severity,
        waive_label=rule.waive_label,
        waive_authors=rule.waive_authors,
        language=rule.language,
        code_rule=code_config(rule),
        scope=rule.scope,
    )


def compile_layout_rule(rule: LayoutRule) -> CompiledRule:
    """A layout rule for the core: its selector and name convention, or forbid."""
    if (rule.name is None) == (not rule.forbid):
        raise RuleError(rule.id, "name", "set exactly one of `name` and `forbid = true`")
    regex = None
    if rule.name is not None:
        try:
            regex = name_regex(rule.name)
            re.compile(regex)
        except KeyError as error:
            raise RuleError(rule.id, "name", _NAME_HELP) from error
        except re.error as error:
            raise RuleError(rule.id, "name", f"the pattern does not compile: {error}") from error
    return CompiledRule(
        rule.id,
        "layout",
        rule.reason,
        _selector(rule),
        severity=rule.severity,
        waive_label=rule.waive_label,
        waive_authors=rule.waive_authors,
        name=rule.name,
        name_regex=regex,
        forbid=rule.forbid,
    )


_NAME_HELP = (
    "use one of snake_case, kebab-case, camelCase, PascalCase, SCREAMING_SNAKE_CASE, or"
    " regex:PATTERN (the stem must match PATTERN whole)"
)


def compile_guards(rules: Iterable[GuardRule]) -> tuple[Guard, ...]:
    """The guards, each pattern as its words' regular expressions, in id order."""
    return tuple(
        Guard(rule.id, rule.reason, tuple(compile_pattern(p) for p in rule.commands), rule.note)
        for rule in sorted(rules, key=lambda rule: rule.id)
    )


def _matcher(rule: JudgedRule, key: str, patterns: tuple[str, ...], parts: Parts) -> PathMatcher:
    try:
        return compile_matcher(patterns, parts)
    except PatternError as error:
        raise RuleError(rule.id, key, error.render()) from error


def compile_rule(rule: Rule) -> CompiledRule:
    """Check and compile one rule; RuleError names the rule, the key and the bad part."""
    if not rule.paths:
        raise RuleError(rule.id, "paths", "needs at least one pattern")
    paths = _matcher(rule, "paths", rule.paths, "bind")
    compiled = CompiledRule(
        rule.id,
        rule.kind,
        rule.reason,
        Selector(paths, _matcher(rule, "ignores", rule.ignores, "none")),
        severity=rule.severity,
        waive_label=rule.waive_label,
        when=getattr(rule, "when", When.CHANGED),
        format=getattr(rule, "format", None),
        section=getattr(rule, "section", None),
        contains=getattr(rule, "contains", None),
        placeholders=rule.placeholders if rule.kind == "pr_body" else None,
        checklist=rule.checklist if rule.kind == "pr_body" else False,
        ignore_dependencies=name_filter(getattr(rule, "ignore_dependencies", ())),
        waive_authors=rule.waive_authors,
        ignore_whitespace=getattr(rule, "ignore_whitespace", None),
    )
    if rule.kind == "requires":
        if not rule.require:
            raise RuleError(rule.id, "require", "needs at least one pattern")
        globs = tuple(entry if isinstance(entry, str) else entry.path for entry in rule.require)
        compiled = replace(
            compiled,
            require=tuple(
                _matcher(rule, f"require[{n}]", (glob,), "fill") for n, glob in enumerate(globs)
            ),
            require_globs=globs,
            require_added=tuple(not isinstance(entry, str) for entry in rule.require),
        )
    if rule.kind == "sibling":
        compiled = replace(compiled, targets=_templates(rule))
    _check_parts_defined(rule, compiled)
    return compiled


def _check_parts_defined(rule: Rule, compiled: CompiledRule) -> None:
    """Every named part `require` and `target` fill in must be named by every alternative of
    every `paths` pattern: else some selected path has no value for it."""
    uses: list[tuple[str, frozenset[str]]] = []
    for index, matcher in enumerate(compiled.require):
        uses.append((f"require[{index}]", matcher.parts))
    for index, template in enumerate(compiled.targets):
        key = "target" if len(compiled.targets) == 1 else f"target[{index}]"
        uses.append((key, template.named_parts))
    for key, used in uses:
        for name in sorted(used):
            lacking = _lacking(compiled.selector.paths, rule.paths, name)
            if lacking is not None:
                instead = (
                    "use {dir}, {name} or {ext}" if key.startswith("target") else "write a glob"
                )
                raise RuleError(
                    rule.id,
                    key,
                    f"{{{name}}} is not a named part of {lacking}, so a path it selects has no"
                    f" value for it: name {{{name}}} in every `paths` pattern, or {instead}",
                )


def _lacking(paths: PathMatcher, patterns: tuple[str, ...], name: str) -> str | None:
    """The first `paths` pattern (or brace alternative of one) that does not name `name`."""
    for index, pattern in enumerate(patterns):
        for alternative in expand(pattern.removeprefix("/")):
            if f"{{{name}}}" not in alternative:
                shown = "" if alternative == pattern.removeprefix("/") else f" ({alternative})"
                return f"paths[{index}] {pattern!r}{shown}"
    if name not in paths.defined_everywhere():
        return "every `paths` pattern"
    return None


def name_filter(globs: tuple[str, ...]) -> NameFilter | None:
    """`ignore_dependencies` as the core matches it: each glob on whole names (`*` within one
    `/`-separated part, `**` across), exactly and folded (lowercase; `-`, `_` and `.` one
    separator, as PEP 503 and crates.io compare names)."""
    if not globs:
        return None
    exact = [_name_regex(glob_) for glob_ in globs]
    folded = [_name_regex(_fold_glob(glob_)) for glob_ in globs]
    return NameFilter(globs, tuple(exact), tuple(folded))


def _name_regex(pattern: str) -> str:
    (regex,) = glob_translate([pattern], ANCHORED | DOTGLOB)
    return regex


def _fold_glob(pattern: str) -> str:
    return re.sub(r"[-_.]+", "-", pattern.lower())


def _templates(rule: SiblingRule) -> tuple[Template, ...]:
    """Each target template checked; RuleError names the bad one (`target[1]` in a list)."""
    if not rule.targets:
        raise RuleError(rule.id, "target", "needs at least one template")
    templates = []
    for index, source in enumerate(rule.targets):
        try:
            templates.append(parse_target(source))
        except TemplateError as error:
            key = "target" if isinstance(rule.target, str) else f"target[{index}]"
            raise RuleError(rule.id, key, error.render()) from error
    return tuple(templates)
