"""The `dependency_added` selector: which dependencies a manifest change adds.

A path's file name says which manifest it is (a rule's `format` can say so instead): package.json,
pyproject.toml, a pip requirements file, Cargo.toml or go.mod. A name absent from a section before
and present in it after is added, so a move between sections adds it again. Version, extra and
marker edits and removals add nothing; a new manifest starts from empty sections; a deleted one
adds nothing. A side that cannot be read is a ManifestError, never an empty list.

Each format's reader is imported only when a manifest of that format is read.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from ..errors import CagrError
from ..values import frozen
from ._reading import Declared, Malformed, decode, shown
from .formats import FORMATS, Format, format_of

__all__ = [
    "FORMATS",
    "Addition",
    "Additions",
    "Format",
    "ManifestError",
    "added_dependencies",
    "format_of",
]


class ManifestError(CagrError):
    """A manifest side that cannot be read (the rule is then unchecked).

    `side` is "old" (the baseline's copy) or "new" (the change's result); `malformed` says the
    content was read and is not a valid manifest (else cagr could not or would not read it).
    """

    def __init__(self, message: str, side: str, *, malformed: bool = True) -> None:
        super().__init__(message)
        self.side = side
        self.malformed = malformed


@frozen
class Addition:
    """One added dependency: its section as the manifest writes it (None in a requirements
    file), its name as written, and how messages show the two together."""

    section: str | None
    name: str
    label: str


@frozen
class Additions:
    """What a manifest change adds: named dependencies, and new entries that name no package
    (a requirements file's path or URL lines, as `line N (text)`), which cannot be decided."""

    added: tuple[Addition, ...] = ()
    unnamed: tuple[str, ...] = ()


_MODULES = {
    Format.PACKAGE_JSON: "package_json",
    Format.PYPROJECT: "pyproject",
    Format.REQUIREMENTS: "requirements",
    Format.CARGO: "cargo",
    Format.GO_MOD: "go_mod",
}


def _reader(manifest: Format) -> Callable[[str], Declared]:
    """The format's `read`, imported on first use."""
    read: Callable[[str], Declared] = importlib.import_module(
        f".{_MODULES[manifest]}", __name__
    ).read
    return read


def _read(manifest: Format, content: bytes, side: str) -> Declared:
    try:
        return _reader(manifest)(decode(content))
    except Malformed as error:
        raise ManifestError(f"the {side} side {error}", side) from error
    except RecursionError as error:
        raise ManifestError(f"the {side} side nests too deeply to read", side) from error
    except ValueError as error:  # a library's complaint no reader anticipated
        raise ManifestError(f"the {side} side could not be read ({error})", side) from error


def _label(manifest: Format, section: str | None, name: str) -> str:
    if section is None:
        return name
    # package.json's sections are single JSON keys: `dependencies.x`, as the proposal writes it
    return f"{section}.{name}" if manifest is Format.PACKAGE_JSON else f"{section}: {name}"


def added_dependencies(manifest: Format, before: bytes | None, after: bytes | None) -> Additions:
    """What `after` adds over `before` (None: that side is absent), in section and name order."""
    if after is None:
        return Additions()
    # The old side first: when both are broken, the change did not break the file.
    old = _read(manifest, before, "old") if before is not None else Declared()
    new = _read(manifest, after, "new")
    known: dict[str, set[str]] = {}
    for section in old.sections:
        known.setdefault(section.key, set()).update(section.names)
    added = []
    for section in sorted(new.sections, key=lambda s: (s.key, s.label or "")):
        was = known.setdefault(section.key, set())
        for normalised in sorted(section.names.keys() - was):
            was.add(normalised)  # a name written in two spellings of a section is added once
            name = section.names[normalised]
            added.append(Addition(section.label, name, _label(manifest, section.label, name)))
    unnamed = tuple(
        f"line {line} ({shown(text)})"
        for text, line in sorted(new.unnamed.items(), key=lambda item: item[1])
        if text not in old.unnamed
    )
    return Additions(tuple(added), unnamed)
