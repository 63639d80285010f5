"""`cagr explain ID`: what a rule checks, where it comes from, and when it runs; without an ID,
every rule's id and kind."""

from __future__ import annotations

import argparse
import difflib
import sys
from collections.abc import Callable

from cagr_config.compile import code_config
from cagr_config.document import AnyRule
from cagr_config.examples import Example
from cagr_config.rule_kinds import CodeExample, CodeRule, GuardExample, GuardRule, LayoutRule
from cagr_config.rules import (
    PrBodyRule,
    RequiresRule,
    Rule,
    Severity,
    SiblingRule,
    describe_requirement,
    require_glob,
)
from cagr_config.validate import unstructure_rule
from cagr_core.globs import named_spans
from cagr_core.guards import BUILT_IN
from cagr_core.render import waivable
from cagr_core.sections import heading_level, heading_marks
from cagr_repo.config import RepoConfig

from ..checkout import config_root, load, not_on_disk, unread_note
from ..output import EXIT_INVALID, EXIT_OK, print_json

CHECKED = "checked at an agent's turn end, before `gh pr create` / `gh pr ready`, and in CI"
DEFERRED = (
    "deferred at an agent's turn end (advisory, never blocks); checked before `gh pr create`"
    " when the body is given, and in CI"
)
FILES = CHECKED + "; `cagr check` runs it on the working tree's files"
GUARDED = "judged before every shell command an agent runs (each agent's before-command hook)"


def events(rule: AnyRule) -> str:
    if isinstance(rule, GuardRule):
        return GUARDED
    if isinstance(rule, CodeRule | LayoutRule):
        return FILES
    return DEFERRED if isinstance(rule, PrBodyRule) else CHECKED


def _severity(rule: Rule | CodeRule | LayoutRule) -> str:
    if rule.severity is Severity.WARN:
        return "warn (findings are shown everywhere, and never fail a check, block or deny)"
    return "error (findings fail the check, block an agent's stop, and deny at the PR gate)"


def _example_line(example: Example | CodeExample | GuardExample) -> str:
    if isinstance(example, GuardExample):
        return f"`{example.command}`"
    if isinstance(example, CodeExample):
        status = "A" if example.before is None else "D" if example.after is None else "M"
        return f"{status} {example.path}"
    changes = ", ".join(f"{c.status.value} {c.path}" for c in example.changes) or "no changes"
    body = "no PR body" if example.pr_body is None else f"PR body of {len(example.pr_body)} chars"
    return f"{changes}; {body}; phase {example.phase.value}"


def _list(source_of: Callable[[str], str], rules: list[AnyRule], fmt: str) -> int:
    """Every rule's id, kind and source."""
    if fmt == "json":
        print_json(
            {"rules": [{"id": r.id, "kind": r.kind, "source": source_of(r.id)} for r in rules]}
        )
        return EXIT_OK
    if not rules:
        print(
            "No rules are configured (cagr.toml, .cagr/*.toml or [tool.cagr] in"
            " pyproject.toml); `cagr init` suggests some."
        )
        return EXIT_OK
    width = max(len(r.id) for r in rules)
    lines = [f"{len(rules)} rule(s); `cagr explain ID` shows one:"]
    lines.extend(f"  {r.id:<{width}}  {r.kind:<8}  {source_of(r.id)}" for r in rules)
    lines.append(f"Built-in guards (`[guards] disable` turns one off): {', '.join(BUILT_IN)}.")
    print("\n".join(lines))
    return EXIT_OK


def _config(args: argparse.Namespace) -> RepoConfig | int:
    """The configuration to explain; with none, what sits where cagr does not read it."""
    root = config_root(args)
    if isinstance(root, int):
        return root
    config = load(args, root)
    if isinstance(config, RepoConfig) and not config.config.changes.rules:
        unread = unread_note(args.repo)
        if unread:
            print(unread, file=sys.stderr)
    return config


def run(args: argparse.Namespace) -> int:
    config = _config(args)
    if isinstance(config, int):
        return config
    by_id = {rule.id: rule for rule in config.config.all_rules()}
    wanted = list(dict.fromkeys([*([args.id] if args.id else []), *(args.rule or [])]))
    if not wanted:
        return _list(config.loaded.source_of, [by_id[i] for i in sorted(by_id)], args.format)
    builtins = [i for i in wanted if i in BUILT_IN and i not in by_id]
    if builtins:
        return _built_in(builtins, config.config.guards.disable, args.format)
    for rule_id in wanted:
        if rule_id not in by_id:
            return _unknown(args, rule_id, by_id)
    source_of = config.loaded.source_of
    if args.format == "json":
        shown = [
            {"rule": unstructure_rule(by_id[i]), "source": source_of(i), "events": events(by_id[i])}
            for i in wanted
        ]
        print_json(shown[0] if len(shown) == 1 else {"rules": shown})
        return EXIT_OK
    print("\n\n".join(_explained(by_id[rule_id], source_of(rule_id)) for rule_id in wanted))
    return EXIT_OK


def _built_in(ids: list[str], disabled: tuple[str, ...], fmt: str) -> int:
    """The built-in guards asked for: what each denies, and whether it is on."""
    from cagr_hooks.guards import REASONS, WHAT  # noqa: PLC0415

    if fmt == "json":
        shown = [
            {"id": i, "kind": "guard", "built_in": True, "on": i not in disabled,
             "denies": WHAT[i], "reason": REASONS[i]}
            for i in ids
        ]  # fmt: skip
        print_json(shown[0] if len(shown) == 1 else {"rules": shown})
        return EXIT_OK
    blocks = []
    for rule_id in ids:
        state = "off ([guards] disable names it)" if rule_id in disabled else "on"
        blocks.append(
            f"{rule_id} (guard, built in: {state})\n  denies:   {WHAT[rule_id]}\n"
            f"  reason:   {REASONS[rule_id]}\n  events:   {GUARDED}"
        )
    print("\n\n".join(blocks))
    return EXIT_OK


