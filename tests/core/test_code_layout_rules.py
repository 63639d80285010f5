"""Code and layout rules judged by the core on a change: new matches against the merge base,
counted; whole files with scope `file`; added paths only for layout; unchecked, never a pass,
for a side that could not be searched; a snapshot judges files, not a change."""

from __future__ import annotations

import cagr_code
from cagr_core.changes import Change, ChangeSet, Range, Stage
from cagr_core.evaluator import CODE_FINDINGS_LISTED, evaluate
from cagr_core.pull_request import Phase, PrBody
from cagr_core.render import render_text
from cagr_core.report import Report, Waived
from cagr_core.ruleset import CompiledRule, RuleSet
from cagr_core.values import replace
from tests.support.build import RANGE, SYMLINK, added, deleted, modified
from tests.support.rules import code_rule, layout_rule

PRINT = code_rule("no-print", {"pattern": "print($$$A)"}, paths=("src/**/*.py",))
SNAKE = layout_rule("snake", name="snake_case", paths=("src/**/*.py",))


def _judge(rule: CompiledRule, *changes: Change, range_: Range = RANGE) -> Report:
    rules = RuleSet((rule,))
    searched = cagr_code.read_changes(rules, ChangeSet(changes, range_))
    return evaluate(rules, searched, PrBody.unavailable(), Phase.TURN)


def _lines(report: Report) -> list[tuple[str, int | None, int | None]]:
    return [(f.paths[0], f.line, f.column) for f in report.findings]


class TestCodeRules:
    def test_a_third_identical_match_is_one_new_finding(self) -> None:
        before = "print(x)\nprint(x)\n"
        after = "print(x)\nprint(x)\ny = 1\n    \nprint(x)\n"
        report = _judge(PRINT, modified("src/a.py", before, after))
        assert _lines(report) == [("src/a.py", 5, 1)]
        (finding,) = report.findings
        assert finding.kind == "code"
        assert "the merge base's src/a.py has 2 of it, the result 3" in finding.message

    def test_matches_the_baseline_already_holds_are_no_findings(self) -> None:
        report = _judge(PRINT, modified("src/a.py", "print(x)\n", "z = 0\nprint(x)\n"))
        assert report.status == "pass"
        assert report.fired == ("no-print",)

    def test_scope_file_reports_every_match(self) -> None:
        whole = code_rule("p", {"pattern": "print($$$A)"}, paths=("src/**",), scope="file")
        report = _judge(whole, modified("src/a.py", "print(x)\n", "z = 0\nprint(x)\n"))
        assert _lines(report) == [("src/a.py", 2, 1)]

    def test_an_added_file_has_every_match_new_and_a_rename_is_a_deletion_and_an_addition(
        self,
    ) -> None:
        text = "print(1)\nprint(2)\n"
        report = _judge(PRINT, deleted("src/old.py", text), added("src/new.py", text))
        assert _lines(report) == [("src/new.py", 1, 1), ("src/new.py", 2, 1)]

    def test_deleted_files_never_fire(self) -> None:
        report = _judge(PRINT, deleted("src/a.py", "print(1)\n"))
        assert (report.findings, report.unchecked, report.status) == ((), (), "pass")

    def test_a_symlink_is_unchecked_for_the_code_it_points_to_is_not_searched(self) -> None:
        """`src/l.py -> real.txt` is imported with real.txt's code, which no rule selects;
        before, the link was passed as holding no code."""
        report = _judge(PRINT, added("src/l.py", "../real.txt", SYMLINK))
        assert report.findings == ()
        (item,) = report.unchecked
        assert (item.rule, item.stage, item.path) == ("no-print", Stage.CODE, "src/l.py")
        assert "is a symbolic link, which cagr does not follow" in item.message
        assert report.status == "unchecked"

    def test_a_rule_lists_its_first_thousand_matches_and_counts_the_rest(self) -> None:
        """A 1 MiB file of matches made half a million findings and ~110 s of `cagr ci`."""
        report = _judge(
            PRINT, added("src/a.py", "print(1)\n" * 600), added("src/b.py", "print(2)\n" * 600)
        )
        assert report.status == "fail"
        assert len(report.findings) == CODE_FINDINGS_LISTED + 1
        last = report.findings[-1]
        assert (last.paths, last.line, last.column) == (("src/b.py",), 401, 1)
        assert last.message == (
            "src/b.py:401:1: 200 more match(es) of this rule from here on, not listed one by"
            " one (a rule lists 1000 of its own)."
        )

    def test_paths_the_rule_does_not_select_are_not_searched(self) -> None:
        assert _judge(PRINT, added("docs/a.py", "print(1)\n")).findings == ()

    def test_a_result_that_does_not_parse_is_unchecked_for_that_path(self) -> None:
        report = _judge(
            PRINT, added("src/a.py", "def f(:\n  print(1)\n"), added("src/b.py", "print(2)\n")
        )
        assert report.status == "fail"  # what could be searched is judged
        (item,) = report.unchecked
        assert (item.rule, item.stage, item.path) == ("no-print", Stage.CODE, "src/a.py")
        assert "does not parse as python" in item.message
        text = render_text(report)
        assert "Unchecked (code): code rule no-print: the result's src/a.py" in text
        assert "change rule no-print" not in text
        waived = replace(report, findings=(), waived=(Waived(report.findings[0], label="ok"),))
        assert "Waived by the label `ok`: code rule no-print" in render_text(waived)

    def test_a_baseline_that_does_not_parse_leaves_new_matches_unchecked(self) -> None:
        report = _judge(PRINT, modified("src/a.py", "def f(:\n", "print(1)\n"))
        assert report.findings == ()
        assert report.status == "unchecked"
        assert "the merge base's src/a.py does not parse" in report.unchecked[0].message

    def test_a_result_without_matches_passes_whatever_the_baseline(self) -> None:
        assert _judge(PRINT, modified("src/a.py", "def f(:\n", "x = 1\n")).status == "pass"

    def test_a_side_that_was_not_searched_is_unchecked(self) -> None:
        rules = RuleSet((PRINT,))
        changes = ChangeSet((added("src/a.py", "print(1)\n"),), RANGE)  # never searched
        report = evaluate(rules, changes, PrBody.unavailable(), Phase.TURN)
        assert report.status == "unchecked"
        assert "was not searched" in report.unchecked[0].message

    def test_a_snapshot_says_no_change_was_judged(self) -> None:
        report = _judge(PRINT, added("src/a.py", "print(1)\n"), range_=Range.of_snapshot())
        assert report.findings[0].message == "src/a.py:1:1: `print(1)` matches this code rule."


