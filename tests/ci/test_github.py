"""`cagr ci` on GitHub Actions events, run as a subprocess in real clones (the CI acceptance rows)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.support.ci import (
    DEPENDENCY,
    GOOD_BODY,
    RULES,
    Project,
    cagr_ci,
    github_env,
    merge_group,
    pull_request,
    push,
    workflow_dispatch,
)
from tests.support.git import git, write


def pr_env(project: Project, action: str, head: str, body: str | None, **kw: object) -> dict:
    return github_env(project.tmp, "pull_request", pull_request(action, head, body, **kw))


def report(result) -> dict:
    return json.loads(result.stdout)


class TestExactPullRequestHead:
    """CI row: exact PR head is checked (never GitHub's synthetic merge commit)."""

    def test_the_merge_commit_is_refused_with_the_checkout_fix(self, project: Project) -> None:
        head = project.work({"src/schema.py": "v2", "schema.json": '{"v": 2}'})
        project.main({"other.txt": "main moved"})
        checkout = project.clone(head)
        git(checkout, "checkout", "-q", "--detach", "origin/main")
        git(checkout, "merge", "-q", "--no-ff", "--no-edit", head)  # what GitHub checks out
        result = cagr_ci(checkout, pr_env(project, "synchronize", head, GOOD_BODY))
        assert result.returncode == 2
        assert f"this run's head (pull_request.head.sha) is {head[:12]}" in result.stderr
        assert "ref: ${{ github.event.pull_request.head.sha }}" in result.stderr
        assert "fetch-depth: 0" in result.stderr
        assert "::error title=cagr ci could not check this run::" in result.stdout

    def test_a_head_sha_the_clone_does_not_have_is_refused(self, project: Project) -> None:
        head = project.work({"a.txt": "a"})
        checkout = project.clone(head)
        result = cagr_ci(checkout, pr_env(project, "opened", "1" * 40, GOOD_BODY))
        assert result.returncode == 2
        assert "is 111111111111" in result.stderr

    def test_the_head_is_what_is_judged(self, project: Project) -> None:
        head = project.work({"src/schema.py": "v2"})
        checkout = project.clone(head)
        result = cagr_ci(checkout, pr_env(project, "opened", head, GOOD_BODY), "--format", "json")
        assert result.returncode == 1
        data = report(result)
        assert data["range"]["head"] == head
        assert data["range"]["base"] == project.base
        assert data["range"]["target_ref"] == "refs/remotes/origin/main"
        assert data["ci"]["target_source"] == "GITHUB_BASE_REF"
        assert data["ci"]["head_source"] == "pull_request.head.sha"
        assert [f["rule"] for f in data["findings"]] == ["schema-companion"]

    @pytest.mark.parametrize("event", ["pull_request", "pull_request_target"])
    def test_both_pull_request_events(self, project: Project, event: str) -> None:
        head = project.work({"package.json": DEPENDENCY})
        checkout = project.clone(head)
        env = github_env(project.tmp, event, pull_request("reopened", head, GOOD_BODY))
        result = cagr_ci(checkout, env)
        assert result.returncode == 0, result.stdout + result.stderr
        assert f"cagr ci: GitHub {event} (reopened) #7" in result.stdout


class TestDirtyCheckout:
    """CI row: a dirty checkout cannot manufacture a pass."""

    def test_an_uncommitted_companion_does_not_count_and_the_dirt_fails_too(
        self, project: Project
    ) -> None:
        head = project.work({"src/schema.py": "v2"})
        checkout = project.clone(head)
        write(checkout, "schema.json", '{"regenerated": true}')  # a step "fixed" it, uncommitted
        result = cagr_ci(checkout, pr_env(project, "synchronize", head, GOOD_BODY))
        assert result.returncode == 1
        assert "src/schema.py changed; schema.json did not change." in result.stdout
        assert "The checkout was dirty before the check" in result.stdout
        assert "schema.json" in result.stdout.split("dirty before the check")[1]

    def test_a_clean_verdict_on_a_dirty_checkout_still_fails_the_job(
        self, project: Project
    ) -> None:
        head = project.work({"src/schema.py": "v2", "schema.json": '{"v": 2}'})
        checkout = project.clone(head)
        write(checkout, "stray.txt", "left by an earlier step")
        write(checkout, "ignored.log", "ignored files are fine")
        result = cagr_ci(
            checkout, pr_env(project, "synchronize", head, GOOD_BODY), "--format", "json"
        )
        assert result.returncode == 1
        data = report(result)
        assert data["findings"] == []
        (problem,) = data["problems"]
        assert problem["kind"] == "dirty_checkout"
        assert problem["paths"] == ["stray.txt"]
        text = cagr_ci(checkout, pr_env(project, "synchronize", head, GOOD_BODY)).stdout
        assert "Failed: 1 problem(s) with the job, the change rules found nothing in" in text

    def test_staged_only_content_is_dirt_too(self, project: Project) -> None:
        head = project.work({"schema.json": '{"v": 2}'})
        checkout = project.clone(head)
        write(checkout, "schema.json", '{"v": 3}')
        git(checkout, "add", "schema.json")
        write(checkout, "schema.json", '{"v": 2}')  # the work tree matches HEAD again
        result = cagr_ci(
            checkout, pr_env(project, "synchronize", head, GOOD_BODY), "--format", "json"
        )
        assert result.returncode == 1
        assert report(result)["problems"][0]["paths"] == ["schema.json"]

    def test_a_tree_that_cannot_be_read_is_unchecked_not_clean(self, project: Project) -> None:
        head = project.work({".gitattributes": "*.bin filter=lfs\n", "asset.bin": "pointer"})
        checkout = project.clone(head)
        git(checkout, "config", "filter.lfs.clean", "git-lfs clean -- %f")  # LFS installed
        os.utime(checkout / "asset.bin", (1_000_000_000, 1_000_000_000))  # stat no longer matches
        result = cagr_ci(
            checkout, pr_env(project, "synchronize", head, GOOD_BODY), "--format", "json"
        )
        assert result.returncode == 3
        data = report(result)
        assert data["problems"] == []
        (item,) = data["unchecked"]
        assert item["message"].startswith(
            "whether the checkout was clean before the check is unknown: asset.bin: git runs its"
        )

    def test_a_clean_checkout_passes(self, project: Project) -> None:
        head = project.work({"src/schema.py": "v2", "schema.json": '{"v": 2}'})
        result = cagr_ci(project.clone(head), pr_env(project, "synchronize", head, GOOD_BODY))
        assert result.returncode == 0, result.stdout + result.stderr
        assert "Passed: 2 changed path(s) checked." in result.stdout


class TestBodyEdits:
    """CI row: a body-only edit reruns the metadata validation."""

    def test_editing_the_description_alone_changes_the_verdict(self, project: Project) -> None:
        head = project.work({"package.json": DEPENDENCY})
        checkout = project.clone(head)
        opened = cagr_ci(checkout, pr_env(project, "opened", head, "## Risk\nLow."))
        assert opened.returncode == 1
        assert (
            "Added dependencies.x in package.json; Risk lacks `Dependency reason:`."
            in opened.stdout
        )
        fixed = cagr_ci(
            checkout, pr_env(project, "edited", head, GOOD_BODY, old_body="## Risk\nLow.")
        )
        assert fixed.returncode == 0, fixed.stdout
        broken = cagr_ci(
            checkout, pr_env(project, "edited", head, "## Risk\nTBD", old_body=GOOD_BODY)
        )
        assert broken.returncode == 1
        assert "Risk lacks `Dependency reason:`" in broken.stdout

    def test_a_null_body_is_an_empty_description_not_a_missing_one(self, project: Project) -> None:
        head = project.work({"package.json": DEPENDENCY})
        result = cagr_ci(project.clone(head), pr_env(project, "opened", head, None))
        assert result.returncode == 1
        assert "Added dependencies.x in package.json; the PR body is empty." in result.stdout
        assert "Body:   pull_request.body (null: an empty description) (0 characters)" in (
            result.stdout
        )

    def test_pr_sections_are_checked_with_the_change_rules(self, project: Project) -> None:
        head = project.work(
            {"cagr.toml": RULES + '\n[review]\npr_sections = ["Summary", "Testing"]\n'}
        )
        checkout = project.clone(head)
        result = cagr_ci(checkout, pr_env(project, "edited", head, GOOD_BODY), "--format", "json")
        assert result.returncode == 1
        (finding,) = report(result)["findings"]
        assert finding["rule"] == "review.pr_sections"
        assert finding["message"] == "The PR description has no `## Testing` section."
        ok = cagr_ci(checkout, pr_env(project, "edited", head, GOOD_BODY + "## Testing\nran\n"))
        assert ok.returncode == 0, ok.stdout


class TestWithoutPullRequestMetadata:
    """CI row: non-PR or merge-queue metadata missing for an active obligation is unchecked
    and nonzero; file rules still run."""

    @pytest.mark.parametrize("event", ["push", "workflow_dispatch", "schedule"])
    def test_a_fired_body_obligation_is_unchecked(self, project: Project, event: str) -> None:
        head = project.work({"package.json": DEPENDENCY})
        payload = push(head, project.base) if event == "push" else {}
        result = cagr_ci(
            project.clone(head), github_env(project.tmp, event, payload), "--base", "main"
        )
        assert result.returncode == 3
        assert "Unchecked (body): change rule dependency-reason" in result.stdout
        assert f"This `{event}` run has no pull request" in result.stdout
        assert "--body-file FILE" in result.stdout

    def test_file_rules_still_fail(self, project: Project) -> None:
        head = project.work({"src/schema.py": "v2"})
        result = cagr_ci(
            project.clone(head), github_env(project.tmp, "push", push(head, project.base))
        )
        assert result.returncode == 1
        assert "src/schema.py changed; schema.json did not change." in result.stdout

    def test_no_fired_obligation_passes(self, project: Project) -> None:
        head = project.work({"src/schema.py": "v2", "schema.json": '{"v": 2}'})
        result = cagr_ci(
            project.clone(head), github_env(project.tmp, "push", push(head, project.base))
        )
        assert result.returncode == 0, result.stdout
        assert "Body:   none (no pull-request description in this run)" in result.stdout


class TestMergeQueue:
    """merge_group: file rules for base_sha -> head_sha; without GitHub's API (no token here),
    PR-body obligations fail explicitly (test_merge_queue.py has the runs that read it)."""

    def queue(self, project: Project, files: dict[str, str]) -> tuple[Path, str, str]:
        head = project.work(files)
        base = project.main({"queued-before.txt": "another PR ahead in the queue"})
        checkout = project.clone(base)
        git(checkout, "merge", "-q", "--no-ff", "--no-edit", head)
        group = git(checkout, "rev-parse", "HEAD").decode().strip()
        return checkout, group, base

    def test_file_rules_judge_the_batch_against_the_queue_base(self, project: Project) -> None:
        checkout, group, base = self.queue(project, {"src/schema.py": "v2"})
        env = github_env(project.tmp, "merge_group", merge_group(group, base))
        result = cagr_ci(checkout, env, "--format", "json")
        assert result.returncode == 1
        data = report(result)
        assert data["range"]["base"] == base
        assert data["range"]["head"] == group
        assert data["ci"]["target_source"] == "merge_group.base_sha (refs/heads/main)"
        assert data["ci"]["merge_queue"] is True

    def test_a_fired_body_obligation_is_unchecked_with_the_queue_explained(
        self, project: Project
    ) -> None:
        checkout, group, base = self.queue(project, {"package.json": DEPENDENCY})
        env = github_env(project.tmp, "merge_group", merge_group(group, base))
        result = cagr_ci(checkout, env)
        assert result.returncode == 3
        assert "Unchecked (body): change rule dependency-reason" in result.stdout
        assert "GITHUB_TOKEN is not set, so cagr cannot read pull request #7" in result.stdout
        assert "`permissions: pull-requests: read`" in result.stdout

    def test_a_batch_that_fires_no_body_rule_passes(self, project: Project) -> None:
        checkout, group, base = self.queue(project, {"src/schema.py": "v2", "schema.json": "{}\n"})
        env = github_env(project.tmp, "merge_group", merge_group(group, base))
        result = cagr_ci(checkout, env)
        assert result.returncode == 0, result.stdout

    def test_one_body_file_cannot_stand_for_the_batch(self, project: Project) -> None:
        checkout, group, base = self.queue(project, {"package.json": DEPENDENCY})
        body = project.tmp / "body.md"
        body.write_text(GOOD_BODY)
        env = github_env(project.tmp, "merge_group", merge_group(group, base))
        result = cagr_ci(checkout, env, "--body-file", str(body))
        assert result.returncode == 2
        assert "one description cannot stand for all of them" in result.stderr


class TestTarget:
    def test_precedence(self, project: Project) -> None:
        head = project.work({"a.txt": "a"})
        git(project.origin, "branch", "release", project.base)
        checkout = project.clone(head)
        env = pr_env(project, "opened", head, GOOD_BODY, base_ref="release")

        def source(*args: str) -> tuple[str, str]:
            data = report(cagr_ci(checkout, env, "--format", "json", *args))
            return data["ci"]["target_source"], data["range"]["target_ref"]

        assert source() == ("GITHUB_BASE_REF", "refs/remotes/origin/release")
        assert source("--base", "main") == ("--base", "refs/remotes/origin/main")
        push_env = github_env(project.tmp, "push", push(head, project.base, ref="refs/heads/work"))
        data = report(cagr_ci(checkout, push_env, "--format", "json"))
        assert (data["ci"]["target_source"], data["range"]["target"]) == (
            "the push's previous tip (`before`)",
            project.base,
        )
        run_env = github_env(project.tmp, "workflow_dispatch", workflow_dispatch("refs/heads/work"))
        data = report(cagr_ci(checkout, run_env, "--format", "json"))
        assert (data["ci"]["target_source"], data["range"]["target_ref"]) == (
            "repository.default_branch",  # checkouts in Actions record no origin/HEAD
            "refs/remotes/origin/main",
        )
        without = workflow_dispatch("refs/heads/work") | {"repository": {"name": "app"}}
        data = report(
            cagr_ci(
                checkout, github_env(project.tmp, "workflow_dispatch", without), "--format", "json"
            )
        )
        assert data["range"]["chosen_by"] == "origin/HEAD"  # a clone records the remote's default

    def test_without_github_base_ref_the_payloads_base_ref_is_used(self, project: Project) -> None:
        head = project.work({"a.txt": "a"})
        env = pr_env(project, "opened", head, GOOD_BODY)
        env["GITHUB_BASE_REF"] = ""
        data = report(cagr_ci(project.clone(head), env, "--format", "json"))
        assert data["ci"]["target_source"] == "pull_request.base.ref"
        assert data["range"]["target_ref"] == "refs/remotes/origin/main"

    def test_protected_branch_comes_before_main(self, project: Project) -> None:
        # The default branch's configuration sets it: one the branch set alone would not
        # choose the target (test_target_rules.py).
        project.baseline({"cagr.toml": RULES + '\n[git]\nprotected_branch = "trunk"\n'})
        git(project.origin, "branch", "trunk", project.base)
        head = project.work({"a.txt": "a"})
        new_branch = push(head, "0" * 40, ref="refs/heads/work")
        data = report(
            cagr_ci(
                project.clone(head),
                github_env(project.tmp, "push", new_branch),
                "--format",
                "json",
            )
        )
        assert data["ci"]["target_source"] == "[git] protected_branch"
        assert data["range"]["target_ref"] == "refs/remotes/origin/trunk"


class TestBrokenEvents:
    """Malformed payloads, missing files, shallow clones: an error or unchecked, never a pass."""

    @pytest.mark.parametrize(
        ("payload", "said"),
        [
            ("not json", "is not valid JSON"),
            ("[]", "is not a JSON object"),
            ('{"action": "opened"}', "has no `pull_request.head.sha`"),
            ('{"pull_request": {"head": {"sha": "abc"}, "body": ""}}', "is not a commit id"),
            (
                '{"pull_request": {"head": {"sha": "' + "a" * 40 + '"}, "body": 5}}',
                "is neither text nor null",
            ),
        ],
    )
    def test_malformed_payloads_exit_2(self, project: Project, payload: str, said: str) -> None:
        head = project.work({"a.txt": "a"})
        path = project.tmp / "broken.json"
        path.write_text(payload)
        env = github_env(project.tmp, "pull_request", None, GITHUB_EVENT_PATH=str(path))
        result = cagr_ci(project.clone(head), env)
        assert result.returncode == 2
        assert said in result.stderr

    def test_a_missing_event_file_exits_2(self, project: Project) -> None:
        head = project.work({"a.txt": "a"})
        env = github_env(
            project.tmp, "pull_request", None, GITHUB_EVENT_PATH=str(project.tmp / "gone.json")
        )
        result = cagr_ci(project.clone(head), env, "--format", "json")
        assert result.returncode == 2
        data = json.loads(result.stdout)
        assert data["status"] == "error"
        assert "cannot read the event payload" in data["errors"][0]["message"]

    def test_no_event_name_exits_2(self, project: Project) -> None:
        head = project.work({"a.txt": "a"})
        result = cagr_ci(project.clone(head), {"GITHUB_ACTIONS": "true"})
        assert result.returncode == 2
        assert "GITHUB_EVENT_NAME is not" in result.stderr

    def test_a_shallow_checkout_is_unchecked_with_the_fetch_depth_fix(
        self, project: Project
    ) -> None:
        project.main({"m.txt": "1"})
        head = project.work({"src/schema.py": "v2", "schema.json": '{"v": 2}'})
        checkout = project.clone(head, depth=1)  # actions/checkout's default
        result = cagr_ci(checkout, pr_env(project, "synchronize", head, GOOD_BODY))
        assert result.returncode == 3
        assert "Unchecked (range)" in result.stdout
        assert "This clone is shallow" in result.stdout
        assert "Set `fetch-depth: 0` on actions/checkout" in result.stdout


class TestDependenciesAndPrTextSeenFromCi:
    """The Dependencies and PR text acceptance rows, through a real pull_request run."""

    @pytest.mark.parametrize(
        ("body", "code"),
        [
            pytest.param("## Summary\nAdds x.", 1, id="missing heading"),
            pytest.param("", 1, id="blank body"),
            pytest.param("## Risk\nDependency reason: TODO", 1, id="placeholder"),
            pytest.param("## Risk\nDependency reason:", 1, id="marker alone"),
            pytest.param("## Summary\nDependency reason: x.\n## Risk\nLow.", 1, id="other section"),
            pytest.param("```\n## Risk\nDependency reason: x is needed.\n```", 1, id="fenced"),
            pytest.param("## Risk\n<!-- Dependency reason: x -->", 1, id="comment"),
            pytest.param(GOOD_BODY + "\n## risk\nmore", 1, id="duplicate Risk"),
            pytest.param(GOOD_BODY, 0, id="a real explanation"),
        ],
    )
    def test_pr_text(self, project: Project, body: str, code: int) -> None:
        head = project.work({"package.json": DEPENDENCY})
        result = cagr_ci(project.clone(head), pr_env(project, "edited", head, body))
        assert result.returncode == code, result.stdout

    @pytest.mark.parametrize(
        ("manifest", "code"),
        [
            pytest.param('{"devDependencies": {"x": "1"}}', 1, id="added dev dependency"),
            pytest.param('{"dependencies": {', 3, id="malformed JSON is unchecked"),
            pytest.param("{}\n", 0, id="no dependency added"),
        ],
    )
    def test_dependencies(self, project: Project, manifest: str, code: int) -> None:
        head = project.work({"package.json": manifest, "a.txt": "a"})
        result = cagr_ci(project.clone(head), pr_env(project, "opened", head, "## Risk\nLow."))
        assert result.returncode == code, result.stdout
