"""Parsing `gh pr create|ready` out of shell command lines, as data."""

from __future__ import annotations

import shlex
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cagr_hooks.shell_command import find_pr_commands, mentions_pr_command


def one(command: str, cwd: str = "/repo"):  # type: ignore[no-untyped-def]
    found, nested = find_pr_commands(command, cwd)
    assert not nested
    (pr,) = found
    return pr


class TestCommands:
    def test_options_long_short_and_attached(self) -> None:
        pr = one("gh pr create -B main --head=feat -R acme/app -t 'A title' -d --body 'text'")
        assert (pr.verb, pr.base, pr.head, pr.repo, pr.body) == (
            "create", "main", "feat", "acme/app", "text",
        )  # fmt: skip
        pr = one("gh pr create -dBmain -btext")
        assert (pr.base, pr.body) == ("main", "text")

    def test_cd_env_and_wrappers(self) -> None:
        pr = one("cd web && GH_REPO=acme/app command gh pr create -b x")
        assert (pr.cwd, pr.repo) == ("/repo/web", "acme/app")
        assert one("cd /abs; env A=1 gh pr ready").cwd == "/abs"
        assert one("cd $DIR && gh pr create -b x").cwd is None

    def test_several_commands_and_operators(self) -> None:
        found, _ = find_pr_commands("git push && gh pr create -b x || gh pr ready\nls", "/r")
        assert [pr.verb for pr in found] == ["create", "ready"]

    def test_comments_and_heredocs_are_not_commands(self) -> None:
        found, _ = find_pr_commands(
            "echo hi # gh pr create -b x\ncat <<EOF\ngh pr ready\nEOF", "/r"
        )
        assert found == []

    def test_a_quoted_heredoc_body_is_text(self) -> None:
        pr = one("gh pr create --body \"$(cat <<'EOF'\n## Risk\nWhy: $x `y`\nEOF\n)\"")
        assert pr.body == "## Risk\nWhy: $x `y`"

    @pytest.mark.parametrize(
        "command",
        [
            'gh pr create -b "$(cat notes)"',
            "gh pr create -b `cat notes`",
            'gh pr create -b "cost: $5"',
            "gh pr create -F -",
            "gh pr create -f",
            "gh pr create --fill-verbose",
            "gh pr create -w",
            "gh pr create -e",
            "gh pr create -T bug",
            "gh pr create",
            "gh pr create -b a -F b",
        ],
    )
    def test_bodies_cagr_cannot_know(self, command: str) -> None:
        pr = one(command)
        assert pr.body is None
        assert pr.body_file is None
        assert pr.body_unavailable

    def test_unknown_options_and_missing_values_are_problems(self) -> None:
        assert "does not know" in one("gh pr create --frobnicate -b x").problem
        assert "has no value" in one("gh pr create -b").problem
        assert "comes from the shell" in one('gh pr create -B "$BASE" -b x').problem

    def test_nested_shells_are_reported(self) -> None:
        found, nested = find_pr_commands("bash -c 'gh pr create -b x'", "/r")
        assert found == []
        assert nested

    def test_unbalanced_quotes_find_nothing(self) -> None:
        assert find_pr_commands("gh pr create -b 'x", "/r") == ([], True)

    def test_the_fast_test(self) -> None:
        assert not mentions_pr_command("ls -la")
        assert not mentions_pr_command("gh pr list")
        assert mentions_pr_command("gh pr create")


class TestProperties:
    @given(st.text(max_size=300))
    def test_any_text_parses_without_error(self, command: str) -> None:
        found, _ = find_pr_commands(command, "/r")
        assert all(pr.verb in ("create", "ready") for pr in found)

    @given(st.text(st.characters(blacklist_characters="$`\0"), max_size=200))
    def test_a_quoted_literal_body_comes_back_exactly(self, body: str) -> None:
        pr = one(f"gh pr create -t T -b {shlex.quote(body)}")
        assert pr.body == body

    @settings(max_examples=60)  # each example runs bash
    @given(
        st.text(st.characters(codec="utf-8", exclude_characters="\0"), max_size=120).filter(
            lambda body: "\nEOF\n" not in f"\n{body}\n"
        )
    )
    def test_a_quoted_heredoc_reads_as_bash_reads_it(self, body: str) -> None:
        """bash is the oracle: quotes, parentheses and backslashes in the text stay data."""
        substitution = f"\"$(cat <<'EOF'\n{body}\nEOF\n)\""
        pr = one(f"gh pr create --body {substitution} -t T")
        bash = subprocess.run(
            ["bash", "-c", f"printf %s {substitution}"], capture_output=True, check=True
        )
        assert pr.body == bash.stdout.decode("utf-8", "surrogateescape")
