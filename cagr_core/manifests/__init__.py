"""The `dependency_added` selector: which dependencies a manifest change adds.

A path's file name says which manifest it is (a rule's `format` can say so instead): package.json,
pyproject.toml, a pip requirements file, Cargo.toml or go.mod. A name absent from a section before
and present in it after is added, so a move between sections adds it again. Version, extra and
marker edits and removals add nothing; a new manifest starts from empty sections; a deleted one
adds nothing. A side that cannot be read is a ManifestError, never an empty list.

Each format's reader is imported only when a manifest of that format is read.
"""

from __future__ import annotations

import enum
import importlib
from collections.abc import Callable, Iterator

from attrs import frozen

from ..errors import CagrError
from ..globs import GLOB_CHARS, PathMatcher, expand
from ._reading import Declared, Malformed, decode, shown

__all__ = [
    "FORMATS",
    "Addition",
    "Additions",
    "Format",
    "ManifestError",
    "added_dependencies",
    "could_be_read",
    "format_of",
]


class Format(enum.Enum):
    """A manifest format the selector reads."""

    PACKAGE_JSON = "package.json"
    PYPROJECT = "pyproject.toml"
    REQUIREMENTS = "requirements"
    CARGO = "Cargo.toml"
    GO_MOD = "go.mod"

    @property
    def described(self) -> str:
        """What a file of this format is, for messages."""
        return _DESCRIBED[self]


_DESCRIBED = {
    Format.PACKAGE_JSON: "a package.json",
    Format.PYPROJECT: "a pyproject.toml",
    Format.REQUIREMENTS: "a pip requirements file",
    Format.CARGO: "a Cargo.toml",
    Format.GO_MOD: "a go.mod",
}
_BY_NAME = {
    "package.json": Format.PACKAGE_JSON,
    "pyproject.toml": Format.PYPROJECT,
    "Cargo.toml": Format.CARGO,
    "go.mod": Format.GO_MOD,
}
FORMATS = (
    "package.json, pyproject.toml, pip requirements files (a .txt or .in file whose name"
    " holds `requirements` or that sits in a requirements/ folder), Cargo.toml and go.mod"
)
_DOTTED = Format.PACKAGE_JSON  # its sections are single JSON keys: `dependencies.x`


def format_of(path: str) -> Format | None:
    """The manifest format a repository path's name says, if any."""
    folder, _, name = path.rpartition("/")
    known = _BY_NAME.get(name)
    if known is not None:
        return known
    lowered = name.lower()
    if lowered.endswith((".txt", ".in")) and (
        "requirements" in lowered or folder.rpartition("/")[2] == "requirements"
    ):
        return Format.REQUIREMENTS
    return None


class ManifestError(CagrError):
    """A manifest side that cannot be read (the rule is then unchecked).

    `side` is "old" (the baseline's copy) or "new" (the change's result).
    """

    def __init__(self, message: str, side: str) -> None:
        super().__init__(message)
        self.side = side


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
    return f"{section}.{name}" if manifest is _DOTTED else f"{section}: {name}"


def added_dependencies(manifest: Format, before: bytes | None, after: bytes | None) -> Additions:
    """What `after` adds over `before` (None: that side is absent), in section and name order."""
    if after is None:
        return Additions()
    new = _read(manifest, after, "new")
    old = _read(manifest, before, "old") if before is not None else Declared()
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


_PROBES = (
    *_BY_NAME,
    "requirements.txt",
    "requirements.in",
    "requirements-dev.txt",
    "dev-requirements.txt",
    "requirements_dev.txt",
    "requirements.dev.txt",
)


def could_be_read(pattern: str) -> bool:
    """Whether a (valid) glob can match a path whose name says it is a manifest: tried on
    manifest names and on the pattern's own names with its wildcards filled in."""
    matcher = PathMatcher.compile([pattern])
    return any(
        matcher.matches(path) and format_of(path) is not None for path in _candidates(pattern)
    )


def _candidates(pattern: str) -> Iterator[str]:
    for alternative in expand(pattern.removeprefix("/")):
        *folders, last = alternative.split("/")
        # A wildcard folder may be a requirements/ folder; a literal one is what it says.
        wild = any(GLOB_CHARS.intersection(folder) for folder in folders)
        for star in ("", "requirements"):
            base = [name for name in (_instance(f, star) for f in folders if f != "**") if name]
            names = [*_PROBES, _instance(last, star)] if last != "**" else list(_PROBES)
            for name in filter(None, names):
                yield "/".join([*base, name])
                if wild:
                    yield "/".join([*base, "requirements", name])


def _instance(name: str, star: str) -> str:
    """One name a glob component matches (escapes undone, `*` as `star`), or near enough: the
    matcher decides."""
    out = []
    index = 0
    while index < len(name):
        char = name[index]
        close = name.find("]", index + 2) if char == "[" else -1
        if char == "\\" and index + 1 < len(name):
            out.append(name[index + 1])
            index += 2
            continue
        if close != -1:
            choices = name[index + 1 : close]
            negated = choices[0] in "!^"
            out.append(
                next((c for c in "xq_0" if c not in choices), "x") if negated else choices[0]
            )
            index = close + 1
            continue
        out.append({"*": star, "?": "r"}.get(char, char))
        index += 1
    return "".join(out)
