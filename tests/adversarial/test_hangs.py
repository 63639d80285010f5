"""Hangs: inputs that made a check run for minutes or block forever. Each runs in its own
process under a generous timeout, so a regression fails the test instead of stalling the suite."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.adversarial import run_process
from tests.support.git import GIT_ENV, commit, git, write

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


# A tracked file is swapped for a FIFO at the worst moment: just after cagr's lstat saw a
# regular file (hashing), or just before a manifest's content is read. Opening a FIFO that has
# no writer blocks forever unless it is opened without blocking.
_SWAP_AFTER_LSTAT = """
import os, stat, sys
target = os.fsencode(os.path.realpath(sys.argv[1]))
real_lstat = os.lstat
def lstat(path, *args, **kwargs):
    st = real_lstat(path, *args, **kwargs)
    if os.fsencode(path) == target and stat.S_ISREG(st.st_mode):
        os.unlink(path)
        os.mkfifo(path)
    return st
os.lstat = lstat
from cagr_cli.main import main
sys.exit(main(sys.argv[2:]))
"""

_SWAP_BEFORE_READ = """
import os, sys
from cagr_git.worktree import WorkTree
original = WorkTree.read
def read(self, path, mode, limit):
    absolute = self.root + b"/" + path
    os.unlink(absolute)
    os.mkfifo(absolute)
    return original(self, path, mode, limit)
WorkTree.read = read
from cagr_cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def _python(script: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **GIT_ENV}
    return subprocess.run(
        [sys.executable, "-c", script, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
        check=False,
    )


def test_a_file_swapped_for_a_fifo_while_it_is_hashed(feature: Path) -> None:
    target = str(feature / "src" / "schema.ts")
    result = _python(_SWAP_AFTER_LSTAT, target, "rules", "check", cwd=feature)
    assert result.returncode == 3, result
    # Read again once (the tree moved): the FIFO is then seen for what it is.
    assert "change rule schema-out: src/schema.ts: is no file, symlink or folder" in result.stdout
    assert stat.S_ISFIFO(os.lstat(target).st_mode)  # the swap really happened


def test_a_manifest_swapped_for_a_fifo_before_it_is_read(feature: Path) -> None:
    text = (feature / "cagr.toml").read_text()
    (feature / "cagr.toml").write_text(
        text
        + """
[[changes.rules]]
id = "deps-lock"
kind = "requires"
paths = ["package.json"]
when = "dependency_added"
require = ["deps.lock"]
reason = "Update deps.lock in this change."
examples.invalid = [{ changes = [{ path = "package.json", status = "A", after = '{"dependencies": {"x": "1"}}' }] }]
examples.valid = [{ changes = [{ path = "package.json", status = "A", after = '{"dependencies": {"x": "1"}}' }, { path = "deps.lock", status = "A" }] }]
"""
    )
    write(feature, "package.json", '{"dependencies": {}}')
    git(feature, "add", "cagr.toml", "package.json")
    git(feature, "commit", "-qm", "manifest")
    write(feature, "package.json", '{"dependencies": {"x": "1"}}')
    args = ["rules", "check", "--base", "HEAD", "--format", "json"]
    result = _python(_SWAP_BEFORE_READ, *args, cwd=feature)
    assert result.returncode == 1, result  # schema-out still fails; deps-lock is unchecked
    report = json.loads(result.stdout)
    assert [item["rule"] for item in report["unchecked"]] == ["deps-lock"]
    assert stat.S_ISFIFO(os.lstat(feature / "package.json").st_mode)


def test_a_fifo_planted_at_a_tracked_path_is_unchecked(feature: Path) -> None:
    (feature / "schema" / "out.json").unlink()
    os.mkfifo(feature / "schema" / "out.json")
    outcome = run_process(["rules", "check"], feature, timeout=HANG_GUARD_S)
    assert outcome.code == 3, outcome
    assert "schema/out.json: is no file, symlink or folder" in outcome.out


@pytest.mark.parametrize(
    ("where", "named"),
    [
        (".gitignore", "src/: .gitignore is a FIFO"),  # every folder beneath is unknown
        ("src/.gitignore", "src/new.ts: src/.gitignore is a FIFO"),
        (".gitattributes", ".gitattributes is a FIFO"),  # every file's attributes are unknown
        ("src/.gitattributes", "src/schema.ts: "),
        (".git/info/exclude", "info/exclude is a FIFO"),
        (".git/info/attributes", "info/attributes is a FIFO"),
    ],
)
def test_a_fifo_where_git_reads_rules_is_unchecked_not_a_hang(
    feature: Path, where: str, named: str
) -> None:
    write(feature, "src/new.ts", "untracked\n")  # something untracked beneath src/
    target = feature / where
    target.parent.mkdir(parents=True, exist_ok=True)
    target.unlink(missing_ok=True)
    os.mkfifo(target)
    outcome = run_process(["changes", "--format", "json"], feature, timeout=HANG_GUARD_S)
    assert outcome.code == 3, outcome
    messages = [item["message"] for item in json.loads(outcome.out)["unchecked"]]
    assert any(named in message and "FIFO" in message for message in messages), messages


def _hook(feature: Path, *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "cagr_cli", "hook", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=feature,
    )


def test_a_payload_followed_by_an_open_stdin_is_answered(feature: Path) -> None:
    """The hook reads the first complete JSON object; it never waits for end-of-input."""
    commit(feature, "schema only")
    payload = {
        "session_id": "s",
        "cwd": str(feature),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "gh pr create -t T -b x"},
    }
    with _hook(feature) as process:
        assert process.stdin is not None
        assert process.stdout is not None
        process.stdin.write(json.dumps(payload).encode() + b"\n")
        process.stdin.flush()  # and kept open, as an agent holding its end of the pipe does
        try:
            ended = process.wait(timeout=HANG_GUARD_S)
        finally:
            process.kill()
        assert ended == 0, "the hook waited for end-of-input"
        assert b"no prepared change-rule result" in process.stdout.read()


