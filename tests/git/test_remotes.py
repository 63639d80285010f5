"""A repository's remotes as cagr reads them from config, against git's own answers:
`git remote -v` for the remotes and their URLs (insteadOf and pushInsteadOf applied), and
`git config --get-regexp` for every `remote.<name>.url` value, on generated configs with
submodule sections, includes, rewrites and multi-valued URLs."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cagr_git.discover import find_checkout
from cagr_git.gitconfig import GitConfig, GitConfigError, read_git_config
from cagr_git.remotes import Remote, read_remotes, remotes

_NAMES = ["origin", "up", "Up", "a.b", "fork", "/abs"]
_URLS = [
    "https://github.com/acme/app.git",
    "git@github.com:acme/app.git",
    "gh:acme/app",
    "gh:evil/other",
    "ghs:me/fork",
    "https://github.com/acme/",
    "ssh://h.example/x/y",
]
_PREFIXES = ["gh:", "ghs:", "https://github.com/", "https://github.com/acme/", "git@", ""]
_BASES = ["https://github.com/", "ssh://git@github.com/", "https://mirror.example/", "gh:"]
# Files a config can name: (the include directive in .git/config, the file's name in .git).
_INCLUDES = [
    ("[include]\n\tpath = inc-plain\n", "inc-plain"),
    ('[includeIf "gitdir:{gitdir}/"]\n\tpath = inc-here\n', "inc-here"),
    ('[includeIf "gitdir:/nowhere/"]\n\tpath = inc-elsewhere\n', "inc-elsewhere"),
    ('[includeIf "onbranch:main"]\n\tpath = inc-main\n', "inc-main"),
]
# git 2.46 made an empty `url` clear the list; older git keeps it as a URL.
_VERSION_TEXT = subprocess.run(["git", "--version"], capture_output=True, check=True).stdout
_GIT_VERSION = tuple(int(part) for part in re.findall(rb"\d+", _VERSION_TEXT)[:2])


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


@st.composite
def blocks(draw: st.DrawFn) -> str:
    """One section of settings that may or may not be a remote's."""
    kind = draw(st.integers(0, 19))
    url = st.sampled_from(_URLS)
    if kind <= 8:
        name = draw(st.sampled_from(_NAMES))
        keys = st.sampled_from(["url"] * 4 + ["pushurl", "fetch"])
        lines = draw(st.lists(st.tuples(keys, url), min_size=1, max_size=3))
        # git refuses an invalid refspec as it lists remotes; cagr does not read refspecs.
        text = "".join(
            f"\n\t{key} = {'+refs/heads/*:refs/remotes/x/*' if key == 'fetch' else value}"
            for key, value in lines
        )
        return f"[remote {_quoted(name)}]{text}\n"
    if kind <= 15:
        base = draw(st.sampled_from(_BASES))
        keys = st.sampled_from(["insteadOf", "pushInsteadOf"])
        lines = draw(st.lists(st.tuples(keys, st.sampled_from(_PREFIXES)), min_size=1, max_size=2))
        return f"[url {_quoted(base)}]" + "".join(f'\n\t{k} = "{v}"' for k, v in lines) + "\n"
    if kind == 16:
        return f'[submodule "vendor"]\n\turl = {draw(url)}\n\tpath = vendor\n'
    if kind == 17:
        return f'[branch "main"]\n\tremote = origin\n[http {_quoted(draw(url))}]\n\turl = {draw(url)}\n'
    if kind == 18:
        # The old `[section.sub]` form (lower-cased), and sections without a name.
        forms = ["[remote.Legacy]\n\turl = gh:a/b\n", "[remote]\n\turl = gh:a/b\n"]
        return draw(st.sampled_from([*forms, '[url]\n\tinsteadOf = ""\n']))
    # Now and then a value git refuses to read as a remote.
    return draw(st.sampled_from(['[remote "bare"]\n\turl\n', '[url "x:"]\n\tinsteadOf\n']))


files = st.lists(blocks(), max_size=4).map("".join)


@st.composite
def layouts(draw: st.DrawFn) -> dict:
    return {
        "main": draw(
            st.lists(
                st.one_of(blocks(), st.sampled_from(range(len(_INCLUDES)))), min_size=1, max_size=6
            )
        ),
        "included": {name: draw(files) for _, name in _INCLUDES},
        "environment": draw(st.booleans()),
    }


@pytest.fixture(scope="module")
def scratch() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as folder:
        yield Path(folder)


def _git(root: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, check=False, env=env
    )


def _remote_v(found: list[Remote]) -> list[str]:
    """`git remote -v`'s lines for these remotes, sorted (git sorts them by name)."""
    lines = []
    for remote in found:
        fetch = remote.fetch_url
        lines.append(f"{remote.name}\t{fetch} (fetch)" if fetch is not None else f"{remote.name}\t")
        lines.extend(f"{remote.name}\t{url} (push)" for url in remote.push_urls)
    return sorted(lines)


