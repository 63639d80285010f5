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
