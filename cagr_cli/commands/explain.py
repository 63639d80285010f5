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
)
from cagr_config.validate import unstructure_rule
from cagr_core.render import waivable
from cagr_repo.config import RepoConfig

from ..checkout import config_root, load, not_on_disk, unread_note
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
    by_id = {rule.id: rule for rule in config.config.changes.rules}
    if args.id is None:
        return _list(config.loaded.source_of, [by_id[i] for i in sorted(by_id)], args.format)
    rule = by_id.get(args.id)
    if rule is None:
        close = difflib.get_close_matches(args.id, list(by_id), n=3, cutoff=0.5)
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
        print(f"cagr explain: no change rule has the id {args.id!r}{more}", file=sys.stderr)
        return EXIT_INVALID
    source = config.loaded.source_of(rule.id)
    if args.format == "json":
        print_json({"rule": unstructure_rule(rule), "source": source, "events": events(rule)})
        return EXIT_OK
    lines = [f"{rule.id} ({rule.kind})", f"  source:   {source}"]
    lines.append(f"  paths:    {', '.join(rule.paths)}")
    lines.append(f"  ignores:  {', '.join(rule.ignores) or '(none)'}")
    when = getattr(rule, "when", None)
    if when is not None:
        lines.append(f"  when:     {when.value}")
    fmt = getattr(rule, "format", None)
    if fmt is not None:
        lines.append(f"  format:   {fmt}")
    if isinstance(rule, RequiresRule):
        lines.append(f"  require:  {', '.join(map(describe_requirement, rule.require))}")
    if isinstance(rule, SiblingRule):
        accepted = " or ".join(rule.targets)
        lines.append(f"  target:   {accepted}" + (" (any one)" if len(rule.targets) > 1 else ""))
    if isinstance(rule, PrBodyRule):
        lines.append(f"  section:  {rule.section}")
        if rule.contains is not None:
            lines.append(f"  contains: {rule.contains}")
    lines.append(f"  reason:   {rule.reason}")
    if rule.note:
        lines.append(f"  note:     {rule.note}")
    lines.append(f"  severity: {_severity(rule)}")
    if rule.waive_label is not None:
        lines.append(f"  waivable: {waivable(rule.waive_label).removeprefix('Waivable: ')}")
    lines.append(f"  events:   {events(rule)}")
    lines.append("  examples:")
    for label in ("valid", "invalid"):
        for index, example in enumerate(getattr(rule.examples, label)):
            lines.append(f"    {label}[{index}]: {_example_line(example)}")
    print("\n".join(lines))
    return EXIT_OK
