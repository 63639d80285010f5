"""`cagr rules check [--committed] [--base REF]`: the change rules on this checkout's change.

Without --committed: merge base -> working tree. With it: merge base -> HEAD, and the result is
written as the gate record the `gh pr create` hook reads. PR-body rules are deferred in both:
no PR description exists locally; the PR gate and CI check them.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from attrs import evolve

from cagr_core import ChangeSet, Phase, PrBody, Report, Timings, evaluate, render_text, report_data
from cagr_repo.collect import BareRepository, collect_committed, collect_working_tree, target_name
from cagr_repo.config import RepoConfig
from cagr_repo.gitrepo import NotARepository, open_repo
from cagr_repo.state import write_gate_record

from ..output import EXIT_FINDINGS, EXIT_INVALID, EXIT_OK, EXIT_UNCHECKED, load, print_json
from ..version import cagr_version


def exit_code(report: Report) -> int:
    return {"pass": EXIT_OK, "fail": EXIT_FINDINGS, "unchecked": EXIT_UNCHECKED}[report.status]


def check(
    config: RepoConfig, repo_dir: Path, base: str | None, committed: bool
) -> tuple[Report, ChangeSet]:
    """Collect and evaluate; for --committed, also write the gate record."""
    with open_repo(repo_dir) as repo:
        name = target_name(base, config.loaded.config.git.protected_branch)
        started = time.perf_counter()
        if committed:
            changes = collect_committed(repo, name, config.rules)
        else:
            changes = collect_working_tree(repo, name, config.rules)
        collected = time.perf_counter()
        report = evaluate(config.rules, changes, PrBody.unavailable(), Phase.TURN)
        done = time.perf_counter()
        report = evolve(
            report, timings=Timings((collected - started) * 1000, (done - collected) * 1000)
        )
        if committed:  # the range, findings and deferred obligations are in the report
            record = {
                "cagr_version": cagr_version(),
                "target_name": name,
                "rules_digest": config.rules_digest,
                "config_digest": config.raw_digest,
                "report": report_data(report),
            }
            write_gate_record(repo, record)
    return report, changes


def run(args: argparse.Namespace) -> int:
    config = load(args)
    if isinstance(config, int):
        return config
    try:
        report, changes = check(config, Path(args.repo), args.base, args.committed)
    except (NotARepository, BareRepository) as error:
        print(f"cagr rules check: {error}", file=sys.stderr)
        return EXIT_INVALID
    if args.format == "json":
        print_json(report_data(report))
        return exit_code(report)
    label = report.range.label if report.range else "no range"
    body = render_text(report)
    if report.status == "pass":
        print(
            f"Change rules passed ({label}): {len(config.rules.rules)} rule(s),"
            f" {len(changes.changes)} changed path(s)."
        )
        if body:
            print(f"\n{body}")
    else:
        print(body)
        if report.status == "unchecked":
            print("\nNot a pass: something above could not be checked.")
    return exit_code(report)