def test_an_unfinished_payload_on_an_open_stdin_ends_at_the_deadline(feature: Path) -> None:
    with _hook(feature, "--deadline", "2") as process:
        assert process.stdin is not None
        assert process.stdout is not None
        assert process.stderr is not None
        process.stdin.write(b'{"hook_event_name": "Stop", "session_id": "s", "cwd": ')
        process.stdin.flush()
        try:
            ended = process.wait(timeout=HANG_GUARD_S)
        finally:
            process.kill()
        assert ended == 0
        assert b"unreadable input" in process.stderr.read()
        assert process.stdout.read() == b""


@pytest.mark.parametrize("command", [["rules", "check"], ["changes", "--base", "main"]])
def test_a_fifo_in_place_of_the_index_is_refused_not_waited_on(
    feature: Path, command: list[str]
) -> None:
    (feature / ".git" / "index").unlink()
    os.mkfifo(feature / ".git" / "index")
    outcome = run_process(command, feature, timeout=HANG_GUARD_S)
    assert outcome.code == 3, outcome
    assert "index" in outcome.out + outcome.err
    assert stat.S_ISFIFO(os.lstat(feature / ".git" / "index").st_mode)


@pytest.mark.parametrize("where", ["alternates", "commit-graph", "pack-index"])
def test_a_fifo_where_git_keeps_objects_never_hangs(feature: Path, where: str) -> None:
    commit(feature, "head")
    objects = feature / ".git" / "objects"
    if where == "alternates":
        fifo = objects / "info" / "alternates"
    elif where == "commit-graph":
        git(feature, "commit-graph", "write", "--reachable")
        fifo = objects / "info" / "commit-graph"
        fifo.unlink()
    else:
        git(feature, "repack", "-adq")
        fifo = next((objects / "pack").glob("*.idx"))
        fifo.unlink()
    os.mkfifo(fifo)
    outcome = run_process(["rules", "check", "--committed"], feature, timeout=HANG_GUARD_S)
    assert outcome.code in (1, 3), outcome
    assert "Traceback" not in outcome.err
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


# The measure: a 200 KB pyproject of one table header took 63-82 s, a dotted key far
# longer (tomllib's time grows with the square of the parts, and faster for keys).
DEEP_HEADER = "[tool.cagr]\n[" + ".".join(["a"] * 100_000) + "]\nx = 1\n"
DEEP_KEY = "[tool.cagr]\n" + ".".join(["a"] * 100_000) + " = 1\n"


@pytest.mark.parametrize("text", [DEEP_HEADER, DEEP_KEY], ids=["header", "key"])
def test_21_a_pyproject_of_many_dotted_parts_is_refused_at_once(feature: Path, text: str) -> None:
    write(feature, "pyproject.toml", text)
    for args in (["rules", "test"], ["rules", "check"], ["explain"]):
        outcome = run_process(args, feature, timeout=HANG_GUARD_S)
        assert outcome.code == 2, outcome
        assert "more than 128 dotted parts (line 2)" in outcome.err


def test_21_cagr_ci_refuses_it_too(feature: Path) -> None:
    write(feature, "pyproject.toml", DEEP_KEY)
    commit(feature, "a pull request that would stall its own CI job")
    outcome = run_process(["ci", "--base", "main"], feature, timeout=HANG_GUARD_S)
    assert outcome.code == 2, outcome
    assert "more than 128 dotted parts" in outcome.out + outcome.err


def test_21_a_manifest_of_many_dotted_parts_is_unchecked_at_once(feature: Path) -> None:
    rule = """
[[changes.rules]]
id = "crates"
kind = "pr_body"
paths = ["Cargo.toml"]
when = "dependency_added"
section = "Risk"
reason = "Say why the crate is needed."
examples.invalid = [{ changes = [{ path = "Cargo.toml", status = "A", after = "[dependencies]\\nx = '1'\\n" }], pr_body = "" }]
examples.valid = [{ changes = [{ path = "Cargo.toml", status = "A", after = "[package]\\n" }], pr_body = "" }]
"""
    write(feature, "cagr.toml", (feature / "cagr.toml").read_text() + rule)
    commit(feature, "rule")
    write(feature, "Cargo.toml", "[dependencies]\n" + ".".join(["a"] * 100_000) + " = '1'\n")
    outcome = run_process(["rules", "check", "--format", "json"], feature, timeout=HANG_GUARD_S)
    assert outcome.code == 1, outcome  # the schema rule fails; the crate rule is unchecked
    unchecked = json.loads(outcome.out)["unchecked"]
    assert [u["rule"] for u in unchecked] == ["crates"]
    assert "more than 128 dotted parts" in unchecked[0]["message"]


def test_21_the_turn_end_reads_the_configuration_under_its_deadline(feature: Path) -> None:
    # Under the cap, but slow: thousands of 120-part keys (seconds to parse), with a 1 s deadline.
    key = ".".join(["a"] * 120)
    write(
        feature,
        "pyproject.toml",
        "[tool.cagr]\n" + "".join(f"{key}.k{i} = 1\n" for i in range(8000)),
    )
    payload = {"session_id": "s", "cwd": str(feature), "hook_event_name": "Stop"}
    with _hook(feature, "--agent", "claude", "--deadline", "1") as process:
        out, _ = process.communicate(json.dumps(payload).encode(), timeout=HANG_GUARD_S)
    assert process.returncode == 0
    assert b"ran out while the configuration was read" in out
