"""`cagr explain ID`: what a rule checks, where it comes from, and when it runs; without an ID,
every rule's id and kind."""

from __future__ import annotations

import argparse
import difflib
import sys
from collections.abc import Callable

from cagr_config.examples import Example
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
from cagr_core.render import waivable
from cagr_core.sections import heading_level, heading_marks

from ..checkout import load, not_on_disk, root_of
from ..output import EXIT_INVALID, EXIT_OK, print_json

CHECKED = "checked at an agent's turn end, before `gh pr create` / `gh pr ready`, and in CI"
DEFERRED = (
    "deferred at an agent's turn end (advisory, never blocks); checked before `gh pr create`"
    " when the body is given, and in CI"
)


def events(rule: Rule) -> str:
    return DEFERRED if isinstance(rule, PrBodyRule) else CHECKED


def _severity(rule: Rule) -> str:
    if rule.severity is Severity.WARN:
        return "warn (findings are shown everywhere, and never fail a check, block or deny)"
    return "error (findings fail the check, block an agent's stop, and deny at the PR gate)"


def _example_line(example: Example) -> str:
    changes = ", ".join(f"{c.status.value} {c.path}" for c in example.changes) or "no changes"
    body = "no PR body" if example.pr_body is None else f"PR body of {len(example.pr_body)} chars"
    return f"{changes}; {body}; phase {example.phase.value}"


def _list(source_of: Callable[[str], str], rules: list[Rule], fmt: str) -> int:
    """Every rule's id, kind and source."""
    if fmt == "json":
        print_json(
            {"rules": [{"id": r.id, "kind": r.kind, "source": source_of(r.id)} for r in rules]}
        )
        return EXIT_OK
    if not rules:
        print(
            "No change rules are configured (cagr.toml, .cagr/*.toml or [tool.cagr] in"
            " pyproject.toml); `cagr init` suggests some."
        )
        return EXIT_OK
    width = max(len(r.id) for r in rules)
    lines = [f"{len(rules)} change rule(s); `cagr explain ID` shows one:"]
    lines.extend(f"  {r.id:<{width}}  {r.kind:<8}  {source_of(r.id)}" for r in rules)
    print("\n".join(lines))
    return EXIT_OK


def run(args: argparse.Namespace) -> int:
    config = load(args, root_of(args.repo))
    if isinstance(config, int):
        return config
    by_id = {rule.id: rule for rule in config.config.changes.rules}
    wanted = list(dict.fromkeys([*([args.id] if args.id else []), *(args.rule or [])]))
    if not wanted:
        return _list(config.loaded.source_of, [by_id[i] for i in sorted(by_id)], args.format)
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


def _unknown(args: argparse.Namespace, rule_id: str, by_id: dict[str, Rule]) -> int:
    close = difflib.get_close_matches(rule_id, list(by_id), n=3, cutoff=0.5)
    if close:
        more = f"; did you mean {', '.join(close)}?"
    elif by_id:
        more = f". The rules are: {', '.join(sorted(by_id))}."
    else:
        more = (
            ". No change rules are configured"
            " (cagr.toml, .cagr/*.toml or [tool.cagr] in pyproject.toml)."
        )
    missing = not_on_disk(args.repo)
    if missing:
        more += f" ({', '.join(missing)} is committed at HEAD but not in the working tree.)"
    print(f"cagr explain: no change rule has the id {rule_id!r}{more}", file=sys.stderr)
    return EXIT_INVALID


def _named_parts(rule: Rule) -> str | None:
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


def _explained(rule: Rule, source: str) -> str:
    lines = [f"{rule.id} ({rule.kind})", f"  source:   {source}"]
    lines.append(f"  paths:    {', '.join(rule.paths)}")
    lines.append(f"  ignores:  {', '.join(rule.ignores) or '(none)'}")
    when = getattr(rule, "when", None)
    if when is not None:
        lines.append(f"  when:     {when.value}")
    fmt = getattr(rule, "format", None)
    if fmt is not None:
        lines.append(f"  format:   {fmt}")
    ignored = getattr(rule, "ignore_dependencies", ())
    if ignored:
        lines.append(f"  ignoring: dependencies named {', '.join(ignored)}")
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
    lines.append(f"  events:   {events(rule)}")
    lines.append("  examples:")
    for label in ("valid", "invalid"):
        for index, example in enumerate(getattr(rule.examples, label)):
            lines.append(f"    {label}[{index}]: {_example_line(example)}")
    return "\n".join(lines)
