"""Rules `cagr init` suggests from a repository's tracked files and recent history, never
enforced.

Each suggestion is a complete rule — with the valid and invalid examples `cagr rules test` needs —
that `cagr init` writes commented out, with the evidence that made cagr suggest it. Nothing is
suggested on a guess: migration folders and dependency manifests (suggest_layouts), test layouts
that a folder's modules mostly follow (suggest_tests), and files committed beside their sources
that history shows changing with them (suggest_history), and layout rules where every tracked
file of a language is named in one convention that its names show (suggest_names).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import tomlkit

from .suggest_history import History
from .suggest_history import suggest_from_history as _from_history
from .suggest_layouts import suggest_from_layout as _from_layout
from .suggest_names import suggest_names as _names
from .suggest_tests import suggest_tests as _tests
from .suggestion import Suggestion

SCHEMA_LINE = "#:schema ./cagr.schema.json"  # relative to .cagr/changes.toml

__all__ = ["SCHEMA_LINE", "History", "Suggestion", "render", "suggest"]


def suggest(paths: Iterable[str], history: History | None = None) -> list[Suggestion]:
    """What the tracked `paths` (and, when given, recent `history`) support, in a stable order."""
    ordered = sorted(paths)
    return [
        *_from_layout(ordered),
        *_from_history(ordered, history or History()),
        *_tests(ordered),
        *_names(ordered),
    ]


def _toml_value(value: Any) -> Any:
    if isinstance(value, dict):
        table = tomlkit.inline_table()
        for key, item in value.items():
            table[key] = _toml_value(item)
        return table
    if isinstance(value, list):
        array = tomlkit.array()
        for item in value:
            array.append(_toml_value(item))
        return array
    return value


def _rule_text(rule: dict[str, Any], kind: str) -> str:
    table = tomlkit.table()
    for key, value in rule.items():
        if key == "examples":
            for label in ("invalid", "valid"):
                table.add(tomlkit.key(["examples", label]), _toml_value(value[label]))
        else:
            table.add(key, _toml_value(value))
    rules = tomlkit.aot()
    rules.append(table)
    document = tomlkit.document()
    document.add(kind, tomlkit.table(is_super_table=True))
    document[kind]["rules"] = rules
    return tomlkit.dumps(document).strip()


def render(suggestions: Sequence[Suggestion]) -> str:
    """The `.cagr/changes.toml` text: a header, then each suggestion commented out."""
    lines = [
        SCHEMA_LINE,
        "# cagr change rules (docs/rules.md in cagr's documentation explains each kind).",
        "# `cagr init` suggested these from this repository's files; none is active yet.",
        "# Uncomment a rule, adjust it, then run `cagr rules test` and `cagr rules check`.",
    ]
    if not suggestions:
        lines.append(
            "#\n# Nothing in this repository suggested a rule (no migration folders, package"
            " manifests,\n# generated files beside their source, test layouts or one name"
            " convention were found)."
        )
    for suggestion in suggestions:
        lines.append(f"\n# Suggested because: {suggestion.why}.")
        text = _rule_text(suggestion.rule, suggestion.table)
        lines.extend("# " + line if line else "#" for line in text.splitlines())
    return "\n".join(lines) + "\n"
