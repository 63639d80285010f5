"""Hangs: inputs that made a check run for minutes or block forever. Each runs in its own
process under a generous timeout, so a regression fails the test instead of stalling the suite."""

from __future__ import annotations

import os
from pathlib import Path

from ..repo.gitutil import commit, write
from .conftest import run_process

HANG_GUARD_S = 20  # no timing assertion: only a bound on a hang (it took 30 s and more)


def test_19_consecutive_globstars_against_a_deep_path(feature: Path) -> None:
    pattern = "**/a*/**/a*/**/a*/**/a*/**/a*/**/b"
    text = (feature / "cagr.toml").read_text().replace('"src/schema.ts"]', f'"{pattern}"]', 1)
    (feature / "cagr.toml").write_text(text)
    commit(feature, "rule")
    write(feature, "/".join(["a"] * 80) + "/c", "deep\n")
    outcome = run_process(["rules", "check"], feature, timeout=HANG_GUARD_S)
    assert outcome.code == 0, outcome  # nothing matches: the deep path has no `b`
    write(feature, "/".join(["a"] * 80) + "/b", "deep\n")
    outcome = run_process(["rules", "check"], feature, timeout=HANG_GUARD_S)
    assert outcome.code == 1, outcome  # and it does match when there is one


def test_20_fifo_fragment(feature: Path) -> None:
    (feature / ".cagr").mkdir()
    os.mkfifo(feature / ".cagr" / "x.toml")
    for args in (["rules", "check"], ["rules", "test"], ["explain", "schema-out"]):
        outcome = run_process(args, feature, timeout=HANG_GUARD_S)
        assert outcome.code == 2, outcome
        assert ".cagr/x.toml: is not a regular file" in outcome.err


def test_20_fifo_config(feature: Path) -> None:
    (feature / "cagr.toml").unlink()
    os.mkfifo(feature / "cagr.toml")
    outcome = run_process(["rules", "check"], feature, timeout=HANG_GUARD_S)
    assert outcome.code == 2, outcome
    assert "cagr.toml: is not a regular file" in outcome.err
