"""The editor schema: the saved file equals the derived one, and it agrees with the loader."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from cagr_core.schema import json_schema
from cagr_core.validate import structure_config

ROOT = Path(__file__).resolve().parents[2]
VALIDATOR = jsonschema.Draft7Validator(json_schema())


def test_saved_schema_matches_the_derived_one() -> None:
    saved = json.loads((ROOT / "schema" / "cagr.schema.json").read_text())
    assert saved == json_schema(), "run `cagr schema --write` and commit schema/cagr.schema.json"


def test_schema_is_valid_draft_7() -> None:
    jsonschema.Draft7Validator.check_schema(json_schema())


def test_the_repositorys_own_rules_are_valid() -> None:
    data = tomllib.loads((ROOT / ".cagr" / "changes.toml").read_text())
    assert list(VALIDATOR.iter_errors(data)) == []
    assert structure_config(data, "changes.toml")[1] == []


PROPOSAL = """
[[changes.rules]]
id = "dependency-reason"
kind = "pr_body"
paths = ["package.json"]
when = "dependency_added"
section = "Risk"
contains = "Dependency reason:"
reason = "In the PR body's Risk section, write `Dependency reason:` and explain why."
examples.invalid = [{ changes = [{ path = "package.json", status = "M", before = '{}', after = '{"dependencies":{"x":"1"}}' }], pr_body = "## Risk\\nNone" }]
examples.valid = [{ changes = [{ path = "package.json", status = "M", before = '{}', after = '{"dependencies":{"x":"1"}}' }], pr_body = "## Risk\\nDependency reason: x reads the wire format." }]

[[changes.rules]]
id = "immutable-migrations"
kind = "add_only"
paths = ["migrations/**"]
reason = "Restore the merged migration and add a new migration instead."
examples.invalid = [{ changes = [{ path = "migrations/001.sql", status = "M" }] }]
examples.valid = [{ changes = [{ path = "migrations/002.sql", status = "A" }], pr_body = "" }]

[git]
protected_branch = "main"
[review]
pr_sections = ["Summary"]
[[stack.on_turn_end]]
run = "make check"
"""


def _agree(data: dict[str, Any]) -> tuple[bool, bool]:
    schema_ok = not list(VALIDATOR.iter_errors(data))
    config, issues = structure_config(data, "x.toml")
    return schema_ok, config is not None and not issues


def test_the_documented_examples_are_valid_for_both() -> None:
    assert _agree(tomllib.loads(PROPOSAL)) == (True, True)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ('kind = "add_only"', 'kind = "add-only"'),
        ('kind = "add_only"', 'kind = "add_only"\nrequire = ["x"]'),
        ('when = "dependency_added"', 'when = "added"'),
        ('section = "Risk"\n', ""),
        ('[git]\nprotected_branch = "main"', "[git]\nprotected_branch = 1"),
        ('run = "make check"', 'run = "make check"\nshell = "bash"'),
        ('status = "A"', 'status = "added"'),
        ('paths = ["migrations/**"]', 'paths = "migrations/**"'),
        ('id = "immutable-migrations"\n', ""),
        ("[review]", "[reviews]"),
    ],
)
def test_schema_and_loader_reject_the_same_mistakes(old: str, new: str) -> None:
    assert old in PROPOSAL
    assert _agree(tomllib.loads(PROPOSAL.replace(old, new, 1))) == (False, False)
