"""The quick compile's fields are the config model's, and it compiles the configurations people
write (the documentation's worked examples, the benchmarks') exactly as the model does, instead
of deferring them."""

from __future__ import annotations

import re
from pathlib import Path

import attrs
import pytest

from cagr_config import document, examples, kept, rule_kinds, rules
from cagr_config.load import load_sources
from cagr_config.quick import _REQUIRED, FIELDS, quick_compile

DOCS = Path(__file__).resolve().parents[2] / "docs"
BLOCKS = [
    block
    for page in ("rules.md", "config.md")
    for block in re.findall(r"```toml\n(.*?)```", (DOCS / page).read_text(), re.DOTALL)
    if "[[changes.rules]]" in block
]


@pytest.mark.parametrize("name", sorted(FIELDS))
def test_each_mirrored_class_has_the_models_fields_and_defaults(name: str) -> None:
    cls = next(
        getattr(m, name) for m in (rules, rule_kinds, examples, document) if hasattr(m, name)
    )
    model = []
    for field in attrs.fields(cls):
        if field.default is attrs.NOTHING:
            default: object = _REQUIRED
        elif isinstance(field.default, attrs.Factory):  # type: ignore[arg-type]
            default = field.default.factory.__name__  # type: ignore[attr-defined]
        else:
            default = field.default
        model.append((field.name, default))
    assert [(n, d) for n, _, d in FIELDS[name]] == model


def _both(read: list[tuple[str, bytes]]) -> None:
    quick = quick_compile(read, [])
    _, model, issues = load_sources(read, [])
    assert issues == []
    assert quick is not None
    assert quick == model
    assert kept.to_data(quick) == kept.to_data(model)


@pytest.mark.parametrize("block", BLOCKS)
def test_the_docs_worked_examples_compile_quickly_as_the_model_compiles_them(block: str) -> None:
    _both([("cagr.toml", block.encode())])


def test_the_benchmark_configuration_compiles_quickly_across_sources() -> None:
    from benchmarks.floor import CONFIG  # noqa: PLC0415

    text = CONFIG.format(code="src/app", log="CHANGES.md", tests="tests")
    _both([("cagr.toml", text.encode())])
    head, _, tail = text.partition('[[changes.rules]]\nid = "tests"')
    pyproject = "[project]\nname = 'x'\n[tool.cagr]\n[tool.cagr.git]\nprotected_branch = 'main'\n"
    extra = (
        "[[layout.rules]]\nid = 'snake'\npaths = ['src/**/*.py']\nname = 'snake_case'\n"
        "reason = 'Name modules in snake_case.'\n"
        "examples.valid = [{ changes = [{ path = 'src/a_b.py', status = 'A' }] }]\n"
        "examples.invalid = [{ changes = [{ path = 'src/aB.py', status = 'A' }] }]\n"
        "[[guards.rules]]\nid = 'no-destroy'\ncommands = ['terraform destroy']\n"
        "reason = 'Plan instead.'\nexamples.valid = [{ command = 'terraform plan' }]\n"
        "examples.invalid = [{ command = 'terraform destroy -auto-approve' }]\n"
        "[guards]\ndisable = ['guard.no-verify']\n[review]\npr_sections = ['Risk']\n"
        "[[stack.ci]]\nrun = 'pytest -q'\npaths = ['src/**']\n"
    )
    _both(
        [
            ("cagr.toml", head.encode()),
            ("pyproject.toml", pyproject.encode()),
            (".cagr/more.toml", ('[[changes.rules]]\nid = "tests"' + tail + extra).encode()),
        ]
    )
