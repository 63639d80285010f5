"""`paused_collector`: no cyclic collection inside, the collector as it was outside."""

from __future__ import annotations

import gc

import pytest

from cagr_git.collector import paused_collector


def _fail_inside() -> None:
    with paused_collector():
        assert not gc.isenabled()
        with paused_collector():
            assert not gc.isenabled()
        assert not gc.isenabled()
        raise RuntimeError


@pytest.mark.parametrize("was_on", [True, False])
def test_it_pauses_and_restores_even_nested_and_on_error(was_on: bool) -> None:
    (gc.enable if was_on else gc.disable)()
    try:
        with pytest.raises(RuntimeError):
            _fail_inside()
        assert gc.isenabled() is was_on
    finally:
        gc.enable()
