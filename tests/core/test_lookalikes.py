"""The look-alike fold placeholder detection uses (cagr_core/lookalikes.py)."""

from __future__ import annotations

import string
import unicodedata

from cagr_core.lookalikes import LOOKALIKES
from cagr_core.sections import is_placeholder


def test_every_entry_folds_a_letter_to_one_latin_letter() -> None:
    for code, letter in LOOKALIKES.items():
        char = chr(code)
        assert unicodedata.category(char).startswith("L"), hex(code)
        assert not unicodedata.normalize("NFKC", char).isascii(), hex(code)  # NFKC's own job
        assert letter in string.ascii_lowercase, hex(code)


def test_the_scripts_a_placeholder_is_faked_with_are_covered() -> None:
    # Cyrillic, Greek, Latin small capitals and Cherokee look-alikes of T, O, D, N, A, E, B.
    for char, letter in [
        ("\u0422", "t"),
        ("\u041e", "o"),
        ("\u0430", "a"),
        ("\u0415", "e"),
        ("\u039d", "n"),
        ("\u0392", "b"),
        ("\u0274", "n"),
        ("\u1d05", "d"),
        ("\u13a2", "t"),
    ]:
        assert LOOKALIKES[ord(char)] == letter, hex(ord(char))


def test_latin_letters_themselves_are_left_alone() -> None:
    assert not any(chr(code).isascii() for code in LOOKALIKES)
    assert is_placeholder("\u0422\u041e\u0414\u041e") is False  # Cyrillic D is no Latin D
    assert is_placeholder("\u0422\u041eD\u041e")
