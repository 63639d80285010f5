"""docs/rules.md's and docs/config.md's worked examples are valid rules whose own examples
pass."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from cagr_config.example_runner import run_examples
from cagr_config.validate import structure_config

DOC = Path(__file__).resolve().parents[2] / "docs" / "rules.md"
BLOCKS = re.findall(r"```toml\n(.*?)```", DOC.read_text(), re.DOTALL)
CONFIG_BLOCKS = [
    block
    for block in re.findall(r"```toml\n(.*?)```", (DOC.parent / "config.md").read_text(), re.DOTALL)
    if "[[changes.rules]]" in block
]


def test_there_is_a_worked_example_of_each_kind() -> None:
    kinds = {tomllib.loads(block)["changes"]["rules"][0]["kind"] for block in BLOCKS}
    assert sorted(kinds) == ["add_only", "pr_body", "requires", "sibling"]


def test_each_round_four_key_has_a_worked_example_in_both_pages() -> None:
    for blocks in (BLOCKS, CONFIG_BLOCKS):
        text = "\n".join(blocks)
        for key in (
            "{app}",
            'when = "added"',
            'when = "dependency_changed"',
            "ignore_dependencies",
            'section = "### ',
            "placeholders",
            "waive_authors",
        ):
            assert key in text or key.replace("app", "pkg") in text, key


@pytest.mark.parametrize("block", BLOCKS + CONFIG_BLOCKS)
def test_each_worked_example_passes_its_examples(block: str) -> None:
    config, issues = structure_config(tomllib.loads(block), "docs/rules.md")
    assert issues == []
    assert config is not None
    results = run_examples(config.changes.rules)
    assert results
    assert all(result.ok for result in results), [r.said for r in results if not r.ok]
