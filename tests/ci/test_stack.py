"""`[stack].ci` commands: after the rules, read-only, failing the job on their own terms."""

from __future__ import annotations

import json
import time

from cagr_ci.event import CiEvent
from cagr_ci.run import STACK_SECONDS, run_ci
from cagr_core import PrBody
from cagr_git.discover import find_checkout
from cagr_repo.config import load_config

from .conftest import GOOD_BODY, RULES, Project
from .events import cagr_ci, github_env, pull_request


def with_stack(*commands: str) -> str:
    return RULES + "".join(f'\n[[stack.ci]]\nrun = """{c}"""\n' for c in commands)


def pr(project: Project, head: str) -> dict:
    return github_env(project.tmp, "pull_request", pull_request("synchronize", head, GOOD_BODY))


def test_commands_run_after_the_rules_and_cannot_write_a_companion(project: Project) -> None:
    head = project.work(
        {"src/schema.py": "v2", "cagr.toml": with_stack("echo regenerated > schema.json")}
    )
    result = cagr_ci(project.clone(head), pr(project, head), "--format", "json")
    assert result.returncode == 1
    data = json.loads(result.stdout)
    assert [f["rule"] for f in data["findings"]] == ["schema-companion"]  # judged before
    (problem,) = data["problems"]
    assert problem["kind"] == "dirtied_by_stack"
    assert problem["paths"] == ["schema.json"]


def test_a_failing_command_fails_the_job_with_its_output(project: Project) -> None:
    head = project.work(
        {"cagr.toml": with_stack("echo checked", "echo 'lint: 2 errors' >&2; exit 4")}
    )
    result = cagr_ci(project.clone(head), pr(project, head))
    assert result.returncode == 1
    assert "  passed    echo checked" in result.stdout
    assert "  failed    echo 'lint: 2 errors' >&2; exit 4  (exit 4," in result.stdout
    assert "      | lint: 2 errors" in result.stdout
    assert "The [stack].ci command `echo 'lint: 2 errors' >&2; exit 4` failed (exit 4)." in (
        result.stdout
    )


def test_passing_commands_pass(project: Project) -> None:
    head = project.work({"cagr.toml": with_stack("test -f cagr.toml", "git status --short")})
    result = cagr_ci(project.clone(head), pr(project, head), "--format", "json")
    assert result.returncode == 0, result.stdout
    assert [o["status"] for o in json.loads(result.stdout)["stack"]] == ["passed", "passed"]


def test_path_filters_use_the_committed_change(project: Project) -> None:
    stack = RULES + '\n[[stack.ci]]\nrun = "exit 1"\npaths = ["docs/**"]\n'
    head = project.work({"cagr.toml": stack})
    result = cagr_ci(project.clone(head), pr(project, head), "--format", "json")
    assert result.returncode == 0
    assert json.loads(result.stdout)["stack"][0]["status"] == "skipped"


def test_no_time_left_is_unchecked_not_a_pass(project: Project) -> None:
    head = project.work({"cagr.toml": with_stack("true")})
    checkout = project.clone(head)
    config = load_config(checkout)
    event = CiEvent("none", "", "test", body=PrBody(GOOD_BODY))
    result = run_ci(
        config,
        find_checkout(str(checkout)),
        event,
        started=time.monotonic() - STACK_SECONDS - 1,
    )
    assert result.status == "unchecked"
    (item,) = result.report.unchecked
    assert item.stage.value == "stack"
    assert "`true` was not started: no time was left" in item.message
