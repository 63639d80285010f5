"""A change rule as TOML text, for tests that write configuration files."""

from __future__ import annotations

RULE = """
[[{prefix}changes.rules]]
id = "{id}"
kind = "requires"
paths = ["src/schema.py"]
require = ["schema.json"]
reason = "Regenerate schema.json."
examples.invalid = [{{ changes = [{{ path = "src/schema.py", status = "M" }}] }}]
examples.valid = [{{ changes = [{{ path = "src/schema.py", status = "M" }}, {{ path = "schema.json", status = "A" }}] }}]
"""


def rule(rule_id: str = "schema", prefix: str = "") -> str:
    """One valid requires rule with this id (prefix `tool.cagr.` for pyproject.toml)."""
    return RULE.format(id=rule_id, prefix=prefix)
