"""Code, layout and guard rules as configured: what loads, every problem at once (file, key path,
fix), ids unique across every kind, `guard.*` reserved, and the kept form read back exactly."""

from __future__ import annotations

import json

import pytest

from cagr_config.kept import from_data, to_data
from cagr_config.load import load_sources

CODE = """
[[code.rules]]
id = "no-print"
language = "python"
paths = ["src/**/*.py"]
rule = { pattern = "print($$$A)" }
reason = "Use the logger."
examples.invalid = [{ path = "src/a.py", after = "print(1)\\n" }]
examples.valid = [{ path = "src/a.py", before = "print(1)\\n", after = "print(1)\\nx = 2\\n" }]
"""
LAYOUT = """
[[layout.rules]]
id = "snake"
paths = ["src/**/*.py"]
name = "snake_case"
reason = "Name modules in snake_case."
examples.invalid = [{ changes = [{ path = "src/Bad.py", status = "A" }] }]
examples.valid = [{ changes = [{ path = "src/good.py", status = "A" }] }]
"""
GUARD = """
[[guards.rules]]
id = "no-destroy"
commands = ["terraform destroy"]
reason = "Ask a person."
examples.invalid = [{ command = "terraform destroy" }]
examples.valid = [{ command = "terraform plan" }]

[guards]
disable = ["guard.cagr-state"]
"""


def _issues(*sources: tuple[str, str]) -> list[str]:
    _, _, issues = load_sources([(n, t.encode()) for n, t in sources], [])
    return [str(issue) for issue in issues]


def test_each_kind_loads_and_compiles() -> None:
    _, compiled, issues = load_sources([("cagr.toml", (CODE + LAYOUT + GUARD).encode())], [])
    assert issues == []
    assert compiled is not None
    kinds = {c.id: c.kind for c in compiled.rules.rules}
    assert kinds == {"no-print": "code", "snake": "layout"}
    (code,) = [c for c in compiled.rules.rules if c.kind == "code"]
    assert code.language == "python"
    assert json.loads(code.code_rule or "") == {"rule": {"pattern": "print($$$A)"}}
    assert [g.id for g in compiled.guards] == ["no-destroy"]
    assert compiled.disabled_guards == ("guard.cagr-state",)
    assert {i for i, _ in compiled.rule_sources} == {"no-print", "snake", "no-destroy"}


def test_the_kept_form_reads_back_exactly() -> None:
    _, compiled, _ = load_sources([("cagr.toml", (CODE + LAYOUT + GUARD).encode())], [])
    assert compiled is not None
    data = json.loads(json.dumps(to_data(compiled)))
    assert from_data(data) == compiled


def test_ids_are_unique_across_every_kind_and_both_sources_are_named() -> None:
    clash = LAYOUT.replace('id = "snake"', 'id = "no-print"')
    (message,) = _issues(("cagr.toml", CODE), (".cagr/more.toml", clash))
    assert message.startswith(".cagr/more.toml: layout.rules[0] (id 'no-print'):")
    assert "already used in cagr.toml (code.rules)" in message


def test_guard_ids_are_reserved() -> None:
    (message,) = _issues(("cagr.toml", GUARD.replace('"no-destroy"', '"guard.mine"', 1)))
    assert "guards.rules[0] (id 'guard.mine').id" in message
    assert "built-in guards'" in message


@pytest.mark.parametrize(
    ("edit", "where", "said"),
    [
        (
            ('language = "python"', 'language = "cobol"'),
            "code.rules[0] (id 'no-print').language",
            "no ast-grep language",
        ),
        (
            ('rule = { pattern = "print($$$A)" }', 'rule = { patern = "x" }'),
            "code.rules[0] (id 'no-print').rule",
            "unknown field `patern`",
        ),
        (
            ('rule = { pattern = "print($$$A)" }', 'rule = { kind = "nosuchkind" }'),
            "code.rules[0] (id 'no-print').rule",
            "Kind `nosuchkind` is invalid",
        ),
        (
            ('rule = { pattern = "print($$$A)" }', 'rule = "print"'),
            "code.rules[0] (id 'no-print').rule",
            "expected a table",
        ),
        (
            ('rule = { pattern = "print($$$A)" }', "rule = {}"),
            "code.rules[0] (id 'no-print').rule",
            "write an ast-grep rule object",
        ),
        (("scope", "scope"), None, None),
        (
            ('paths = ["src/**/*.py"]', 'paths = ["lib/**"]'),
            "code.rules[0] (id 'no-print').examples.invalid[0]",
            "is not selected",
        ),
        (
            (', after = "print(1)\\n" }]', " }]"),
            "code.rules[0] (id 'no-print').examples.invalid[0]",
            "give `after`",
        ),
    ],
)
def test_code_rule_problems(edit: tuple[str, str], where: str | None, said: str | None) -> None:
    if where is None:
        assert _issues(("cagr.toml", CODE.replace("reason", 'scope = "file"\nreason'))) == []
        return
    text = CODE.replace(*edit)
    messages = _issues(("cagr.toml", text))
    assert any(m.startswith(f"cagr.toml: {where}:") and said in m for m in messages), messages


def test_a_bad_scope_is_named() -> None:
    (message,) = _issues(("cagr.toml", CODE.replace("reason", 'scope = "all"\nreason')))
    assert "code.rules[0] (id 'no-print').scope" in message
    assert "'new', 'file'" in message


@pytest.mark.parametrize(
    ("edit", "key", "said"),
    [
        (('name = "snake_case"', 'name = "Title Case"'), "name", "use one of snake_case"),
        (('name = "snake_case"', 'name = "snake_case"\nforbid = true'), "name", "exactly one"),
        (('name = "snake_case"', ""), "name", "exactly one"),
        (('name = "snake_case"', 'name = "regex:("'), "name", "does not compile"),
        (("examples.valid", "examples.other"), "", "unknown key"),
    ],
)
def test_layout_rule_problems(edit: tuple[str, str], key: str, said: str) -> None:
    messages = _issues(("cagr.toml", LAYOUT.replace(*edit)))
    assert any(key in m and said in m for m in messages), messages


def test_guard_problems_are_all_reported_at_once() -> None:
    text = GUARD.replace('commands = ["terraform destroy"]', 'commands = ["  "]').replace(
        'disable = ["guard.cagr-state"]', 'disable = ["guard.nope"]'
    )
    messages = _issues(
        ("cagr.toml", text.replace('examples.valid = [{ command = "terraform plan" }]', ""))
    )
    assert any("guards.rules[0] (id 'no-destroy').commands[0]" in m for m in messages)
    assert any("guards.rules[0] (id 'no-destroy').examples.valid" in m for m in messages)
    assert any("guards.disable[0]" in m and "no built-in guard" in m for m in messages)
