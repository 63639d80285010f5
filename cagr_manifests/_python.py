"""Python package names: PEP 503 normalisation, and the name of a PEP 508 requirement string."""

from __future__ import annotations

import re

from cagr_core.dependencies import shown

from ._reading import Malformed

_SEPARATORS = re.compile(r"[-_.]+")


def normalise(name: str) -> str:
    """PEP 503: `Foo_Bar`, `foo.bar` and `foo-bar` are one project."""
    return _SEPARATORS.sub("-", name).lower()


def requirement_name(text: str, where: str) -> str:
    """The project a PEP 508 requirement names, as written; Malformed (naming `where`) when
    packaging cannot parse it."""
    return parse_requirement(text, where)[0]


def parse_requirement(text: str, where: str) -> tuple[str, str]:
    """The project a PEP 508 requirement names, as written, and the rest of it as packaging
    writes it (extras sorted, specifiers ordered, markers normalised): a respelt name or a
    reordered specifier is no change. Malformed (naming `where`) when it cannot be parsed."""
    # packaging costs tens of milliseconds: paid only when a Python manifest is read.
    from packaging.requirements import InvalidRequirement, Requirement  # noqa: PLC0415

    try:
        parsed = Requirement(text)
        extras = f"[{','.join(sorted(parsed.extras))}]" if parsed.extras else ""
        url = f" @ {parsed.url}" if parsed.url else ""
        marker = f"; {parsed.marker}" if parsed.marker else ""
        return parsed.name, f"{extras}{parsed.specifier}{url}{marker}"
    except InvalidRequirement as error:
        first = str(error).splitlines()[0] if str(error) else "not a requirement"
        raise Malformed(
            f"has {where} `{shown(text)}`, which is not a PEP 508 requirement ({first})"
        ) from error
    except RecursionError as error:
        raise Malformed(f"has {where} `{shown(text)}`, which nests too deeply to read") from error
