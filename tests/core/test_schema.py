"""The editor schema: the saved file equals the derived one, and it agrees with the loader."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from cagr_config.schema import json_schema
from cagr_config.validate import structure_config

ROOT = Path(__file__).resolve().parents[2]
VALIDATOR = jsonschema.Draft7Validator(json_schema())


def test_saved_schema_matches_the_derived_one() -> None:
    saved = json.loads((ROOT / "schema" / "cagr.schema.json").read_text())
    assert saved == json_schema(), "run `cagr schema --write` and commit schema/cagr.schema.json"


def test_schema_is_valid_draft_7() -> None:
    jsonschema.Draft7Validator.check_schema(json_schema())


@pytest.mark.parametrize("name", sorted(p.name for p in (ROOT / ".cagr").glob("*.toml")))
def test_the_repositorys_own_rules_are_valid(name: str) -> None:
    """Every fragment: code.toml's `scope = "file"` was flagged (the schema allowed only
    "new", the first of the Literal's values)."""
    data = tomllib.loads((ROOT / ".cagr" / name).read_text())
    assert list(VALIDATOR.iter_errors(data)) == []
    assert structure_config(data, name)[1] == []


@pytest.mark.parametrize("scope", ["new", "file"])
def test_every_value_a_choice_takes_is_valid_for_both(scope: str) -> None:
    data = tomllib.loads((ROOT / ".cagr" / "code.toml").read_text())
    for rule in data["code"]["rules"]:
        rule["scope"] = scope
    assert _agree(data) == (True, True)
    rule["scope"] = "line"
    assert _agree(data) == (False, False)


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
        ('when = "dependency_added"', 'when = "dependency_removed"'),
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


RULES = {
    "requires": ("require", '["schema.json"]'),
    "add_only": (None, None),
    "sibling": ("target", '"{dir}/{name}.test.{ext}"'),
    "pr_body": ("section", '"Risk"'),
}


def _rule(kind: str, extra: str = "") -> str:
    key, value = RULES[kind]
    own = f"{key} = {value}\n" if key else ""
    return (
        f'[[changes.rules]]\nid = "r-{kind}"\nkind = "{kind}"\npaths = ["src/**"]\n{own}'
        f'reason = "Do it."\n{extra}'
        'examples.invalid = [{ changes = [{ path = "src/a", status = "A" }] }]\n'
        'examples.valid = [{ changes = [{ path = "schema.json", status = "A" }] }]\n'
    )


def _messages(text: str) -> list[str]:
    return sorted(e.message for e in VALIDATOR.iter_errors(tomllib.loads(text)))


class TestOneWrongKeyOneError:
    """The schema discriminates on `kind`: a mistake in one rule is reported as that mistake,
    not as every other kind's mismatch (`oneOf` would report one failure per kind)."""

    @pytest.mark.parametrize("kind", sorted(RULES))
    def test_each_kind_is_valid(self, kind: str) -> None:
        assert _messages(_rule(kind)) == []

    @pytest.mark.parametrize("kind", sorted(RULES))
    def test_a_misspelt_optional_key(self, kind: str) -> None:
        assert _messages(_rule(kind, 'ignore = ["x"]\n')) == [
            "Additional properties are not allowed ('ignore' was unexpected)"
        ]

    @pytest.mark.parametrize("kind", ["requires", "sibling", "pr_body"])
    def test_a_misspelt_required_key(self, kind: str) -> None:
        key, _ = RULES[kind]
        assert key is not None
        text = _rule(kind).replace(f"{key} =", f"{key}x =")
        assert _messages(text) == [
            f"'{key}' is a required property",
            f"Additional properties are not allowed ('{key}x' was unexpected)",
        ]

    def test_a_key_of_another_kind(self) -> None:
        assert _messages(_rule("add_only", 'target = "x"\n')) == [
            "Additional properties are not allowed ('target' was unexpected)"
        ]

    def test_an_unknown_kind(self) -> None:
        (message,) = _messages(_rule("requires").replace('"requires"', '"require"'))
        assert message.startswith("'require' is not one of ['requires', 'add_only'")

    def test_a_missing_kind(self) -> None:
        assert _messages(_rule("add_only").replace('kind = "add_only"\n', "")) == [
            "'kind' is a required property"
        ]


TAPLO = shutil.which("taplo") or str(Path(sys.executable).with_name("taplo"))


@pytest.mark.skipif(not Path(TAPLO).exists(), reason="taplo (the test extra) is not installed")
def test_taplo_reports_the_wrong_keys_only(tmp_path: Path) -> None:
    """Taplo (Even Better TOML's engine) with the written schema: two typos, two mistakes."""
    (tmp_path / "cagr.schema.json").write_text(json.dumps(json_schema()))
    text = _rule("requires").replace("require =", "requir =") + _rule("add_only", "ignore = []\n")
    (tmp_path / "cagr.toml").write_text("#:schema ./cagr.schema.json\n" + text)
    done = subprocess.run(
        [TAPLO, "check", "cagr.toml"], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert done.returncode == 1
    said = {line for line in done.stderr.splitlines() if line.startswith("error: ")}
    assert said == {
        'error: "require" is a required property',
        "error: Additional properties are not allowed ('requir' was unexpected)",
        "error: Additional properties are not allowed ('ignore' was unexpected)",
    }
    (tmp_path / "cagr.toml").write_text("#:schema ./cagr.schema.json\n" + _rule("requires"))
    clean = subprocess.run(
        [TAPLO, "check", "cagr.toml"], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert clean.returncode == 0, clean.stderr
