"""Crashes: bad input or a fault that ended in a traceback and exit 1 (a finding's code).

Every one now ends in a clear message: exit 2 for configuration and usage, 3 (unchecked) for
what a check could not read; never 1, never a traceback unless CAGR_DEBUG is set.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest

from cagr_cli.commands import rules_test
from tests.support.adversarial import RULE, Outcome, denied, run_process
from tests.support.git import commit, git, write

Cagr = Callable[..., Outcome]


def _no_traceback(outcome: Outcome) -> None:
    assert "Traceback" not in outcome.err
    assert "Traceback" not in outcome.out


def _deep(levels: int) -> str:
    return "[" * levels + "]" * levels


@pytest.mark.parametrize("levels", [500, 5000])
def test_10_deeply_nested_arrays_in_cagr_toml(feature: Path, cagr: Cagr, levels: int) -> None:
    with (feature / "cagr.toml").open("a") as handle:
        handle.write(f"\n[other]\nx = {_deep(levels)}\n")
    outcome = cagr(feature, "rules", "check")
    assert outcome.code == 2
    assert "cagr.toml: nests too deeply" in outcome.err


# A pyproject.toml is cagr's config only when its text names cagr (it may hold [tool.cagr]).
MAY_HOLD_CAGR = "# [tool.cagr] would be read from this file\n"


def test_10_deeply_nested_arrays_in_any_pyproject_table(feature: Path, cagr: Cagr) -> None:
    write(feature, "pyproject.toml", f"{MAY_HOLD_CAGR}[tool.other]\nx = {_deep(600)}\n")
    for args in (("rules", "check"), ("rules", "test"), ("explain", "schema-out")):
        outcome = cagr(feature, *args)
        assert outcome.code == 2
        assert "pyproject.toml: nests too deeply" in outcome.err
    write(feature, "pyproject.toml", f"[tool.other]\nx = {_deep(600)}\n")  # not cagr's
    outcome = cagr(feature, "rules", "check")
    _no_traceback(outcome)
    assert "pyproject.toml" not in outcome.err


def test_11_too_many_brace_expansions(feature: Path, cagr: Cagr) -> None:
    pattern = "src/" + "{a,b}" * 10 + ".ts"  # 1,024 alternatives
    text = (feature / "cagr.toml").read_text().replace('"src/schema.ts"]', f'"{pattern}"]', 1)
    (feature / "cagr.toml").write_text(text)
    for args in (("rules", "check"), ("rules", "test")):
        outcome = cagr(feature, *args)
        assert outcome.code == 2
        assert "expand to more than 1000 patterns" in outcome.err


def test_11_brace_expansions_add_up_across_a_rules_patterns(feature: Path, cagr: Cagr) -> None:
    many = ", ".join(f'"src/{i}/' + "{a,b}" * 8 + '.ts"' for i in range(8))  # 8 x 256
    text = (feature / "cagr.toml").read_text().replace('"src/schema.ts"]', f"{many}]", 1)
    (feature / "cagr.toml").write_text(text)
    outcome = cagr(feature, "rules", "check")
    assert outcome.code == 2
    assert "more than 1000 patterns" in outcome.err


@pytest.mark.parametrize("text", ["tool = 1\n", 'tool = "cagr"\n', "[tool]\ncagr = [1]\n"])
def test_12_pyproject_tool_that_is_not_a_table(feature: Path, cagr: Cagr, text: str) -> None:
    write(feature, "pyproject.toml", MAY_HOLD_CAGR + text)
    outcome = cagr(feature, "rules", "check")
    assert outcome.code == 2
    assert "pyproject.toml: tool" in outcome.err
    assert "must be a table" in outcome.err


def test_13_folder_replaced_by_a_link_to_itself(feature: Path, cagr: Cagr) -> None:
    shutil.rmtree(feature / "src")
    os.symlink("src", feature / "src")
    outcome = cagr(feature, "changes", "--format", "json")
    assert outcome.code == 0
    changes = [(c["status"], c["path"]) for c in json.loads(outcome.out)["changes"]]
    assert changes == [("A", "src"), ("D", "src/schema.ts")]  # as git sees it
    assert cagr(feature, "rules", "check").code == 1


def test_14_index_path_longer_than_path_max(feature: Path, cagr: Cagr) -> None:
    long = "/".join(["d" * 200] * 21) + "/f.ts"
    blob = git(feature, "hash-object", "-w", "--stdin", stdin=b"x\n").decode().strip()
    git(feature, "update-index", "--add", "--cacheinfo", f"100644,{blob},{long}")
    outcome = cagr(feature, "rules", "check")
    assert outcome.code == 1  # the rule never looks at that path: still decided
    changes = cagr(feature, "changes")
    assert changes.code == 3
    assert "File name too long" in changes.out


def _object_path(root: Path, oid: str) -> Path:
    return root / ".git" / "objects" / oid[:2] / oid[2:]


@pytest.mark.parametrize(
    "content",
    [
        b"not zlib at all",
        zlib.compress(b"tree 9\x00notatree!"),
        zlib.compress(b"junk without a header"),
        zlib.compress(b"tree 30\x00100644 a\x00short"),
    ],
)
def test_15_corrupt_loose_tree(feature: Path, cagr: Cagr, content: bytes) -> None:
    commit(feature, "edit")  # so the committed check reads the baseline's src tree too
    write(feature, "src/schema.ts", "three\n")
    tree = git(feature, "rev-parse", "main:src").decode().strip()
    path = _object_path(feature, tree)
    os.chmod(path, 0o644)
    path.write_bytes(content)
    for args in (("rules", "check"), ("rules", "check", "--committed")):
        outcome = cagr(feature, *args)
        assert outcome.code == 3, outcome
        assert tree[:7] in outcome.out
        _no_traceback(outcome)


def test_15_corrupt_pack(feature: Path, cagr: Cagr) -> None:
    commit(feature, "edit")
    git(feature, "gc", "-q")
    (pack,) = (feature / ".git" / "objects" / "pack").glob("*.pack")
    data = bytearray(pack.read_bytes())
    for index in range(12, len(data) - 20, 7):
        data[index] ^= 0x5A
    os.chmod(pack, 0o644)
    pack.write_bytes(bytes(data))
    for args in (("rules", "check"), ("rules", "check", "--committed"), ("changes",)):
        outcome = cagr(feature, *args)
        assert outcome.code == 3, outcome
        _no_traceback(outcome)


@pytest.mark.parametrize("junk", ["junk", "ref: refs/heads/main junk", "0" * 39 + "zz"])
def test_15_junk_in_the_branch_head_names(feature: Path, cagr: Cagr, junk: str) -> None:
    (feature / ".git" / "refs" / "heads" / "feature").write_text(junk + "\n")
    for args in (("rules", "check"), ("rules", "check", "--committed")):
        outcome = cagr(feature, *args)
        assert outcome.code == 3, outcome
        assert "HEAD" in outcome.out


def test_15_junk_in_git_head(feature: Path, cagr: Cagr) -> None:
    (feature / ".git" / "HEAD").write_text("junk\n")
    outcome = cagr(feature, "rules", "check")
    assert outcome.code == 2  # as git: not a repository; the message says which .git and why
    assert f"{feature / '.git'} was passed over" in outcome.err
    assert "repair its HEAD" in outcome.err


def test_15_junk_in_the_target_ref(feature: Path, cagr: Cagr) -> None:
    (feature / ".git" / "refs" / "heads" / "main").write_text("z" * 40 + "\n")
    outcome = cagr(feature, "rules", "check")
    assert outcome.code == 3, outcome
    assert "main" in outcome.out


def test_15_truncated_commit_graph(feature: Path, cagr: Cagr) -> None:
    commit(feature, "edit")
    for number in range(30):
        write(feature, "src/log.txt", f"{number}\n")
        commit(feature, f"more {number}")
    git(feature, "commit-graph", "write", "--reachable")
    graph = feature / ".git" / "objects" / "info" / "commit-graph"
    data = graph.read_bytes()
    for size in (len(data) - 100, len(data) // 2, 80, 10):
        os.chmod(graph, 0o644)
        graph.write_bytes(data[:size])
        for args in (("rules", "check"), ("rules", "check", "--committed")):
            shutil.rmtree(feature / ".git" / "cagr", ignore_errors=True)  # no remembered base
            outcome = cagr(feature, *args)
            assert outcome.code == 1, (size, outcome)  # an unreadable graph is read around


def test_15_sha256_repository(tmp_path: Path, cagr: Cagr, repo: Path) -> None:  # repo: git env
    root = tmp_path / "sha256"
    git(tmp_path, "init", "-q", "-b", "main", "--object-format=sha256", str(root))
    write(root, "cagr.toml", RULE)
    write(root, "src/schema.ts", "one\n")
    commit(root, "base")
    git(root, "checkout", "-q", "-b", "feature")
    write(root, "src/schema.ts", "two\n")
    commit(root, "edit")
    for args in (("rules", "check", "--committed"), ("rules", "check"), ("changes",)):
        outcome = cagr(root, *args)
        assert outcome.code == 3, outcome  # a known limit: unchecked, never an error or a pass
        assert "SHA-256 object ids, which cagr does not read yet" in outcome.out
    outcome = cagr(root, "doctor")
    assert "SHA-256 object ids" in outcome.out
    assert "unexpected" not in outcome.out + outcome.err


def test_16_undecodable_and_control_bytes_in_file_names(feature: Path) -> None:
    text = (feature / "cagr.toml").read_text().replace('"src/schema.ts"]', '"src/**"]', 1)
    (feature / "cagr.toml").write_text(text)
    commit(feature, "rule")
    git(feature, "checkout", "-q", "src/schema.ts")
    for name in (
        b"src/bad\xff.ts",
        b"src/\x1b[2Jesc.ts",
        b"src/car\rriage.ts",
        b"src/\xc2\x9bcsi.ts",
    ):
        write(feature, name, "x\n")
    env = {"PYTHONIOENCODING": "utf-8"}
    for args in (["rules", "check"], ["changes"], ["rules", "check", "--format", "json"]):
        outcome = run_process(args, feature, env=env)
        assert outcome.code in (0, 1), outcome
        _no_traceback(outcome)
        for raw in ("\x1b", "\r", "\x9b", "\udcff"):
            assert raw not in outcome.out
    text_report = run_process(["rules", "check"], feature, env=env).out
    assert "src/\\x1b[2Jesc.ts was added" in text_report
    report = json.loads(run_process(["changes", "--format", "json"], feature, env=env).out)
    paths = {c["path"] for c in report["changes"]}
    assert "src/bad\udcff.ts" in paths  # JSON stays exact: the byte round-trips
    assert "src/\x1b[2Jesc.ts" in paths
    listed = run_process(["changes"], feature, env=env).out
    assert '"src/bad\\udcff.ts"' in listed  # quoted, as every odd name in `cagr changes`
    (feature / os.fsdecode(b"src/\x1b[2Jesc.ts")).unlink()
    (feature / os.fsdecode(b"src/\xc2\x9bcsi.ts")).unlink()
    assert "src/bad\\xff.ts was added" in run_process(["rules", "check"], feature, env=env).out


def test_17_tracked_folder_at_mode_000(feature: Path) -> None:
    os.chmod(feature / "src", 0o000)
    if not denied(feature / "src"):
        pytest.skip("this system lets even a process without DAC override list the folder")
    outcome = run_process(["rules", "check"], feature, permissions_apply=True)
    _no_traceback(outcome)
    assert outcome.code == 3, outcome
    assert "src/: cannot be listed (Permission denied)" in outcome.out


def test_17_untracked_folder_at_mode_000(feature: Path) -> None:
    write(feature, "src/gen/made.ts", "x\n")
    write(feature, "src/gen/.gitignore", "*.tmp\n")
    os.chmod(feature / "src" / "gen", 0o000)
    if not denied(feature / "src" / "gen"):
        pytest.skip("this system lets even a process without DAC override list the folder")
    outcome = run_process(["rules", "check"], feature, permissions_apply=True)
    _no_traceback(outcome)
    assert outcome.code == 1, outcome  # the rule cannot match beneath src/gen: still decided


def test_17_unreadable_tracked_path_deterministic(
    feature: Path, cagr: Cagr, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The fault injected, so the path is exercised where the OS grants access (root).
    real = os.lstat
    src = os.fsencode(feature / "src") + b"/"

    def refuse(path: object, *args: object, **kwargs: object) -> os.stat_result:
        if isinstance(path, bytes | str) and os.fsencode(path).startswith(src):
            raise PermissionError(13, "Permission denied", path)
        return real(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "lstat", refuse)
    outcome = cagr(feature, "rules", "check")
    assert outcome.code == 3
    assert "src/schema.ts" in outcome.out
    assert "Permission denied" in outcome.out


def test_18_schema_write_when_the_folder_is_a_file(feature: Path, cagr: Cagr) -> None:
    write(feature, ".cagr", "a file")
    outcome = cagr(feature, "schema", "--write")
    assert outcome.code == 2
    assert ".cagr/cagr.schema.json" in outcome.err
    assert len(outcome.err.strip().splitlines()) == 1


def _break_collection(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("injected fault")

    monkeypatch.setattr("cagr_git.status.index_tree", broken)


def test_18_an_exception_during_a_check_is_unchecked_with_its_stage(
    feature: Path, cagr: Cagr, monkeypatch: pytest.MonkeyPatch
) -> None:
    _break_collection(monkeypatch)
    monkeypatch.delenv("CAGR_DEBUG", raising=False)
    outcome = cagr(feature, "rules", "check")
    assert outcome.code == 3
    lines = outcome.err.strip().splitlines()
    assert len(lines) == 1
    assert "collect" in lines[0]
    assert "injected fault" in lines[0]
    assert "CAGR_DEBUG" in lines[0]
    _no_traceback(outcome)


def test_18_cagr_debug_shows_the_traceback(
    feature: Path, cagr: Cagr, monkeypatch: pytest.MonkeyPatch
) -> None:
    _break_collection(monkeypatch)
    monkeypatch.setenv("CAGR_DEBUG", "1")
    outcome = cagr(feature, "rules", "check")
    assert outcome.code == 3
    assert "Traceback" in outcome.err
    assert "injected fault" in outcome.err


def test_18_an_exception_outside_a_check_exits_2(
    feature: Path, cagr: Cagr, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("injected fault")

    monkeypatch.setattr(rules_test, "run_examples", broken)
    outcome = cagr(feature, "rules", "test")
    assert outcome.code == 2
    assert len(outcome.err.strip().splitlines()) == 1
    _no_traceback(outcome)


def test_18_process_exit_code_is_never_1_for_a_crash(feature: Path) -> None:
    # The process as a script sees it: a fault in the check is 3, and stderr has one line.
    (feature / ".git" / "index").write_bytes(b"DIRC" + b"\x00" * 40)
    outcome = run_process(["rules", "check"], feature)
    assert outcome.code in (2, 3), outcome
    _no_traceback(outcome)
    assert subprocess  # the process boundary is the point of this test


# A manifest of each format that no reader accepts (a number too long to convert, nesting too
# deep, bytes that are not UTF-8, a root or section of the wrong type), with the addition each
# rule's examples use.
_MANIFESTS = {
    "package.json": (
        '{"dependencies": {"x": "1"}}',
        ["[" * 50_000, b"\xff{}", "[]", '{"dependencies": 7}'],
    ),
    "sub/pyproject.toml": (  # the root one is cagr's config too: see the test below
        "[project]\ndependencies = ['x']\n",
        [f"v = {'1' * 5000}\n", "v = " + "[" * 5000 + "]" * 5000, b"\xff", "project = 1\n"],
    ),
    "requirements.txt": (
        "x\n",
        ["x; " + "(" * 500 + "os_name == 'nt'" + ")" * 500, b"\xff", "a b c\n"],
    ),
    "Cargo.toml": (
        "[dependencies]\nx = '1'\n",
        [
            f"[package]\nv = {'9' * 5000}\n",
            "v = " + "{a=" * 5000 + "1" + "}" * 5000,
            "target = 1\n",
        ],
    ),
    "go.mod": ("require x.org/y v1.0.0\n", ["require (\n", b"module \xff\n", "require x\n"]),
}


def _dependency_rule(path: str, addition: str) -> str:
    change = f"{{ path = {json.dumps(path)}, status = 'A', after = {json.dumps(addition)} }}"
    return f"""
