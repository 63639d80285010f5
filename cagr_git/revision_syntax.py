"""Which text can name one commit, as cagr reads revisions, before any repository is read.

A name (no spaces, control characters, `~^:?*[\\`, `..`, `@{` or `//`, not starting with `-`
or `/`) followed by any `~N`, `^N` and `^{}`/`^{commit}` suffixes. Ranges, reflog entries,
`REV:path`, `^{tree}` and options are refused here, so a command can call them a usage error.
Standard library only: config loading checks `[git] protected_branch` with it.
"""

from __future__ import annotations

import re

_PEELS = frozenset({"", "commit", "object"})  # `^{}` peels a tag to what it names
SUFFIX = re.compile(r"~(\d*)|\^\{([^}]*)\}|\^(\d*)")
_NOT_IN_A_NAME = re.compile(r"[\x00-\x20\x7f~^:?*\[\\]|\.\.|@\{|//")


def syntax_problem(text: str) -> tuple[str, str] | None:
    """(what is wrong, what to do) when `text` is no revision cagr reads as one commit (a
    range, a reflog entry, `REV:path`, `^{tree}`, an option); None when it may name one."""
    cut = min((i for i in (text.find("~"), text.find("^")) if i >= 0), default=len(text))
    base, suffixes = text[:cut], text[cut:]
    matches = list(SUFFIX.finditer(suffixes))
    other = sorted({m.group(2) for m in matches if m.group(2) is not None} - _PEELS)
    if other:
        return (
            f"cagr cannot read `^{{{other[0]}}}` in {text!r}: a change's target is a commit.",
            "Name a commit with --base (a branch, tag, commit id or `REV~N`).",
        )
    if (
        base
        and not _NOT_IN_A_NAME.search(base)
        and not base.startswith(("-", "/"))
        and "".join(m.group(0) for m in matches) == suffixes
    ):
        return None
    return (
        f"{text!r} is not a revision cagr can read as one commit.",
        "Name a branch, a tag, a commit id, `HEAD`, or one of these followed by `~N` or `^N`"
        " (ranges, `@{...}` and `:path` are not targets).",
    )
