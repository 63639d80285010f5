"""Code and layout findings at an agent's turn end (blocking, like change rules' findings) and
at the `gh pr create` gate (read from the committed record: the gate collects no diff)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.configs import CODE_LAYOUT_GUARD
from tests.support.git import commit, git, write
from tests.support.hooks import committed_check, denied, gate, hook, payload

AGENTS = ["claude", "codex", "cursor", "gemini"]


@pytest.fixture
def coded(repo: Path) -> Path:
    write(repo, "cagr.toml", CODE_LAYOUT_GUARD)
    write(repo, "src/app.py", "print('old')\n")
    commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "work")
    return repo


@pytest.mark.parametrize("agent", AGENTS)
def test_the_turn_end_blocks_on_what_the_branch_adds(coded: Path, agent: str) -> None:
    write(coded, "src/app.py", "print('old')\nprint('new')\n")
    write(coded, "src/BadName.py", "x = 1\n")
    answer = hook(payload(agent, 0, coded), "--agent", agent)
    assert answer.code == 0
    assert answer.json is not None
    assert ("followup_message" if agent == "cursor" else "decision") in answer.json
    assert "src/app.py:2:1: `print('new')` is new in this change" in answer.text
    assert "print('old')` is" not in answer.text
    assert "src/BadName.py was added; its name's stem `BadName` is not snake_case." in answer.text


def test_a_turn_that_adds_nothing_the_rules_forbid_is_not_blocked(coded: Path) -> None:
    write(coded, "src/app.py", "x = 0\nprint('old')\n")
    answer = hook(payload("claude", 0, coded), "--agent", "claude")
    assert answer.json is None or "decision" not in answer.json


def test_the_gate_denies_on_the_record_s_code_finding(coded: Path) -> None:
    write(coded, "src/app.py", "print('old')\nprint('new')\n")
    commit(coded, "a print")
    assert committed_check(coded) == 1
    answer = gate(coded, "gh pr create -t T -b 'A change.'")
    assert denied("claude", answer.json)
    assert "Code rule no-print failed" in answer.text
    assert "src/app.py:2:1" in answer.text
