"""Merge queues that can merge: a `merge_group` run reads its pull request from GitHub's API
(a local stand-in here) and judges its description against its own change; file rules judge
the group as before. Whatever cannot be had exactly leaves the PR-body obligations unchecked."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cagr_ci.github import read_github_event
from cagr_ci.rest import BACKOFF_VARIABLE
from tests.support.ci import (
    DEPENDENCY,
    GOOD_BODY,
    Project,
    cagr_ci,
    github_env,
    merge_group,
    step_outputs,
)
from tests.support.forge import SECONDARY, TOKEN, FakeForge, pull, queue, serving
from tests.support.git import git

SECTIONS = '\n[review]\npr_sections = ["Summary"]\n'
WAIVABLE = """
[[changes.rules]]
id = "frozen-vendor"
kind = "add_only"
paths = ["vendor/**"]
reason = "Do not edit vendored code; update it with the vendoring tool."
waive_label = "vendor-update"
examples.invalid = [{ changes = [{ path = "vendor/a.py", status = "M" }] }]
examples.valid = [{ changes = [{ path = "vendor/b.py", status = "A" }] }]
"""


@pytest.fixture
def forge() -> Iterator[FakeForge]:
    with serving() as server:
        yield server


# The stand-in's outages are retried as a job retries them, four tries, but with backoff from
# 10 ms instead of 1 s (test_rest pins the real 1, 2, 4 s waits).
FAST_RETRIES = {BACKOFF_VARIABLE: "0.01"}


def api_env(forge: FakeForge, tmp: Path, payload: dict[str, Any], **extra: str) -> dict[str, str]:
    """A merge_group step's variables with the API at the stand-in and the token given."""
    return github_env(
        tmp,
        "merge_group",
        payload,
        GITHUB_API_URL=forge.url,
        GITHUB_GRAPHQL_URL=f"{forge.url}/graphql",
        GITHUB_TOKEN=TOKEN,
        NO_PROXY="127.0.0.1,localhost",
        **FAST_RETRIES,
        **extra,
    )


def report(result: Any) -> dict[str, Any]:
    return json.loads(result.stdout)


def assert_no_token(project: Project, *texts: str) -> None:
    for text in texts:
        assert TOKEN not in text
    for path in project.tmp.iterdir():
        if path.is_file():
            assert TOKEN not in path.read_text(errors="replace"), path


