"""Where a rule is declared: its configuration file and line, for CI's annotations and SARIF."""

from __future__ import annotations

import os
import re

from cagr_config.tables import cagr_table
from cagr_core.description import SECTIONS_RULE
from cagr_git.files import read_regular

from .config import RepoConfig
from .config_files import MAX_CONFIG_BYTES, find_config_files


def declaration(config: RepoConfig, rule: str) -> tuple[str, int] | None:
    """Where `rule` is declared: its source file and the line of its `id` (for
    `review.pr_sections`, of the `pr_sections` key), line 1 when the line is not found; None
    for a rule no source declares."""
    if rule == SECTIONS_RULE:
        source = _sections_source(config.root)
        key = re.compile(r"^\s*(?:[\w.]+\.)?pr_sections\s*=")
    else:
        source = dict(config.rule_sources).get(rule)
        quoted = re.escape(rule)
        key = re.compile(rf"""^\s*id\s*=\s*(?:"{quoted}"|'{quoted}')\s*(?:#.*)?$""")
    if source is None:
        return None
    data = read_regular(os.path.join(config.root, source), MAX_CONFIG_BYTES) or b""
    lines = data.decode("utf-8", "replace").splitlines()
    return source, next((n for n, line in enumerate(lines, 1) if key.match(line)), 1)


def _sections_source(root: str) -> str | None:
    """The source that sets `[review].pr_sections` (a valid config sets it in one only)."""
    for name, data in find_config_files(root).read:
        table, _ = cagr_table(name, data)
        review = table.get("review") if table is not None else None
        if isinstance(review, dict) and review.get("pr_sections"):
            return name
    return None
