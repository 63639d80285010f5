"""What a code rule found in one side of a change, and which of it is new against the baseline.

cagr_code runs ast-grep over the sides a code rule selects and puts what it matched on each side
(`CodeMatch`: the matched text and where it starts), or why it could not (`CodeProblem`: an
unknown language, text that does not parse, a file too large). The core decides what is new: a
match is new unless the baseline's version of the path holds the same rule's same text, counted,
so a third identical `print(x)` where the baseline had two is one new finding.
"""

from __future__ import annotations

from .values import value

MAX_CODE_BYTES = 1024 * 1024  # of each side a code rule reads (<= changes.MAX_CONTENT_BYTES)
_PAIRING_LIMIT = 1_000_000  # old x new occurrences of one text paired by position, at most


@value
class CodeMatch:
    """One match: its text and where it starts (1-based line and column, in characters)."""

    text: str
    line: int
    column: int


@value
class CodeProblem:
    """Why a side could not be searched; `everywhere`: no side can be (ast-grep is missing)."""

    message: str
    everywhere: bool = False


CodeRead = tuple[CodeMatch, ...] | CodeProblem


def new_matches(before: tuple[CodeMatch, ...], after: tuple[CodeMatch, ...]) -> list[CodeMatch]:
    """The matches of `after` that `before` does not account for, in file order: per matched
    text, as many as `after` holds more of it. Which ones those are is decided by pairing each
    of `before`'s occurrences with one of `after`'s in order, as close in line as can be (an
    occurrence inserted above the old ones is the new one, not the last)."""
    old: dict[str, list[int]] = {}
    for match in before:
        old.setdefault(match.text, []).append(match.line)
    new: dict[str, list[CodeMatch]] = {}
    for match in after:
        new.setdefault(match.text, []).append(match)
    found: list[CodeMatch] = []
    for text, occurrences in new.items():
        lines = sorted(old.get(text, ()))
        if len(occurrences) > len(lines):
            found.extend(_unpaired(lines, sorted(occurrences, key=_position)))
    return sorted(found, key=_position)


def _position(match: CodeMatch) -> tuple[int, int]:
    return (match.line, match.column)


def _unpaired(old: list[int], new: list[CodeMatch]) -> list[CodeMatch]:
    """The occurrences of `new` left over when each line of `old` is paired, in order, with one
    of them at the least total distance in lines (all of them when `old` is empty)."""
    extra = len(new) - len(old)
    if not old:
        return new
    if len(old) * len(new) > _PAIRING_LIMIT:
        return new[len(old) :]  # too many to pair by position: the last ones are the new ones
    # cost[j]: the least distance pairing old[:i] with i of new[:j + i] (monotone pairing).
    inf = float("inf")
    width = extra + 1
    cost = [0.0] * width
    choice: list[list[bool]] = []  # per old index, per offset: paired at new[i + offset]
    for i, line in enumerate(old):
        row = [inf] * width
        took = [False] * width
        for offset in range(width):
            skip = row[offset - 1] if offset else inf  # new[i + offset - 1 ...] left unpaired
            pair = cost[offset] + abs(new[i + offset].line - line)
            if pair <= skip:
                row[offset], took[offset] = pair, True
            else:
                row[offset] = skip
        cost = row
        choice.append(took)
    paired: set[int] = set()
    offset = extra
    for i in range(len(old) - 1, -1, -1):
        while not choice[i][offset]:
            offset -= 1
        paired.add(i + offset)
    return [match for index, match in enumerate(new) if index not in paired]
