"""Which text can name one commit, as cagr reads revisions, before any repository is read.

A name (no spaces, control characters, `~^:?*[\\`, `..`, `@{` or `//`, not starting with `-`
or `/`) followed by any `~N`, `^N` and `^{}`/`^{commit}` suffixes. Ranges, reflog entries,
`REV:path` and options are refused here, so a command can call them a usage error. Standard
library only: config loading checks `[git] protected_branch` with it.
"""

from __future__ import annotations

import re

SUFFIX = re.compile(r"~(\d*)|\^\{([^}]*)\}|\^(\d*)")
_NOT_IN_A_NAME = re.compile(r"[\x00-\x20\x7f~^:?*\[\\]|\.\.|@\{|//")


def syntax_problem(text: str) -> tuple[str, str] | None:
    """(what is wrong, what to do) when `text` is no revision cagr reads as one commit (a
    range, a reflog entry, `REV:path`, an option); None when it may name one."""
    cut = min((i for i in (text.find("~"), text.find("^")) if i >= 0), default=len(text))
    base, suffixes = text[:cut], text[cut:]
    if (
        base
        and not _NOT_IN_A_NAME.search(base)
        and not base.startswith(("-", "/"))
        and "".join(m.group(0) for m in SUFFIX.finditer(suffixes)) == suffixes
    ):
        return None
    return (
        f"{text!r} is not a revision cagr can read as one commit.",
        "Name a branch, a tag, a commit id, `HEAD`, or one of these followed by `~N` or `^N`"
        " (ranges, `@{...}` and `:path` are not targets).",
    )
