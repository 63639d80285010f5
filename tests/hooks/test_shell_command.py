"""Parsing `gh pr create|ready` out of shell command lines, as data."""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from cagr_hooks.protocols import might_run_pr_command
from cagr_hooks.shell_command import find_pr_commands


def one(command: str, cwd: str = "/repo"):  # type: ignore[no-untyped-def]
    found = find_pr_commands(command, cwd)
    assert found.unreadable is None
    (pr,) = found.commands
    return pr


class TestCommands:
    def test_options_long_short_and_attached(self) -> None:
        pr = one("gh pr create -B main --head=feat -R acme/app -t 'A title' -d --body 'text'")
        assert (pr.verb, pr.base, pr.head, pr.repo, pr.body) == (
            "create", "main", "feat", "acme/app", "text",
        )  # fmt: skip
        pr = one("gh pr create -dBmain -btext")
        assert (pr.base, pr.body) == ("main", "text")

    def test_cd_env_and_wrappers(self, tmp_path: Path) -> None:
        (tmp_path / "web").mkdir()
        pr = one("cd web && GH_REPO=acme/app command gh pr create -b x", str(tmp_path))
        assert (pr.cwd, pr.repo) == (str(tmp_path / "web"), "acme/app")
        assert one(f"cd {tmp_path}; env A=1 gh pr ready").cwd == str(tmp_path)
        assert one("cd $DIR && gh pr create -b x").cwd is None

    def test_a_cd_into_nothing_leaves_the_shell_where_it_was(self, tmp_path: Path) -> None:
        assert one("cd /nonexistent; gh pr create -b x", str(tmp_path)).cwd == str(tmp_path)

    def test_folders_in_subshells_and_the_directory_stack(self, tmp_path: Path) -> None:
        (tmp_path / "a").mkdir()
        here = str(tmp_path)
        assert one("(cd a); gh pr create -b x", here).cwd == here
        assert one("(cd a && gh pr create -b x)", here).cwd == str(tmp_path / "a")
        assert one("pushd a; popd; gh pr create -b x", here).cwd == here
        assert one("env -C a gh pr create -b x", here).cwd == str(tmp_path / "a")

    @pytest.mark.parametrize(
        "command",
        [
            "{ gh pr create -b x; }",
            "if true; then gh pr create -b x; fi",
            "for i in 1; do gh pr create -b x; done",
            "! gh pr create -b x",
            "f() { gh pr create -b x; }; f",
            "gh pr new -b x",
            "gh -R acme/app pr create -b x",
            "gh pr -R acme/app create -b x",
            "gh \\\n  pr create -b x",
            "env -u GH_TOKEN gh pr create -b x",
            "env -i PATH=/bin gh pr create -b x",
            "command -p gh pr create -b x",
            "timeout 60 gh pr create -b x",
            "timeout -s KILL 1m gh pr create -b x",
            "sudo -u me gh pr create -b x",
            "nice -n 5 nohup gh pr create -b x",
        ],
    )
    def test_gh_behind_reserved_words_wrappers_and_aliases(self, command: str) -> None:
        pr = one(command)
        assert pr.verb == "create"
        assert pr.body == "x"
        assert pr.problem is None

    def test_xargs_adds_arguments_cagr_cannot_see(self) -> None:
        assert "xargs" in one("echo 1 | xargs gh pr create -b x").problem

    def test_flags_as_gh_reads_them(self) -> None:
        assert one("gh pr ready --undo=false").undo is False
        assert one("gh pr ready --undo").undo is True
        assert one("gh pr create --dry-run -b x").dry_run is True
        pr = one('gh pr create -b="## Risk" -B=main -R=acme/app')
        assert (pr.body, pr.base, pr.repo) == ("## Risk", "main", "acme/app")
        assert one("GH_REPO= gh pr create -b x").repo is None
        assert one("gh pr create --repo '' -b x").repo is None

    def test_quotes_and_heredocs_as_the_shell_reads_them(self) -> None:
        assert one("gh pr create -b 'costs $5 and `x`'").body == "costs $5 and `x`"
        tabbed = "gh pr create --body \"$(cat <<-'EOF'\n\t## Risk\n\tLow.\n\tEOF\n)\""
        assert one(tabbed).body == "## Risk\nLow."
        early = "gh pr create --body \"$(cat <<'EOF'\nintro\nEOF\n## Risk\nEOF\n)\""
        assert one(early).body is None
        assert "comes from the shell" in one("gh pr create -F <(echo hi)").body_unavailable

    @pytest.mark.parametrize(
        "command", ['echo "gh pr create"', 'git commit -m "then gh pr create"', "grep gh pr"]
    )
    def test_words_that_only_mention_gh_are_no_pr_command(self, command: str) -> None:
        found = find_pr_commands(command, "/r")
        assert (found.commands, found.unreadable) == ([], None)

    def test_several_commands_and_operators(self) -> None:
        found = find_pr_commands("git push && gh pr create -b x || gh pr ready\nls", "/r")
        assert [pr.verb for pr in found.commands] == ["create", "ready"]

    def test_comments_and_heredocs_are_not_commands(self) -> None:
        found = find_pr_commands("echo hi # gh pr create -b x\ncat <<EOF\ngh pr ready\nEOF", "/r")
        assert found.commands == []
        assert found.unreadable is None

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

    def test_a_nested_shell_is_read_like_the_bare_command(self) -> None:
        pr = one("bash -c 'gh pr create -b x'")
        assert (pr.verb, pr.body) == ("create", "x")

    def test_unbalanced_quotes_find_nothing(self) -> None:
        found = find_pr_commands("gh pr create -b 'x", "/r")
        assert found.commands == []
        assert (
            found.unreadable
            == "the command line has an unclosed quote or `$(`, so cagr cannot read it"
        )

    def test_the_fast_test(self) -> None:
        assert not might_run_pr_command("ls -la")
        assert not might_run_pr_command("gh pr list")
        assert might_run_pr_command("gh pr create")


class TestProperties:
    @given(st.text(max_size=300))
    def test_any_text_parses_without_error(self, command: str) -> None:
        found = find_pr_commands(command, "/r")
        assert all(pr.verb in ("create", "ready") for pr in found.commands)

    @given(st.text(st.characters(blacklist_characters="$`\0"), max_size=200))
    def test_a_quoted_literal_body_comes_back_exactly(self, body: str) -> None:
        pr = one(f"gh pr create -t T -b {shlex.quote(body)}")
        assert pr.body == body

    @settings(max_examples=60)  # each example runs bash
    @example("\x01\x01")  # bash's CTLESC: it prints one of two
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
        if "\x01" in body or "\x7f" in body:  # bash rewrites its own quoting bytes there
            assert pr.body is None
            assert pr.body_unavailable is not None
        else:
            assert pr.body == bash.stdout.decode("utf-8", "surrogateescape")

    def test_bash_quoting_bytes_in_a_here_document_leave_the_body_unknown(self) -> None:
        # bash prints "\x01" for "\x01\x01" here (its CTLESC escape): cagr never guesses.
        pr = one("gh pr create --body \"$(cat <<'EOF'\n\x01\x01\nEOF\n)\" -t T")
        assert pr.body is None
