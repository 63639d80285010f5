"""No pass without a range: a push judges what it pushed, and a guessed target that is the
branch being checked (it would compare the branch with itself) is unchecked, never a pass."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.ci import (
    RULES,
    Project,
    _clean_environment,
    cagr_ci,
    github_env,
    gitlab_env,
    push,
    workflow_dispatch,
)
from tests.support.git import GIT_ENV, commit, git, write

NEW = "0" * 40
OWN_BRANCH = "which is the branch being checked itself"


def report(result: subprocess.CompletedProcess[str]) -> dict:
    return json.loads(result.stdout)


def on_branch(checkout: Path, branch: str) -> Path:
    """The checkout on a local branch tracking origin's, as actions/checkout leaves a push."""
    git(checkout, "checkout", "-q", "-B", branch, f"origin/{branch}")
    return checkout


def to_main(project: Project, files: dict[str, str]) -> tuple[str, str]:
    """Push `files` straight to main in origin: (before, after)."""
    before = git(project.origin, "rev-parse", "main").decode().strip()
    return before, project.main(files, "pushed straight to main")


class TestGitHubPush:
    def test_a_push_to_the_default_branch_judges_the_pushed_commits(self, project: Project) -> None:
        # Before: the branch was compared with itself, 0 paths, every rule "pass".
        before, after = to_main(project, {"src/schema.py": "v2"})
        checkout = on_branch(project.clone(after), "main")
        result = cagr_ci(
            checkout, github_env(project.tmp, "push", push(after, before)), "--format", "json"
        )
        assert result.returncode == 1, result.stdout
        data = report(result)
        assert (data["range"]["base"], data["range"]["head"]) == (before, after)
        assert data["ci"]["target_source"] == "the push's previous tip (`before`)"
        assert [f["rule"] for f in data["findings"]] == ["schema-companion"]

    def test_a_clean_push_passes_on_what_it_changed(self, project: Project) -> None:
        before, after = to_main(project, {"src/schema.py": "v2", "schema.json": '{"v": 2}'})
        checkout = on_branch(project.clone(after), "main")
        result = cagr_ci(checkout, github_env(project.tmp, "push", push(after, before)))
        assert result.returncode == 0, result.stdout
        assert "Passed: 2 changed path(s) checked." in result.stdout

    def test_only_the_pushed_commits_are_judged(self, project: Project) -> None:
        first, middle = to_main(project, {"src/schema.py": "v2"})  # an earlier push's problem
        _, after = to_main(project, {"notes.txt": "later"})
        checkout = on_branch(project.clone(after), "main")
        result = cagr_ci(checkout, github_env(project.tmp, "push", push(after, middle)))
        assert result.returncode == 0, result.stdout
        whole = cagr_ci(checkout, github_env(project.tmp, "push", push(after, first)))
        assert whole.returncode == 1

    def test_a_new_branch_is_judged_from_its_merge_base_with_the_default_branch(
        self, project: Project
    ) -> None:
        head = project.work({"src/schema.py": "v2"})
        project.main({"later.txt": "main moves on after the branch started"})
        checkout = on_branch(project.clone(head), "work")
        payload = push(head, NEW, ref="refs/heads/work")
        result = cagr_ci(checkout, github_env(project.tmp, "push", payload), "--format", "json")
        assert result.returncode == 1, result.stdout
        data = report(result)
        assert data["range"]["base"] == project.base
        assert data["range"]["chosen_by"] == "repository.default_branch"
        assert data["ci"]["title"] == "GitHub push to work (a new branch)"

    def test_the_first_push_of_the_default_branch_is_unchecked(self, project: Project) -> None:
        after = git(project.origin, "rev-parse", "main").decode().strip()
        checkout = on_branch(project.clone(after), "main")
        result = cagr_ci(checkout, github_env(project.tmp, "push", push(after, NEW)))
        assert result.returncode == 3, result.stdout
        assert OWN_BRANCH in result.stdout
        assert "`--base BRANCH`, the branch this one merges into" in result.stdout

    def test_a_force_push_whose_old_tip_is_gone_is_unchecked(self, project: Project) -> None:
        gone = project.work({"src/schema.py": "v2", "schema.json": '{"v": 2}'})
        git(project.origin, "branch", "-f", "work", project.base)  # rewritten: the old tip
        git(project.origin, "reflog", "expire", "--expire=now", "--all")  # ... is unreachable
        git(project.origin, "gc", "-q", "--prune=now")
        after = project.work({"src/schema.py": "v3"})
        checkout = on_branch(project.clone(after), "work")
        payload = push(after, gone, ref="refs/heads/work", forced=True)
        result = cagr_ci(checkout, github_env(project.tmp, "push", payload))
        assert result.returncode == 3, result.stdout
        assert "Unchecked (range)" in result.stdout
        assert "after a force push that commit is gone" in result.stdout

    def test_the_checkout_must_be_the_pushed_commit(self, project: Project) -> None:
        before, after = to_main(project, {"a.txt": "a"})
        result = cagr_ci(
            project.clone(before), github_env(project.tmp, "push", push(after, before))
        )
        assert result.returncode == 2
        assert "this run's head (after)" in result.stderr
        assert "actions/checkout without `ref`" in result.stderr

    @pytest.mark.parametrize(
        ("ref", "after", "said"),
        [
            ("refs/tags/v1.0", None, "the push of the tag v1.0, which changes no branch"),
            ("refs/heads/old", NEW, "this push deleted the branch old"),
        ],
    )
    def test_pushes_that_change_no_branch_exit_2(
        self, project: Project, ref: str, after: str | None, said: str
    ) -> None:
        head = git(project.origin, "rev-parse", "main").decode().strip()
        payload = push(after or head, head, ref=ref)
        result = cagr_ci(project.clone(head), github_env(project.tmp, "push", payload))
        assert result.returncode == 2
        assert said in result.stderr


