"""The install line: any install record or `--install` text gives a safe line or a refusal."""

from __future__ import annotations

import contextlib
import json

from hypothesis import given
from hypothesis import strategies as st

from cagr_ci.requirement import NoRequirement, checked_spec, requirement_from

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "url",
                    "vcs_info",
                    "vcs",
                    "commit_id",
                    "dir_info",
                    "editable",
                    "archive_info",
                    "hashes",
                    "sha256",
                    "hash",
                    "subdirectory",
                ]
            ),
            children,
            max_size=4,
        )
    ),
    max_leaves=10,
)


class TestRecords:
    """Whatever direct_url.json holds, the answer is a `cagr ...` line or NoRequirement."""

    @given(_json)
    def test_a_line_or_a_refusal(self, data: object) -> None:
        try:
            line = requirement_from(json.dumps(data), "0.1.0")
        except NoRequirement as refusal:
            assert refusal.fix
        else:
            assert line.startswith("cagr")
            assert checked_spec(line) == line  # safe to write into a workflow

    @given(st.text(max_size=60))
    def test_any_text(self, text: str) -> None:
        with contextlib.suppress(NoRequirement):
            requirement_from(text, "0.1.0")


class TestGivenSpecs:
    """A spec that passes is one line with no control characters and no `${{`."""

    @given(st.text(max_size=80))
    def test_what_passes_is_safe_in_a_workflow(self, text: str) -> None:
        try:
            spec = checked_spec(text)
        except NoRequirement:
            return
        assert spec
        assert spec == spec.strip()
        assert not any(ord(char) < 32 or ord(char) == 127 for char in spec)
        assert "${{" not in spec
        assert not spec.startswith("-")
