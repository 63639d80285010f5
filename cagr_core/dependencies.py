"""What the dependency selector judges: manifest formats, what a side declares, what a change adds.

The readers that turn a manifest's bytes into `Declared` values are cagr_manifests; here are the
values and the rule for what counts as added: a name absent from a section before and present
in it after, so a move between sections adds it again. Version, extra and marker edits and
removals add nothing; a new manifest starts from empty sections; a deleted one adds nothing.
What counts as changed (`dependency_changed`): a name added, or removed, or whose requirement
(version, extras, markers, source: `specs`, as the reader canonicalises them) differs.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping

from .values import field, value

MAX_MANIFEST_BYTES = 1024 * 1024  # the most of one manifest side cagr reads (<= MAX_CONTENT_BYTES)


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
MANIFEST_NAMES = tuple(_BY_NAME)  # the file names that say their format
FORMATS = (
    "package.json, pyproject.toml, pip requirements files (a .txt or .in file whose name"
    " holds `requirements` or that sits in a requirements/ folder), Cargo.toml and go.mod"
)


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


@value
class DependencySection:
    """One dependency section as a side writes it.

    `key` is what the section means: two spellings of one section (Poetry's dev group and PEP
    735's `dev` group, Cargo's `dev_dependencies` and `dev-dependencies`) share it, so moving a
    name between them adds nothing. `label` is the section as written (`dependency-groups.dev`),
    None for a format without sections; `names` maps each normalised name to its spelling, and
    `specs` each normalised name to its requirement (what a version, extra, marker or source
    edit changes; empty text when the format writes none).
    """

    key: str
    label: str | None
    names: Mapping[str, str]
    specs: Mapping[str, str] = field(factory=dict)


@value
class Declared:
    """Everything one side of a manifest declares: its sections, and the entries that name no
    package (requirements files: a path or URL), each with its line."""

    sections: tuple[DependencySection, ...] = ()
    unnamed: Mapping[str, int] = field(factory=dict)


@value
class ManifestProblem:
    """Why one side of a manifest could not be read: the message completes "the new side ..."
    (`is not valid JSON (...)`); `malformed` says the content was read and is not a valid
    manifest (else cagr could not or would not read it: too large, not loaded)."""

    message: str
    malformed: bool = True


@value
class Addition:
    """One added dependency: its section as the manifest writes it (None in a requirements
    file), its name as written, and how messages show the two together. `key` is the name
    normalised; `change` is `added`, or (`dependency_changed`) `removed` or `changed`."""

    section: str | None
    name: str
    label: str
    key: str = ""
    change: str = "added"


@value
class Additions:
    """What a manifest change adds: named dependencies, and new entries that name no package
    (a requirements file's path or URL lines, as `line N (text)`), which cannot be decided."""

    added: tuple[Addition, ...] = ()
    unnamed: tuple[str, ...] = ()


def _label(manifest: Format, section: str | None, name: str) -> str:
    if section is None:
        return name
    # package.json's sections are single JSON keys: `dependencies.x`, as the proposal writes it
    return f"{section}.{name}" if manifest is Format.PACKAGE_JSON else f"{section}: {name}"


def shown(text: str, limit: int = 80) -> str:
    """Source text for a message: one line, cut to `limit` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def additions(manifest: Format, old: Declared | None, new: Declared | None) -> Additions:
    """What `new` adds over `old` (None: that side is absent), in section and name order."""
    if new is None:
        return Additions()
    old = old or Declared()
    known: dict[str, set[str]] = {}
    for section in old.sections:
        known.setdefault(section.key, set()).update(section.names)
    added = []
    for section in sorted(new.sections, key=lambda s: (s.key, s.label or "")):
        was = known.setdefault(section.key, set())
        for normalised in sorted(section.names.keys() - was):
            was.add(normalised)  # a name written in two spellings of a section is added once
            name = section.names[normalised]
            label = _label(manifest, section.label, name)
            added.append(Addition(section.label, name, label, normalised))
    unnamed = tuple(
        f"line {line} ({shown(text)})"
        for text, line in sorted(new.unnamed.items(), key=lambda item: item[1])
        if text not in old.unnamed
    )
    return Additions(tuple(added), unnamed)


def _declared_specs(side: Declared) -> dict[tuple[str, str], tuple[str | None, str, str]]:
    """(section key, normalised name) -> (section label, spelling, requirement)."""
    found: dict[tuple[str, str], tuple[str | None, str, str]] = {}
    for section in side.sections:
        for normalised, name in section.names.items():
            spec = section.specs.get(normalised, "")
            was = found.get((section.key, normalised))
            if was is not None:  # one section written two ways: both requirements count
                spec = "\n".join(sorted({*was[2].split("\n"), spec}))
            found[(section.key, normalised)] = (section.label, name, spec)
    return found


def changes(manifest: Format, old: Declared | None, new: Declared | None) -> Additions:
    """What `new` adds, removes and changes over `old` (None: that side is absent): each name
    added to or removed from a section, or whose requirement differs, in section and name
    order; labels say which (`removed dependencies.x`, `dependencies.y ^1 -> ^2`)."""
    before = _declared_specs(old or Declared())
    after = _declared_specs(new or Declared())
    edits = []
    for where in sorted(before.keys() | after.keys()):
        was, now = before.get(where), after.get(where)
        if was is not None and now is not None and was[2] == now[2]:
            continue
        section, name, _ = now or was  # type: ignore[misc]  # one of them is set
        label = _label(manifest, section, name)
        if was is None:
            edits.append(Addition(section, name, f"added {label}", where[1]))
        elif now is None:
            edits.append(Addition(section, name, f"removed {label}", where[1], "removed"))
        else:
            spec = f"{shown(was[2], 30) or '(none)'} -> {shown(now[2], 30) or '(none)'}"
            edits.append(Addition(section, name, f"{label} {spec}", where[1], "changed"))
    unnamed = tuple(
        f"line {line} ({shown(text)})"
        for text, line in sorted((new or Declared()).unnamed.items(), key=lambda item: item[1])
        if text not in (old or Declared()).unnamed
    )
    return Additions(tuple(edits), unnamed)


# How each ecosystem compares names, for `ignore_dependencies`: Python (PEP 503) and Rust fold
# case and separators, npm and Go compare exactly.
FOLDED_FORMATS = frozenset({Format.PYPROJECT, Format.REQUIREMENTS, Format.CARGO})


@value
class NameFilter:
    """A dependency rule's `ignore_dependencies`: the globs as written, and each as a regular
    expression on names compared exactly (npm, Go) and on names folded (Python, Rust: the glob
    lowercased, with `-`, `_` and `.` as one separator)."""

    globs: tuple[str, ...]
    exact: tuple[str, ...]
    folded: tuple[str, ...]

    def ignores(self, manifest: Format, key: str) -> bool:
        """Whether the normalised name `key` of a dependency in `manifest` is ignored."""
        sources = self.folded if manifest in FOLDED_FORMATS else self.exact
        return any(re.fullmatch(source, key) for source in sources)