class TestRunsOnTheirOwnBranch:
    """A schedule or a run by hand on the default branch has no target of its own."""

    def test_a_run_by_hand_on_the_default_branch_is_unchecked(self, project: Project) -> None:
        head = git(project.origin, "rev-parse", "main").decode().strip()
        env = github_env(project.tmp, "workflow_dispatch", workflow_dispatch("refs/heads/main"))
        result = cagr_ci(project.clone(head), env)  # detached, as some checkouts leave it
        assert result.returncode == 3, result.stdout
        assert OWN_BRANCH in result.stdout

    def test_a_run_by_hand_on_a_branch_judges_it_against_the_default(
        self, project: Project
    ) -> None:
        head = project.work({"src/schema.py": "v2"})
        env = github_env(project.tmp, "workflow_dispatch", workflow_dispatch("refs/heads/work"))
        assert cagr_ci(project.clone(head), env).returncode == 1

    def test_base_names_the_target_and_the_run_is_judged(self, project: Project) -> None:
        head = git(project.origin, "rev-parse", "main").decode().strip()
        env = github_env(project.tmp, "workflow_dispatch", workflow_dispatch("refs/heads/main"))
        result = cagr_ci(project.clone(head), env, "--base", "main")
        assert result.returncode == 0, result.stdout  # an option chose it: main against itself

    def test_a_gitlab_schedule_on_the_default_branch_is_unchecked(self, project: Project) -> None:
        head = git(project.origin, "rev-parse", "main").decode().strip()
        result = cagr_ci(project.clone(head), gitlab_env("schedule", head))
        assert result.returncode == 3, result.stdout
        assert OWN_BRANCH in result.stdout


class TestGitLabPush:
    def test_a_push_judges_before_to_after(self, project: Project) -> None:
        before, after = to_main(project, {"src/schema.py": "v2"})
        env = gitlab_env("push", after, CI_COMMIT_BEFORE_SHA=before)
        result = cagr_ci(project.clone(after), env, "--format", "json")
        assert result.returncode == 1, result.stdout
        data = report(result)
        assert (data["range"]["base"], data["range"]["head"]) == (before, after)
        assert data["ci"]["target_source"] == "the push's previous tip (CI_COMMIT_BEFORE_SHA)"

    def test_a_new_branch_is_judged_from_the_default_branch(self, project: Project) -> None:
        head = project.work({"src/schema.py": "v2"})
        env = gitlab_env("push", head, CI_COMMIT_BRANCH="work")
        result = cagr_ci(project.clone(head), env, "--format", "json")
        assert result.returncode == 1, result.stdout
        assert report(result)["range"]["chosen_by"] == "CI_DEFAULT_BRANCH"

    def test_a_tag_pipeline_exits_2(self, project: Project) -> None:
        head = git(project.origin, "rev-parse", "main").decode().strip()
        env = gitlab_env("push", head, CI_COMMIT_TAG="v1.0")
        result = cagr_ci(project.clone(head), env)
        assert result.returncode == 2
        assert "the push of the tag v1.0" in result.stderr


