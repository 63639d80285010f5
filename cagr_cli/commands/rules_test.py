"""`cagr rules test`: every rule's examples through the runtime evaluator; per-kind counts.

Change, code and layout rules' examples go through the core's evaluator (cagr_config's example
runner); guards' examples through the before-shell-command hook's own reader and judge.
"""

from __future__ import annotations

import argparse
from collections import Counter

from cagr_config.example_runner import ExampleResult, run_examples
from cagr_config.rules import RULE_KINDS
from cagr_hooks.guards import run_guard_examples

from ..checkout import config_root, load, not_on_disk, unknown_rules, unread_note
from ..output import EXIT_FINDINGS, EXIT_OK, EXIT_UNCHECKED, print_json

KINDS = (*RULE_KINDS, "code", "layout", "guard")


def run(args: argparse.Namespace) -> int:
    root = config_root(args)
    if isinstance(root, int):
        return root
    config = load(args, root)
    if isinstance(config, int):
        return config
    unread = None if config.rules.rules else unread_note(args.repo)
    missing = not_on_disk(args.repo)  # rules HEAD has that these files cannot test
    document = config.config
    judged = (*document.changes.rules, *document.code.rules, *document.layout.rules)
    guards = document.guards.rules
    if args.rule:
        wrong = unknown_rules(args, [rule.id for rule in (*judged, *guards)])
        if wrong is not None:
            return wrong
        judged = tuple(rule for rule in judged if rule.id in args.rule)
        guards = tuple(rule for rule in guards if rule.id in args.rule)
    results: list[ExampleResult] = [*run_examples(judged), *run_guard_examples(guards)]
    rules: Counter[str] = Counter(rule.kind for rule in (*judged, *guards))
    examples: Counter[str] = Counter(r.kind for r in results)
    failed: Counter[str] = Counter(r.kind for r in results if not r.ok)
    failures = [r for r in results if not r.ok]
    if args.format == "json":
        print_json(
            {
                "status": "fail" if failures else "unchecked" if missing else "pass",
                "kinds": {
                    kind: {"rules": rules[kind], "examples": examples[kind], "failed": failed[kind]}
                    for kind in KINDS
                },
                "failures": [
                    {"rule": r.rule, "kind": r.kind, "example": r.name, "said": r.said}
                    for r in failures
                ],
                "not_on_disk": list(missing),
                "rules_filter": sorted(set(args.rule)) if args.rule else None,
                "not_read": unread,
            }
        )
    else:
        for kind in KINDS:
            if rules[kind]:
                outcome = f"{failed[kind]} failed" if failed[kind] else "all passed"
                print(f"{kind}: {rules[kind]} rule(s), {examples[kind]} example(s), {outcome}")
        if not rules:
            print("no rules are configured; nothing to test")
        elif args.rule:
            print(f"(only {', '.join(sorted(set(args.rule)))}, as --rule asked)")
        if unread:
            print(unread)
        for result in failures:
            print(f"\nFAIL {result.rule} examples.{result.name}: {result.said}")
        if missing:
            print(
                f"\nunchecked: {', '.join(missing)} is committed at HEAD but not in the working"
                " tree (deleted, or left out by a sparse checkout or skip-worktree), so its rules"
                " were not tested. Bring it back to test them."
            )
    if failures:
        return EXIT_FINDINGS
    return EXIT_UNCHECKED if missing else EXIT_OK
