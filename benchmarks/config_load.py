"""Loading a configuration: compiled afresh against read back from what an earlier call kept.

A repository whose cagr.toml holds N rules (the monorepo mix of benchmarks/evaluate.py, written
as TOML). Each row times `load_config` in this process, alternately: cold (TOML, structuring,
validation, glob compilation and the rule index) and warm (the kept compiled form read back,
then the index built). The first evaluation after a warm load also compiles the regular
expressions it needs; that is timed apart.

Usage: python benchmarks/config_load.py [--rules 10 100 1000] [--runs 7]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parents[1]))  # after site-packages: the install wins

from benchmarks.evaluate import make_changes
from cagr_core.evaluator import evaluate
from cagr_core.pull_request import Phase, PrBody
from cagr_repo.config import load_config

EXAMPLES = """examples.invalid = [{ changes = [{ path = "x", status = "M" }] }]
examples.valid = [{ changes = [{ path = "y", status = "A" }] }]
"""


def config_text(count: int) -> str:
    parts = []
    for number in range(count):
        package = f"packages/p{number // 3 % 400:03}"
        head = f'[[changes.rules]]\nid = "r{number:05}"\nreason = "Do it."\n'
        if number % 3 == 0:
            body = (f'kind = "requires"\npaths = ["{package}/src/**"]\n'
                    f'require = ["{package}/CHANGELOG.md"]\n')  # fmt: skip
        elif number % 3 == 1:
            body = (f'kind = "sibling"\npaths = ["{package}/src/**/*.ts"]\n'
                    'ignores = ["*.test.ts"]\ntarget = "{dir}/{name}.test.{ext}"\n')  # fmt: skip
        else:
            body = f'kind = "add_only"\npaths = ["/{package}/migrations/**"]\n'
        parts.append(head + body + EXAMPLES)
    return "\n".join(parts)


def _ms(action: object) -> float:
    started = time.perf_counter()
    action()  # type: ignore[operator]
    return (time.perf_counter() - started) * 1000


def row(count: int, runs: int) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "repo"
        root.mkdir()
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        (root / "cagr.toml").write_text(config_text(count))
        gitdir = str(root / ".git")
        load_config(root, gitdir)  # kept for the warm runs
        cold, warm, first = [], [], []
        changes = make_changes(5_000)
        for _ in range(runs):
            cold.append(_ms(lambda: load_config(root)))
            started = time.perf_counter()
            warm_config = load_config(root, gitdir)
            warm.append((time.perf_counter() - started) * 1000)
            rules = warm_config.rules
            first.append(_ms(lambda: evaluate(rules, changes, PrBody(None), Phase.TURN)))  # noqa: B023
        c, w, f = (statistics.median(v) for v in (cold, warm, first))
        print(f"| {count:,} | {c:.1f} ms | {w:.1f} ms | {c / w:.1f}x | {f:.1f} ms |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", type=int, nargs="+", default=[10, 100, 1_000])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    print("| rules | compiled afresh | read back | ratio | first evaluation, 5,000 changes |")
    print("|---|---|---|---|---|")
    for count in args.rules:
        row(count, args.runs)


if __name__ == "__main__":
    main()