class TestQueuedPullRequestIsJudged:
    def test_its_description_satisfies_the_rule_so_the_group_passes(
        self, project: Project, forge: FakeForge
    ) -> None:
        checkout, group, base, head = queue(project, {"package.json": DEPENDENCY})
        forge.pulls[7] = pull(head, GOOD_BODY, "dependencies")
        result = cagr_ci(
            checkout, api_env(forge, project.tmp, merge_group(group, base)), "--format", "json"
        )
        assert result.returncode == 0, result.stdout + result.stderr
        data = report(result)
        assert data["status"] == "pass"
        assert data["unchecked"] == []
        (pr,) = data["ci"]["pull_requests"]
        assert (pr["number"], pr["head"], pr["base"], pr["status"]) == (7, head, "main", "pass")
        assert pr["labels"] == ["dependencies"]
        assert pr["range"]["head"] == head
        assert pr["range"]["base"] == project.base  # its own merge base with main
        assert data["range"]["base"] == base  # the file rules judge the group
        (seen,) = forge.seen()
        assert seen.path == "/repos/octo-org/app/pulls/7"
        assert seen.headers["authorization"] == f"Bearer {TOKEN}"
        assert seen.headers["x-github-api-version"] == "2022-11-28"
        assert_no_token(project, result.stdout, result.stderr)

    def test_its_description_lacks_the_section_so_the_group_fails_naming_it(
        self, project: Project, forge: FakeForge
    ) -> None:
        checkout, group, base, head = queue(project, {"package.json": DEPENDENCY})
        forge.pulls[7] = pull(head, "## Summary\nAdds x.\n")
        env = api_env(forge, project.tmp, merge_group(group, base))
        result = cagr_ci(checkout, env)
        assert result.returncode == 1, result.stdout
        own = f"Pull request #7 (its own change, merge base {project.base[:7]} to {head[:7]})"
        assert (
            f"{own}: Added dependencies.x in package.json; the PR body has no `## Risk`"
        ) in result.stdout
        assert "Queue:  pull request #7 (Add a dependency): head " in result.stdout
        summary = (project.tmp / "step_summary.md").read_text()
        assert f"| #7 Add a dependency | `{head[:12]}` | ❌ fail |" in summary
        errors = [line for line in result.stdout.splitlines() if line.startswith("::error")]
        assert any(f"{own}: Added dependencies.x" in line for line in errors)
        assert step_outputs(project.tmp)["status"] == "fail"
        assert_no_token(project, result.stdout, result.stderr)

    def test_a_description_that_quotes_the_token_shows_none_of_it(
        self, project: Project, forge: FakeForge
    ) -> None:
        forge.echo_token = True  # the pull request's text, as the forge serves it, ends with it
        checkout, group, base, head = queue(project, {"package.json": DEPENDENCY})
        forge.pulls[7] = pull(head, "## Summary\nAdds x.\n")
        env = api_env(forge, project.tmp, merge_group(group, base))
        for output in ("text", "json"):
            result = cagr_ci(checkout, env, "--format", output, "--sarif", "out.sarif")
            assert result.returncode == 1, result.stdout
            assert_no_token(project, result.stdout, result.stderr)
            assert TOKEN[:12] not in result.stdout + result.stderr

    def test_a_squash_queue_is_read_the_same_way(self, project: Project, forge: FakeForge) -> None:
        checkout, group, base, head = queue(project, {"package.json": DEPENDENCY}, squash=True)
        forge.pulls[7] = pull(head, GOOD_BODY)
        result = cagr_ci(checkout, api_env(forge, project.tmp, merge_group(group, base)))
        assert result.returncode == 0, result.stdout

    def test_pr_sections_are_its_descriptions_too(self, project: Project, forge: FakeForge) -> None:
        project.baseline({"cagr.toml": (project.origin / "cagr.toml").read_text() + SECTIONS})
        checkout, group, base, head = queue(project, {"src/schema.py": "v2", "schema.json": "{}\n"})
        forge.pulls[7] = pull(head, "## Risk\nNone.\n")
        result = cagr_ci(
            checkout, api_env(forge, project.tmp, merge_group(group, base)), "--format", "json"
        )
        assert result.returncode == 1, result.stdout
        (finding,) = report(result)["findings"]
        assert finding["message"] == (
            f"Pull request #7 (its own change, merge base {project.base[:7]} to {head[:7]}):"
            " The PR description has no `## Summary` section."
        )

    def test_nothing_fired_so_nothing_is_asked(self, project: Project, forge: FakeForge) -> None:
        checkout, group, base, _ = queue(project, {"src/schema.py": "v2", "schema.json": "{}\n"})
        result = cagr_ci(checkout, api_env(forge, project.tmp, merge_group(group, base)))
        assert result.returncode == 0, result.stdout
        assert forge.seen() == []


class TestLabelsWaiveInTheQueue:
    def test_the_queued_pull_requests_label_waives_its_file_finding(
        self, project: Project, forge: FakeForge
    ) -> None:
        project.baseline({"cagr.toml": WAIVABLE, "vendor/lib.py": "v1\n"})
        checkout, group, base, head = queue(project, {"vendor/lib.py": "v2\n"})
        forge.pulls[7] = pull(head, "", "vendor-update")
        result = cagr_ci(
            checkout, api_env(forge, project.tmp, merge_group(group, base)), "--format", "json"
        )
        assert result.returncode == 0, result.stdout
        data = report(result)
        assert [w["rule"] for w in data["waived"]] == ["frozen-vendor"]
        assert data["ci"]["labels_source"] == "pull request #7's labels, from GitHub's API"

    def test_without_the_label_the_finding_fails(self, project: Project, forge: FakeForge) -> None:
        project.baseline({"cagr.toml": WAIVABLE, "vendor/lib.py": "v1\n"})
        checkout, group, base, head = queue(project, {"vendor/lib.py": "v2\n"})
        forge.pulls[7] = pull(head, "", "bug")
        result = cagr_ci(checkout, api_env(forge, project.tmp, merge_group(group, base)))
        assert result.returncode == 1, result.stdout


