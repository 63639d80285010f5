"""Every path cagr writes replaces a regular file or creates a new one, nothing else: devices,
FIFOs, folders and symlinks that lead out of the repository are refused with exit 2 and a
message, and a FIFO never blocks a command."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.adversarial import Outcome
from tests.support.ci import cagr_ci, github_env, pull_request
from tests.support.git import commit, git

Cagr = Callable[..., Outcome]


@pytest.fixture
def pushed(feature: Path) -> tuple[Path, str, str]:
    """The feature branch committed, with the pull request's head and base."""
    head = commit(feature, "edit")
    base = git(feature, "rev-parse", "main").decode().strip()
    return feature, head, base


@pytest.mark.parametrize("kind", ["device", "fifo", "folder", "outside-link"])
def test_sarif_path_is_never_anything_but_a_regular_file(
    pushed: tuple[Path, str, str], tmp_path: Path, kind: str
) -> None:
    root, head, base = pushed
    outside = tmp_path / "outside.sarif"
    outside.write_text("keep me")
    target = {"device": Path("/dev/full"), "folder": tmp_path / "folder"}.get(
        kind, root / "out.sarif"
    )
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "folder":
        target.mkdir()
    elif kind == "outside-link":
        target.symlink_to(outside)
    event = pull_request("opened", head, "body", base_sha=base)
    result = cagr_ci(root, github_env(tmp_path, "pull_request", event), "--sarif", str(target))
    assert result.returncode == 2, result
    assert str(target) in result.stderr + result.stdout
    assert "Traceback" not in result.stderr
    assert outside.read_text() == "keep me"
    if kind == "device":
        assert Path("/dev/full").is_char_device()
    if kind == "fifo":
        assert target.is_fifo()


def test_a_sarif_link_inside_the_repository_is_written_where_it_points(
    pushed: tuple[Path, str, str], tmp_path: Path
) -> None:
    root, head, base = pushed
    (root / "reports").mkdir()
    (root / "out.sarif").symlink_to("reports/cagr.sarif")
    event = pull_request("opened", head, "body", base_sha=base)
    result = cagr_ci(root, github_env(tmp_path, "pull_request", event), "--sarif", "out.sarif")
    assert result.returncode == 1, result  # the rule's finding
    assert (root / "out.sarif").is_symlink()
    assert json.loads((root / "reports" / "cagr.sarif").read_text())["version"] == "2.1.0"


@pytest.mark.parametrize("variable", ["GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT"])
def test_a_step_summary_or_output_fifo_never_blocks(
    pushed: tuple[Path, str, str], tmp_path: Path, variable: str
) -> None:
    root, head, base = pushed
    fifo = tmp_path / "runner-file"
    os.mkfifo(fifo)
    event = pull_request("opened", head, "body", base_sha=base)
    env = github_env(tmp_path, "pull_request", event, **{variable: str(fifo)})
    result = cagr_ci(root, env)  # a blocked write would hang here (the suite's timeout)
    assert result.returncode == 2, result
    assert "is a FIFO" in result.stdout + result.stderr


def test_init_never_writes_through_a_settings_link_outside_the_repository(
    feature: Path, tmp_path: Path, cagr: Cagr
) -> None:
    personal = tmp_path / "home-claude-settings.json"
    personal.write_text('{"model": "mine"}\n')
    (feature / ".claude").mkdir()
    (feature / ".claude" / "settings.json").symlink_to(personal)
    outcome = cagr(feature, "init", "--hooks", "claude")
    assert outcome.code == 2, outcome
    assert "outside the repository" in outcome.err
    assert personal.read_text() == '{"model": "mine"}\n'


def test_init_never_writes_through_a_folder_link_outside_the_repository(
    feature: Path, tmp_path: Path, cagr: Cagr
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (feature / ".cagr").symlink_to(elsewhere)
    outcome = cagr(feature, "init")
    assert outcome.code == 2, outcome
    assert "outside the repository" in outcome.err
    assert list(elsewhere.iterdir()) == []
    (feature / ".cagr").unlink()
    (feature / ".claude").symlink_to(elsewhere)
    assert cagr(feature, "init", "--hooks", "claude").code == 2
    assert list(elsewhere.iterdir()) == []


def test_schema_write_refuses_a_device(feature: Path, cagr: Cagr) -> None:
    outcome = cagr(feature, "schema", "--write", "/dev/full")
    assert outcome.code == 2, outcome
    assert "is a device" in outcome.err
    assert Path("/dev/full").is_char_device()


@pytest.mark.parametrize("inside", [".git/HEAD", ".git/refs/heads/main", ".git/new.sarif"])
def test_no_output_lands_in_the_git_directory(
    pushed: tuple[Path, str, str], tmp_path: Path, cagr: Cagr, inside: str
) -> None:
    root, head, base = pushed
    before = {path: path.read_bytes() for path in (root / ".git").rglob("*") if path.is_file()}
    event = pull_request("opened", head, "body", base_sha=base)
    result = cagr_ci(root, github_env(tmp_path, "pull_request", event), "--sarif", inside)
    assert result.returncode == 2, result
    assert "git directory" in result.stdout + result.stderr
    assert cagr(root, "schema", "--write", str(root / inside)).code == 2
    after = {path: path.read_bytes() for path in (root / ".git").rglob("*") if path.is_file()}
    assert {
        p: d for p, d in after.items() if "cagr" not in p.relative_to(root / ".git").parts[:1]
    } == {p: d for p, d in before.items() if "cagr" not in p.relative_to(root / ".git").parts[:1]}
    assert git(root, "rev-parse", "HEAD").decode().strip() == head
