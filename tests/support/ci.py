"""GitHub webhook payloads shaped like GitHub's own, and a way to run `cagr ci` as a CI job does.

Payloads follow GitHub's webhook documentation for `pull_request` (opened, synchronize, edited
with `changes.body.from`) and `merge_group` (`checks_requested`), trimmed of fields cagr never
reads but keeping the structure around the ones it does.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.support.configs import TWO_RULES as RULES
from tests.support.git import GIT_ENV, commit, git, write

REPOSITORY = {
    "id": 1296269,
    "node_id": "MDEwOlJlcG9zaXRvcnkxMjk2MjY5",
    "name": "app",
    "full_name": "octo-org/app",
    "private": False,
    "owner": {"login": "octo-org", "id": 6811672, "type": "Organization"},
    "default_branch": "main",
}
SENDER = {"login": "octocat", "id": 583231, "type": "User"}


def pull_request(
    action: str,
    head: str,
    body: str | None,
    *,
    base_ref: str = "main",
    base_sha: str = "0" * 40,
    number: int = 7,
    old_body: str | None = None,
    labels: tuple[str, ...] = (),
    author: str = SENDER["login"],
) -> dict[str, Any]:
    """A `pull_request` webhook payload (`labels`: the names of the PR's labels; `author`: the
    login of the account that opened it)."""
    payload: dict[str, Any] = {
        "action": action,
        "number": number,
        "pull_request": {
            "url": f"https://api.github.com/repos/octo-org/app/pulls/{number}",
            "id": 2_000_000 + number,
            "number": number,
            "state": "open",
            "locked": False,
            "title": "Add a dependency",
            "user": {**SENDER, "login": author},
            "body": body,
            "draft": False,
            "head": {
                "label": "octocat:work",
                "ref": "work",
                "sha": head,
                "user": SENDER,
                "repo": REPOSITORY,
            },
            "base": {
                "label": f"octo-org:{base_ref}",
                "ref": base_ref,
                "sha": base_sha,
                "user": REPOSITORY["owner"],
                "repo": REPOSITORY,
            },
            "merged": False,
            "mergeable": None,
            "labels": [
                {
                    "id": 208045946 + n,
                    "node_id": "MDU6TGFiZWwyMDgwNDU5NDY=",
                    "url": f"https://api.github.com/repos/octo-org/app/labels/{name}",
                    "name": name,
                    "description": None,
                    "color": "f29513",
                    "default": False,
                }
                for n, name in enumerate(labels)
            ],
        },
        "repository": REPOSITORY,
        "sender": SENDER,
    }
    if action == "edited":
        payload["changes"] = {"body": {"from": old_body or ""}}
    if action in ("labeled", "unlabeled") and labels:
        payload["label"] = payload["pull_request"]["labels"][-1]
    return payload


def merge_group(head: str, base: str, *, base_ref: str = "main", number: int = 7) -> dict[str, Any]:
    """A `merge_group` webhook payload (`checks_requested`)."""
    return {
        "action": "checks_requested",
        "merge_group": {
            "head_sha": head,
            "head_ref": f"refs/heads/gh-readonly-queue/{base_ref}/pr-{number}-{base}",
            "base_sha": base,
            "base_ref": f"refs/heads/{base_ref}",
            "head_commit": {
                "id": head,
                "tree_id": "f" * 40,
                "message": f"Merge pull request #{number} from octocat/work",
                "timestamp": "2026-01-01T00:00:00Z",
                "author": {"name": "Octo Cat", "email": "octocat@example.invalid"},
                "committer": {"name": "GitHub", "email": "noreply@example.invalid"},
            },
        },
        "repository": REPOSITORY,
        "sender": SENDER,
    }


def push(
    after: str,
    before: str,
    *,
    ref: str = "refs/heads/main",
    forced: bool = False,
) -> dict[str, Any]:
    """A `push` webhook payload (an all-zero `before`: a new branch; `after`: a deletion)."""
    zero = "0" * 40
    head_commit = (
        None
        if after == zero
        else {
            "id": after,
            "tree_id": "f" * 40,
            "distinct": True,
            "message": "work",
            "timestamp": "2026-01-01T00:00:00Z",
            "url": f"https://github.com/octo-org/app/commit/{after}",
            "author": {"name": "Octo Cat", "email": "octocat@example.invalid"},
            "committer": {"name": "Octo Cat", "email": "octocat@example.invalid"},
            "added": [],
            "removed": [],
            "modified": [],
        }
    )
    return {
        "ref": ref,
        "before": before,
        "after": after,
        "repository": REPOSITORY,
        "pusher": {"name": "octocat", "email": "octocat@example.invalid"},
        "sender": SENDER,
        "created": before == zero,
        "deleted": after == zero,
        "forced": forced,
        "base_ref": None,
        "compare": f"https://github.com/octo-org/app/compare/{before[:12]}...{after[:12]}",
        "commits": [head_commit] if head_commit else [],
        "head_commit": head_commit,
    }


def workflow_dispatch(ref: str = "refs/heads/main") -> dict[str, Any]:
    """A `workflow_dispatch` webhook payload (a run started by hand on `ref`)."""
    return {
        "inputs": {},
        "ref": ref,
        "repository": REPOSITORY,
        "sender": SENDER,
        "workflow": ".github/workflows/cagr.yml",
    }


def github_env(
    tmp: Path, name: str, payload: dict[str, Any] | None, **extra: str
) -> dict[str, str]:
    """The variables GitHub Actions sets for a step, with the payload written to a file."""
    env = {
        "GITHUB_ACTIONS": "true",
        "CI": "true",
        "GITHUB_EVENT_NAME": name,
        "GITHUB_REPOSITORY": "octo-org/app",
        "GITHUB_STEP_SUMMARY": str(tmp / "step_summary.md"),
        "GITHUB_OUTPUT": str(tmp / "github_output"),
        "RUNNER_TEMP": str(tmp),
    }
    if payload is not None:
        path = tmp / "event.json"
        path.write_text(json.dumps(payload))
        env["GITHUB_EVENT_PATH"] = str(path)
    if name in ("pull_request", "pull_request_target") and payload is not None:
        env["GITHUB_BASE_REF"] = payload["pull_request"]["base"]["ref"]
        env["GITHUB_HEAD_REF"] = payload["pull_request"]["head"]["ref"]
        env["GITHUB_REF"] = f"refs/pull/{payload['number']}/merge"
    elif name == "push" and payload is not None:
        env["GITHUB_REF"] = payload["ref"]
        env["GITHUB_SHA"] = payload["after"]
    elif name == "workflow_dispatch" and payload:
        env["GITHUB_REF"] = payload["ref"]
    env.update(extra)
    return env


def gitlab_env(source: str, head: str, **extra: str) -> dict[str, str]:
    """The predefined variables GitLab sets for a job of a `source` pipeline (GitLab's
    documented names: CI_PIPELINE_SOURCE push, schedule, web, merge_request_event, ...) at the
    commit `head`, on the branch `main` unless `extra` says otherwise."""
    env = {
        "CI": "true",
        "GITLAB_CI": "true",
        "CI_SERVER_URL": "https://gitlab.example.invalid",
        "CI_PROJECT_PATH": "octo-org/app",
        "CI_PROJECT_DIR": "/builds/octo-org/app",
        "CI_DEFAULT_BRANCH": "main",
        "CI_PIPELINE_ID": "1000",
        "CI_PIPELINE_SOURCE": source,
        "CI_JOB_ID": "2000",
        "CI_COMMIT_SHA": head,
        "CI_COMMIT_SHORT_SHA": head[:8],
        "CI_COMMIT_BEFORE_SHA": "0" * 40,
        "CI_COMMIT_REF_NAME": "main",
        "CI_COMMIT_REF_SLUG": "main",
    }
    if source != "merge_request_event":
        env["CI_COMMIT_BRANCH"] = "main"
    env.update(extra)
    if "CI_COMMIT_BRANCH" in extra:
        env["CI_COMMIT_REF_NAME"] = env["CI_COMMIT_REF_SLUG"] = extra["CI_COMMIT_BRANCH"]
    return env


def step_outputs(tmp: Path) -> dict[str, str]:
    """The outputs a step wrote to GITHUB_OUTPUT, read as the runner reads the file: `key=value`
    lines and `key<<DELIMITER` blocks ended by a line holding only the delimiter."""
    lines = (tmp / "github_output").read_text().split("\n")
    values: dict[str, str] = {}
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if not line:
            continue
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            key, delimiter = line.split("<<", 1)
            end = lines.index(delimiter, index)
            values[key] = "\n".join(lines[index:end])
            index = end + 1
        else:
            key, value = line.split("=", 1)
            values[key] = value
    return values


def _clean_environment() -> dict[str, str]:
    """This process's environment without any CI system's variables (tests may run in CI)."""
    prefixes = ("GITHUB_", "GITLAB_", "CI_", "RUNNER_", "CAGR_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(prefixes) and k != "CI"}
    env.update(GIT_ENV)
    return env


def cagr_ci(
    checkout: Path,
    env: dict[str, str] | None = None,
    *args: str,
    stdin: str | int | None = None,
) -> subprocess.CompletedProcess[str]:
    """`cagr ci ARGS` run as a CI step runs it: a process in the checkout, with `env` set;
    standard input is empty unless given (text, or a file descriptor such as a terminal's)."""
    return subprocess.run(
        [sys.executable, "-m", "cagr_cli", "ci", *args],
        cwd=checkout,
        env={**_clean_environment(), **(env or {})},
        capture_output=True,
        text=True,
        check=False,
        **(
            {"input": stdin}
            if isinstance(stdin, str)
            else {"stdin": subprocess.DEVNULL if stdin is None else stdin}
        ),
    )


MORE_RULES = (
    RULES
    + """
[[changes.rules]]
id = "guard-tests"
kind = "sibling"
paths = ["src/guards/**/*.ts"]
ignores = ["**/*.test.ts"]
target = "{dir}/{name}.test.{ext}"
reason = "Add the matching .test.ts file in this change."
examples.invalid = [{ changes = [{ path = "src/guards/a.ts", status = "A" }] }]
examples.valid = [{ changes = [{ path = "src/guards/a.ts", status = "A" }, { path = "src/guards/a.test.ts", status = "A" }] }]

[[changes.rules]]
id = "immutable-migrations"
kind = "add_only"
paths = ["migrations/**"]
reason = "Restore the merged migration and add a new migration instead."
examples.invalid = [{ changes = [{ path = "migrations/001.sql", status = "M" }] }]
examples.valid = [{ changes = [{ path = "migrations/002.sql", status = "A" }] }]
"""
)


SECTIONS = RULES + '\n[review]\npr_sections = ["Summary"]\n'


def mr_env(project: Project, head: str, description: str | None, **extra: str) -> dict:
    """A merge request pipeline's variables (MR !12 from `work` into `main`)."""
    env = gitlab_env(
        "merge_request_event",
        head,
        CI_COMMIT_REF_NAME="work",
        CI_COMMIT_REF_SLUG="work",
        CI_MERGE_REQUEST_ID="3000",
        CI_MERGE_REQUEST_IID="12",
        CI_MERGE_REQUEST_EVENT_TYPE="detached",
        CI_MERGE_REQUEST_REF_PATH="refs/merge-requests/12/head",
        CI_MERGE_REQUEST_PROJECT_PATH="octo-org/app",
        CI_MERGE_REQUEST_SOURCE_BRANCH_NAME="work",
        CI_MERGE_REQUEST_TARGET_BRANCH_NAME="main",
        CI_MERGE_REQUEST_DIFF_BASE_SHA=project.base,
        CI_MERGE_REQUEST_TITLE="Add a dependency",
    )
    if description is not None:
        env["CI_MERGE_REQUEST_DESCRIPTION"] = description
    env.update(extra)
    return env


class Project:
    """`origin` holds main and the PR branch `work`; `clone()` is a CI job's checkout."""

    def __init__(self, origin: Path, tmp: Path) -> None:
        self.origin = origin
        self.tmp = tmp
        self.base = git(origin, "rev-parse", "main").decode().strip()
        self._clones = 0

    def work(self, files: dict[str, str], message: str = "work") -> str:
        """Commit `files` on `work` in origin; the new head."""
        git(self.origin, "checkout", "-q", "work")
        for path, content in files.items():
            write(self.origin, path, content)
        head = commit(self.origin, message)
        git(self.origin, "checkout", "-q", "main")  # a server's HEAD: its default branch
        return head

    def main(self, files: dict[str, str], message: str = "main moves on") -> str:
        git(self.origin, "checkout", "-q", "main")
        for path, content in files.items():
            write(self.origin, path, content)
        return commit(self.origin, message)

    def baseline(self, files: dict[str, str]) -> None:
        """Add `files` to main and start `work` again from there."""
        git(self.origin, "checkout", "-q", "main")
        for path, content in files.items():
            write(self.origin, path, content)
        commit(self.origin, "more baseline")
        git(self.origin, "branch", "-f", "work", "main")
        self.base = git(self.origin, "rev-parse", "main").decode().strip()

    def clone(self, ref: str, depth: int | None = None) -> Path:
        """A fresh clone with origin/* branches, detached at `ref` (actions/checkout's way);
        with `depth`, a shallow one (`ref` must then be a branch tip)."""
        self._clones += 1
        target = self.tmp / f"checkout{self._clones}"
        shallow = ["--depth", str(depth), "--no-single-branch"] if depth else []
        source = f"file://{self.origin}" if depth else str(self.origin)
        git(self.tmp, "clone", "-q", "--no-checkout", *shallow, source, str(target))
        git(target, "checkout", "-q", "--detach", ref)
        return target


GOOD_BODY = "## Summary\nAdds x.\n\n## Risk\nDependency reason: x parses the wire format.\n"


DEPENDENCY = '{"dependencies": {"x": "1"}}'
