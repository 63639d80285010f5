"""docs/ci.md's GitLab job and pre-commit line, run as written: the YAML is checked against
GitLab's CI schema, and its script runs in real clones with GitLab's documented variables, in a
merge request pipeline and a merged results pipeline."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.ci import GOOD_BODY, Project, _clean_environment, gitlab_env
from tests.support.git import GIT_ENV, git
from tests.support.tools import ROOT, branch_without_its_schema, run_tool, tool

DOC = (ROOT / "docs" / "ci.md").read_text()


def gitlab_job() -> str:
    section = DOC[DOC.index("## GitLab merge request pipelines") :]
    return re.search(r"```yaml\n(.*?)```", section, re.DOTALL).group(1)


def test_the_job_is_valid_gitlab_ci(tmp_path: Path) -> None:
    check = tool("check-jsonschema")
    (tmp_path / ".gitlab-ci.yml").write_text(gitlab_job())
    result = run_tool(check, "--builtin-schema", "vendor.gitlab-ci", ".gitlab-ci.yml", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr


def run_job(checkout: Path, env: dict[str, str]) -> list[subprocess.CompletedProcess[str]]:
    """The job's script lines, one shell each as the runner runs them, with its variables;
    the install line is skipped (this environment's cagr is on the PATH)."""
    yaml = pytest.importorskip("yaml", reason="PyYAML comes with pre-commit (`test` extra)")
    job = yaml.safe_load(gitlab_job())["change-rules"]
    variables = {key: str(value) for key, value in job["variables"].items()}
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    full = {**_clean_environment(), **GIT_ENV, **variables, **env, "PATH": path}
    results = []
    for line in job["script"]:
        if "pip install" in line:
            continue
        results.append(
            subprocess.run(
                ["bash", "-ec", line],
                cwd=checkout,
                env=full,
                capture_output=True,
                text=True,
                check=False,
            )
        )
    return results


def mr_variables(project: Project, head: str, **extra: str) -> dict[str, str]:
    variables = {
        "CI_MERGE_REQUEST_IID": "12",
        "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME": "work",
        "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main",
        "CI_MERGE_REQUEST_DIFF_BASE_SHA": project.base,
        "CI_MERGE_REQUEST_DESCRIPTION": GOOD_BODY,
        "CI_MERGE_REQUEST_EVENT_TYPE": "detached",
    }
    return gitlab_env("merge_request_event", head, **(variables | extra))


@pytest.mark.parametrize("merged_results", [False, True])
def test_the_job_runs_in_merge_request_pipelines(project: Project, merged_results: bool) -> None:
    head = project.work({"src/schema.py": "v2"})
    if merged_results:
        project.main({"later.txt": "main moved on"})
        checkout = project.clone("origin/main")
        git(checkout, "merge", "-q", "--no-ff", "--no-edit", head)  # GitLab's merge commit
        merge = git(checkout, "rev-parse", "HEAD").decode().strip()
        env = mr_variables(
            project,
            merge,
            CI_MERGE_REQUEST_EVENT_TYPE="merged_result",
            CI_MERGE_REQUEST_SOURCE_BRANCH_SHA=head,
            CI_MERGE_REQUEST_TARGET_BRANCH_SHA=git(project.origin, "rev-parse", "main")
            .decode()
            .strip(),
        )
    else:
        checkout = project.clone(head)
        env = mr_variables(project, head)
    *setup, check = run_job(checkout, env)
    assert all(step.returncode == 0 for step in setup), setup
    assert check.returncode == 1, check.stdout + check.stderr  # the finding, not a problem
    assert "src/schema.py changed; schema.json did not change." in check.stdout
    report = json.loads((checkout / "gl-code-quality-report.json").read_text())
    assert [issue["location"]["path"] for issue in report] == ["src/schema.py"]


def test_the_pre_commit_line_runs_the_hook(repo: Path, tmp_path: Path) -> None:
    pytest.importorskip("pre_commit", reason="pre-commit is in the `test` extra")
    branch_without_its_schema(repo)
    git(repo, "update-ref", "refs/remotes/origin/main", "main")
    env = {**os.environ, **GIT_ENV, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}
    documented = re.search(r"pre-commit try-repo <cagr's repository> (.*?)\n  ```", DOC, re.DOTALL)
    arguments = documented.group(1).replace("\\\n", " ").split()
    base = [sys.executable, "-m", "pre_commit", "try-repo", str(ROOT)]

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*base, *args], cwd=repo, env=env, capture_output=True, text=True, check=False
        )

    bare = run("cagr-rules")
    assert "No hook with id `cagr-rules` in stage `pre-commit`" in bare.stdout + bare.stderr
    checked = run(*arguments)
    assert checked.returncode == 1, checked.stdout + checked.stderr
    assert "src.py changed; schema.json did not change." in checked.stdout
