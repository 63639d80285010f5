"""A repository's remotes and their URLs as git reports them (`git remote -v`), from its config.

git's rules (remote.c): every `remote.<name>.*` setting makes the remote, in the order names
first appear (a name starting with `/` is passed over); `url` and `pushurl` are lists, and an
empty value clears the list so far (git 2.46 on). Once every file is read, `url.<base>.insteadOf`
rewrites each URL and push URL by its longest matching prefix (of equal ones, the base named
first); a remote without push URLs gets one for each URL a `pushInsteadOf` matches (that URL
as written, rewritten). git fetches from the first URL and pushes to the push URLs, else to
the URLs. A setting git refuses (a bare `url`, `pushurl`, `insteadOf`, `pushInsteadOf`) raises
GitConfigError. Not read: refspecs (git also refuses an invalid `fetch` or `push` refspec as it
lists remotes), and the legacy `remotes/` and `branches/` files, which `git remote` never lists.

Standard library only: the PR gate reads them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from cagr_core.values import value

from .discover import Checkout
from .gitconfig import GitConfig, GitConfigError, read_git_config
from .refs import head_ref


@value
class Remote:
    """One remote: its name, its URLs (the first is the one fetched) and where git pushes."""

    name: str
    urls: tuple[str, ...]
    push_urls: tuple[str, ...]

    @property
    def fetch_url(self) -> str | None:
        return self.urls[0] if self.urls else None


def remotes(config: GitConfig) -> list[Remote]:
    """Every configured remote, in git's order, with its URLs rewritten as git rewrites them."""
    urls: dict[str, list[str]] = {}
    push_urls: dict[str, list[str]] = {}
    rewrites: dict[str, dict[str, list[str]]] = {"insteadof": {}, "pushinsteadof": {}}
    for (section, subsection, name), setting in config.settings:
        if subsection is None:
            continue
        if section == "url" and name in rewrites:
            prefix = _value(setting, section, subsection, name)
            rewrites[name].setdefault(subsection, []).append(prefix)
        elif section == "remote" and not subsection.startswith("/"):
            # git names a remote whose subsection is empty after the rest of its key (`.url`).
            remote = subsection or "." + name
            urls.setdefault(remote, [])
            push_urls.setdefault(remote, [])
            if name == "url":
                _add(urls[remote], _value(setting, section, subsection, name))
            elif name == "pushurl":
                _add(push_urls[remote], _value(setting, section, subsection, name))
    found = []
    for remote, written in urls.items():
        pushes = [_rewritten(url, rewrites["insteadof"]) for url in push_urls[remote]]
        if not pushes:
            for url in written:
                alias = _rewrite(url, rewrites["pushinsteadof"])
                if alias is not None:
                    _add(pushes, alias)
        fetches = tuple(_rewritten(url, rewrites["insteadof"]) for url in written)
        found.append(Remote(remote, fetches, tuple(pushes) or fetches))
    return found


def read_remotes(checkout: Checkout, environ: Mapping[str, str] | None = None) -> list[Remote]:
    """The checkout's remotes, from the configuration git uses there; GitConfigError when git
    would refuse it."""
    head = head_ref(checkout)
    branch = head[len("refs/heads/") :] if head and head.startswith("refs/heads/") else None
    environ = os.environ if environ is None else environ
    return remotes(read_git_config(checkout.gitdir, checkout.commondir, branch, environ))


def _value(value: str | None, section: str, subsection: str, name: str) -> str:
    if value is None:
        raise GitConfigError(f"missing value for '{section}.{subsection}.{name}'")
    return value


def _add(found: list[str], url: str) -> None:
    if url:
        found.append(url)
    else:
        found.clear()


def _rewritten(url: str, rewrites: dict[str, list[str]]) -> str:
    alias = _rewrite(url, rewrites)
    return url if alias is None else alias


def _rewrite(url: str, rewrites: dict[str, list[str]]) -> str | None:
    """`url` with its longest matching prefix replaced by that prefix's base; None if none
    matches."""
    best: tuple[str, str] | None = None
    for base, prefixes in rewrites.items():
        for prefix in prefixes:
            if url.startswith(prefix) and (best is None or len(prefix) > len(best[1])):
                best = (base, prefix)
    return None if best is None else best[0] + url[len(best[1]) :]
