"""Where a checkout keeps cagr's editor schema: where its config files' `#:schema` lines point.

`cagr init` writes `.cagr/cagr.schema.json` and points `.cagr/changes.toml` at it
(`#:schema ./cagr.schema.json`), so that is the default; a config file whose `#:schema` line
names another local file (cagr's own repository keeps `schema/cagr.schema.json`) moves it there.
A line naming a URL, or a file outside the repository, is the editor's business, not cagr's.
Standard library only.
"""

from __future__ import annotations

import posixpath

from cagr_config.sources import PYPROJECT

from .config_files import find_config_files

DEFAULT_SCHEMA_FILE = ".cagr/cagr.schema.json"  # beside the rules: init adds no top-level folder
SCHEMA_DIRECTIVE = "#:schema"


def schema_target(name: str, data: bytes) -> str | None:
    """The repository path a config file's leading `#:schema` line names (None: no line, a
    URL, or a path that leaves the repository). `name` is the file's repository path."""
    for raw in data.splitlines():
        line = raw.decode("utf-8", "replace").strip()
        if line.startswith(SCHEMA_DIRECTIVE):
            target = line[len(SCHEMA_DIRECTIVE) :].strip()
            break
        if line and not line.startswith("#"):
            return None  # editors read the directive only before the first key or table
    else:
        return None
    if not target or "://" in target or target.startswith(("/", "\\")):
        return None
    path = posixpath.normpath(posixpath.join(posixpath.dirname(name), target))
    return None if path == ".." or path.startswith("../") else path


def schema_files(root: str) -> list[str]:
    """The repository paths of the schema files the checkout at `root` uses, in config order:
    those its config files' `#:schema` lines name, else `.cagr/cagr.schema.json`."""
    found = find_config_files(root)
    targets = (schema_target(name, data) for name, data in found.read if name != PYPROJECT)
    return list(dict.fromkeys(t for t in targets if t is not None)) or [DEFAULT_SCHEMA_FILE]
