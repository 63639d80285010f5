"""`checklist = true` on a `pr_body` rule (docs/rules.md, PR sections): the section must keep a
task-list item, ticked or not, besides having substance; a heading kept over prose is no
checklist (django-cms pull request #8774)."""

from __future__ import annotations

import pytest

from cagr_config.rules import PrBodyRule
from cagr_core.pull_request import Phase
from cagr_core.report import Deferred, Report
from cagr_core.report_json import report_data, report_from_data
from cagr_core.sections import Problem, check_section, describe_problem
from tests.support.build import check, modified
from tests.support.evaluation import section_of

CHECKLIST = PrBodyRule(
    id="pr-template-checklist",
    paths=["**"],
    section="## Checklist",
    checklist=True,
    reason="Keep the PR template's `## Checklist` checklist in the description.",
)
TEMPLATE_ITEMS = "* [ ] I have added tests\n* [ ] I have updated the docs\n"


class TestChecklist:
    @pytest.mark.parametrize(
        ("body", "status"),
        [
            pytest.param(
                "## Description\nFix.\n\n## Checklist\n\nI ran the tests and updated the docs.\n",
                "fail",
                id="django-cms-8774: heading kept, items replaced by prose",
            ),
            pytest.param(f"## Checklist\n\n{TEMPLATE_ITEMS}", "pass", id="kept unticked"),
            pytest.param("## Checklist\n- [x] tests\n- [X] docs\n", "pass", id="ticked"),
            pytest.param("## Checklist\n1. [ ] tests\n", "pass", id="an ordered item"),
            pytest.param("## Checklist\n- tests\n- docs\n", "fail", id="a list without boxes"),
            pytest.param("## Checklist\n- [ ]tests\n- []docs\n", "fail", id="no space after"),
            pytest.param("## Checklist\n[ ] tests\n", "fail", id="a box outside a list"),
            pytest.param("## Checklist\n```\n- [ ] tests\n```\n", "fail", id="only in fenced code"),
            pytest.param(
                "## Checklist\nDone:\n### Before merging\n- [x] tests\n",
                "pass",
                id="in a subsection",
            ),
            pytest.param(
                "## Checklist\nprose\n## Other\n- [x] tests\n", "fail", id="in the next section"
            ),
            pytest.param("## Checklist\n<!-- - [ ] tests -->\n", "fail", id="in a comment"),
            pytest.param("## Checklist\n- [ ] TODO\n", "fail", id="a box with no substance"),
        ],
    )
    def test_the_section_must_keep_a_task_item(self, body: str, status: str) -> None:
        assert check(CHECKLIST, modified("a.py"), body=body).status == status

    def test_the_finding_says_what_to_keep(self) -> None:
        (finding,) = check(CHECKLIST, modified("a.py"), body="## Checklist\nAll done.").findings
        assert finding.message == (
            "a.py changed; `## Checklist` has no checklist: keep the template's `- [ ]`"
            " items (tick the ones done)."
        )

    def test_without_the_key_prose_passes_as_before(self) -> None:
        rule = PrBodyRule(id="r", paths=["**"], section="Checklist", reason="Keep it.")
        assert check(rule, modified("a.py"), body="## Checklist\nAll done.").status == "pass"

    def test_a_missing_section_is_still_missing(self) -> None:
        (finding,) = check(CHECKLIST, modified("a.py"), body="## Other\n- [x] a").findings
        assert "has no `## Checklist` section" in finding.message

    def test_with_contains_both_are_required(self) -> None:
        rule = PrBodyRule(
            id="r",
            paths=["**"],
            section="Checklist",
            contains="Tested:",
            checklist=True,
            reason="Keep it.",
        )
        assert check(rule, modified("a.py"), body="## Checklist\nTested: yes").status == "fail"
        assert check(rule, modified("a.py"), body="## Checklist\n- [x] a").status == "fail"
        both = "## Checklist\n- [x] Tested: unit tests"
        assert check(rule, modified("a.py"), body=both).status == "pass"

    def test_the_problem_comes_before_substance(self) -> None:
        section = section_of("## Checklist\nTODO", "Checklist")
        assert check_section(section, None, checklist=True) is Problem.NO_CHECKLIST
        assert check_section(section, None) is Problem.EMPTY
        assert describe_problem(Problem.NO_CHECKLIST, "### Done", None).startswith(
            "`### Done` has no checklist"
        )


class TestDeferred:
    def test_the_turn_defers_it_and_says_the_checklist_is_owed(self) -> None:
        (deferred,) = check(CHECKLIST, modified("a.py"), phase=Phase.TURN).deferred
        assert deferred.checklist
        assert "will need its checklist (`- [ ]` items) and an explanation" in deferred.message

    def test_the_report_codec_keeps_it(self) -> None:
        (deferred,) = check(CHECKLIST, modified("a.py"), phase=Phase.TURN).deferred
        data = report_data(Report(deferred=(deferred,)))
        assert data["deferred"][0]["checklist"] is True
        assert report_from_data(data).deferred == (deferred,)

    def test_a_report_written_before_the_key_reads_as_no_checklist(self) -> None:
        old = Deferred("r", "Risk", None, "m", "f")
        data = report_data(Report(deferred=(old,)))
        del data["deferred"][0]["checklist"]
        assert report_from_data(data).deferred == (old,)
