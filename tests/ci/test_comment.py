"""`cagr ci --comment`: one comment per pull (merge) request, edited in place on every run,
against a local stand-in for GitHub's and GitLab's APIs. A comment that cannot be written is a
notice: it never changes the exit code."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cagr_ci.comment import MARKER, no_mentions
from cagr_ci.rest import BACKOFF_VARIABLE
from cagr_ci.summary import cell, code
from tests.support.ci import (
    DEPENDENCY,
    GOOD_BODY,
    Project,
    cagr_ci,
    github_env,
    gitlab_env,
    pull_request,
    push,
)
from tests.support.forge import (
    BOT,
    GITLAB_BOT,
    GITLAB_PERSON,
    GITLAB_TOKEN,
    SECONDARY,
    TOKEN,
    FakeForge,
    serving,
)

RUN = "https://github.example.invalid/octo-org/app/actions/runs/42"


@pytest.fixture
def forge() -> Iterator[FakeForge]:
    with serving() as server:
        yield server


# The stand-in's outages are retried as a job retries them, four tries, but with backoff from
# 10 ms instead of 1 s (test_rest pins the real 1, 2, 4 s waits).
FAST_RETRIES = {BACKOFF_VARIABLE: "0.01"}


def pr_env(forge: FakeForge, tmp: Path, head: str, body: str, **extra: str) -> dict[str, str]:
    payload = pull_request("synchronize", head, body)
    return github_env(
        tmp,
        "pull_request",
        payload,
        GITHUB_API_URL=forge.url,
        GITHUB_GRAPHQL_URL=f"{forge.url}/graphql",
        GITHUB_TOKEN=TOKEN,
        GITHUB_SERVER_URL="https://github.example.invalid",
        GITHUB_RUN_ID="42",
        NO_PROXY="127.0.0.1,localhost",
        **FAST_RETRIES,
        **extra,
    )


def ours(forge: FakeForge, number: int = 7) -> list[dict[str, Any]]:
    return [c for c in forge.comments.get(number, []) if c["body"].startswith(MARKER)]


def no_token_anywhere(tmp: Path, *texts: str, forge: FakeForge | None = None) -> None:
    """Neither token, nor the first 12 characters of one (a message cut short), in `texts`, a
    file under `tmp` or (with `forge`) a comment or note cagr wrote."""
    written = [] if forge is None else [r.body.get("body", "") for r in forge.seen() if r.body]
    contents = [
        *texts,
        *written,
        *(path.read_text(errors="replace") for path in tmp.rglob("*") if path.is_file()),
    ]
    for text in contents:
        for token in (TOKEN, GITLAB_TOKEN):
            assert token[:12] not in text, text[:2000]


class TestOneCommentKeptCurrent:
    def test_written_once_then_edited_in_place_then_passed(
        self, project: Project, forge: FakeForge
    ) -> None:
        head = project.work({"package.json": DEPENDENCY})
        first = cagr_ci(
            project.clone(head), pr_env(forge, project.tmp, head, "## Summary\n"), "--comment"
        )
        assert first.returncode == 1, first.stdout
        assert "cagr ci: --comment: wrote the pull request's comment." in first.stdout
        (comment,) = ours(forge)
        assert comment["user"]["login"] == "github-actions[bot]"
        text = comment["body"]
        assert text.startswith(MARKER)
        assert "## cagr: change rules failed" in text
        assert "`dependency-reason` | ❌ fail | Added dependencies.x in package.json" in text
        assert "write `Dependency reason:` and explain the dependency" in text  # the fix
        assert f"[the job log]({RUN})" in text

        again = cagr_ci(
            project.clone(head), pr_env(forge, project.tmp, head, "## Summary\n"), "--comment"
        )
        assert again.returncode == 1
        assert "already says this" in again.stdout
        assert forge.seen("PATCH") == []
        assert len(forge.seen("POST")) == 2 + 1  # the viewer asked twice, the comment written once

        fixed = cagr_ci(
            project.clone(head), pr_env(forge, project.tmp, head, GOOD_BODY), "--comment"
        )
        assert fixed.returncode == 0, fixed.stdout
        assert "updated the pull request's comment in place" in fixed.stdout
        (comment,) = ours(forge)
        assert "### ✅ cagr: change rules passed" in comment["body"]
        assert "dependency-reason" not in comment["body"]
        assert len(comment["body"]) < 600  # short
        assert len(forge.comments[7]) == 1
        no_token_anywhere(project.tmp, first.stdout, first.stderr, fixed.stdout, fixed.stderr)

    def test_names_with_an_at_sign_mention_no_one(self, project: Project, forge: FakeForge) -> None:
        head = project.work({"package.json": '{"dependencies": {"@babel/core": "7"}}'})
        cagr_ci(project.clone(head), pr_env(forge, project.tmp, head, ""), "--comment")
        (comment,) = ours(forge)
        assert "dependencies.@\u2060babel/core" in comment["body"]
        assert "@babel" not in comment["body"]

    def test_a_persons_comment_with_the_marker_is_never_edited(
        self, project: Project, forge: FakeForge
    ) -> None:
        head = project.work({"package.json": DEPENDENCY})
        theirs = forge.comment(7, f"{MARKER}\nmy own words")
        result = cagr_ci(
            project.clone(head), pr_env(forge, project.tmp, head, GOOD_BODY), "--comment"
        )
        assert result.returncode == 0
        assert [c["body"] for c in forge.comments[7] if c["id"] == theirs] == [
            f"{MARKER}\nmy own words"
        ]
        assert [c["user"]["login"] for c in ours(forge)] == ["octocat", "github-actions[bot]"]

    def test_found_on_a_later_page(self, project: Project, forge: FakeForge) -> None:
        head = project.work({"src/schema.py": "v2", "schema.json": "{}\n"})
        for n in range(150):
            forge.comment(7, f"review {n}")
        mine = forge.comment(7, f"{MARKER}\nold report", BOT)
        result = cagr_ci(
            project.clone(head), pr_env(forge, project.tmp, head, GOOD_BODY), "--comment"
        )
        assert "updated the pull request's comment in place" in result.stdout
        pages = [r.path for r in forge.seen("GET")]
        assert pages == [
            "/repos/octo-org/app/issues/7/comments?per_page=100",
            "/repos/octo-org/app/issues/7/comments?per_page=100&page=2",
        ]
        (patch,) = forge.seen("PATCH")
        assert patch.path == f"/repos/octo-org/app/issues/comments/{mine}"

    def test_a_second_comment_left_by_racing_runs_is_removed(
        self, project: Project, forge: FakeForge
    ) -> None:
        head = project.work({"src/schema.py": "v2", "schema.json": "{}\n"})
        first = forge.comment(7, f"{MARKER}\nrun A", BOT)
        second = forge.comment(7, f"{MARKER}\nrun B", BOT)
        cagr_ci(project.clone(head), pr_env(forge, project.tmp, head, GOOD_BODY), "--comment")
        assert [c["id"] for c in ours(forge)] == [first]
        assert [r.path for r in forge.seen("DELETE")] == [
            f"/repos/octo-org/app/issues/comments/{second}"
        ]

    def test_a_secondary_rate_limit_is_waited_out(self, project: Project, forge: FakeForge) -> None:
        head = project.work({"src/schema.py": "v2", "schema.json": "{}\n"})
        forge.fail(
            "POST",
            r"/issues/7/comments$",
            403,
            {"message": SECONDARY},
            headers={"retry-after": "1"},
        )
        result = cagr_ci(
            project.clone(head), pr_env(forge, project.tmp, head, GOOD_BODY), "--comment"
        )
        assert "wrote the pull request's comment" in result.stdout
        assert len(ours(forge)) == 1


class TestNeverFailsTheJob:
    def test_a_forks_read_only_token_is_a_notice(self, project: Project, forge: FakeForge) -> None:
        forge.read_only = True
        head = project.work({"package.json": DEPENDENCY})
        failing = cagr_ci(project.clone(head), pr_env(forge, project.tmp, head, ""), "--comment")
        assert failing.returncode == 1  # the verdict's, not the comment's
        (notice,) = [line for line in failing.stdout.splitlines() if line.startswith("::notice")]
        assert notice.startswith("::notice title=cagr ci --comment::--comment: the forge refused")
        assert "Resource not accessible by integration" in notice
        assert "a pull request from a fork gets a read-only token" in notice
        passing = cagr_ci(
            project.clone(head), pr_env(forge, project.tmp, head, GOOD_BODY), "--comment"
        )
        assert passing.returncode == 0
        assert forge.comments.get(7, []) == []

    def test_an_outage_is_a_notice_and_the_verdict_stands(
        self, project: Project, forge: FakeForge
    ) -> None:
        head = project.work({"package.json": DEPENDENCY})
        forge.fail("POST", "/graphql", 503, {"message": "Service Unavailable"}, times=10)
        result = cagr_ci(
            project.clone(head), pr_env(forge, project.tmp, head, GOOD_BODY), "--comment"
        )
        assert result.returncode == 0, result.stdout
        assert "the forge's API could not be used (POST /graphql: 503 Service Unavailable)" in (
            result.stdout
        )

    def test_an_unreachable_api_is_a_notice(self, project: Project, forge: FakeForge) -> None:
        head = project.work({"package.json": DEPENDENCY})
        env = pr_env(forge, project.tmp, head, "")
        env["GITHUB_GRAPHQL_URL"] = "http://127.0.0.1:9/graphql"  # the discard port: refused
        result = cagr_ci(project.clone(head), env, "--comment", "--format", "json")
        assert result.returncode == 1
        assert "the API could not be reached" in result.stderr
        assert result.stdout.startswith("{")  # stdout holds the JSON report alone

    def test_no_token_is_a_notice_that_says_how(self, project: Project, forge: FakeForge) -> None:
        head = project.work({"src/schema.py": "v2", "schema.json": "{}\n"})
        env = pr_env(forge, project.tmp, head, GOOD_BODY)
        del env["GITHUB_TOKEN"]
        result = cagr_ci(project.clone(head), env, "--comment")
        assert result.returncode == 0
        assert "--comment: GITHUB_TOKEN is not set, so no comment was written." in result.stdout
        assert "pull-requests: write" in result.stdout
        assert forge.seen() == []

    def test_a_push_has_no_pull_request_to_comment_on(self, project: Project) -> None:
        head = project.work({"src/schema.py": "v2", "schema.json": "{}\n"})
        env = github_env(project.tmp, "push", push(head, project.base), GITHUB_TOKEN=TOKEN)
        result = cagr_ci(project.clone(head), env, "--comment")
        assert result.returncode == 0
        assert "is about no single pull request, so no comment was written" in result.stdout

    def test_a_run_that_cannot_check_says_so_in_the_comment(
        self, project: Project, forge: FakeForge
    ) -> None:
        head = project.work({"src/schema.py": "v2", "schema.json": "{}\n"})
        checkout = project.clone(project.base)  # not the pull request's head
        result = cagr_ci(checkout, pr_env(forge, project.tmp, head, GOOD_BODY), "--comment")
        assert result.returncode == 2
        (comment,) = ours(forge)
        assert "### ⚠️ cagr ci could not check this run" in comment["body"]
        assert "Check out the pull request&#x27;s own head" in comment["body"] or (
            "Check out the pull request's own head" in comment["body"]
        )


class TestMentionsAndCodeSpans:
    """GitHub's own Markdown (cmark-gfm) is the oracle: outside code, every `@` is followed by a
    word joiner, so nothing mentions anyone; inside a code span, where GitHub mentions no one,
    the text is exactly what was written (a copied path or command is right)."""

    def test_the_joiner_stays_out_of_code_spans(self) -> None:
        cmarkgfm = pytest.importorskip("cmarkgfm", reason="cmarkgfm is in the `test` extra")
        path = "packages/@scope/ui/index.ts"
        lines = [
            f"- {code(path, in_table=False)}",
            f"| {code('@scope/rule')} | {cell('Added dependencies.@babel/core')} |"
            f" {cell('Run `npm i @types/node`, then ask @octocat')} |",
            cell("An escaped \\`@not-code\\` and `` `@a` `` and a lone ` @b"),
            f"- {code('`@tick`', in_table=False)} and {code('a@b', in_table=False)}",
        ]
        text = "\n".join(["| a | b | c |", "|---|---|---|", lines[1], "", lines[0], *lines[2:]])
        shown = no_mentions(text)
        html = cmarkgfm.github_flavored_markdown_to_html(shown)
        spans = re.findall(r"<code>(.*?)</code>", html, re.DOTALL)
        assert path in spans
        assert "npm i @types/node" in spans
        assert "@scope/rule" in spans
        assert {"`@tick`", "a@b", "`@a`"} <= set(spans)
        assert all("\u2060" not in span for span in spans)
        outside = re.sub(r"<code>.*?</code>", "", html, flags=re.DOTALL)
        assert outside.count("@") == outside.count("@\u2060") > 0

    @settings(max_examples=int(os.environ.get("CAGR_ORACLE_EXAMPLES", "150")), deadline=None)
    @given(st.text(st.sampled_from(["`", "\\", "@", "a", " ", "|", "*"]), max_size=30))
    def test_any_line_of_backticks_and_at_signs(self, line: str) -> None:
        cmarkgfm = pytest.importorskip("cmarkgfm", reason="cmarkgfm is in the `test` extra")
        for text in (f"x {line}", f"| a | b |\n|---|---|\n| {line} |"):  # a paragraph, a row
            html = cmarkgfm.github_flavored_markdown_to_html(no_mentions(text))
            spans = re.findall(r"<code>(.*?)</code>", html, re.DOTALL)
            assert all("\u2060" not in span for span in spans), html
            outside = re.sub(r"<code>.*?</code>", "", html, flags=re.DOTALL)
            assert outside.count("@") == outside.count("@\u2060"), html


class TestTheTokenNeverShows:
    """A forge whose answers quote the token it was sent (error texts, a redirect's address,
    the text it serves): nothing cagr prints or writes holds it, nor a part of it."""

    def test_a_refusal_that_quotes_the_token(self, project: Project, forge: FakeForge) -> None:
        forge.echo_token = forge.read_only = True
        head = project.work({"package.json": DEPENDENCY})
        env = pr_env(forge, project.tmp, head, "")
        result = cagr_ci(project.clone(head), env, "--comment", "--sarif", "out.sarif")
        assert result.returncode == 1
        (notice,) = [line for line in result.stdout.splitlines() if line.startswith("::notice")]
        assert "Resource not accessible by integration (sent 'Bearer ***')" in notice
        no_token_anywhere(project.tmp, result.stdout, result.stderr, forge=forge)

    @pytest.mark.parametrize("status", [401, 302, 503])
    def test_any_answer_that_quotes_it(
        self, project: Project, forge: FakeForge, status: int
    ) -> None:
        forge.echo_token = True
        forge.fail("POST", "/graphql", status, {"message": "Bad credentials"}, times=10)
        head = project.work({"package.json": DEPENDENCY})
        env = pr_env(forge, project.tmp, head, "")
        for output in ("text", "json"):
            result = cagr_ci(project.clone(head), env, "--comment", "--format", output)
            assert result.returncode == 1
            assert "no comment was written" in result.stdout + result.stderr or (
                "comment was left as it was" in result.stdout + result.stderr
            )
            no_token_anywhere(project.tmp, result.stdout, result.stderr, forge=forge)

    def test_comments_that_quote_it(self, project: Project, forge: FakeForge) -> None:
        forge.echo_token = True
        forge.comment(7, f"{MARKER}\nan old run's", BOT)
        head = project.work({"package.json": DEPENDENCY})
        result = cagr_ci(project.clone(head), pr_env(forge, project.tmp, head, ""), "--comment")
        assert "updated the pull request's comment in place" in result.stdout
        no_token_anywhere(project.tmp, result.stdout, result.stderr, forge=forge)

    def test_gitlab_quoting_it(self, project: Project, forge: FakeForge) -> None:
        forge.echo_token = forge.read_only = True
        head = project.work({"package.json": DEPENDENCY})
        env = TestGitLabNote().mr(forge, project, head, "")
        result = cagr_ci(project.clone(head), env, "--comment")
        assert "the forge refused" in result.stdout
        no_token_anywhere(project.tmp, result.stdout, result.stderr, forge=forge)


class TestGitLabNote:
    def mr(
        self, forge: FakeForge, project: Project, head: str, description: str, **extra: str
    ) -> dict[str, str]:
        return gitlab_env(
            "merge_request_event",
            head,
            CI_MERGE_REQUEST_IID="12",
            CI_MERGE_REQUEST_PROJECT_ID="34",
            CI_PROJECT_ID="34",
            CI_MERGE_REQUEST_DIFF_BASE_SHA=project.base,
            CI_MERGE_REQUEST_TARGET_BRANCH_NAME="main",
            CI_MERGE_REQUEST_DESCRIPTION=description,
            CI_API_V4_URL=forge.gitlab_url,
            CI_JOB_URL="https://gitlab.example.invalid/octo-org/app/-/jobs/2000",
            CAGR_GITLAB_TOKEN=GITLAB_TOKEN,
            NO_PROXY="127.0.0.1,localhost",
            **extra,
        )

    def test_one_note_kept_current(self, project: Project, forge: FakeForge) -> None:
        head = project.work({"package.json": DEPENDENCY})
        forge.note(12, f"{MARKER}\nnot mine", GITLAB_PERSON)
        forge.note(12, f"{MARKER}\nsystem", GITLAB_BOT, system=True)
        failing = cagr_ci(
            project.clone(head), self.mr(forge, project, head, "## Summary\n"), "--comment"
        )
        assert failing.returncode == 1
        assert "wrote the pull request's comment" in failing.stdout
        passing = cagr_ci(
            project.clone(head), self.mr(forge, project, head, GOOD_BODY), "--comment"
        )
        assert passing.returncode == 0
        mine = [
            n for n in forge.notes[12] if n["author"]["id"] == GITLAB_BOT["id"] and not n["system"]
        ]
        (note,) = mine
        assert "### ✅ cagr: change rules passed" in note["body"]
        assert "(https://gitlab.example.invalid/octo-org/app/-/jobs/2000)" in note["body"]
        assert [n["body"] for n in forge.notes[12][:2]] == [
            f"{MARKER}\nnot mine",
            f"{MARKER}\nsystem",
        ]
        (put,) = forge.seen("PUT")
        assert put.path == f"/api/v4/projects/34/merge_requests/12/notes/{note['id']}"
        assert put.headers["private-token"] == GITLAB_TOKEN
        no_token_anywhere(
            project.tmp, failing.stdout, failing.stderr, passing.stdout, passing.stderr
        )

    def test_without_the_token_a_notice(self, project: Project, forge: FakeForge) -> None:
        head = project.work({"src/schema.py": "v2", "schema.json": "{}\n"})
        env = self.mr(forge, project, head, GOOD_BODY)
        del env["CAGR_GITLAB_TOKEN"]
        result = cagr_ci(project.clone(head), env, "--comment")
        assert result.returncode == 0
        assert "CAGR_GITLAB_TOKEN is not set, so no comment was written" in result.stdout
        assert "Pipelines of merge requests from forks do not get it" in result.stdout

    def test_a_forbidden_write_and_a_429_are_notices_or_waits(
        self, project: Project, forge: FakeForge
    ) -> None:
        head = project.work({"src/schema.py": "v2", "schema.json": "{}\n"})
        forge.fail("GET", "/notes", 429, {"message": "Retry later"}, headers={"Retry-After": "0"})
        forge.read_only = True
        result = cagr_ci(project.clone(head), self.mr(forge, project, head, GOOD_BODY), "--comment")
        assert result.returncode == 0
        assert (
            "the forge refused (POST /api/v4/projects/34/merge_requests/12/notes: 403 403 Forbidden)"
            in (result.stdout)
        )