class TestUnresolvedStaysUnchecked:
    """No token, an API that fails, a name of another shape, a group that holds more: the
    obligations stay unchecked (exit 3) and the note says why; never a pass."""

    def test_without_a_token(self, project: Project, forge: FakeForge) -> None:
        checkout, group, base, head = queue(project, {"package.json": DEPENDENCY})
        forge.pulls[7] = pull(head, GOOD_BODY)
        env = api_env(forge, project.tmp, merge_group(group, base))
        del env["GITHUB_TOKEN"]
        result = cagr_ci(checkout, env)
        assert result.returncode == 3, result.stdout
        assert "Unchecked (body): change rule dependency-reason" in result.stdout
        assert "GITHUB_TOKEN is not set, so cagr cannot read pull request #7" in result.stdout
        assert "permissions: pull-requests: read" in result.stdout
        assert forge.seen() == []

    def test_a_deleted_pull_request(self, project: Project, forge: FakeForge) -> None:
        checkout, group, base, _ = queue(project, {"package.json": DEPENDENCY})
        result = cagr_ci(checkout, api_env(forge, project.tmp, merge_group(group, base)))
        assert result.returncode == 3, result.stdout
        assert (
            "GitHub's API has no pull request #7 in octo-org/app (GET /repos/octo-org/app/pulls/7:"
            " 404 Not Found): it was deleted, or the token cannot see it."
        ) in result.stdout

    def test_a_closed_pull_request(self, project: Project, forge: FakeForge) -> None:
        checkout, group, base, head = queue(project, {"package.json": DEPENDENCY})
        forge.pulls[7] = pull(head, GOOD_BODY, state="closed")
        result = cagr_ci(checkout, api_env(forge, project.tmp, merge_group(group, base)))
        assert result.returncode == 3, result.stdout
        assert "pull request #7 is closed (GitHub API), not open" in result.stdout

    def test_an_outage_is_retried_then_unchecked_never_a_pass(
        self, project: Project, forge: FakeForge
    ) -> None:
        checkout, group, base, head = queue(project, {"package.json": DEPENDENCY})
        forge.pulls[7] = pull(head, GOOD_BODY)
        forge.fail("GET", "/pulls/7", 502, {"message": "Server Error"}, times=10)
        result = cagr_ci(checkout, api_env(forge, project.tmp, merge_group(group, base)))
        assert result.returncode == 3, result.stdout
        assert (
            "GitHub's API could not be used (GET /repos/octo-org/app/pulls/7: 502 Server Error)"
            in (result.stdout)
        )
        assert len(forge.seen()) == 4  # the first try and three retries, with backoff

    def test_a_passing_blip_and_a_secondary_rate_limit_are_waited_out(
        self, project: Project, forge: FakeForge
    ) -> None:
        checkout, group, base, head = queue(project, {"package.json": DEPENDENCY})
        forge.pulls[7] = pull(head, GOOD_BODY)
        forge.fail("GET", "/pulls/7", 503, None)
        forge.fail("GET", "/pulls/7", 403, {"message": SECONDARY}, headers={"retry-after": "0"})
        result = cagr_ci(checkout, api_env(forge, project.tmp, merge_group(group, base)))
        assert result.returncode == 0, result.stdout
        assert len(forge.seen()) == 3

    def test_an_exhausted_rate_limit_is_not_waited_for_an_hour(
        self, project: Project, forge: FakeForge
    ) -> None:
        checkout, group, base, head = queue(project, {"package.json": DEPENDENCY})
        forge.pulls[7] = pull(head, GOOD_BODY)
        reset = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": "9999999999"}
        forge.fail("GET", "/pulls/7", 403, {"message": "API rate limit exceeded"}, headers=reset)
        result = cagr_ci(checkout, api_env(forge, project.tmp, merge_group(group, base)))
        assert result.returncode == 3, result.stdout
        assert "rate limited by the API" in result.stdout
        assert len(forge.seen()) == 1

    def test_a_branch_name_of_another_shape_asks_nothing(
        self, project: Project, forge: FakeForge
    ) -> None:
        checkout, group, base, head = queue(project, {"package.json": DEPENDENCY})
        forge.pulls[7] = pull(head, GOOD_BODY)
        payload = merge_group(group, base)
        payload["merge_group"]["head_ref"] = f"refs/heads/gh-readonly-queue/main/pr-7-{group}"
        result = cagr_ci(checkout, api_env(forge, project.tmp, payload))
        assert result.returncode == 3, result.stdout
        assert "is not named the way GitHub's queue names the branch" in result.stdout
        assert forge.seen() == []

    def test_a_pull_request_into_another_branch(self, project: Project, forge: FakeForge) -> None:
        checkout, group, base, head = queue(project, {"package.json": DEPENDENCY})
        forge.pulls[7] = pull(head, GOOD_BODY)
        forge.pulls[7]["base"]["ref"] = "develop"
        result = cagr_ci(checkout, api_env(forge, project.tmp, merge_group(group, base)))
        assert result.returncode == 3, result.stdout
        assert (
            "pull request #7 merges into develop, but this queue merges into main" in result.stdout
        )

    def test_a_group_holding_more_than_its_pull_request(
        self, project: Project, forge: FakeForge
    ) -> None:
        """The group's base is main itself, with another pull request merged first: the branch
        names #7 only, so what the other one changed is nobody's to explain."""
        other = project.work({"NOTES.md": "another PR"}, "another PR")
        git(project.origin, "branch", "-f", "work", project.base)
        head = project.work({"package.json": DEPENDENCY})
        result = self.run_group(project, forge, other, head)
        assert result.returncode == 3, result.stdout
        assert (
            "the merge group changes what pull request #7's own change does not (NOTES.md)"
        ) in result.stdout

    def test_a_dependency_another_pull_request_adds_to_the_same_manifest(
        self, project: Project, forge: FakeForge
    ) -> None:
        manifest = '{\n  "dependencies": {\n    "a": "1"\n  },\n\n  "devDependencies": {}\n}\n'
        project.baseline({"package.json": manifest})
        other = project.work(
            {
                "package.json": manifest.replace(
                    '"devDependencies": {}', '"devDependencies": {"y": "1"}'
                )
            }
        )
        git(project.origin, "branch", "-f", "work", project.base)
        head = project.work({"package.json": manifest.replace('"a": "1"', '"a": "1", "x": "1"')})
        result = self.run_group(project, forge, other, head)
        assert result.returncode == 3, result.stdout
        assert "does not (y in package.json)" in result.stdout

    @staticmethod
    def run_group(project: Project, forge: FakeForge, other: str, head: str) -> Any:
        checkout = project.clone(project.base)
        git(checkout, "merge", "-q", "--no-ff", "--no-edit", other)
        git(checkout, "merge", "-q", "--no-ff", "--no-edit", head)
        group = git(checkout, "rev-parse", "HEAD").decode().strip()
        forge.pulls[7] = pull(head, GOOD_BODY)
        return cagr_ci(checkout, api_env(forge, project.tmp, merge_group(group, project.base)))

    def test_a_fork_head_missing_from_the_clone_until_fetched(
        self, project: Project, forge: FakeForge
    ) -> None:
        """A fork's pull request: its commits live under refs/pull/7/head, which the checkout
        does not fetch; the note's command fetches it, and then it is judged."""
        fork = project.work({"package.json": DEPENDENCY})
        git(project.origin, "update-ref", "refs/pull/7/head", fork)
        git(project.origin, "branch", "-f", "work", project.base)  # the fork's branch is not here
        base = project.main({"queued-before.txt": "ahead"})
        checkout = project.clone(base)
        git(checkout, "fetch", "-q", "origin", "refs/pull/7/head")
        git(checkout, "merge", "-q", "--squash", "FETCH_HEAD")
        git(checkout, "commit", "-q", "-m", "From a fork (#7)")
        group = git(checkout, "rev-parse", "HEAD").decode().strip()
        git(checkout, "update-ref", "-d", "FETCH_HEAD")
        git(checkout, "reflog", "expire", "--expire=now", "--all")
        git(checkout, "gc", "-q", "--prune=now")
        assert git(checkout, "cat-file", "-t", fork, check=False).strip() != b"commit"
        forge.pulls[7] = pull(fork, GOOD_BODY)
        env = api_env(forge, project.tmp, merge_group(group, base))
        result = cagr_ci(checkout, env)
        assert result.returncode == 3, result.stdout
        assert "git fetch --no-tags origin pull/7/head" in result.stdout
        git(checkout, "fetch", "-q", "--no-tags", "origin", "pull/7/head")
        assert cagr_ci(checkout, env).returncode == 0


