"""Whether a CI checkout can be trusted: the right commit, full history, and a clean tree.

The verdict is computed from committed trees, so local dirt never changes it; a dirty checkout
still fails the job, separately, because something in the job wrote files it should not have
(and a formatter or generator that writes a missing companion must never look like a pass).
"""

from __future__ import annotations

import os

from cagr_core.changes import ChangeSet
from cagr_core.ruleset import RuleSet
from cagr_core.values import value
from cagr_git.discover import Checkout
from cagr_git.refs import read_ref
from cagr_git.repository import open_repo
from cagr_repo.collect import collect_working_tree

from .event import EventError

Snapshot = dict[str, tuple[int, str] | None]  # path -> the working tree's (mode, id); None: gone


class CheckoutError(EventError):
    """The checkout is not the commit the event names (exit 2); `fix` says how to set it up."""


def head_of(checkout: Checkout) -> str | None:
    """The commit HEAD is at, or None when HEAD has no commit."""
    return read_ref(checkout, "HEAD")


def is_shallow(checkout: Checkout) -> bool:
    """Whether the clone's history is cut off (`git clone --depth`, actions/checkout's default)."""
    try:
        return os.path.getsize(os.path.join(checkout.commondir, "shallow")) > 0
    except OSError:
        return False


@value
class LocalChanges:
    """How the working tree and index differ from HEAD: what a clean checkout has none of."""

    entries: tuple[tuple[str, tuple[int, str] | None], ...]  # sorted (path, (mode, id) | None)
    pending_staged: tuple[str, ...]
    unknown: tuple[str, ...]  # what could not be read (so cleanliness is not known)
    new: frozenset[str] = frozenset()  # paths HEAD does not have (untracked or newly added)

    @property
    def paths(self) -> tuple[str, ...]:
        """What differs from HEAD (empty: clean, as far as it could be read)."""
        return tuple(sorted({path for path, _ in self.entries} | set(self.pending_staged)))

    def since(self, before: LocalChanges) -> tuple[str, ...]:
        """Paths whose local state differs from `before`'s: what was written in between."""
        old = dict(before.entries)
        new = dict(self.entries)
        changed = {path for path in old.keys() | new.keys() if old.get(path) != new.get(path)}
        changed |= set(self.pending_staged) ^ set(before.pending_staged)
        return tuple(sorted(changed))


def local_changes(checkout: Checkout, head: str) -> LocalChanges:
    """Tracked changes, staged-only content and untracked files that are not ignored, against
    `head` (read-only: the index is never refreshed)."""
    with open_repo(checkout) as repo:
        changes: ChangeSet = collect_working_tree(repo, head, RuleSet.of(()))
    entries = tuple(
        (change.path, (change.new.mode, change.new.oid) if change.new else None)
        for change in changes.changes
    )
    unknown = tuple(item.message for item in changes.unchecked)
    new = frozenset(change.path for change in changes.changes if change.old is None)
    return LocalChanges(entries, changes.pending_staged, unknown, new)


def ignore_patterns(appeared: tuple[str, ...], tracked: list[str]) -> list[str]:
    """`.gitignore` lines that would ignore files a command wrote: `__pycache__/` for Python's
    caches, a new folder (one that holds no tracked file) as `/folder/`, else the file itself."""
    folders: set[str] = set()
    for path in tracked:
        parts = path.split("/")
        folders.update("/".join(parts[:n]) for n in range(1, len(parts)))
    patterns: list[str] = []
    for path in appeared:
        parts = path.split("/")
        above = ["/".join(parts[:n]) for n in range(1, len(parts))]
        new_folder = next((folder for folder in above if folder not in folders), None)
        if "__pycache__" in parts[:-1]:
            pattern = "__pycache__/"
        elif new_folder is not None:
            pattern = f"/{new_folder}/"
        else:
            pattern = f"/{path}"
        if pattern not in patterns:
            patterns.append(pattern)
    return patterns
