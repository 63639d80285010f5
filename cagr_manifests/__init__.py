"""cagr_manifests: dependency manifests' bytes read into the core's `Declared` values.

A path's file name says which manifest it is (a rule's `format` can say so instead): package.json,
pyproject.toml, a pip requirements file, Cargo.toml or go.mod. A side that cannot be read is a
`ManifestProblem`, never an empty list. `read_change` reads the sides of one collected change
for the formats the rules need; the core's `additions` then says what the change adds.
"""

from __future__ import annotations

from collections.abc import Callable

from cagr_core.changes import Change, ChangeSet, Side
from cagr_core.dependencies import (
    MAX_MANIFEST_BYTES,
    Additions,
    Declared,
    Format,
    ManifestProblem,
    additions,
)
from cagr_core.errors import CagrError
from cagr_core.ruleset import RuleSet
from cagr_core.values import replace

from . import cargo, go_mod, package_json, pyproject, requirements
from ._reading import Malformed, decode

__all__ = ["ManifestError", "added_dependencies", "read_change", "read_changes", "read_manifest"]

_READERS: dict[Format, Callable[[str], Declared]] = {
    Format.PACKAGE_JSON: package_json.read,
    Format.PYPROJECT: pyproject.read,
    Format.REQUIREMENTS: requirements.read,
    Format.CARGO: cargo.read,
    Format.GO_MOD: go_mod.read,
}


def read_manifest(
    manifest: Format, content: bytes, max_bytes: int = MAX_MANIFEST_BYTES
) -> Declared | ManifestProblem:
    """What one side declares, or why it cannot be read."""
    if len(content) > max_bytes:
        return ManifestProblem(f"is larger than the {max_bytes} bytes cagr reads", malformed=False)
    try:
        return _READERS[manifest](decode(content))
    except Malformed as error:
        return ManifestProblem(str(error))
    except RecursionError:
        return ManifestProblem("nests too deeply to read")
    except ValueError as error:  # a library's complaint no reader anticipated
        return ManifestProblem(f"could not be read ({error})")


def _read_side(side: Side | None, formats: frozenset[Format], max_bytes: int) -> Side | None:
    if side is None or side.content is None or not side.kind.is_file:
        return side  # the evaluator says why a side it needs was not read
    read = tuple((f, read_manifest(f, side.content, max_bytes)) for f in sorted(formats, key=str))
    return replace(side, dependencies=read)


def read_change(rules: RuleSet, change: Change, max_bytes: int = MAX_MANIFEST_BYTES) -> Change:
    """The change with each loaded side read as every format a dependency rule reads its path
    as (unchanged when no rule does)."""
    formats = rules.manifest_formats(change.path)
    if not formats:
        return change
    return Change(
        change.path,
        _read_side(change.old, formats, max_bytes),
        _read_side(change.new, formats, max_bytes),
    )


def read_changes(rules: RuleSet, changes: ChangeSet) -> ChangeSet:
    """`read_change` of every change in the set."""
    read = tuple(read_change(rules, change) for change in changes.changes)
    return replace(changes, changes=read)


class ManifestError(CagrError):
    """A manifest side that cannot be read: `side` is "old" or "new", `malformed` as in
    ManifestProblem."""

    def __init__(self, message: str, side: str, *, malformed: bool = True) -> None:
        super().__init__(message)
        self.side = side
        self.malformed = malformed


def added_dependencies(manifest: Format, before: bytes | None, after: bytes | None) -> Additions:
    """What `after` adds over `before` (None: that side is absent), from their bytes;
    ManifestError for a side that cannot be read (the old side first: when both are broken,
    the change did not break the file)."""
    if after is None:
        return Additions()
    sides: list[Declared | None] = []
    for name, content in (("old", before), ("new", after)):
        read = None if content is None else read_manifest(manifest, content)
        if isinstance(read, ManifestProblem):
            raise ManifestError(f"the {name} side {read.message}", name, malformed=read.malformed)
        sides.append(read)
    return additions(manifest, sides[0], sides[1])