def _unknown(args: argparse.Namespace, rule_id: str, by_id: dict[str, AnyRule]) -> int:
    close = difflib.get_close_matches(rule_id, list(by_id), n=3, cutoff=0.5)
    if close:
        more = f"; did you mean {', '.join(close)}?"
    elif by_id:
        more = f". The rules are: {', '.join(sorted(by_id))}."
    else:
        more = (
            ". No rules are configured (cagr.toml, .cagr/*.toml or [tool.cagr] in pyproject.toml)."
        )
    missing = not_on_disk(args.repo)
    if missing:
        more += f" ({', '.join(missing)} is committed at HEAD but not in the working tree.)"
    print(f"cagr explain: no rule has the id {rule_id!r}{more}", file=sys.stderr)
    return EXIT_INVALID


def _named_parts(rule: AnyRule) -> str | None:
    """The named parts the rule's companions fill in, and what that means."""
    used: list[str] = []
    for text in [*getattr(rule, "targets", ()), *map(require_glob, getattr(rule, "require", ()))]:
        used.extend(name for _, _, name in named_spans(text) if name not in used)
    if not used:
        return None
    listed = ", ".join(f"{{{name}}}" for name in used)
    return (
        f"{listed}: what the paths matched there, put in literally; each distinct binding needs"
        " its own companion"
    )


def _explained(rule: AnyRule, source: str) -> str:
    lines = [f"{rule.id} ({rule.kind})", f"  source:   {source}"]
    if isinstance(rule, GuardRule):
        lines.append(f"  commands: {'; '.join(rule.commands)}")
        lines.append(f"  reason:   {rule.reason}")
        if rule.note:
            lines.append(f"  note:     {rule.note}")
        return "\n".join([*lines, *_tail(rule)])
    lines.append(f"  paths:    {', '.join(rule.paths)}")
    lines.append(f"  ignores:  {', '.join(rule.ignores) or '(none)'}")
    if isinstance(rule, CodeRule):
        lines.append(f"  language: {rule.language}")
        lines.append(f"  rule:     {code_config(rule)}")
        new = "what the change adds (matches the merge base's file already holds do not count)"
        lines.append(f"  scope:    {rule.scope}: {new if rule.scope == 'new' else 'whole files'}")
    if isinstance(rule, LayoutRule):
        judged = f"added files' stems must be {rule.name}" if rule.name else "no file may be added"
        lines.append(f"  layout:   {judged}")
    lines.extend(_triggers(rule))
    if isinstance(rule, RequiresRule):
        lines.append(f"  require:  {', '.join(map(describe_requirement, rule.require))}")
    if isinstance(rule, SiblingRule):
        accepted = " or ".join(rule.targets)
        lines.append(f"  target:   {accepted}" + (" (any one)" if len(rule.targets) > 1 else ""))
    parts = _named_parts(rule)
    if parts is not None:
        lines.append(f"  parts:    {parts}")
    if isinstance(rule, PrBodyRule):
        level, name = heading_level(rule.section)
        lines.append(f"  section:  {heading_marks(rule.section)} (level {level}: {name})")
        if rule.contains is not None:
            lines.append(f"  contains: {rule.contains}")
        if rule.placeholders is not None:
            words = ", ".join(rule.placeholders) or "none: any text is an answer"
            lines.append(f"  no answer: {words}")
        if rule.checklist:
            lines.append("  checklist: the section must keep a task-list item (`- [ ]` or `- [x]`)")
    lines.append(f"  reason:   {rule.reason}")
    if rule.note:
        lines.append(f"  note:     {rule.note}")
    lines.append(f"  severity: {_severity(rule)}")
    if rule.waive_label is not None:
        lines.append(f"  waivable: {waivable(rule.waive_label).removeprefix('Waivable: ')}")
    if rule.waive_authors:
        lines.append(
            f"  waivable: in CI, a pull request opened by {', '.join(rule.waive_authors)} has"
            " its findings reported as waived"
        )
    return "\n".join([*lines, *_tail(rule)])


def _triggers(rule: AnyRule) -> list[str]:
    """What fires a change rule beyond its paths, and which edits do not count."""
    lines = []
    when = getattr(rule, "when", None)
    if when is not None:
        lines.append(f"  when:     {when.value}")
    fmt = getattr(rule, "format", None)
    if fmt is not None:
        lines.append(f"  format:   {fmt}")
    ignored = getattr(rule, "ignore_dependencies", ())
    if ignored:
        lines.append(f"  ignoring: dependencies named {', '.join(ignored)}")
    whitespace = getattr(rule, "ignore_whitespace", None)
    if whitespace is not None:
        lines.append(
            f"  edits:    one that changes only whitespace does not count ({whitespace.value}:"
            f" `git diff {whitespace.git_option}` shows nothing)"
        )
    return lines


def _tail(rule: AnyRule) -> list[str]:
    """When the rule runs, and its examples."""
    lines = [f"  events:   {events(rule)}", "  examples:"]
    for label in ("valid", "invalid"):
        for index, example in enumerate(getattr(rule.examples, label)):
            lines.append(f"    {label}[{index}]: {_example_line(example)}")
    return lines
