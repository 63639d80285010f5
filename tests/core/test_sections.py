"""Section lookups shared by pr_body rules and [review].pr_sections."""

import pytest

from cagr_core.description import judge_section
from cagr_core.pull_request import PrBody
from cagr_core.report import Deferred
from cagr_core.sections import (
    Found,
    Problem,
    check_section,
    find_section,
    is_placeholder,
    missing_sections,
)
from cagr_markdown import parsed
from tests.support.evaluation import document, section_of


def test_pr_sections_are_presence_only() -> None:
    body = document("## Summary\nTODO\n## Risk\n## risk\n")
    assert missing_sections(body, ["Summary", "Risk", "Testing"]) == [
        ("Risk", Problem.DUPLICATE),
        ("Testing", Problem.MISSING),
    ]


def test_sections_end_at_level_one_or_two_and_keep_deeper_content() -> None:
    body = document("## Risk\nlow\n### Detail\nmore\n## Next\nother\n# Top\n## Risk2\n")
    section = find_section(body, "Risk")
    assert section.found is Found.FOUND
    assert section.lines == ("low", "more")


def test_visible_text_only() -> None:
    body = document(
        "## Risk\n<!-- hidden -->\n<details><summary>Why</summary>shown</details>\n\n"
        "[link text](http://x) ![alt](i.png) `code` &amp;\n"
    )
    assert find_section(body, "risk").lines == ("Why shown", "link text alt code &")
    assert check_section(find_section(body, "risk"), None) is None


def test_placeholders() -> None:
    for text in ("TODO", "tbd.", "N/A", " None ", "-", "***", "", "wip!"):
        assert is_placeholder(text), text
    for text in ("None of the callers change", "TODO: rewrite the parser", "ok"):
        assert not is_placeholder(text), text


def test_a_section_knows_whether_a_next_heading_ended_it() -> None:
    assert section_of("## Risk\nlow\n# Next\n", "Risk").ended
    assert section_of("## Risk\nlow\n### Deeper\nmore\n## Next\n", "Risk").ended
    assert not section_of("## Risk\nlow\n### Deeper\nmore\n", "Risk").ended
    assert not section_of("## Other\n## Risk\nlow", "Risk").ended


@pytest.mark.parametrize(
    ("body", "gap"),
    [
        (
            "### Description\nFixes it.\n",
            "the PR body has no `## Description` section (it has `### Description`, a level-3"
            " heading: write `## Description`)",
        ),
        (
            "**Description**\nFixes it.\n",
            "the PR body has no `## Description` section (`Description` is a line of text"
            " there, not a heading: write `## Description`)",
        ),
        (
            "Description:\nFixes it.\n",
            "the PR body has no `## Description` section (`Description:` is a line of text"
            " there, not a heading: write `## Description`)",
        ),
        ("A description of the fix.\n", "the PR body has no `## Description` section"),
        ("## Descriptions\nx\n", "the PR body has no `## Description` section"),
        ("## Description\n\n## Next\nx\n", "Description is empty"),
        ("## Description\nTODO\n", "Description has no text beyond placeholders"),
    ],
)
def test_a_missing_or_empty_section_says_what_is_there_instead(body: str, gap: str) -> None:
    """The django-cms trial: `### Description` and `**Description**` were only "no section"."""
    asked = Deferred("d", "## Description", None, "", "Describe it.")
    assert judge_section(parsed(PrBody(body)), asked).gap == gap


def test_a_near_miss_changes_no_verdict() -> None:
    for body in ("### Risk\nlow\n", "**Risk**\nlow\n", "Risk:\nlow\n"):
        assert check_section(find_section(document(body), "Risk"), None) is Problem.MISSING
