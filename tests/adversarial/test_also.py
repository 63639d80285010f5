"""The issue's further items: a BOM, impossible fixture paths, and a branch that edits cagr's own
configuration."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from .conftest import Outcome

Cagr = Callable[..., Outcome]
NOT_YET = pytest.mark.xfail(reason="issue 10: fixed in a later commit", strict=False)


@pytest.mark.parametrize("name", ["cagr.toml", "pyproject.toml", ".cagr/rules.toml"])
def test_byte_order_mark(feature: Path, cagr: Cagr, name: str) -> None:
    text = (feature / "cagr.toml").read_text()
    (feature / "cagr.toml").unlink()
    (feature / name).parent.mkdir(exist_ok=True)
    if name == "pyproject.toml":
        text = text.replace("[[changes.rules]]", "[[tool.cagr.changes.rules]]")
    (feature / name).write_bytes(b"\xef\xbb\xbf" + text.encode())
    for args in (("rules", "check"), ("rules", "test")):
        outcome = cagr(feature, *args)
        assert outcome.code == 2
        assert f"{name}: starts with a byte-order mark" in outcome.err
        assert "remove it" in outcome.err


def _with_valid_example(root: Path, changes: str) -> None:
    text = (root / "cagr.toml").read_text()
    text = text.replace("examples.valid = [", f"examples.valid = [{{ changes = [{changes}] }}, ", 1)
    (root / "cagr.toml").write_text(text)


@pytest.mark.parametrize(
    "changes",
    [
        '{ path = "../x", status = "A" }',
        '{ path = "a//b", status = "A" }',
        '{ path = "./a", status = "A" }',
        '{ path = "a/./b", status = "A" }',
        '{ path = "a/", status = "A" }',
        '{ path = "a", status = "M" }, { path = "a/b", status = "A" }',
        '{ path = "a", status = "D" }, { path = "a/b/c", status = "D" }',
    ],
)
def test_impossible_fixture_paths_are_config_errors(
    feature: Path, cagr: Cagr, changes: str
) -> None:
    _with_valid_example(feature, changes)
    for args in (("rules", "test"), ("rules", "check")):
        outcome = cagr(feature, *args)
        assert outcome.code == 2, outcome
        assert "examples.valid[0]" in outcome.err


@pytest.mark.parametrize(
    "changes",
    [
        '{ path = "a", status = "D" }, { path = "a/b", status = "A" }',  # file became a folder
        '{ path = "a/b", status = "D" }, { path = "a", status = "A" }',  # folder became a file
    ],
)
def test_a_file_replaced_by_a_folder_is_a_possible_fixture(
    feature: Path, cagr: Cagr, changes: str
) -> None:
    _with_valid_example(feature, changes)
    assert cagr(feature, "rules", "test").code == 0
