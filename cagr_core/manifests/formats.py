"""Which paths are manifests: the formats the dependency selector reads, told by file name."""

from __future__ import annotations

import enum


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
