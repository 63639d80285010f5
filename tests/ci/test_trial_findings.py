"""What a first CI trial on a real repository found, each kept from coming back."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from cagr_ci.summary import CELL_LIMIT, cell, code
from tests.support.ci import (
    GOOD_BODY,
    MORE_RULES,
    SECTIONS,
    Project,
    _clean_environment,
    cagr_ci,
    github_env,
    pull_request,
    push,
)
from tests.support.git import git


def test_pr_sections_are_asked_of_pull_requests_only(project: Project) -> None:
    project.baseline({"cagr.toml": SECTIONS})
    head = project.work({"a.txt": "a"})
    checkout = project.clone(head)
    pushed = cagr_ci(checkout, github_env(project.tmp, "push", push(head, project.base)))
    assert pushed.returncode == 0, pushed.stdout  # a push has no description to ask headings of
    assert "pr_sections" not in pushed.stdout
    no_summary = pull_request("synchronize", head, "## Risk\nNone.")
    opened = cagr_ci(checkout, github_env(project.tmp, "pull_request", no_summary))
    assert opened.returncode == 1
    assert "The PR description has no `## Summary` section." in opened.stdout


def test_a_push_in_an_actions_checkout_without_origin_head_uses_the_default_branch(
    project: Project,
) -> None:
    head = project.work({"src/schema.py": "v2"})
    checkout = project.clone(head)
    git(checkout, "remote", "set-head", "origin", "-d")  # actions/checkout records none
    new_branch = push(head, "0" * 40, ref="refs/heads/work")
    result = cagr_ci(checkout, github_env(project.tmp, "push", new_branch), "--format", "json")
    assert result.returncode == 1  # the change was judged against main, not left unchecked
    data = json.loads(result.stdout)
    assert data["range"]["chosen_by"] == "repository.default_branch"
    assert [f["rule"] for f in data["findings"]] == ["schema-companion"]


def test_ci_writes_no_gate_record(project: Project) -> None:
    head = project.work({"a.txt": "a"})
    checkout = project.clone(head)
    assert (
        cagr_ci(checkout, github_env(project.tmp, "push", push(head, project.base))).returncode == 0
    )
    assert not (checkout / ".git" / "cagr" / "gate.json").exists()


def test_actions_without_an_event_name_honour_base_and_body_file(project: Project) -> None:
    head = project.work({"a.txt": "a"})
    body = project.tmp / "body.md"
    body.write_text(GOOD_BODY)
    env = {"GITHUB_ACTIONS": "true"}  # `act`, or a container step, without the event variables
    result = cagr_ci(
        project.clone(head), env, "--base", "main", "--body-file", str(body), "--format", "json"
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert json.loads(result.stdout)["ci"]["body_source"] == f"--body-file {body}"


def test_a_sarif_file_that_cannot_be_written_leaves_one_json_report(project: Project) -> None:
    head = project.work({"a.txt": "a"})
    blocker = project.tmp / "a-file"
    blocker.write_text("")
    env = github_env(project.tmp, "push", push(head, project.base))
    result = cagr_ci(
        project.clone(head), env, "--format", "json", "--sarif", str(blocker / "cagr.sarif")
    )
    assert result.returncode == 2
    assert json.loads(result.stdout)["status"] == "pass"  # exactly one JSON object
    assert f"cannot write the SARIF log {blocker / 'cagr.sarif'}" in result.stderr


def test_an_unreadable_event_still_leaves_a_job_summary(project: Project) -> None:
    head = project.work({"a.txt": "a"})
    env = github_env(project.tmp, "pull_request", None, GITHUB_EVENT_PATH="/nonexistent.json")
    result = cagr_ci(project.clone(head), env)
    assert result.returncode == 2
    summary = Path(env["GITHUB_STEP_SUMMARY"]).read_text()
    assert summary.startswith("## cagr ci: could not check this run")


def test_a_file_name_git_cannot_decode_is_not_attached_to_an_annotation(
    project: Project,
) -> None:
    project.baseline({"cagr.toml": MORE_RULES})
    name = os.fsdecode(b"src/guards/g\xff.ts")
    head = project.work({name: "guard"})
    result = cagr_ci(project.clone(head), github_env(project.tmp, "push", push(head, project.base)))
    assert result.returncode == 1
    errors = [line for line in result.stdout.splitlines() if line.startswith("::error ")]
    assert errors == [
        "::error title=cagr%3A change rule guard-tests::Added src/guards/g\\xff.ts;"
        " src/guards/g\\xff.test.ts needs to be added or changed in this change.%0AInstead:"
        " Add the matching .test.ts file in this change."
    ]


def test_summary_cells_are_cut_and_code_spans_keep_their_text() -> None:
    long = cell("x" * (CELL_LIMIT + 50))
    assert long.startswith("x" * CELL_LIMIT)
    assert "cut here; the job log has the rest" in long
    assert cell("a <b> | c\x1b[2J") == "a &lt;b&gt; \\| c\\x1b[2J"
    assert code("a <b>") == "`a <b>`"  # a code span shows HTML escapes literally: none
    assert code("run `make`") == "`` run `make` ``"  # CommonMark strips the padding


def test_init_outside_a_repository_writes_nothing(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "cagr_cli", "init"],
        cwd=tmp_path,
        env=_clean_environment() | {"GIT_CEILING_DIRECTORIES": str(tmp_path.parent)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert "run `git init` first" in result.stderr
    assert list(tmp_path.iterdir()) == []