class TestSingleBranchClone:
    """`git clone --depth 1 --branch feature` (as many CI systems clone): recent git records
    origin/HEAD -> origin/feature, so the remote's "default branch" is the branch itself."""

    @pytest.fixture
    def clone(self, project: Project) -> Path:
        project.work({"src/schema.py": "v2"})
        target = project.tmp / "single"
        git(
            project.tmp,
            "clone", "-q", "--depth", "1", "--branch", "work",
            f"file://{project.origin}", str(target),
        )  # fmt: skip
        git(target, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/work")
        return target

    def run(self, clone: Path, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "cagr_cli", *args],
            cwd=clone,
            env={**_clean_environment(), **GIT_ENV},
            capture_output=True,
            text=True,
            check=False,
        )

    def test_ci_without_a_ci_system_is_unchecked_with_the_fix(self, clone: Path) -> None:
        result = cagr_ci(clone)
        assert result.returncode == 3, result.stdout
        assert OWN_BRANCH in result.stdout
        assert "the target work (origin/HEAD) resolved to refs/remotes/origin/work" in result.stdout
        assert "git fetch origin BRANCH" in result.stdout

    def test_rules_check_and_changes_are_unchecked(self, clone: Path) -> None:
        checked = self.run(clone, "rules", "check", "--committed")
        assert checked.returncode == 3, checked.stdout
        assert OWN_BRANCH in checked.stdout
        changes = self.run(clone, "changes", "--committed")
        assert changes.returncode == 3
        assert OWN_BRANCH in changes.stdout + changes.stderr

    def test_doctor_says_the_same_with_exit_3(self, clone: Path) -> None:
        result = self.run(clone, "doctor")
        assert result.returncode == 3, result.stdout
        assert (
            f"UNCHECKED: the target work (origin/HEAD) resolved to refs/remotes/origin/work, {OWN_BRANCH}"
            in result.stdout
        )

    def test_naming_the_target_judges_the_change(self, clone: Path) -> None:
        git(clone, "fetch", "-q", "--unshallow", "origin", "main:refs/remotes/origin/main")
        result = self.run(clone, "rules", "check", "--committed", "--base", "main")
        assert result.returncode == 1, result.stdout  # the real change: schema without json


def test_a_local_branch_with_origin_head_naming_another_branch_is_unaffected(
    repo: Path,
) -> None:
    # The usual case: origin/HEAD names main, the work is on a feature branch.
    write(repo, "a.txt", "a")
    commit(repo, "base")
    git(repo, "update-ref", "refs/remotes/origin/main", "main")
    git(repo, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, "b.txt", "b")
    result = subprocess.run(
        [sys.executable, "-m", "cagr_cli", "rules", "check", "--format", "json"],
        cwd=repo,
        env={**_clean_environment(), **GIT_ENV},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout
    assert json.loads(result.stdout)["range"]["chosen_by"] == "origin/HEAD"


def test_without_a_remote_the_local_branch_itself_judges_only_uncommitted_work(
    repo: Path,
) -> None:
    write(repo, "cagr.toml", RULES)
    write(repo, "src/schema.py", "v1")
    write(repo, "schema.json", "{}")
    commit(repo, "base")
    write(repo, "src/schema.py", "v2")  # on main, uncommitted: a real change to judge

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "cagr_cli", "rules", "check", *args],
            cwd=repo,
            env={**_clean_environment(), **GIT_ENV},
            capture_output=True,
            text=True,
            check=False,
        )

    assert run().returncode == 1  # merge base (HEAD) -> working tree: the edit is judged
    committed = run("--committed")  # HEAD against itself would always be empty
    assert committed.returncode == 3, committed.stdout
    assert OWN_BRANCH in committed.stdout


def test_on_the_default_branch_its_own_copy_is_no_target_until_named(
    project: Project,
) -> None:
    # Setting cagr up on main in a full clone: origin/HEAD names main, the branch itself.
    checkout = on_branch(project.clone("origin/main"), "main")
    write(checkout, "src/schema.py", "v2")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "cagr_cli", *args],
            cwd=checkout,
            env={**_clean_environment(), **GIT_ENV},
            capture_output=True,
            text=True,
            check=False,
        )

    # origin/main is main's own copy: only unpushed work would be judged, never a PR's.
    checked = run("rules", "check")
    assert checked.returncode == 3, checked.stdout
    assert OWN_BRANCH in checked.stdout
    committed = run("rules", "check", "--committed")
    assert committed.returncode == 3
    assert OWN_BRANCH in committed.stdout
    assert run("doctor").returncode == 3  # doctor names the target problem
    commit(checkout, "unpushed")  # what a pre-push hook on main judges, once it is named
    pushed = run("rules", "check", "--committed", "--base", "origin/main")
    assert pushed.returncode == 1, pushed.stdout
    assert "src/schema.py changed; schema.json did not change." in pushed.stdout
