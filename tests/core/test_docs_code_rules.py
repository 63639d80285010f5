"""docs/code-rules.md's worked examples are valid code, layout and guard rules whose own examples
pass, and it shows every kind's keys."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import jsonschema
import pytest

from cagr_config.example_runner import run_examples
from cagr_config.schema import json_schema
from cagr_config.validate import structure_config
from cagr_core.guards import BUILT_IN
from cagr_core.layout import CONVENTIONS
from cagr_hooks.guards import run_guard_examples

DOC = Path(__file__).resolve().parents[2] / "docs" / "code-rules.md"
BLOCKS = re.findall(r"```toml\n(.*?)```", DOC.read_text(), re.DOTALL)


def test_each_kind_has_a_worked_example() -> None:
    tables = {table for block in BLOCKS for table in tomllib.loads(block)}
    assert tables == {"code", "layout", "guards"}
    text = "\n".join(BLOCKS)
    for key in ("forbid = true", 'name = "snake_case"', "disable", "ignores", "$$$ARGS"):
        assert key in text, key


@pytest.mark.parametrize("block", BLOCKS)
def test_each_worked_example_passes_its_examples(block: str) -> None:
    data = tomllib.loads(block)
    assert list(jsonschema.Draft7Validator(json_schema()).iter_errors(data)) == []
    config, issues = structure_config(data, "docs/code-rules.md")
    assert issues == []
    assert config is not None
    results = [
        *run_examples([*config.code.rules, *config.layout.rules]),
        *run_guard_examples(config.guards.rules),
    ]
    assert results
    assert all(result.ok for result in results), [r.said for r in results if not r.ok]


def test_the_kinds_and_built_in_guards_it_names_are_cagr_s() -> None:
    text = DOC.read_text()
    assert all(f"`{guard}`" in text for guard in BUILT_IN)
    assert all(f"`{name}`" in text for name in CONVENTIONS)
