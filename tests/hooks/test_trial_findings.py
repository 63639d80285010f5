"""What a new-user and adversarial trial of the hooks found, each as a regression test."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cagr_cli.main import main
from tests.support.git import commit, git, write
from tests.support.hooks import RULES, hook, payload, project

TIMEOUT = 20  # seconds: a hook that blocks on a FIFO would hang past this


def run_hook(data: dict, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "cagr_cli", "hook", *args],
        input=json.dumps(data).encode(),
        capture_output=True,
        timeout=TIMEOUT,
        check=False,
    )


@pytest.fixture
def work(repo: Path) -> Path:
    return project(repo)


@pytest.fixture
def failing(work: Path) -> Path:
    write(work, "src/schema.py", "v2")
    commit(work, "source only")
    assert main(["--repo", str(work), "rules", "check", "--committed"]) == 1
    return work


def test_a_linked_turns_folder_never_loops_and_is_never_written_through(
    work: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (work / ".git" / "cagr").mkdir(exist_ok=True)
    (work / ".git" / "cagr" / "turns").symlink_to(outside)
    write(work, "src/schema.py", "v2")
    answers = [hook(payload("codex", 0, work), "--agent", "codex") for _ in range(3)]
    assert all(a.json is not None and "decision" not in a.json for a in answers)
    assert "cannot keep count" in answers[0].text
    assert list(outside.iterdir()) == []


@pytest.mark.parametrize("name", ["hook-timings.jsonl", "gate.json"])
def test_a_fifo_in_the_state_folder_never_hangs_a_hook(failing: Path, name: str) -> None:
    state = failing / ".git" / "cagr"
    (state / name).unlink(missing_ok=True)
    os.mkfifo(state / name)
    stop = run_hook(payload("claude", 0, failing))
    gate = run_hook(payload("claude", 1, failing, command="gh pr create -t T -b x"))
    assert (stop.returncode, gate.returncode) == (0, 0)


def test_a_fifo_as_the_stop_count_never_hangs(work: Path) -> None:
    session = hashlib.sha256(b"s1").hexdigest()[:24]
    turns = work / ".git" / "cagr" / "turns"
    turns.mkdir(parents=True)
    os.mkfifo(turns / f"{session}.json")
    write(work, "src/schema.py", "v2")
    assert run_hook(payload("claude", 0, work)).returncode == 0


def test_a_head_branch_that_climbs_out_of_the_git_directory_is_refused(
    failing: Path, tmp_path: Path
) -> None:
    os.mkfifo(tmp_path / "x.fifo")
    climb = "../" * 12 + str(tmp_path / "x.fifo").lstrip("/")
    answer = run_hook(payload("claude", 1, failing, command=f"gh pr create -t T -b x -H {climb}"))
    assert answer.returncode == 0
    assert b"not a local branch" in answer.stdout


@pytest.mark.parametrize("event", [["Stop"], {"a": 1}, 3, None])
def test_an_event_name_of_the_wrong_type_is_let_through_quietly(work: Path, event: object) -> None:
    data = {"hook_event_name": event, "session_id": "s", "cwd": str(work)}
    answer = run_hook(data)
    assert answer.returncode == 0
    assert answer.stdout.strip() in (b"", b"{}")
    assert b"Traceback" not in answer.stderr


def test_a_cursor_turn_the_person_aborted_gets_no_follow_up(work: Path) -> None:
    write(work, "src/schema.py", "v2")
    answer = hook(payload("cursor", 0, work, status="aborted"), "--agent", "cursor")
    assert answer.json is None or "followup_message" not in answer.json


def test_the_gate_denies_right_after_a_blocked_stop(work: Path) -> None:
    write(work, "src/schema.py", "v2")
    commit(work, "source only")
    stop = hook(payload("claude", 0, work))
    assert stop.json is not None
    assert stop.json.get("decision") == "block"
    gate = hook(payload("claude", 1, work, command="gh pr create -t T -b x"))
    assert gate.json is not None
    assert gate.json["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_the_gate_sees_a_moved_default_target(failing: Path) -> None:
    git(failing, "update-ref", "refs/remotes/origin/develop", "HEAD")
    git(failing, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/develop")
    answer = hook(payload("claude", 1, failing, command="gh pr create -t T -b x"))
    assert "stale" in answer.text
    assert "refs/remotes/origin/develop" in answer.text


def test_a_body_file_the_command_writes_first_is_not_believed(work: Path) -> None:
    write(work, "package.json", '{"dependencies": {"left-pad": "1"}}')
    commit(work, "a dependency")
    assert main(["--repo", str(work), "rules", "check", "--committed"]) == 0
    write(work, "body.md", "## Risk\nDependency reason: pads strings.")
    command = 'printf "no sections\\n" > body.md && gh pr create -t T -F body.md'
    answer = hook(payload("claude", 1, work, command=command))
    assert "may write it first" in answer.text


def test_control_characters_never_reach_the_agent_raw(work: Path) -> None:
    write(
        work,
        "cagr.toml",
        RULES.replace("schema.json did", "x").replace('"schema.json"', '"sch\\u001bema.json"'),
    )
    write(work, "src/schema.py", "v2")
    answer = hook(payload("claude", 0, work))
    assert "\x1b" not in answer.raw
    assert "\x1b" not in json.dumps(answer.json, ensure_ascii=False)


def test_init_hooks_leaves_commands_that_only_mention_cagr(repo: Path) -> None:
    path = repo / ".claude" / "settings.json"
    path.parent.mkdir()
    theirs = {"type": "command", "command": "echo cagr is not a hook"}
    path.write_text(json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [theirs]}]}}))
    assert main(["--repo", str(repo), "init", "--hooks", "claude"]) == 0
    pre = json.loads(path.read_text())["hooks"]["PreToolUse"]
    assert pre[0]["hooks"] == [theirs]
    assert len(pre) == 2


def test_init_hooks_keeps_the_command_a_file_already_uses(repo: Path) -> None:
    main(["--repo", str(repo), "init", "--hooks", "claude", "--hook-command", "uv run cagr hook"])
    main(["--repo", str(repo), "init", "--hooks", "claude"])
    text = (repo / ".claude" / "settings.json").read_text()
    assert "uv run cagr hook --agent claude" in text
    assert '"cagr hook --agent claude"' not in text


def test_one_long_rule_does_not_hide_the_session_brief(work: Path) -> None:
    long_rule = RULES.split("[[changes.rules]]")[1].replace('"schema-companion"', '"long"')
    long_rule = long_rule.replace("Run `make schema`", "Run `make schema` " + "x" * 12_000)
    write(work, "cagr.toml", "[[changes.rules]]" + long_rule + RULES)
    answer = hook(payload("claude", 2, work))
    assert "schema-companion (requires)" in answer.text
    assert "1 more rule(s)" in answer.text


def test_a_committed_check_is_judged_by_heads_config(
    failing: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(failing, "cagr.toml", "")  # uncommitted: the working tree has no rules at all
    capsys.readouterr()
    assert main(["--repo", str(failing), "rules", "check", "--committed"]) == 1
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("Judged by the rules committed at HEAD; the working tree's cagr")
    assert "rules only at HEAD: dependency-reason, schema-companion" in first
