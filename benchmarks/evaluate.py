"""Evaluation speed: the indexed evaluator against the naive per-rule scan, side by side.

The workload is a mix of rules in a monorepo of 400 packages: per package, a `requires` rule
on a folder glob (`packages/pNNN/src/**` needs `packages/pNNN/CHANGELOG.md`), a `sibling` rule
(`packages/pNNN/src/**/*.ts`, ignoring `*.test.ts`, needs `{dir}/{name}.test.{ext}`) and an
`add_only` rule (`/packages/pNNN/migrations/**`); rules go to packages in order, three each.
Changes are spread at random over all packages and a `docs/` folder: TypeScript sources and
tests, migrations, changelogs and pages, half added, 40% modified, 10% deleted.

A second mix, `failing`, is the same but for the `requires` rules, which need
`packages/pNNN/NEWS.md`: no change touches it, so every `requires` rule whose package changed
fails (a third of the rules), and each failure looks for a near miss.

Both evaluators run through the public API (`RuleSet.compile`, then `evaluate`, or the naive
`_evaluate_naive` that every rule's matchers try on every change) with the caps raised so
nothing is cut, and must return the same Report. Medians of interleaved runs, each started from a
collected heap, are printed with the speedup and how the indexed time grows with 10x the changes
or 10x the rules.

Usage: python benchmarks/evaluate.py [--changes 5000 50000] [--rules 100 1000]
                                     [--runs 5] [--naive-runs 1] [--mix passing failing]
The naive run at 50,000 changes and 1,000 rules takes about a minute. Ratios, not absolute
times, are the result: the machines are shared and noisy.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import random
import statistics
import sys
import time
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cagr_config.compile import compile_rules
from cagr_config.rules import AddOnlyRule, RequiresRule, Rule, SiblingRule
from cagr_core.changes import Change, ChangeSet, Side
from cagr_core.evaluator import Limits, _evaluate_naive, evaluate
from cagr_core.pull_request import Phase, PrBody
from cagr_core.report import Report
from cagr_core.ruleset import RuleSet

PACKAGES = 400
UNCAPPED = Limits(max_changes=10**7, max_rules=10**6)


def _side(text: str) -> Side:
    return Side(0o100644, hashlib.sha1(text.encode()).hexdigest())


def make_changes(count: int, seed: int = 0) -> ChangeSet:
    rng = random.Random(seed)
    out: dict[str, Change] = {}
    serial = 0
    while len(out) < count:
        serial += 1
        package = f"packages/p{rng.randrange(PACKAGES):03}"
        module = f"{package}/src/mod{rng.randrange(20):02}"
        roll = rng.random()
        if roll < 0.55:
            path = f"{module}/file{serial:06}.ts"
        elif roll < 0.7:
            path = f"{module}/file{serial:06}.test.ts"
        elif roll < 0.8:
            path = f"{package}/migrations/{serial:06}_change.sql"
        elif roll < 0.81:
            path = f"{package}/CHANGELOG.md"
        else:
            path = f"docs/{rng.choice(['guide', 'api', 'howto'])}/page{serial:06}.md"
        status = rng.random()
        old = None if status < 0.5 else _side("old")
        new = None if status >= 0.9 else _side("new")
        out.setdefault(path, Change(path, old, new))
    return ChangeSet(tuple(out.values()))


def make_rules(count: int, failing: bool = False) -> list[Rule]:
    rules: list[Rule] = []
    for number in range(count):
        package = f"packages/p{number // 3 % PACKAGES:03}"
        name = f"r{number:05}"
        if number % 3 == 0:
            rules.append(
                RequiresRule(
                    id=f"{name}-changelog",
                    paths=[f"{package}/src/**"],
                    require=[f"{package}/{'NEWS' if failing else 'CHANGELOG'}.md"],
                    reason="Add a changelog entry.",
                )
            )
        elif number % 3 == 1:
            rules.append(
                SiblingRule(
                    id=f"{name}-tests",
                    paths=[f"{package}/src/**/*.ts"],
                    ignores=["*.test.ts"],
                    target="{dir}/{name}.test.{ext}",
                    reason="Add a test.",
                )
            )
        else:
            rules.append(
                AddOnlyRule(
                    id=f"{name}-migrations",
                    paths=[f"/{package}/migrations/**"],
                    reason="Add a new migration.",
                )
            )
    return rules


def _timed(action: Callable[[], Report]) -> tuple[float, Report]:
    # Start every run from a collected heap: otherwise a full collection of what earlier runs
    # left (the naive run's garbage, the other change sets) lands in some timed runs and not
    # in others. The collector stays on, so what evaluate itself allocates is paid for.
    gc.collect()
    start = time.perf_counter()
    report = action()
    return time.perf_counter() - start, report


def bench(
    changes: ChangeSet, rules: RuleSet, runs: int, naive_runs: int
) -> tuple[float | None, float]:
    """Median seconds of the naive (None: not run) and the indexed evaluator, interleaved."""
    body, phase = PrBody(None), Phase.TURN
    naive_times: list[float] = []
    indexed_times: list[float] = []
    for run in range(max(runs, naive_runs)):
        if run < runs:
            seconds, indexed = _timed(lambda: evaluate(rules, changes, body, phase, UNCAPPED))
            indexed_times.append(seconds)
        if run < naive_runs:
            seconds, naive = _timed(lambda: _evaluate_naive(rules, changes, body, phase, UNCAPPED))
            naive_times.append(seconds)
            if indexed != naive:
                raise SystemExit("the indexed and the naive evaluator disagree")
    naive_median = statistics.median(naive_times) if naive_times else None
    return naive_median, statistics.median(indexed_times)


def _seconds(value: float) -> str:
    return f"{value:.2f} s" if value >= 0.1 else f"{value * 1000:.0f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--changes", type=int, nargs="+", default=[5_000, 50_000])
    parser.add_argument("--rules", type=int, nargs="+", default=[100, 1_000])
    parser.add_argument("--runs", type=int, default=5, help="indexed runs per cell (at least 1)")
    parser.add_argument("--naive-runs", type=int, default=1, help="naive runs per cell (0: none)")
    parser.add_argument("--mix", nargs="+", choices=("passing", "failing"),
                        default=["passing", "failing"])  # fmt: skip
    args = parser.parse_args()
    change_sets = {count: make_changes(count) for count in args.changes}
    for mix in args.mix:
        print(f"\n## {mix}: {'a third of the rules fail' if mix == 'failing' else 'as above'}")
        run_mix(args, change_sets, failing=mix == "failing")


def run_mix(args: argparse.Namespace, change_sets: dict[int, ChangeSet], failing: bool) -> None:
    rule_sets: dict[int, RuleSet] = {}
    for count in args.rules:
        rules = make_rules(count, failing)
        start = time.perf_counter()
        rule_sets[count] = compile_rules(rules)
        compiled = time.perf_counter() - start
        print(f"RuleSet.compile, {count:,} rules (index included): {_seconds(compiled)}")

    print("\n| changes | rules | naive (before) | indexed (after) | speedup |")
    print("|---|---|---|---|---|")
    indexed: dict[tuple[int, int], float] = {}
    for rule_count in args.rules:
        for change_count in args.changes:
            naive, fast = bench(
                change_sets[change_count], rule_sets[rule_count], args.runs, args.naive_runs
            )
            indexed[change_count, rule_count] = fast
            before, speedup = (
                ("-", "-") if naive is None else (_seconds(naive), f"{naive / fast:.0f}x")
            )
            print(
                f"| {change_count:,} | {rule_count:,} | {before} | {_seconds(fast)} | {speedup} |",
                flush=True,
            )

    print("\nGrowth of the indexed time:")
    for small, large in pairwise(args.changes):
        for rule_count in args.rules:
            ratio = indexed[large, rule_count] / indexed[small, rule_count]
            print(f"  changes {small:,} -> {large:,} at {rule_count:,} rules: {ratio:.1f}x")
    for small, large in pairwise(args.rules):
        for change_count in args.changes:
            ratio = indexed[change_count, large] / indexed[change_count, small]
            print(f"  rules {small:,} -> {large:,} at {change_count:,} changes: {ratio:.1f}x")


if __name__ == "__main__":
    main()
