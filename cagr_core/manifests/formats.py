"""Which paths are manifests: the formats the dependency selector reads, told by file name."""

from __future__ import annotations

import enum
from collections.abc import Iterator

from ..globs import GLOB_CHARS


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
    from ..glob_compile import compile_matcher  # noqa: PLC0415  # config validation only

    matcher = compile_matcher([pattern])
    return any(
        matcher.matches(path) and format_of(path) is not None for path in _candidates(pattern)
    )


def _candidates(pattern: str) -> Iterator[str]:
    from ..glob_compile import expand  # noqa: PLC0415

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