@pytest.mark.parametrize("answer", ["pull request", "401", "500"])
def test_the_token_is_in_no_output(project: Project, forge: FakeForge, answer: str) -> None:
    """Every output a run writes (log, JSON, annotations, summary, step outputs, SARIF, code
    quality), on success and on the API's errors, with --comment too: no token anywhere."""
    checkout, group, base, head = queue(project, {"package.json": DEPENDENCY})
    forge.pulls[7] = pull(head, "## Summary\n")
    if answer == "401":
        forge.fail("GET", "/pulls/7", 401, {"message": "Bad credentials", "status": "401"})
    elif answer == "500":
        forge.fail("GET", "/pulls/7", 500, {"message": "Server Error"}, times=9)
    env = api_env(forge, project.tmp, merge_group(group, base))
    for fmt in ("text", "json"):
        result = cagr_ci(
            checkout,
            env,
            "--format",
            fmt,
            "--sarif",
            str(project.tmp / "cagr.sarif"),
            "--codequality",
            str(project.tmp / "quality.json"),
            "--comment",
        )
        assert result.returncode in (1, 3), result.stdout + result.stderr
        assert_no_token(project, result.stdout, result.stderr)
    assert (project.tmp / "cagr.sarif").exists()
    assert (project.tmp / "quality.json").exists()


