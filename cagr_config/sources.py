"""Which paths are cagr's configuration sources, and in what order they are read.

`cagr.toml` at the root, `pyproject.toml` (its `[tool.cagr]` table), and `.cagr/**/*.toml`
fragments in path order (`.cagr/review-evals/` is not config). Names only: cagr_repo.config_files
finds and reads them; `load` parses them. Standard library only (the PR gate digests the files).
"""

from __future__ import annotations

from collections.abc import Callable

ROOT_FILE = "cagr.toml"
PYPROJECT = "pyproject.toml"
FRAGMENTS = ".cagr"
NOT_CONFIG = ".cagr/review-evals/"


def is_config_source(path: str) -> bool:
    """Whether a repo-relative path is one of cagr's config sources."""
    if path in (ROOT_FILE, PYPROJECT):
        return True
    return (
        path.startswith(FRAGMENTS + "/")
        and path.endswith(".toml")
        and not path.startswith(NOT_CONFIG)
    )


def may_hold(pyproject: bytes) -> bool:
    """Whether a pyproject.toml's bytes may hold a `[tool.cagr]` table, told without parsing
    TOML: they name cagr, or hold an escape that could spell it in a quoted key."""
    return b"cagr" in pyproject or b"\\u" in pyproject or b"\\U" in pyproject


def fragment_order(names: list[str]) -> list[str]:
    """Fragments in source order: by path, folder by folder."""
    return sorted(names, key=lambda name: name.split("/"))


MAX_LINK_HOPS = 40  # as Linux's SYMLOOP_MAX


class LinkProblem(ValueError):
    """A config path whose links cannot be followed; the message completes "NAME ..."."""


def resolve_links(path: str, read_link: Callable[[str], str | None]) -> str:
    """`path` (repo-relative) with every link along it followed as git stores links: a link's
    target is a path relative to the link's folder, read by `read_link` (None: not a link). The
    same on disk and in a commit's tree, so a working-tree check and a committed one read the
    same files. LinkProblem for a target that is absolute or leaves the repository, or a loop."""
    todo, hops = path.split("/"), 0
    done: list[str] = []
    while todo:
        part = todo.pop(0)
        if part in ("", "."):
            continue
        if part == "..":
            if not done:
                raise LinkProblem("links outside the repository; cagr does not follow it")
            done.pop()
            continue
        target = read_link("/".join([*done, part]))
        if target is None:
            done.append(part)
            continue
        hops += 1
        if hops > MAX_LINK_HOPS:
            raise LinkProblem("cannot be read (a loop of links); fix or remove it")
        if target.startswith("/"):
            raise LinkProblem(
                "links outside the repository (to an absolute path, which git keeps as text and"
                " another clone does not have); cagr follows only relative links that stay"
                " inside it"
            )
        todo = target.split("/") + todo
    return "/".join(done)