[[changes.rules]]
id = "deps-lock"
kind = "requires"
paths = [{json.dumps(path)}]
when = "dependency_added"
require = ["deps.lock"]
reason = "Update deps.lock in this change."
examples.invalid = [{{ changes = [{change}] }}]
examples.valid = [{{ changes = [{change}, {{ path = "deps.lock", status = "A" }}] }}]
"""


@pytest.mark.parametrize(
    ("path", "content"),
    [(path, content) for path, (_, contents) in sorted(_MANIFESTS.items()) for content in contents],
)
def test_a_manifest_no_reader_accepts_leaves_every_other_rule_to_run(
    feature: Path, cagr: Cagr, path: str, content: str | bytes
) -> None:
    with (feature / "cagr.toml").open("a") as handle:
        handle.write(_dependency_rule(path, _MANIFESTS[path][0]))
    assert cagr(feature, "rules", "test").code == 0
    data = content if isinstance(content, bytes) else content.encode()
    (feature / path).parent.mkdir(exist_ok=True)
    (feature / path).write_bytes(data)
    outcome = cagr(feature, "rules", "check", "--format", "json")
    _no_traceback(outcome)
    report = json.loads(outcome.out)
    assert outcome.code == 1  # the other rule's finding
    assert [f["rule"] for f in report["findings"]] == ["schema-out"]
    (item,) = report["unchecked"]
    assert (item["rule"], item["stage"]) == ("deps-lock", "selector")
    assert item["message"].startswith(f"cannot read dependencies from {path}: the new side ")


def test_a_package_json_holding_a_5000_digit_integer_is_read(feature: Path, cagr: Cagr) -> None:
    with (feature / "cagr.toml").open("a") as handle:
        handle.write(_dependency_rule("package.json", _MANIFESTS["package.json"][0]))
    write(feature, "package.json", f'{{"version": {"1" * 5000}, "dependencies": {{"x": "1"}}}}')
    outcome = cagr(feature, "rules", "check", "--format", "json")
    _no_traceback(outcome)
    report = json.loads(outcome.out)
    assert [f["rule"] for f in report["findings"]] == ["deps-lock", "schema-out"]
    assert report["unchecked"] == []


@pytest.mark.parametrize("name", ["cagr.toml", "pyproject.toml"])
def test_a_5000_digit_integer_in_a_config_file_is_a_config_error(
    feature: Path, cagr: Cagr, name: str
) -> None:
    with (feature / name).open("a") as handle:
        handle.write(f"\n{MAY_HOLD_CAGR}[other]\nx = {'1' * 5000}\n")
    outcome = cagr(feature, "rules", "check")
    _no_traceback(outcome)
    assert outcome.code == 2
    assert f"{name}: holds a number with more digits than cagr reads" in outcome.err
