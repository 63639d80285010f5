"""pyproject.toml: PEP 621 `[project]` dependencies and extras, PEP 735 `[dependency-groups]`,
and Poetry's `[tool.poetry]` dependency tables.

Names, extras and group names compare by PEP 503 normalisation (`Foo_Bar` is `foo-bar`). A
`{include-group = ...}` entry of a dependency group names a group, not a package; an entry
naming the project itself (`pytest[dev]` in pytest's own `dev` group) selects its extras, whose
entries are read where they are declared; Poetry's `python` entry is the interpreter, not a
dependency.
"""

from __future__ import annotations

from cagr_core.dependencies import Declared, DependencySection

from ._python import normalise, parse_requirement
from ._reading import (
    Malformed,
    array,
    as_array,
    as_table,
    canonical,
    kind_of,
    label,
    load_toml,
    table,
)

TYPE_CHECKING = False  # not typing's: a check that reads a manifest need not import it
if TYPE_CHECKING:
    from typing import Any


def read(text: str) -> Declared:
    """The dependency sections of one pyproject.toml side; Malformed when the TOML or a
    section is not what its standard says."""
    data = load_toml(text)
    found: list[DependencySection] = []
    project = table(data, "project")
    itself = normalise(project["name"]) if isinstance(project.get("name"), str) else None
    where: tuple[str, ...] = ("project", "dependencies")
    read = _requirements(array(project, *where), where, itself)
    found.append(DependencySection(_RUNTIME, label(*where), *read))
    for extra, entries in table(project, "project", "optional-dependencies").items():
        where = ("project", "optional-dependencies", extra)
        read = _requirements(as_array(entries, *where), where, itself)
        found.append(DependencySection(f"extra {normalise(extra)}", label(*where), *read))
    for group, entries in table(data, "dependency-groups").items():
        where = ("dependency-groups", group)
        read = _requirements(as_array(entries, *where), where, itself, groups=True)
        found.append(DependencySection(_group(group), label(*where), *read))
    poetry = table(table(data, "tool"), "tool", "poetry")
    for key, name in ((_RUNTIME, "dependencies"), (_group("dev"), "dev-dependencies")):
        where = ("tool", "poetry", name)
        found.append(DependencySection(key, label(*where), *_poetry(table(poetry, *where))))
    for group, settings in table(poetry, "tool", "poetry", "group").items():
        where = ("tool", "poetry", "group", group, "dependencies")
        read = _poetry(table(as_table(settings, *where[:-1]), *where))
        found.append(DependencySection(_group(group), label(*where), *read))
    return Declared(tuple(found))


# Poetry's tables and their standard equivalents mean the same sections: moving a name from one
# spelling to the other (a migration to PEP 621 or PEP 735) adds nothing.
_RUNTIME = "runtime"


def _group(name: str) -> str:
    return f"group {normalise(name)}"


Read = tuple[dict[str, str], dict[str, str]]  # names and requirements, by normalised name


def _requirements(
    entries: list[Any], where: tuple[str, ...], itself: str | None, groups: bool = False
) -> Read:
    """The names (and requirements) of a list of PEP 508 strings but the project `itself`; with
    `groups`, `{include-group = ...}` entries (PEP 735) are allowed and name no package."""
    names: dict[str, str] = {}
    specs: dict[str, list[str]] = {}
    for index, entry in enumerate(entries):
        at = f"{label(*where)}[{index}]"
        if groups and isinstance(entry, dict) and set(entry) == {"include-group"}:
            if not isinstance(entry["include-group"], str):
                raise Malformed(f"has {at} with an include-group that is not a string")
            continue  # another group: its own entries are read where it is defined
        if not isinstance(entry, str):
            holds = "requirement strings and {include-group = ...} tables" if groups else "strings"
            raise Malformed(f"has {at} as {kind_of(entry)}; it holds {holds}")
        name, spec = parse_requirement(entry, at)
        if normalise(name) == itself:
            continue  # the project's own extras: their entries are read where they are declared
        names.setdefault(normalise(name), name)
        specs.setdefault(normalise(name), []).append(spec)
    return names, {name: "\n".join(sorted(texts)) for name, texts in specs.items()}


def _poetry(entries: dict[str, Any]) -> Read:
    """A Poetry table whose keys are package names (`python` is the interpreter)."""
    kept = {normalise(name): name for name in entries if normalise(name) != "python"}
    specs = {
        key: value if isinstance(value, str) else canonical(value)
        for key, value in ((normalise(name), value) for name, value in entries.items())
        if key in kept
    }
    return kept, specs
