"""HTTP is loaded only where a run talks to the forge: `--comment`, or a merge queue run that
needs its pull request. Every other run starts without urllib.request and http.client."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.ci import (
    DEPENDENCY,
    GOOD_BODY,
    Project,
    _clean_environment,
    github_env,
    merge_group,
    pull_request,
)
from tests.support.forge import TOKEN, FakeForge, pull, queue, serving

REPORT = (
    "import sys; from cagr_cli.main import main; code = main(sys.argv[1:]);"
    " loaded = {'urllib.request', 'http.client'} & set(sys.modules);"
    " print('HTTP LOADED' if loaded else 'NO HTTP', file=sys.stderr); sys.exit(code)"
)


@pytest.fixture
def forge() -> Iterator[FakeForge]:
    with serving() as server:
        yield server


def loads_http(checkout: Path, env: dict[str, str], *args: str) -> bool:
    result = subprocess.run(
        [sys.executable, "-c", REPORT, "ci", *args],
        cwd=checkout,
        env={**_clean_environment(), **env},
        capture_output=True,
        text=True,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    assert result.stderr.strip().endswith(("HTTP LOADED", "NO HTTP")), result.stderr
    return result.stderr.strip().endswith("HTTP LOADED")


def api(forge: FakeForge) -> dict[str, str]:
    return {
        "GITHUB_API_URL": forge.url,
        "GITHUB_GRAPHQL_URL": f"{forge.url}/graphql",
        "GITHUB_TOKEN": TOKEN,
        "NO_PROXY": "127.0.0.1,localhost",
    }


def test_a_pull_request_run_without_comment(project: Project, forge: FakeForge) -> None:
    head = project.work({"package.json": DEPENDENCY})
    env = github_env(project.tmp, "pull_request", pull_request("opened", head, GOOD_BODY))
    env.update(api(forge))
    assert not loads_http(project.clone(head), env)
    assert loads_http(project.clone(head), env, "--comment")


def test_a_merge_queue_run_only_when_it_needs_its_pull_request(
    project: Project, forge: FakeForge
) -> None:
    checkout, group, base, _ = queue(project, {"src/schema.py": "v2", "schema.json": "{}\n"})
    env = github_env(project.tmp, "merge_group", merge_group(group, base), **api(forge))
    assert not loads_http(checkout, env)
    checkout, group, base, head = queue(project, {"package.json": DEPENDENCY})
    forge.pulls[7] = pull(head, GOOD_BODY)
    env = github_env(project.tmp, "merge_group", merge_group(group, base), **api(forge))
    assert loads_http(checkout, env)
