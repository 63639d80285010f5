"""`[review].pr_sections`: presence-only headings, shared parser, unavailable and cut bodies."""

from __future__ import annotations

from cagr_core.changes import Stage
from cagr_core.description import check_pr_sections
from cagr_core.pull_request import PrBody
from cagr_core.render import render_text
from cagr_core.report import Report
from cagr_markdown import parsed

NAMES = ("Summary", "Risk")


def test_no_names_checks_nothing_even_without_a_body() -> None:
    assert check_pr_sections((), PrBody.unavailable()) == ((), ())


def test_all_present_passes_whatever_is_under_them() -> None:
    assert check_pr_sections(NAMES, parsed(PrBody("## Summary\nTODO\n## **risk**\n"))) == ((), ())


def test_each_missing_heading_is_a_finding_naming_it() -> None:
    findings, unchecked = check_pr_sections(
        NAMES, parsed(PrBody("## Summary\nAdds x.\n### Risk\n"))
    )
    assert unchecked == ()
    (finding,) = findings
    assert finding.rule == "review.pr_sections"
    assert finding.kind == "pr_sections"
    assert finding.paths == ()
    assert finding.message == "The PR description has no `## Risk` section."
    assert finding.fix.startswith("Add a `## Risk` heading to the PR description")


def test_an_empty_body_misses_every_heading() -> None:
    findings, _ = check_pr_sections(NAMES, parsed(PrBody("")))
    assert [f.message for f in findings] == [
        "The PR description has no `## Summary` section.",
        "The PR description has no `## Risk` section.",
    ]


def test_a_duplicated_heading_is_a_finding() -> None:
    findings, _ = check_pr_sections(NAMES, parsed(PrBody("## Summary\na\n## Risk\nb\n## RISK\nc")))
    (finding,) = findings
    assert finding.message == "The PR description has more than one `## Risk` section."
    assert finding.fix.startswith("Keep one `## Risk` heading")


def test_fenced_and_level_three_headings_do_not_count() -> None:
    findings, _ = check_pr_sections(["Risk"], parsed(PrBody("```\n## Risk\n```\n### Risk\n")))
    assert len(findings) == 1


def test_unavailable_body_is_one_unchecked_item() -> None:
    findings, unchecked = check_pr_sections(NAMES, PrBody.unavailable())
    assert findings == ()
    (item,) = unchecked
    assert item.stage is Stage.BODY
    assert "`## Summary`, `## Risk`" in item.message
    assert "no pull-request description is available" in item.message


def test_oversized_body_is_unchecked() -> None:
    findings, unchecked = check_pr_sections(NAMES, PrBody("## Summary\n## Risk\n" + "x" * 300_000))
    assert findings == ()
    assert "over the 262144 bytes" in unchecked[0].message


def test_cut_body_decides_only_sections_that_end_inside_it() -> None:
    body = parsed(PrBody("## Summary\nAdds x.\n## Risk\nLow, and the text goes on", truncated=True))
    findings, unchecked = check_pr_sections(["Summary", "Risk", "Testing"], body)
    assert findings == ()
    assert [item.message.split(",")[0] for item in unchecked] == [
        "the PR description must have a `## Risk` section",
        "the PR description must have a `## Testing` section",
    ]


def test_cut_body_still_reports_a_duplicate_it_contains() -> None:
    body = parsed(PrBody("## Risk\na\n## Risk\nb", truncated=True))
    findings, unchecked = check_pr_sections(["Risk"], body)
    assert len(findings) == 1
    assert unchecked == ()


def test_reports_name_it_as_a_check_not_a_change_rule() -> None:
    findings, _ = check_pr_sections(["Risk"], parsed(PrBody("")))
    _, unchecked = check_pr_sections(["Risk"], PrBody.unavailable())
    text = render_text(Report(findings=findings, unchecked=unchecked))
    assert text.startswith("Check review.pr_sections failed.\n")
    assert "Unchecked (body): check review.pr_sections: " in text
