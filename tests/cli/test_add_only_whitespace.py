"""`add_only`'s `ignore_whitespace` on real repositories: an edit of a merged migration passes
exactly when `git diff` with the mode's option shows nothing for it (git is the oracle), in the
working tree and committed; anything it cannot compare counts as an edit."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from cagr_cli.main import main
from tests.support.git import commit, git, write

Capture = pytest.CaptureFixture[str]

MIGRATION = "db/migrate/20250618_add_source.rb"
ORIGINAL = (
    "class AddSource < ActiveRecord::Migration[7.2]\n"
    "  def change\n"
    '    add_column :api_keys, :source, :string, default: "web"\n'
    "    add_index :api_keys, [:user_id, :source]\n"
    "  end\n"
    "end"
)
RUBOCOP = ORIGINAL.replace("[:user_id, :source]", "[ :user_id, :source ]") + "\n"
_OPTION = {"all-space": "-w", "space-change": "-b", "space-at-eol": "--ignore-space-at-eol"}


def _config(mode: str | None) -> str:
    line = "" if mode is None else f'ignore_whitespace = "{mode}"\n'
    return (
        "[[changes.rules]]\n"
        'id = "migrations-add-only"\n'
        'kind = "add_only"\n'
        'paths = ["db/migrate/**"]\n'
        f"{line}"
        'reason = "Add a new migration instead of editing a merged one."\n'
        "examples.valid = [{ changes = [{ path = 'db/migrate/2.rb', status = 'A' }] }]\n"
        "examples.invalid = [{ changes = [{ path = 'db/migrate/1.rb', status = 'D' }] }]\n"
    )


def _project(root: Path, mode: str | None, original: str | bytes = ORIGINAL) -> Path:
    write(root, "cagr.toml", _config(mode))
    write(root, MIGRATION, original)
    commit(root, "base")
    git(root, "checkout", "-q", "-b", "work")
    return root


def _git_sees_nothing(root: Path, mode: str, committed: bool) -> bool:
    head = ["HEAD"] if committed else []
    done = subprocess.run(
        ["git", "-C", str(root), "diff", "--quiet", _OPTION[mode], "main", *head, "--", MIGRATION],
        check=False,
    )
    assert done.returncode in (0, 1)
    return done.returncode == 0


def _check(root: Path, *args: str) -> int:
    return main(["--repo", str(root), "rules", "check", *args])


@pytest.mark.parametrize("committed", [False, True], ids=["working-tree", "committed"])
@pytest.mark.parametrize(
    ("mode", "edit"),
    [
        ("all-space", RUBOCOP),  # rubocop's spaces inside brackets
        ("all-space", ORIGINAL.replace("  def", "\tdef")),
        ("space-change", ORIGINAL.replace("  def", "\tdef")),
        ("space-change", RUBOCOP),  # space where there was none: -b shows it
        ("space-at-eol", ORIGINAL.replace("change\n", "change   \n") + "\n"),
        ("space-at-eol", ORIGINAL.replace("  def", "    def")),  # indentation: shown
        ("all-space", ORIGINAL.replace(":source]", ":kind]")),  # a real edit
        ("all-space", ORIGINAL + "\n\n"),  # a blank line added: git shows it
        ("all-space", ORIGINAL.replace("\n", "\r\n")),  # line endings are whitespace to git
    ],
)
def test_an_edit_passes_exactly_when_git_diff_shows_nothing(
    repo: Path, capsys: Capture, mode: str, edit: str, committed: bool
) -> None:
    root = _project(repo, mode)
    write(root, MIGRATION, edit)
    if committed:
        commit(root, "edit")
    expected = _git_sees_nothing(root, mode, committed)
    code = _check(root, *(["--committed"] if committed else []))
    out = capsys.readouterr().out
    assert code == (0 if expected else 1), out
    if not expected:
        assert f"{MIGRATION} existed at the baseline and was edited beyond its whitespace." in out


def test_without_the_key_any_edit_counts(repo: Path, capsys: Capture) -> None:
    root = _project(repo, None)
    write(root, MIGRATION, RUBOCOP)
    assert _check(root) == 1
    assert f"{MIGRATION} existed at the baseline and was edited." in capsys.readouterr().out


def test_a_mode_change_still_counts(repo: Path, capsys: Capture) -> None:
    root = _project(repo, "all-space")
    write(root, MIGRATION, RUBOCOP)
    os.chmod(root / MIGRATION, 0o755)
    assert _check(root) == 1
    assert "was edited and changed mode from 100644 to 100755" in capsys.readouterr().out


def test_deleting_or_adding_is_judged_as_before(repo: Path, capsys: Capture) -> None:
    root = _project(repo, "all-space")
    write(root, "db/migrate/20250701_new.rb", "class New; end\n")
    assert _check(root) == 0
    os.unlink(root / MIGRATION)
    assert _check(root) == 1
    assert f"{MIGRATION} existed at the baseline and was deleted" in capsys.readouterr().out


def test_a_binary_side_counts_as_git_shows_it(repo: Path, capsys: Capture) -> None:
    root = _project(repo, "all-space", b"a\0 b\n")
    write(root, MIGRATION, b"a\0b\n")
    assert not _git_sees_nothing(root, "all-space", committed=False)
    assert _check(root) == 1
    assert "was edited beyond its whitespace" in capsys.readouterr().out


def test_a_side_too_large_to_compare_counts(repo: Path, capsys: Capture) -> None:
    big = "x = 1\n" * 200_000  # 1.2 MB, over what cagr loads of one side
    root = _project(repo, "all-space", big)
    write(root, MIGRATION, big.replace("x = 1", "x=1"))
    assert _git_sees_nothing(root, "all-space", committed=False)  # git would let it by
    assert _check(root) == 1
    assert "larger than the 1048576 bytes cagr compares" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ('"yes"', "ignore_whitespace"),
        ("true", "ignore_whitespace"),
        ('"-w"', "ignore_whitespace"),
    ],
)
def test_a_bad_value_is_a_configuration_error(
    repo: Path, capsys: Capture, value: str, says: str
) -> None:
    root = _project(repo, None)
    write(
        root, "cagr.toml", _config(None).replace("reason", f"ignore_whitespace = {value}\nreason")
    )
    assert _check(root) == 2
    err = capsys.readouterr().err
    assert says in err
    assert "all-space" in err, err


def test_rule_examples_judge_whitespace_from_before_and_after(repo: Path, capsys: Capture) -> None:
    examples = (
        "examples.valid = [{ changes = [{ path = 'db/migrate/1.rb', status = 'M',"
        " before = 'add_index :t, [:a]', after = 'add_index :t, [ :a ]' }] }]\n"
        "examples.invalid = [{ changes = [{ path = 'db/migrate/1.rb', status = 'M',"
        " before = 'add_index :t, [:a]', after = 'add_index :t, [:b]' }] }]\n"
    )
    config = _config("all-space").split("examples.valid")[0]
    write(repo, "cagr.toml", config + examples)
    commit(repo, "base")
    assert main(["--repo", str(repo), "rules", "test"]) == 0, capsys.readouterr()
