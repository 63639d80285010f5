"""package.json: the names in `dependencies`, `devDependencies`, `optionalDependencies` and
`peerDependencies`. npm names are compared exactly (they are lowercase by rule).

An entry is named by the package it installs: an npm alias, `"x": "npm:lodash@4"`, installs
`lodash` (under the folder name x), so changing it to `"npm:evil-pkg@1"` adds `evil-pkg`, as
Cargo's `package = "..."` rename does.
"""

from __future__ import annotations

import json

from cagr_core.data import json_kind
from cagr_core.dependencies import Declared, DependencySection

from ._reading import Malformed

TYPE_CHECKING = False  # not typing's: a check that reads a manifest need not import it
if TYPE_CHECKING:
    from typing import Any

SECTIONS = ("dependencies", "devDependencies", "optionalDependencies", "peerDependencies")


class _Number:
    """Any JSON number: never converted, so a 5,000-digit one reads too."""


_NUMBER = _Number()


def _any_number(_: str) -> _Number:
    return _NUMBER


def read(text: str) -> Declared:
    """The sections of one package.json side; Malformed when it is not a JSON object with
    object sections."""
    try:
        data: Any = json.loads(text, parse_int=_any_number, parse_float=_any_number)
    except json.JSONDecodeError as error:
        raise Malformed(
            f"is not valid JSON ({error.msg} at line {error.lineno} column {error.colno})"
        ) from error
    except RecursionError as error:
        raise Malformed("nests too deeply to read") from error
    if not isinstance(data, dict):
        raise Malformed(f"is JSON but {json_kind(data)}, not an object")
    sections = []
    for name in SECTIONS:
        value = data.get(name, {})
        if not isinstance(value, dict):
            raise Malformed(f"has {name} as {json_kind(value)}, not an object")
        names: dict[str, str] = {}
        specs: dict[str, str] = {}
        for key, spec in value.items():
            package = _aliased(name, key, spec)
            names.setdefault(package, package)
            specs.setdefault(package, spec if isinstance(spec, str) else json_kind(spec))
        sections.append(DependencySection(name, name, names, specs))
    return Declared(tuple(sections))


def _aliased(section: str, key: str, spec: object) -> str:
    """The package an entry installs: an npm alias's (`npm:<name>[@<range>]`), else its key."""
    if not isinstance(spec, str) or not spec.startswith(_ALIAS):
        return key
    target = spec[len(_ALIAS) :].strip()
    at = target.find("@", 1)  # a scope's own `@` comes first: `npm:@scope/name@1`
    package = target if at == -1 else target[:at]
    if not package or package == "@" or (package.startswith("@") and "/" not in package):
        raise Malformed(f"has {section}.{key} as {spec!r}, an npm alias that names no package")
    return package


_ALIAS = "npm:"
