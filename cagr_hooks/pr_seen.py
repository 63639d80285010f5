"""The last PR command the gate judged in this worktree (`<gitdir>/cagr/pr-seen.json`).

Two later moments need what the gate saw, and only the gate sees the PR command:
- the turn end says what the pull request will owe; a body the gate judged and found meeting an
  obligation, for the HEAD it judged, owes it no longer (its head, and each met obligation as
  rule, section and `contains`);
- the committed record is kept current for the target the PR names (`gh pr create --base B`, or
  none: cagr's default): a record the person made for another target is renewed for that one
  until a PR command names its own, newer than the record.
Not a pass: nothing here lets a command through. Standard library only: the gate writes it.
"""

from __future__ import annotations

import json
import time

from cagr_core.values import value
from cagr_repo.state import PR_SEEN, load, save

Obligation = tuple[str, str, str | None]  # rule, section, contains


@value
class Seen:
    """The PR command's commit, its target (`base` None: cagr's default), when, and the body
    obligations its description was judged to meet (empty: none judged, or none met)."""

    head: str
    base: str | None
    at: float
    met: frozenset[Obligation] = frozenset()


def remember(gitdir: str, seen: Seen) -> None:
    data = {
        "head": seen.head,
        "base": seen.base,
        "at": seen.at,
        "met": sorted([list(o) for o in seen.met], key=str),
    }
    save(gitdir, PR_SEEN, json.dumps(data).encode())


def seen_now(head: str, base: str | None, met: frozenset[Obligation] = frozenset()) -> Seen:
    return Seen(head, base, time.time(), met)


def last(gitdir: str) -> Seen | None:
    """What the gate last saw here, or None (absent, or not what `remember` writes)."""
    data = load(gitdir, PR_SEEN, limit=256 * 1024)
    try:
        item = json.loads(data) if data is not None else None
    except ValueError:
        return None
    if not isinstance(item, dict):
        return None
    head, base, at, met = item.get("head"), item.get("base"), item.get("at"), item.get("met")
    if not isinstance(head, str) or not isinstance(at, int | float):
        return None
    if base is not None and not isinstance(base, str):
        return None
    if not isinstance(met, list) or not all(_obligation(o) for o in met):
        return None
    return Seen(head, base, float(at), frozenset((o[0], o[1], o[2]) for o in met))


def _obligation(item: object) -> bool:
    return (
        isinstance(item, list)
        and len(item) == 3
        and isinstance(item[0], str)
        and isinstance(item[1], str)
        and (item[2] is None or isinstance(item[2], str))
    )