class TestRemotesAgainstGit:
    """Whatever the config says, cagr's remotes are those `git remote -v` lists."""

    @settings(
        max_examples=int(os.environ.get("CAGR_ORACLE_EXAMPLES", "40")),
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(layouts())
    def test_remotes_equal_git_remote_v(self, scratch: Path, layout: dict) -> None:
        root = Path(tempfile.mkdtemp(dir=scratch))
        try:
            subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
            gitdir = root / ".git"
            parts = [_INCLUDES[p][0] if isinstance(p, int) else p for p in layout["main"]]
            with (gitdir / "config").open("a") as handle:
                handle.write("".join(parts).replace("{gitdir}", str(gitdir)))
            for name, content in layout["included"].items():
                (gitdir / name).write_text(content)
            env = dict(os.environ)
            if layout["environment"]:
                env |= {
                    "GIT_CONFIG_COUNT": "1",
                    "GIT_CONFIG_KEY_0": "url.https://github.com/.insteadOf",
                    "GIT_CONFIG_VALUE_0": "gh:",
                }
            listed = _git(root, "remote", "-v", env=env)
            checkout = find_checkout(str(root))
            if listed.returncode != 0:
                with pytest.raises(GitConfigError):
                    read_remotes(checkout, env)
            else:
                expected = sorted(listed.stdout.decode().splitlines())
                assert _remote_v(read_remotes(checkout, env)) == expected
            config = read_git_config(checkout.gitdir, checkout.commondir, "main", env)
            urls = [
                f"remote.{sub}.url" + ("" if value is None else f" {value}")
                for (section, sub, name), value in config.settings
                if section == "remote" and sub is not None and name == "url"
            ]
            regexp = _git(root, "config", "--get-regexp", r"^remote\..*\.url$", env=env)
            assert urls == regexp.stdout.decode().splitlines()
        finally:
            shutil.rmtree(root, ignore_errors=True)


def _config(repo: Path, text: str) -> list[Remote]:
    with (repo / ".git" / "config").open("a") as handle:
        handle.write(text)
    return read_remotes(find_checkout(str(repo)))


def _git_remote_v(repo: Path) -> list[str]:
    return sorted(_git(repo, "remote", "-v", env=dict(os.environ)).stdout.decode().splitlines())


def test_a_submodule_url_is_no_remote(repo: Path) -> None:
    found = _config(
        repo,
        '[remote "origin"]\n\turl = https://github.com/acme/app\n'
        '[submodule "vendor"]\n\turl = https://github.com/evil/other\n',
    )
    assert found == [
        Remote("origin", ("https://github.com/acme/app",), ("https://github.com/acme/app",))
    ]
    assert _remote_v(found) == _git_remote_v(repo)


def test_the_longest_instead_of_wins_and_push_instead_of_only_without_a_pushurl(repo: Path) -> None:
    found = _config(
        repo,
        '[url "https://github.com/"]\n\tinsteadOf = gh:\n'
        '[url "https://mirror.example/acme/"]\n\tinsteadOf = gh:acme/\n'
        '[url "ssh://git@github.com/"]\n\tpushInsteadOf = https://github.com/\n\tpushInsteadOf = gh:\n'
        '[remote "origin"]\n\turl = gh:acme/app\n\turl = gh:other/app\n'
        '[remote "fork"]\n\turl = gh:me/app\n\tpushurl = gh:me/push\n',
    )
    assert found == [
        Remote(
            "origin",
            ("https://mirror.example/acme/app", "https://github.com/other/app"),
            ("ssh://git@github.com/acme/app", "ssh://git@github.com/other/app"),
        ),
        Remote("fork", ("https://github.com/me/app",), ("https://github.com/me/push",)),
    ]
    assert _remote_v(found) == _git_remote_v(repo)


def test_an_empty_url_clears_the_list_so_far(repo: Path) -> None:
    found = _config(repo, '[remote "origin"]\n\turl = gh:one\n\turl =\n\turl = gh:two\n')
    assert found == [Remote("origin", ("gh:two",), ("gh:two",))]  # git 2.46's rule
    if _GIT_VERSION >= (2, 46):
        assert _remote_v(found) == _git_remote_v(repo)


def test_a_bare_url_is_refused_as_git_refuses_it(repo: Path) -> None:
    with pytest.raises(GitConfigError, match="missing value for 'remote\\.origin\\.url'"):
        _config(repo, '[remote "origin"]\n\turl\n')
    assert _git(repo, "remote", "-v", env=dict(os.environ)).returncode != 0


def test_a_name_with_a_slash_is_passed_over_and_an_empty_one_named_after_its_key() -> None:
    settings_ = [(("remote", "/x", "url"), "gh:a/b"), (("remote", "", "url"), "gh:c/d")]
    assert remotes(GitConfig(settings_)) == [Remote(".url", ("gh:c/d",), ("gh:c/d",))]
