"""Cargo.toml: `[dependencies]`, `[dev-dependencies]`, `[build-dependencies]`, the same under
`[target.<platform>]`, and `[workspace.dependencies]`.

An entry is named by its package: `foo = { package = "bar" }` depends on `bar`. An entry that
inherits from the workspace (`foo.workspace = true`) is named by its key. Crate names compare
with case and `-`/`_` ignored, as crates.io compares them; Cargo's old `dev_dependencies` and
`build_dependencies` spellings are the same sections as the dashed ones.
"""

from __future__ import annotations

from cagr_core.dependencies import Declared, DependencySection

from ._reading import Malformed, as_table, canonical, kind_of, label, load_toml, table

TYPE_CHECKING = False  # not typing's: a check that reads a manifest need not import it
if TYPE_CHECKING:
    from typing import Any

_KINDS = {
    "dependencies": "dependencies",
    "dev-dependencies": "dev-dependencies",
    "dev_dependencies": "dev-dependencies",
    "build-dependencies": "build-dependencies",
    "build_dependencies": "build-dependencies",
}


def normalise(name: str) -> str:
    """crates.io's equivalence: `Serde_JSON` is `serde-json`."""
    return name.lower().replace("_", "-")


def read(text: str) -> Declared:
    """The dependency tables of one Cargo.toml side; Malformed when the TOML or a table is not
    what Cargo reads."""
    data = load_toml(text)
    found = _tables(data, ())
    for platform, settings in table(data, "target").items():
        found.extend(_tables(as_table(settings, "target", platform), ("target", platform)))
    where = ("workspace", "dependencies")
    entries = table(table(data, "workspace"), *where)
    names = _names(entries, where)
    found.append(DependencySection(label(*where), label(*where), names, _specs(entries)))
    return Declared(tuple(found))


def _tables(parent: dict[str, Any], where: tuple[str, ...]) -> list[DependencySection]:
    sections = []
    for key, kind in _KINDS.items():
        if key in parent:
            entries = table(parent, *where, key)
            names = _names(entries, (*where, key))
            sections.append(
                DependencySection(label(*where, kind), label(*where, key), names, _specs(entries))
            )
    return sections


def _specs(entries: dict[str, Any]) -> dict[str, str]:
    """Each crate's requirement as written (a version, or its table), keyed as `_names`."""
    specs: dict[str, list[str]] = {}
    for key, value in entries.items():
        package = value.get("package", key) if isinstance(value, dict) else key
        text = value if isinstance(value, str) else canonical(value)
        specs.setdefault(normalise(str(package)), []).append(text)
    return {name: "\n".join(sorted(texts)) for name, texts in specs.items()}


def _names(entries: dict[str, Any], where: tuple[str, ...]) -> dict[str, str]:
    names: dict[str, str] = {}
    for key, value in entries.items():
        name = key
        if isinstance(value, dict) and "package" in value:
            package = value["package"]
            if not isinstance(package, str) or not package:
                what = "an empty string" if package == "" else kind_of(package)
                raise Malformed(f"has {label(*where, key, 'package')} as {what}, not a crate name")
            name = package
        names.setdefault(normalise(name), name)
    return names
