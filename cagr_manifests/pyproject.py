"""pyproject.toml: PEP 621 `[project]` dependencies and extras, PEP 735 `[dependency-groups]`,
and Poetry's `[tool.poetry]` dependency tables.

Names, extras and group names compare by PEP 503 normalisation (`Foo_Bar` is `foo-bar`). A
`{include-group = ...}` entry of a dependency group names a group, not a package; Poetry's
`python` entry is the interpreter, not a dependency.
"""

from __future__ import annotations

from cagr_core.dependencies import Declared, DependencySection

from ._python import normalise, requirement_name
from ._reading import (
    Malformed,
    array,
    as_array,
    as_table,
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
    where: tuple[str, ...] = ("project", "dependencies")
    found.append(
        DependencySection(_RUNTIME, label(*where), _requirements(array(project, *where), where))
    )
    for extra, entries in table(project, "project", "optional-dependencies").items():
        where = ("project", "optional-dependencies", extra)
        names = _requirements(as_array(entries, *where), where)
        found.append(DependencySection(f"extra {normalise(extra)}", label(*where), names))
    for group, entries in table(data, "dependency-groups").items():
        where = ("dependency-groups", group)
        names = _requirements(as_array(entries, *where), where, groups=True)
        found.append(DependencySection(_group(group), label(*where), names))
    poetry = table(table(data, "tool"), "tool", "poetry")
    for key, name in ((_RUNTIME, "dependencies"), (_group("dev"), "dev-dependencies")):
        where = ("tool", "poetry", name)
        found.append(DependencySection(key, label(*where), _poetry(table(poetry, *where))))
    for group, settings in table(poetry, "tool", "poetry", "group").items():
        where = ("tool", "poetry", "group", group, "dependencies")
        names = _poetry(table(as_table(settings, *where[:-1]), *where))
        found.append(DependencySection(_group(group), label(*where), names))
    return Declared(tuple(found))


# Poetry's tables and their standard equivalents mean the same sections: moving a name from one
# spelling to the other (a migration to PEP 621 or PEP 735) adds nothing.
_RUNTIME = "runtime"


def _group(name: str) -> str:
    return f"group {normalise(name)}"


def _requirements(
    entries: list[Any], where: tuple[str, ...], groups: bool = False
) -> dict[str, str]:
    """The names of a list of PEP 508 strings; with `groups`, `{include-group = ...}` entries
    (PEP 735) are allowed and name no package."""
    names: dict[str, str] = {}
    for index, entry in enumerate(entries):
        at = f"{label(*where)}[{index}]"
        if groups and isinstance(entry, dict) and set(entry) == {"include-group"}:
            if not isinstance(entry["include-group"], str):
                raise Malformed(f"has {at} with an include-group that is not a string")
            continue  # another group: its own entries are read where it is defined
        if not isinstance(entry, str):
            holds = "requirement strings and {include-group = ...} tables" if groups else "strings"
            raise Malformed(f"has {at} as {kind_of(entry)}; it holds {holds}")
        name = requirement_name(entry, at)
        names.setdefault(normalise(name), name)
    return names


def _poetry(entries: dict[str, Any]) -> dict[str, str]:
    """A Poetry table whose keys are package names (`python` is the interpreter)."""
    return {normalise(name): name for name in entries if normalise(name) != "python"}