SHA = "a" * 40


@pytest.mark.parametrize(
    ("branch", "head_ref", "number"),
    [
        ("main", f"refs/heads/gh-readonly-queue/main/pr-7-{SHA}", 7),
        ("release/1.0", f"refs/heads/gh-readonly-queue/release/1.0/pr-12-{SHA}", 12),
        ("main", f"refs/heads/gh-readonly-queue/main/pr-7-{'b' * 40}", None),  # not base_sha
        ("main", f"refs/heads/gh-readonly-queue/develop/pr-7-{SHA}", None),  # another base
        ("main", f"refs/heads/gh-readonly-queue/main/pr-07-{SHA}", None),
        ("main", f"refs/heads/gh-readonly-queue/main/pr-7-{SHA.upper()}", None),
        ("main", f"refs/heads/gh-readonly-queue/main/pr-7-{SHA}/pr-8-{SHA}", None),  # a batch?
        ("main", f"refs/heads/gh-readonly-queue/main/pr-7-{SHA}-extra", None),
        ("main", "refs/heads/gh-readonly-queue/main/pr-7", None),
        ("main", f"gh-readonly-queue/main/pr-7-{SHA}", None),  # not the full ref
    ],
)
def test_the_queue_branch_names_one_pull_request_exactly(
    tmp_path: Path, branch: str, head_ref: str, number: int | None
) -> None:
    """Only GitHub's exact shape, for this event's base branch and base commit, names a pull
    request; anything else (a batch of several, another base) names none."""
    payload = merge_group("c" * 40, SHA, base_ref=branch)
    payload["merge_group"]["head_ref"] = head_ref
    env = github_env(tmp_path, "merge_group", payload)
    assert read_github_event(env).queue_number == number


def test_a_base_option_does_not_unname_the_pull_request(project: Project, forge: FakeForge) -> None:
    checkout, group, base, head = queue(project, {"package.json": DEPENDENCY})
    forge.pulls[7] = pull(head, GOOD_BODY)
    result = cagr_ci(
        checkout, api_env(forge, project.tmp, merge_group(group, base)), "--base", base
    )
    assert result.returncode == 0, result.stdout
