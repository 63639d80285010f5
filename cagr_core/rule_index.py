"""An index of a RuleSet's path matchers: one pass over the paths finds what each matcher matches.

Trying every rule's globs on every changed path costs rules x paths. The index instead files
each pattern under a literal part that every path it matches must have:

- a literal leading folder (`src/app/**`, `/docs/*.md`), looked up once per folder of the paths;
- a literal end of the last component (`*.ts`, `**/package.json`, `test_*.py`), looked up by the
  path's last characters;
- a literal component anywhere else (`**/migrations/**`), looked up once per path component;
- a whole literal path or name (`/CHANGELOG.md`, `package.json`), which that lookup alone decides.

A pattern filed nowhere (`*`, `src*/**`, an escape, a brace form wcmatch reads differently) is
tried on every path. A lookup only proposes candidates; each is decided by the matcher itself
(PathMatcher), so a pattern filed too broadly costs time, never exactness. Where each pattern
files is worked out when it is compiled (cagr_core.glob_compile) and kept with the matcher.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from .globs import PathMatcher
from .values import value


def _nothing() -> None:
    return None


@value
class Matches:
    """Which of some paths each indexed matcher matches, as positions in ascending order."""

    _ids: dict[tuple[str, ...], int]
    _positions: tuple[list[int], ...]

    def positions(self, matcher: PathMatcher) -> list[int]:
        return self._positions[self._ids[matcher.patterns]]


@value
class RuleIndex:
    """Distinct path matchers, filed by the literal parts of their patterns."""

    matchers: tuple[PathMatcher, ...]
    _ids: dict[tuple[str, ...], int]
    _paths: dict[str, tuple[int, ...]]  # a whole literal path: matches exactly that path
    _names: dict[str, tuple[int, ...]]  # a whole literal name: matches exactly that basename
    _folders: dict[str, tuple[int, ...]]  # a literal leading folder: a candidate below it
    _ends: dict[str, tuple[int, ...]]  # a literal end: a candidate when the name ends so
    _end_sizes: tuple[int, ...]
    _parts: dict[str, tuple[int, ...]]  # a literal component: a candidate when the path has it
    _everywhere: tuple[int, ...]  # filed nowhere: a candidate on every path

    @classmethod
    def build(cls, matchers: Iterable[PathMatcher]) -> RuleIndex:
        """File each distinct matcher (by its patterns) under every place its patterns give."""
        distinct = {m.patterns: m for m in matchers}
        ids = {patterns: n for n, patterns in enumerate(distinct)}
        filed: dict[str, dict[str, list[int]]] = {
            kind: {} for kind in ("path", "name", "folder", "end", "part")
        }
        everywhere = []
        for patterns, n in ids.items():
            places = distinct[patterns].places
            if None in places:
                everywhere.append(n)
                continue
            for kind, key in filter(None, places):
                filed[kind].setdefault(key, []).append(n)
        tables = {kind: {k: tuple(v) for k, v in by_key.items()} for kind, by_key in filed.items()}
        return cls(
            tuple(distinct.values()),
            ids,
            tables["path"],
            tables["name"],
            tables["folder"],
            tables["end"],
            tuple(sorted({len(end) for end in tables["end"]})),
            tables["part"],
            tuple(everywhere),
        )

    def match(self, paths: Sequence[str], tick: Callable[[], None] = _nothing) -> Matches:
        """Every indexed matcher against `paths`; `tick` is called once per path."""
        found: tuple[list[int], ...] = tuple([] for _ in self.matchers)
        by_folder: dict[str, tuple[int, ...] | None] = {}
        everything = range(len(self.matchers))
        for position, path in enumerate(paths):
            tick()
            folder, _, name = path.rpartition("/")
            if folder not in by_folder:
                by_folder[folder] = self._below(folder)
            below = by_folder[folder]
            if below is None or name in ("", ".", ".."):
                # An odd path (a//b, a/./b): wcmatch treats these specially, so the literal
                # lookups prove nothing; every matcher decides for itself.
                for n in everything:
                    if self.matchers[n].matches(path):
                        found[n].append(position)
                continue
            sure = set(self._paths.get(path, ()))
            sure.update(self._names.get(name, ()))
            maybe = set(below)
            maybe.update(self._everywhere)
            maybe.update(self._parts.get(name, ()))
            for size in self._end_sizes:
                if size > len(name):
                    break
                maybe.update(self._ends.get(name[-size:], ()))
            for n in maybe - sure:
                if self.matchers[n].matches(path):
                    sure.add(n)
            for n in sure:
                found[n].append(position)
        return Matches(self._ids, found)

    def _below(self, folder: str) -> tuple[int, ...] | None:
        """The candidates for every path in this folder, by its leading folders and its
        components (None: an odd folder, where no lookup is sure)."""
        if not folder:
            return ()
        parts = folder.split("/")
        if any(part in ("", ".", "..") for part in parts):
            return None
        below: list[int] = []
        for depth, part in enumerate(parts, 1):
            below.extend(self._folders.get("/".join(parts[:depth]), ()))
            below.extend(self._parts.get(part, ()))
        return tuple(below)