class TestLayoutRules:
    def test_added_paths_are_judged_by_their_stem(self) -> None:
        report = _judge(SNAKE, added("src/BadName.py"), added("src/good_name.test.py"))
        (finding,) = report.findings
        assert finding.kind == "layout"
        assert (
            finding.message
            == "src/BadName.py was added; its name's stem `BadName` is not snake_case."
        )

    def test_existing_paths_are_never_judged_so_adopting_a_rule_starts_at_zero(self) -> None:
        report = _judge(SNAKE, modified("src/BadName.py"), deleted("src/Old.py"))
        assert report.findings == ()
        assert report.fired == ()

    def test_forbid(self) -> None:
        forbid = layout_rule("no-new", forbid=True, paths=("legacy/**",))
        report = _judge(forbid, added("legacy/x.py"), modified("legacy/y.py"))
        assert [f.message for f in report.findings] == [
            "legacy/x.py was added, and no file may be added there."
        ]

    def test_a_regex_convention_says_its_pattern(self) -> None:
        numbered = layout_rule("numbered", name="regex:[0-9]{4}_[a-z_]+", paths=("migrations/*",))
        (finding,) = _judge(numbered, added("migrations/initial.sql")).findings
        assert "does not match `[0-9]{4}_[a-z_]+`" in finding.message

    def test_a_snapshot_judges_every_file(self) -> None:
        report = _judge(SNAKE, added("src/BadName.py"), range_=Range.of_snapshot())
        assert report.findings[0].message.startswith("src/BadName.py is there;")


def test_the_json_codec_keeps_line_column_and_the_snapshot_both_ways() -> None:
    from cagr_core.report_json import report_data, report_from_data  # noqa: PLC0415

    for range_ in (RANGE, Range.of_snapshot()):
        report = _judge(PRINT, added("src/a.py", "x = 1\nprint(1)\n"), range_=range_)
        data = report_data(report)
        assert data["findings"][0]["line"] == 2
        assert data["findings"][0]["column"] == 1
        assert report_from_data(data) == report
    assert report_data(_judge(PRINT, range_=Range.of_snapshot()))["range"]["result"] == "snapshot"
