"""`[stack].ci` commands: after the rules, read-only, failing the job on their own terms."""

from __future__ import annotations

import json
import time

from cagr_ci.event import CiEvent
from cagr_ci.run import STACK_SECONDS, run_ci
from cagr_core.pull_request import PrBody
from cagr_git.discover import find_checkout
from cagr_repo.config import load_config
from tests.support.ci import GOOD_BODY, RULES, Project, cagr_ci, github_env, pull_request


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


class TestWhatAppeared:
    """A check that writes (pytest's `__pycache__`, a build folder) fails the job with the paths
    that appeared and how to ignore them."""

    def test_python_caches(self, project: Project) -> None:
        command = "python3 -c 'import sys; sys.path.insert(0, \"src\"); import mod'"
        head = project.work({"src/mod.py": "X = 1\n", "cagr.toml": with_stack(command)})
        writes = pr(project, head) | {"PYTHONDONTWRITEBYTECODE": ""}  # Python's default
        result = cagr_ci(project.clone(head), writes, "--format", "json")
        assert result.returncode == 1, result.stdout
        (problem,) = json.loads(result.stdout)["problems"]
        assert problem["kind"] == "dirtied_by_stack"
        (cache,) = problem["paths"]
        assert cache.startswith("src/__pycache__/mod.")
        assert cache.endswith(".pyc")
        assert f"new files appeared: {cache}" in problem["message"]
        assert "add `__pycache__/` to .gitignore" in problem["fix"]
        assert "`PYTHONDONTWRITEBYTECODE=1`" in problem["fix"]
        env = pr(project, head) | {"PYTHONDONTWRITEBYTECODE": "1"}
        assert cagr_ci(project.clone(head), env).returncode == 0  # as the docs advise

    def test_a_new_folder_and_a_changed_file(self, project: Project) -> None:
        command = "mkdir -p build/obj && echo o > build/obj/a.o && echo edited >> src/schema.py"
        head = project.work({"cagr.toml": with_stack(command)})
        result = cagr_ci(project.clone(head), pr(project, head), "--format", "json")
        (problem,) = json.loads(result.stdout)["problems"]
        assert "new files appeared: build/obj/a.o" in problem["message"]
        assert "tracked files changed or went away: src/schema.py" in problem["message"]
        assert "add `/build/` to .gitignore." in problem["fix"]


def test_pull_request_target_never_runs_the_pull_requests_commands(
    project: Project,
) -> None:
    marker = project.tmp / "ran-with-secrets"
    head = project.work({"cagr.toml": with_stack(f"touch {marker}")})
    event = pull_request("synchronize", head, GOOD_BODY)
    env = github_env(project.tmp, "pull_request_target", event, SECRET="s3cret")
    result = cagr_ci(project.clone(head), env, "--format", "json")
    assert not marker.exists()
    assert result.returncode == 3, result.stdout
    data = json.loads(result.stdout)
    assert data["stack"] == []
    (item,) = data["unchecked"]
    assert item["stage"] == "stack"
    assert (
        "the 1 [stack].ci command(s) were not run: this `pull_request_target` run"
        in (item["message"])
    )
    assert "run cagr ci on `pull_request`" in item["message"]
    plain = cagr_ci(project.clone(head), pr(project, head))
    assert plain.returncode == 0, plain.stdout  # the same commands run on pull_request
    assert marker.exists()


def test_commands_never_get_the_tokens_cagr_holds_for_the_forge(project: Project) -> None:
    head = project.work(
        {
            "cagr.toml": with_stack(
                'test -z "${GITHUB_TOKEN-}" && test -z "${CAGR_GITLAB_TOKEN-}"',
                'test "$OTHER" = kept',
            )
        }
    )
    env = {
        **pr(project, head),
        "GITHUB_TOKEN": "t0ken",
        "CAGR_GITLAB_TOKEN": "t0ken",
        "OTHER": "kept",
    }
    result = cagr_ci(project.clone(head), env, "--format", "json")
    assert result.returncode == 0, result.stdout
    assert [o["status"] for o in json.loads(result.stdout)["stack"]] == ["passed", "passed"]
