"""The GitHub event file is input like any other: a FIFO there never hangs `cagr ci`, and a
payload nested past what a parser can follow is an event cagr cannot use (exit 2), not an
unexpected error."""

from __future__ import annotations

import os
from pathlib import Path

from tests.support.adversarial import run_process
from tests.support.git import commit, git


def _pull_request_env(event: Path) -> dict[str, str]:
    return {
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_BASE_REF": "main",
    }


def test_an_event_file_that_is_a_fifo_is_refused_not_waited_on(
    feature: Path, tmp_path: Path
) -> None:
    commit(feature, "head")
    event = tmp_path / "event.json"
    os.mkfifo(event)
    outcome = run_process(["ci"], feature, env=_pull_request_env(event), timeout=20)
    assert outcome.code == 2, outcome
    assert "event payload" in outcome.err


def test_an_event_nested_past_the_parser_exits_2(feature: Path, tmp_path: Path) -> None:
    commit(feature, "head")
    event = tmp_path / "event.json"
    event.write_text("[" * 200_000 + "]" * 200_000)
    outcome = run_process(["ci"], feature, env=_pull_request_env(event), timeout=60)
    assert outcome.code == 2, outcome
    assert "unexpected" not in outcome.err
    assert "event payload" in outcome.err
    assert git(feature, "rev-parse", "--abbrev-ref", "HEAD").strip() == b"feature"
