"""The cyclic garbage collector paused while a large, long-lived structure is built.

Reading an index, a working tree's status or a committed change set makes hundreds of thousands
of objects that all live until the answer is returned; the collector, triggered by their
number, would walk them again and again and free nothing (and after the stat check's fork,
copy every page the child shares). Standard library only: the turn-end hook uses it.
"""

from __future__ import annotations

import gc


class paused_collector:  # lower case: used as a statement: `with paused_collector():`
    """`with paused_collector():` - no cyclic collection inside; as it was outside, even when
    nested or when the collector was already off."""

    __slots__ = ("_was_on",)

    def __enter__(self) -> None:
        self._was_on = gc.isenabled()
        gc.disable()

    def __exit__(self, *_: object) -> None:
        if self._was_on:
            gc.enable()
