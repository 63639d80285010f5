"""cagr never writes to a repository: every command, under configs that once made a library
delete refs (`extensions.refStorage = reftable` through an include), leaves the git directory
byte for byte as it was, outside `<gitdir>/cagr/`. Repositories cagr cannot read exactly (a real
reftable, an unknown extension, a newer format) are unchecked with a message saying so.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

import cagr
from tests.support.adversarial import Outcome
from tests.support.ci import cagr_ci, github_env, pull_request
from tests.support.git import commit, git, write
from tests.support.hooks import hook, payload

Cagr = Callable[..., Outcome]
Snapshot = dict[str, tuple[str, bytes]]


def snapshot(gitdir: Path) -> Snapshot:
    """Every entry below `gitdir` but cagr's own folder: its kind and content (a link's target)."""
    found: Snapshot = {}
    for folder, folders, files in os.walk(gitdir):
        relative = os.path.relpath(folder, gitdir)
        if relative == "cagr" or relative.startswith("cagr/"):
            folders.clear()
            continue
        for name in folders + files:
            path = os.path.join(folder, name)
            key = os.path.normpath(os.path.join(relative, name))
            if key == "cagr":
                continue
            mode = os.lstat(path).st_mode
            if stat.S_ISLNK(mode):
                found[key] = ("link", os.readlink(path).encode())
            elif stat.S_ISDIR(mode):
                found[key] = ("folder", b"")
            else:
                found[key] = (oct(mode), Path(path).read_bytes())
    return found


def run_everything(root: Path, cagr_: Cagr, tmp: Path, head: str, base: str) -> dict[str, int]:
    """Every command cagr has, as a person, an agent and CI run them; their exit codes. `head`
    and `base` are the pull request's, for CI."""
    codes = {}
    for args in (
        ("rules", "check"),
        ("rules", "check", "--committed"),
        ("rules", "check", "--format", "json"),
        ("changes",),
        ("changes", "--committed"),
        ("doctor",),
        ("rules", "test"),
        ("explain", "schema-out"),
        ("schema", "--check"),
    ):
        codes[" ".join(args)] = cagr_(root, *args).code
    codes["library"] = 0 if cagr.check(root).report is not None else 1
    for moment in (2, 0):  # session start, turn end
        codes[f"hook {moment}"] = hook(payload("claude", moment, root)).code
    gate = payload("claude", 1, root, command="gh pr create --title t --body b")
    codes["hook gate"] = hook(gate).code
    event = pull_request("opened", head, "## Summary\nx\n", base_sha=base)
    codes["ci"] = cagr_ci(root, github_env(tmp, "pull_request", event)).returncode
    return codes


def _head_and_base(root: Path) -> tuple[str, str]:
    head, base = (git(root, "rev-parse", name).decode().strip() for name in ("HEAD", "main"))
    return head, base


def _reftable_by_include(root: Path) -> None:
    """The reported case: an include of an untracked file names a reftable in a format-0
    repository, which git ignores."""
    git(root, "config", "include.path", "../.gitconfig")
    write(root, ".gitconfig", "[extensions]\n\trefstorage = reftable\n")


def test_a_reftable_named_through_an_include_is_ignored_and_nothing_is_written(
    feature: Path, cagr: Cagr, tmp_path: Path
) -> None:
    commit(feature, "edit")
    write(feature, "src/schema.ts", "three\n")  # and an uncommitted edit on top
    _reftable_by_include(feature)
    before = snapshot(feature / ".git")
    codes = run_everything(feature, cagr, tmp_path, *_head_and_base(feature))
    assert snapshot(feature / ".git") == before, codes
    assert git(feature, "rev-parse", "--abbrev-ref", "HEAD").decode().strip() == "feature"
    assert git(feature, "log", "--oneline").decode().count("\n") == 2
    # git ignores the line, so cagr checks as usual: the edit without its companion fails.
    assert codes["rules check"] == 1
    assert codes["rules check --committed"] == 1


@pytest.mark.parametrize(
    ("lines", "said"),
    [
        (
            "[core]\n\trepositoryformatversion = 1\n[extensions]\n\trefStorage = reftable\n",
            "keeps its refs in a reftable (`extensions.refStorage`), which cagr does not read",
        ),
        (
            "[core]\n\trepositoryformatversion = 1\n[extensions]\n\tshinyNewThing = yes\n",
            "needs the repository extension `extensions.shinynewthing`, which cagr does not know",
        ),
        ("[core]\n\trepositoryformatversion = 2\n", "has repository format version 2"),
    ],
)
def test_repositories_cagr_cannot_read_are_unchecked_and_untouched(
    feature: Path, cagr: Cagr, tmp_path: Path, lines: str, said: str
) -> None:
    head_and_base = _head_and_base(feature)  # git cannot read them once the config is written
    with (feature / ".git" / "config").open("a") as handle:
        handle.write(lines)
    before = snapshot(feature / ".git")
    codes = run_everything(feature, cagr, tmp_path, *head_and_base)
    assert snapshot(feature / ".git") == before, codes
    for args in (("rules", "check"), ("rules", "check", "--committed"), ("changes",)):
        outcome = cagr(feature, *args)
        assert outcome.code == 3, outcome
        assert said in outcome.out
        assert "unexpected" not in outcome.out + outcome.err
    report = json.loads(cagr(feature, "rules", "check", "--format", "json").out)
    assert report["status"] == "unchecked"
    assert said in report["unchecked"][0]["message"]
    doctor = cagr(feature, "doctor")
    assert doctor.code == 3
    assert said in doctor.out
    stop = hook(payload("claude", 0, feature))
    assert stop.code == 0
    assert said in stop.text  # the agent is told why nothing was checked; it is not blocked


def test_format_0_ignores_extensions_it_does_not_know(feature: Path, cagr: Cagr) -> None:
    with (feature / ".git" / "config").open("a") as handle:
        handle.write("[extensions]\n\tshinyNewThing = yes\n")
    assert git(feature, "status", "--short").decode() == " M src/schema.ts\n"  # git reads on
    assert cagr(feature, "rules", "check").code == 1


def test_format_0_with_a_format_1_extension_is_refused_as_git_refuses_it(
    feature: Path, cagr: Cagr
) -> None:
    with (feature / ".git" / "config").open("a") as handle:
        handle.write("[extensions]\n\tobjectFormat = sha1\n")
    assert (
        b"v1-only extension"
        in subprocess.run(
            ["git", "-C", str(feature), "status"], capture_output=True, check=False
        ).stderr
    )
    outcome = cagr(feature, "rules", "check")
    assert outcome.code == 3, outcome
    assert "names `extensions.objectformat` in a repository of format 0" in outcome.out


def test_a_config_git_refuses_is_unchecked(feature: Path, cagr: Cagr) -> None:
    with (feature / ".git" / "config").open("a") as handle:
        handle.write('[core]\n\tautocrlf = "unterminated\n')
    outcome = cagr(feature, "rules", "check")
    assert outcome.code == 3, outcome
    assert "bad config line" in outcome.out
