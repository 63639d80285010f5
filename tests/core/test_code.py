"""What is new of a code rule's matches against the baseline: the same text counted, and the
occurrence that is new told by position."""

from __future__ import annotations

from cagr_core.changes import MAX_CONTENT_BYTES
from cagr_core.code import MAX_CODE_BYTES, CodeMatch, new_matches
from cagr_core.dependencies import MAX_MANIFEST_BYTES


def _at(*lines: int, text: str = "print(x)") -> tuple[CodeMatch, ...]:
    return tuple(CodeMatch(text, line, 1) for line in lines)


def test_a_third_identical_match_where_the_base_had_two_is_one_new_finding() -> None:
    assert new_matches(_at(3, 9), _at(3, 9, 20)) == list(_at(20))


def test_the_one_inserted_between_the_old_ones_is_the_new_one() -> None:
    # the old ones moved down by a line; the one at 50 was inserted
    assert new_matches(_at(10, 80), _at(10, 50, 81)) == list(_at(50))


def test_one_inserted_above_is_new_not_the_last() -> None:
    assert new_matches(_at(10), _at(1, 11)) == list(_at(1))


def test_fewer_or_as_many_is_nothing_new() -> None:
    assert new_matches(_at(1, 2, 3), _at(1, 2)) == []
    assert new_matches(_at(1, 2), _at(5, 9)) == []  # moved, not added


def test_texts_are_counted_apart() -> None:
    before = _at(1) + _at(2, text="print(y)")
    after = _at(1, 2) + _at(3, text="print(y)")
    assert new_matches(before, after) == list(_at(2))


def test_a_file_without_a_baseline_has_every_match_new() -> None:
    assert new_matches((), _at(4, 2)) == list(_at(2, 4))


def test_many_occurrences_fall_back_to_the_last_ones() -> None:
    before = _at(*range(1, 1501))
    after = _at(*range(1, 1503))
    assert new_matches(before, after) == list(_at(1501, 1502))


def test_no_reader_reads_more_than_collect_loads() -> None:
    """collect loads a side cut one byte over MAX_CONTENT_BYTES: a reader allowed more would
    take a cut side for a whole one."""
    assert max(MAX_CODE_BYTES, MAX_MANIFEST_BYTES) <= MAX_CONTENT_BYTES
