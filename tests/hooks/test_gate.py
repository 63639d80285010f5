"""The `gh pr create` gate through `cagr hook`: the Gate acceptance rows, for every agent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.git import commit, git, write
from tests.support.hooks import RULES, committed_check, denied, gate, project

GOOD = "## Risk\nDependency reason: x reads the wire format."


@pytest.fixture
def work(repo: Path) -> Path:
    return project(repo)


@pytest.fixture
def failing(work: Path) -> Path:
    write(work, "src/schema.py", "v2")
    commit(work, "source only")
    assert committed_check(work) == 1
    return work


@pytest.fixture
def dependency(work: Path) -> Path:
    write(work, "package.json", '{"dependencies": {"left-pad": "1"}}')
    commit(work, "a dependency")
    assert committed_check(work) == 0
    return work


class TestFastPath:
    @pytest.mark.parametrize("agent", ["claude", "codex", "cursor", "gemini"])
    @pytest.mark.parametrize("command", ["ls -la", "git push", "echo gh pr list", "gh pr view 3"])
    def test_other_commands_get_no_answer(self, failing: Path, agent: str, command: str) -> None:
        answer = gate(failing, command, agent)
        assert answer.raw.strip() in ("", "{}")
        assert answer.stderr == ""


class TestGate:
    @pytest.mark.parametrize("agent", ["claude", "codex", "cursor", "gemini"])
    def test_a_current_failure_denies_with_the_fix(self, failing: Path, agent: str) -> None:
        answer = gate(failing, 'gh pr create -t T -b "## Summary\nx"', agent)
        assert denied(agent, answer.json)
        assert "Change rule schema-companion failed" in answer.text
        assert "Instead: Run `make schema` and include schema.json in this change." in answer.text

    def test_a_missing_record_lets_through_with_the_command_to_run(self, work: Path) -> None:
        write(work, "src/schema.py", "v2")
        commit(work, "source only")
        answer = gate(work, "gh pr create -t T -b x")
        assert not denied("claude", answer.json)
        assert "no prepared change-rule result" in answer.text
        assert "cagr rules check --committed" in answer.text
        assert "CI will check" in answer.text

    def test_a_broken_record_is_missing(self, failing: Path) -> None:
        (failing / ".git" / "cagr" / "gate.json").write_text('{"version": 2, "report": 1}')
        answer = gate(failing, "gh pr create -t T -b x")
        assert not denied("claude", answer.json)
        assert "no prepared change-rule result" in answer.text

    def test_same_head_with_a_changed_config_cannot_reuse_the_result(self, failing: Path) -> None:
        write(failing, "cagr.toml", RULES + "\n# edited\n")
        answer = gate(failing, "gh pr create -t T -b x")
        assert not denied("claude", answer.json)
        assert "configuration changed" in answer.text

    def test_a_check_after_an_uncommitted_config_edit_is_current(self, failing: Path) -> None:
        """HEAD's rules judge HEAD; the record still matches the config the gate can read."""
        write(failing, "cagr.toml", RULES + "\n# edited, not committed\n")
        assert committed_check(failing) == 1
        answer = gate(failing, "gh pr create -t T -b x")
        assert denied("claude", answer.json)  # current, and failing: not "stale" for ever
        assert "Change rule schema-companion failed" in answer.text

    def test_same_head_with_a_moved_target_cannot_reuse_the_result(self, failing: Path) -> None:
        git(failing, "update-ref", "refs/heads/main", "HEAD")
        answer = gate(failing, "gh pr create -t T -b x")
        assert "the target refs/heads/main moved" in answer.text

    def test_same_head_with_another_version_cannot_reuse_the_result(self, failing: Path) -> None:
        path = failing / ".git" / "cagr" / "gate.json"
        path.write_text(path.read_text().replace('"cagr_version": "', '"cagr_version": "0.0.0-'))
        answer = gate(failing, "gh pr create -t T -b x")
        assert "made by cagr 0.0.0-" in answer.text

    def test_a_dirty_companion_cannot_satisfy_the_committed_check(self, failing: Path) -> None:
        write(failing, "schema.json", '{"v": 2}')  # uncommitted
        assert committed_check(failing) == 1
        assert denied("claude", gate(failing, "gh pr create -t T -b x").json)

    def test_new_commits_make_the_record_stale(self, failing: Path) -> None:
        write(failing, "schema.json", '{"v": 2}')
        commit(failing, "companion")
        answer = gate(failing, "gh pr create -t T -b x")
        assert not denied("claude", answer.json)
        assert "HEAD moved" in answer.text

    def test_an_explicit_base_must_match_the_records_target(self, failing: Path) -> None:
        git(failing, "branch", "release", "main")
        answer = gate(failing, "gh pr create -B release -t T -b x")
        assert not denied("claude", answer.json)
        assert "not refs/heads/release" in answer.text
        assert "cagr rules check --committed --base release" in answer.text
        assert committed_check(failing, "--base", "release") == 1
        assert denied("claude", gate(failing, "gh pr create -B release -t T -b x").json)

    def test_a_record_for_another_base_advises_the_default_check(self, failing: Path) -> None:
        git(failing, "branch", "release", "main")
        assert committed_check(failing, "--base", "release") == 1
        answer = gate(failing, "gh pr create -t T -b x")
        assert "not refs/heads/main" in answer.text
        assert "Run `cagr rules check --committed` to check" in answer.text
        assert committed_check(failing) == 1  # the advice, followed, makes the gate decide
        assert denied("claude", gate(failing, "gh pr create -t T -b x").json)

    def test_an_unknown_base_is_a_notice(self, failing: Path) -> None:
        answer = gate(failing, "gh pr create --base=nope -t T -b x")
        assert "target branch nope is not in this clone" in answer.text

    def test_explicit_head_is_the_branch_checked(self, failing: Path) -> None:
        git(failing, "branch", "other", "main")
        answer = gate(failing, "gh pr create -H other -t T -b x")
        assert not denied("claude", answer.json)
        assert "HEAD moved" in answer.text
        assert denied("claude", gate(failing, "gh pr create -H work -t T -b x").json)

    def test_a_head_in_another_repository_is_unchecked(self, failing: Path) -> None:
        git(failing, "remote", "add", "origin", "git@github.com:acme/app.git")
        answer = gate(failing, "gh pr create -H someone:work -t T -b x")
        assert "in another repository" in answer.text
        assert denied("claude", gate(failing, "gh pr create -H acme:work -t T -b x").json)

    def test_a_foreign_repository_is_unchecked(self, failing: Path) -> None:
        git(failing, "remote", "add", "origin", "https://github.com/acme/app.git")
        answer = gate(failing, "gh pr create -R other/thing -t T -b x")
        assert not denied("claude", answer.json)
        assert "not a remote of this checkout" in answer.text
        assert denied("claude", gate(failing, "GH_REPO=acme/app gh pr create -t T -b x").json)

    def test_a_submodule_url_is_not_a_remote(self, failing: Path) -> None:
        git(failing, "remote", "add", "origin", "https://github.com/acme/app.git")
        git(failing, "config", "submodule.vendor.url", "https://github.com/evil/other")
        answer = gate(failing, "gh pr create -R evil/other -t T -b x")
        assert not denied("claude", answer.json)  # not judged by this checkout's record
        assert "evil/other, which is not a remote of this checkout" in answer.text

    def test_a_remote_rewritten_by_instead_of_counts(self, failing: Path) -> None:
        git(failing, "config", "url.https://github.com/.insteadOf", "gh:")
        git(failing, "remote", "add", "origin", "gh:acme/app")
        assert denied("claude", gate(failing, "gh pr create -R acme/app -t T -b x").json)
        assert denied("claude", gate(failing, "gh pr create -H acme:work -t T -b x").json)

    def test_a_remote_in_an_included_file_counts(self, failing: Path) -> None:
        write(
            failing, ".git/remotes.inc", '[remote "origin"]\n\turl = https://github.com/acme/app\n'
        )
        git(failing, "config", "include.path", "remotes.inc")
        assert denied("claude", gate(failing, "gh pr create -R acme/app -t T -b x").json)

    def test_a_config_git_refuses_gives_the_notice(self, failing: Path) -> None:
        git(failing, "remote", "add", "origin", "https://github.com/acme/app.git")
        with (failing / ".git" / "config").open("a") as handle:
            handle.write('[remote "fork"]\n\turl\n')  # `git remote -v` fails on it, and gh too
        answer = gate(failing, "gh pr create -R acme/app -t T -b x")
        assert not denied("claude", answer.json)
        assert "git cannot read this repository's configuration" in answer.text
        assert "failed change rules: schema-companion" in answer.text
        assert (
            "cannot read this repository's configuration"
            in gate(failing, "gh pr create -H acme:work -t T -b x").text
        )

    def test_the_commands_own_folder_is_respected(self, failing: Path, tmp_path: Path) -> None:
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir()
        answer = gate(failing, f"cd {failing} && gh pr create -t T -b x", cwd=elsewhere)
        assert denied("claude", answer.json)
        assert gate(failing, f"cd {elsewhere} && gh pr create -t T -b x").json is None

    def test_gh_pr_ready_uses_the_same_record(self, failing: Path) -> None:
        assert denied("claude", gate(failing, "gh pr ready").json)
        assert gate(failing, "gh pr ready --undo").json is None

    def test_a_nested_shell_is_judged_like_the_bare_command(self, failing: Path) -> None:
        answer = gate(failing, "bash -c 'gh pr create -t T -b x'")
        assert denied("claude", answer.json)
        assert "Change rule schema-companion failed" in answer.text

    def test_another_language_running_gh_is_a_notice_naming_the_failing_rules(
        self, failing: Path
    ) -> None:
        answer = gate(failing, "python3 -c 'import os; os.system(\"gh pr create -b x\")'")
        assert not denied("claude", answer.json)
        assert "through `python3`, which cagr does not look into" in answer.text
        assert "failed change rules: schema-companion" in answer.text


