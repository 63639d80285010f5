"""The pull-request export reader (cagr_repo.pr_export) over gh's and glab's shapes."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from cagr_repo.pr_export import ExportedPullRequest, PrExportError, parse_pr_export

from .strategies import pr_exports

_SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=6)
_KEYS = st.sampled_from(
    ["number", "iid", "body", "description", "mergeCommit", "oid", "merge_commit_sha",
     "squash_commit_sha", "author", "login", "is_bot", "username", "labels", "name"]
) | st.text(max_size=4)  # fmt: skip
JSON = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_KEYS, inner, max_size=5),
    max_leaves=25,
)


def _mapping(parsed: dict[str, ExportedPullRequest]) -> dict[str, Any]:
    return {sha: (pr.number, pr.body, pr.author, pr.labels) for sha, pr in parsed.items()}


class TestExportsRoundTrip:
    """Any JSON array of well-formed gh and glab entries reads as exactly the commit -> pull
    request map it describes, whitespace and indentation aside."""

    @given(pr_exports(), st.sampled_from([None, 2]))
    def test_the_map_it_describes(self, export: tuple[list[Any], dict[str, Any]], indent) -> None:
        entries, mapped = export
        data = json.dumps(entries, indent=indent).encode()
        assert _mapping(parse_pr_export(data, "prs.json")) == mapped


class TestAnythingElse:
    """Any other JSON value, and any bytes at all, is either an export or a PrExportError that
    names the file: never another exception."""

    @given(JSON)
    def test_any_json_value(self, data: object) -> None:
        _read_or_refuse(json.dumps(data).encode())

    @given(st.lists(JSON, max_size=4))
    def test_any_json_array(self, entries: list[object]) -> None:
        _read_or_refuse(json.dumps(entries).encode())

    @given(st.binary(max_size=64))
    def test_any_bytes(self, data: bytes) -> None:
        _read_or_refuse(data)


def _read_or_refuse(data: bytes) -> None:
    try:
        parsed = parse_pr_export(data, "prs.json")
    except PrExportError as error:
        assert "the pull-request export prs.json" in str(error)
    else:
        assert all(len(sha) == 40 for sha in parsed)
        assert all(isinstance(pr, ExportedPullRequest) for pr in parsed.values())
