"""Every entry point is a translation of the one check: the same change and description give the
same verdict, findings and exit code through the command line, the library, CI, the PR gate
and an agent's turn end."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import cagr
from cagr_cli.output import exit_code
from tests.support.ci import cagr_ci
from tests.support.configs import TWO_RULES
from tests.support.git import commit, git, write
from tests.support.hooks import hook, payload

RULES = '[review]\npr_sections = ["Summary"]\n' + TWO_RULES
ADDS_X = {"package.json": '{"dependencies":{"x":"1"}}'}
RISK = "## Risk\nDependency reason: x parses the wire format.\n"
SUMMARY = "## Summary\nAdds x.\n\n"
CASES = {  # name: (the change's edits, its description, the verdict)
    # The library passed this one: only [review].pr_sections fails it.
    "a missing heading": (ADDS_X, RISK, "fail"),
    "a missing section": (ADDS_X, SUMMARY, "fail"),
    "a missing companion": ({"src/schema.py": "v2"}, SUMMARY + RISK, "fail"),
    "all met": ({"src/schema.py": "v2", "schema.json": '{"v": 2}'}, SUMMARY + RISK, "pass"),
}


@pytest.fixture(params=list(CASES))
def case(request: pytest.FixtureRequest, repo: Path) -> tuple[Path, Path, str]:
    """A branch whose one commit makes the case's change, its description in a file, and the
    verdict it should get."""
    edits, body, verdict = CASES[request.param]
    write(repo, "cagr.toml", RULES)
    write(repo, "src/schema.py", "v1")
    write(repo, "schema.json", "{}")
    write(repo, "package.json", "{}")
    commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "work")
    for path, text in edits.items():
        write(repo, path, text)
    commit(repo, "the change")
    body_file = repo.parent / "body.md"
    body_file.write_text(body)
    return repo, body_file, verdict


Verdict = tuple[str, int, list[tuple[str, str]]]


def _verdict(data: dict[str, object], code: int) -> Verdict:
    findings = data["findings"]
    assert isinstance(findings, list)
    return str(data["status"]), code, sorted((f["rule"], f["message"]) for f in findings)


def by_command_line(root: Path, body: Path) -> Verdict:
    argv = ["rules", "check", "--committed", "--body-file", str(body), "--format", "json"]
    done = subprocess.run(
        [sys.executable, "-m", "cagr_cli", *argv],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    return _verdict(json.loads(done.stdout), done.returncode)


def by_library(root: Path, body: Path) -> Verdict:
    report = cagr.check(root, committed=True, body=body.read_text()).report
    return _verdict(cagr.report_data(report), exit_code(report))


def by_ci(root: Path, body: Path) -> Verdict:
    done = cagr_ci(root, {}, "--base", "main", "--body-file", str(body), "--format", "json")
    return _verdict(json.loads(done.stdout), done.returncode)


ENTRY_POINTS = [by_command_line, by_library, by_ci]


def test_the_command_line_the_library_and_ci_agree(case: tuple[Path, Path, str]) -> None:
    root, body, expected = case
    verdicts = {entry.__name__: entry(root, body) for entry in ENTRY_POINTS}
    first = verdicts["by_command_line"]
    assert first[0] == expected
    assert all(verdict == first for verdict in verdicts.values()), verdicts


def test_the_gate_denies_exactly_what_the_check_finds(case: tuple[Path, Path, str]) -> None:
    root, body, _ = case
    status, _, findings = by_command_line(root, body)  # also writes the gate record
    command = f"gh pr create --title t --body-file {body}"
    answer = hook(payload("claude", 1, root, command=command), cwd=root)
    denied = (answer.json or {}).get("hookSpecificOutput", {}).get("permissionDecision")
    assert (denied == "deny") == (status == "fail"), answer.text
    for _, message in findings:
        assert message in answer.text


def test_the_turn_end_blocks_on_what_the_working_tree_check_finds(
    case: tuple[Path, Path, str],
) -> None:
    root, _, _ = case
    done = subprocess.run(
        [sys.executable, "-m", "cagr_cli", "rules", "check", "--format", "json"],
        cwd=root,
        check=False,
        capture_output=True,
        text=True,
    )
    data = json.loads(done.stdout)
    answer = hook(payload("claude", 0, root), cwd=root)
    blocked = (answer.json or {}).get("decision") == "block"
    assert blocked == (data["status"] == "fail"), answer.text
    for finding in data["findings"]:
        assert finding["message"] in answer.text