class TestBody:
    def test_an_available_body_without_the_section_denies(self, dependency: Path) -> None:
        answer = gate(dependency, 'gh pr create -t T -b "## Summary\nAdds padding."')
        assert denied("claude", answer.json)
        assert (
            "Added dependencies.left-pad in package.json; the PR body has no `## Risk` section."
            in answer.text
        )
        assert "Instead: In the PR body's Risk section" in answer.text

    def test_failing_commits_and_a_body_without_the_section_are_denied_together(
        self, dependency: Path
    ) -> None:
        write(dependency, "src/schema.py", "v2")
        commit(dependency, "source only")
        assert committed_check(dependency) == 1
        answer = gate(dependency, 'gh pr create -t T -b "## Summary\nAdds padding."')
        assert denied("claude", answer.json)
        assert "the change rules fail for this PR's commits" in answer.text
        assert "The PR description given also misses what the rules ask" in answer.text
        assert "the PR body has no `## Risk` section" in answer.text
        # The body was judged: the rule is not also said to be owed later.
        assert "Deferred to the pull request" not in answer.text
        good = gate(dependency, f'gh pr create -t T -b "{GOOD}"')
        assert denied("claude", good.json)
        assert "also misses" not in good.text
        assert "Deferred to the pull request" not in good.text
        unread = gate(dependency, 'gh pr create -t T -b "$(make-body)"')
        assert denied("claude", unread.json)
        assert "Deferred to the pull request: change rule" in unread.text  # still owed

    def test_an_available_empty_body_is_a_violation(self, dependency: Path) -> None:
        answer = gate(dependency, 'gh pr create -t T -b ""')
        assert denied("claude", answer.json)
        assert "the PR body is empty" in answer.text

    def test_a_good_body_says_nothing(self, dependency: Path) -> None:
        assert gate(dependency, f'gh pr create -t T --body "{GOOD}"').json is None

    def test_a_quoted_heredoc_body_is_read_as_text(self, dependency: Path) -> None:
        command = f"gh pr create -t T --body \"$(cat <<'EOF'\n{GOOD}\nEOF\n)\""
        assert gate(dependency, command).json is None
        bad = "gh pr create -t T --body \"$(cat <<'EOF'\n## Risk\nNone\nEOF\n)\""
        assert denied("claude", gate(dependency, bad).json)

    @pytest.mark.parametrize(
        ("command", "why"),
        [
            ("gh pr create --fill", "filled from commit messages"),
            ("gh pr create -t T -F -", "standard input"),
            ('gh pr create -t T -b "$(cat notes.md)"', "comes from the shell"),
            ("gh pr create -t T -b `cat notes.md`", "comes from the shell"),
            ("gh pr create --web", "browser"),
            ("gh pr create -t T --editor", "editor"),
            ("gh pr create -t T", "gh would ask for it"),
            ("gh pr ready", "CI checks the PR's own text"),
        ],
    )
    def test_an_unavailable_body_is_a_notice_asking_for_a_body_file(
        self, dependency: Path, command: str, why: str
    ) -> None:
        answer = gate(dependency, command)
        assert not denied("claude", answer.json)
        assert why in answer.text
        # gh pr ready has no body option: only gh pr create is told to give a body file
        assert ("--body-file" in answer.text) == command.startswith("gh pr create")

    def test_a_body_file_is_read(self, dependency: Path, tmp_path: Path) -> None:
        (tmp_path / "good.md").write_text(GOOD)
        (tmp_path / "bad.md").write_text("## Risk\nTBD\n")
        assert gate(dependency, f"gh pr create -t T -F {tmp_path}/good.md").json is None
        assert denied("claude", gate(dependency, f"gh pr create -t T -F {tmp_path}/bad.md").json)

    def test_a_body_file_is_bounded_and_never_executed(
        self, dependency: Path, tmp_path: Path
    ) -> None:
        (tmp_path / "big.md").write_text(GOOD + "\n" + "x" * 300_000)
        answer = gate(dependency, f"gh pr create -t T -F {tmp_path}/big.md")
        assert not denied("claude", answer.json)
        assert "larger than" in answer.text
        os.mkfifo(tmp_path / "fifo.md")
        answer = gate(dependency, f"gh pr create -t T -F {tmp_path}/fifo.md")
        assert "not a regular file" in answer.text
        marker = tmp_path / "ran"
        gate(dependency, f'gh pr create -t T -b "$(touch {marker})"')
        gate(dependency, f"gh pr create -t T -F $(touch {marker})")
        assert not marker.exists()

    def test_review_sections_compose_with_the_rules(self, work: Path) -> None:
        write(work, "cagr.toml", RULES + '\n[review]\npr_sections = ["Summary"]\n')
        commit(work, "config")
        assert committed_check(work) == 0
        answer = gate(work, 'gh pr create -t T -b "## Risk\nNone"')
        assert denied("claude", answer.json)
        assert "`## Summary`" in answer.text
        assert gate(work, 'gh pr create -t T -b "## Summary\nFixes x."').json is None
