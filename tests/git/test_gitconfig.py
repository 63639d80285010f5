"""The configuration git uses in a repository, read by cagr: git (`git config --get`) is the
oracle for each way a setting reaches it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from cagr_git.discover import find_checkout
from cagr_git.gitconfig import GitConfigError, read_git_config
from cagr_git.refs import head_ref
from tests.support.git import commit, git, write

KEY = "core.autocrlf"


def git_value(root: Path, key: str = KEY, env: dict[str, str] | None = None) -> str | None:
    result = subprocess.run(
        ["git", "-C", str(root), "config", "--get", key],
        capture_output=True,
        check=False,
        env={**os.environ, **(env or {})},
    )
    return result.stdout.decode().strip() if result.returncode == 0 else None


def cagr_value(root: Path, key: str = KEY, env: dict[str, str] | None = None) -> str | None:
    checkout = find_checkout(str(root))
    head = head_ref(checkout)
    branch = head.removeprefix("refs/heads/") if head else None
    config = read_git_config(
        checkout.gitdir, checkout.commondir, branch, {**os.environ, **(env or {})}
    )
    section, _, name = key.partition(".")
    return config.get(section, name)


@pytest.fixture
def home(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A HOME of the test's own, with the machine's config files out of the way."""
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    commit(repo, "base")
    return folder


def agree(root: Path, expected: str | None, env: dict[str, str] | None = None) -> None:
    assert git_value(root, env=env) == expected
    assert cagr_value(root, env=env) == expected


def test_global_xdg_and_local_files_in_git_order(repo: Path, home: Path) -> None:
    write(home, ".config/git/config", "[core]\n\tautocrlf = input\n")
    agree(repo, "input")
    write(home, ".gitconfig", "[core]\n\tautocrlf = false\n")
    agree(repo, "false")  # ~/.gitconfig wins over the XDG file
    git(repo, "config", KEY, "true")
    agree(repo, "true")  # the repository's own wins over both


def test_includes_in_place_and_relative_to_the_including_file(repo: Path, home: Path) -> None:
    git(repo, "config", "include.path", "../.gitconfig")  # an untracked file in the work tree
    write(repo, ".gitconfig", "[core]\n\tautocrlf = input\n")
    agree(repo, "input")
    with (repo / ".git" / "config").open("a") as handle:
        handle.write("[core]\n\tautocrlf = true\n")  # after the include: it wins
    agree(repo, "true")


def test_include_if_gitdir_and_onbranch(repo: Path, home: Path) -> None:
    write(home, "work.inc", "[core]\n\tautocrlf = input\n")
    write(home, "branch.inc", "[core]\n\tautocrlf = true\n")
    write(
        home,
        ".gitconfig",
        f'[includeIf "gitdir:{repo.parent}/"]\n\tpath = ~/work.inc\n'
        '[includeIf "onbranch:feat/**"]\n\tpath = ~/branch.inc\n'
        '[includeIf "gitdir/i:/NOWHERE/"]\n\tpath = ~/branch.inc\n',
    )
    agree(repo, "input")
    git(repo, "checkout", "-q", "-b", "feat/x")
    agree(repo, "true")


def test_worktree_config_when_the_extension_is_on(repo: Path, home: Path) -> None:
    git(repo, "config", KEY, "input")
    git(repo, "config", "extensions.worktreeConfig", "true")
    git(repo, "config", "--worktree", KEY, "true")
    agree(repo, "true")
    git(repo, "config", "extensions.worktreeConfig", "false")
    agree(repo, "input")


def test_environment_settings_win(repo: Path, home: Path) -> None:
    git(repo, "config", KEY, "input")
    env = {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": KEY, "GIT_CONFIG_VALUE_0": "true"}
    agree(repo, "true", env)
    # `git -c` hands its settings to the programs it starts in GIT_CONFIG_PARAMETERS.
    seen = git(repo, "-c", f"{KEY}=false", "-c", "alias.env=!env", "env").decode()
    parameters = next(line for line in seen.splitlines() if line.startswith("GIT_CONFIG_PARA"))
    env = {"GIT_CONFIG_PARAMETERS": parameters.partition("=")[2]}
    assert cagr_value(repo, env=env) == "false"


def test_a_fifo_include_never_blocks(repo: Path, home: Path) -> None:
    os.mkfifo(repo / "fifo")
    git(repo, "config", KEY, "input")
    git(repo, "config", "include.path", "../fifo")  # git itself would block on it now
    assert cagr_value(repo) == "input"


def test_an_include_loop_is_refused(repo: Path, home: Path) -> None:
    git(repo, "config", "include.path", "config")  # includes itself
    assert git_value(repo) is None  # git refuses it
    with pytest.raises(GitConfigError, match="include depth"):
        cagr_value(repo)


def test_include_if_hasconfig_remote_url(repo: Path, home: Path) -> None:
    write(home, "acme.inc", "[core]\n\tautocrlf = input\n")
    write(home, "links.inc", '[remote "mirror"]\n\turl = https://example.org/acme/y.git\n')
    write(
        home,
        ".gitconfig",
        '[includeIf "hasconfig:remote.*.url:https://github.com/acme/**"]\n\tpath = ~/acme.inc\n'
        '[includeIf "hasconfig:remote.*.url:https://example.org/*"]\n\tpath = ~/acme.inc\n',
    )
    agree(repo, None)  # no remote yet
    git(repo, "remote", "add", "origin", "https://github.com/acme/x.git")
    agree(repo, "input")  # the repository's own remote, read after the global file, counts
    git(repo, "remote", "remove", "origin")
    git(repo, "config", "include.path", str(home / "links.inc"))
    agree(repo, None)  # `*` stops at a slash, as wildmatch's WM_PATHNAME does
    git(repo, "config", "--unset", "include.path")
    write(
        home, ".gitconfig", '[includeIf "hasconfig:remote.*.url:**/acme/*"]\n\tpath = ~/links.inc\n'
    )
    # A file included by such a condition may not set a remote URL: git refuses the whole config.
    assert git_value(repo) is None
    refused = subprocess.run(["git", "-C", str(repo), "status"], check=False, capture_output=True)
    assert refused.returncode != 0
    with pytest.raises(GitConfigError, match="remote URLs cannot be configured"):
        cagr_value(repo)
