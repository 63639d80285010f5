"""Section lookups shared by pr_body rules and [review].pr_sections."""

from cagr_core.sections import (
    Found,
    Problem,
    check_section,
    find_section,
    is_placeholder,
    missing_sections,
)
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
