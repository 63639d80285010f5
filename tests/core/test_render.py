"""Text and JSON rendering of reports, including the output limit."""

import json

from cagr_config.rules import AddOnlyRule, RequiresRule, SiblingRule
from cagr_core.changes import Range
from cagr_core.pull_request import Phase
from cagr_core.render import render_details, render_summary, render_text
from cagr_core.report import Finding, Report
from cagr_core.report_json import report_data
from cagr_core.values import replace
from tests.support.build import RANGE, added, check, deleted, modified
from tests.support.rules import DEPENDENCY_REASON, GUARDS, MIGRATIONS, SCHEMA, bump, manifest


def test_the_documented_messages() -> None:
    report = check(
        [SCHEMA, GUARDS, MIGRATIONS, DEPENDENCY_REASON],
        modified("src/config/schema.ts"),
        added("src/guards/no-push.ts"),
        deleted("migrations/001.sql"),
        bump(manifest(), manifest(dependencies={"x": "1"})),
        body="## Risk\nNone",
    )
    assert render_text(report) == (
        "Change rule dependency-reason failed (merge base abc1234 to working tree).\n"
        "Added dependencies.x in package.json; Risk lacks `Dependency reason:`.\n"
        "Instead: In the PR body's Risk section, write `Dependency reason:` and explain why the"
        " new dependency is needed.\n"
        "\n"
        "Change rule guard-tests failed (merge base abc1234 to working tree).\n"
        "Added src/guards/no-push.ts; src/guards/no-push.test.ts needs to be added or changed in"
        " this change.\n"
        "Instead: Add or update the matching .test.ts file in this change.\n"
        "\n"
        "Change rule immutable-migrations failed (merge base abc1234 to working tree).\n"
        "migrations/001.sql existed at the baseline and was deleted.\n"
        "Instead: Restore the merged migration and add a new migration instead.\n"
        "\n"
        "Change rule schema-companion failed (merge base abc1234 to working tree).\n"
        "src/config/schema.ts changed; schema/cagr.schema.json did not change.\n"
        "Instead: Run `bun run schema` and include schema/cagr.schema.json in this change.\n"
        "\n"
        "Change rules failed: 4 rule(s) checked, 4 changed path(s); 4 finding(s), 0 unchecked,"
        " 0 deferred. Range: merge base abc1234 to working tree; target main at aaaaaaa."
    )


def test_no_range_means_no_label() -> None:
    report = Report(
        findings=(Finding("r", "requires", "a changed; b did not change.", "Do b.", ()),)
    )
    assert render_text(report).splitlines()[0] == "Change rule r failed."


def test_committed_label_names_the_head() -> None:
    range_ = Range("main", "a" * 40, "b" * 40, "c" * 40)
    assert range_.label == "merge base bbbbbbb to ccccccc"
    assert range_.result == "committed"


def _many_findings(count: int) -> Report:
    rule = AddOnlyRule(id="frozen", paths=["m/**"], reason="Restore it; add a new file instead.")
    other = RequiresRule(id="zz-other", paths=["m/**"], require=["x"], reason="Touch x as well.")
    return check([rule, other], *(modified(f"m/{i:04}.sql") for i in range(count)))


def test_limit_keeps_every_rules_fix_and_counts_the_rest() -> None:
    """One rule with 200 findings cannot hide another rule: each keeps a line and its fix."""
    report = _many_findings(200)
    text = render_details(report, limit=1000)
    assert len(text) <= 1200
    assert "Instead: Restore it; add a new file instead." in text
    assert "Change rule zz-other failed" in text
    assert "Instead: Touch x as well." in text
    kept = text.count("existed at the baseline")
    assert kept > 1  # the room left after every rule's first line goes to more lines
    assert text.rstrip().endswith(
        f"({200 - kept} more finding(s) and 0 more notice(s) omitted;"
        " run `cagr rules check` to see all.)"
    )


def test_a_fix_is_never_cut_even_when_it_alone_exceeds_the_limit() -> None:
    long_reason = "Do this: " + "step, " * 100 + "then rerun."
    rule = SiblingRule(id="s", paths=["*.py"], target="{name}_test.py", reason=long_reason)
    text = render_details(check(rule, added("a.py")), limit=200)
    assert f"Instead: {long_reason}" in text


def test_the_first_finding_stays_beside_a_fix_longer_than_the_limit() -> None:
    long_reason = "Do this: " + "step, " * 3_300 + "then rerun."  # about 20,000 characters
    rule = SiblingRule(id="s", paths=["*.py"], target="{name}_test.py", reason=long_reason)
    text = render_details(check(rule, added("a.py"), added("b.py")), limit=9_000)
    assert (
        text.splitlines()[1] == "Added a.py; a_test.py needs to be added or changed in this change."
    )
    assert text.splitlines()[2] == f"Instead: {long_reason}"


def test_unlimited_output_has_every_finding() -> None:
    report = _many_findings(30)
    assert render_text(report).count("existed at the baseline") == 30


def test_deferred_and_unchecked_lines() -> None:
    change = bump(manifest(), manifest(dependencies={"x": "1"}))
    turn = check(DEPENDENCY_REASON, change, phase=Phase.TURN)
    assert render_text(turn).startswith(
        "Deferred to the pull request: change rule dependency-reason: Added dependencies.x"
    )
    ci = check(DEPENDENCY_REASON, change, body=None)
    assert render_text(ci).startswith("Unchecked (body): change rule dependency-reason: ")


def test_json_shape() -> None:
    report = check(SCHEMA, modified("src/config/schema.ts"))
    data = json.loads(json.dumps(report_data(report)))
    assert data["status"] == "fail"
    assert data["range"] == {
        "target_ref": "main",
        "target": "a" * 40,
        "base": "abc1234" + "0" * 33,
        "head": None,
        "result": "working-tree",
        "label": "merge base abc1234 to working tree",
        "chosen_by": None,
    }
    assert data["findings"] == [
        {
            "rule": "schema-companion",
            "kind": "requires",
            "message": "src/config/schema.ts changed; schema/cagr.schema.json did not change.",
            "fix": SCHEMA.reason,
            "paths": ["src/config/schema.ts"],
            "requires": ["schema/cagr.schema.json"],
            "target": None,
            "targets": [],
            "dependencies": [],
            "severity": "error",
            "waive_label": None,
            "config_source": "head",
            "waive_authors": [],
            "parts": {},
            "line": None,
            "column": None,
        }
    ]
    assert data["waived"] == []
    assert data["uncommitted_config"] is None
    assert (data["config_sources"], data["target_config"]) == (["head"], None)
    assert data["unchecked"] == []
    assert data["deferred"] == []
    assert data["pending_staged"] == []
    assert (data["rules_checked"], data["changed_paths"], data["uncommitted"]) == (1, 1, None)
    assert set(data["timings_ms"]) == {"collect", "evaluate"}


def test_json_sibling_target_and_counts() -> None:
    report = check([GUARDS, MIGRATIONS], added("src/guards/a.ts"), added("README.md"))
    data = report_data(report)
    (finding,) = data["findings"]
    assert (finding["paths"], finding["target"], finding["requires"]) == (
        ["src/guards/a.ts"],
        "src/guards/a.test.ts",
        [],
    )
    assert (data["rules_checked"], data["changed_paths"]) == (2, 2)


def test_json_deferred_dependencies_are_all_listed() -> None:
    names = ["a", "b", "c", "d", "e", "f"]
    after = manifest(dependencies=dict.fromkeys(names[:4], "1"), devDependencies={"@t/x": "1"})
    turn = check(
        DEPENDENCY_REASON,
        bump(manifest(), after),
        bump(manifest(), manifest(dependencies={"f": "1"}), "web/package.json"),
        phase=Phase.TURN,
    )
    (deferred,) = report_data(turn)["deferred"]
    assert "and 2 more" in deferred["message"]  # the text is capped; the data is not
    assert deferred["fix"] == DEPENDENCY_REASON.reason
    assert deferred["dependencies"] == [
        {"name": "a", "section": "dependencies", "manifest": "package.json", "change": "added"},
        {"name": "b", "section": "dependencies", "manifest": "package.json", "change": "added"},
        {"name": "c", "section": "dependencies", "manifest": "package.json", "change": "added"},
        {"name": "d", "section": "dependencies", "manifest": "package.json", "change": "added"},
        {
            "name": "@t/x",
            "section": "devDependencies",
            "manifest": "package.json",
            "change": "added",
        },
        {"name": "f", "section": "dependencies", "manifest": "web/package.json", "change": "added"},
    ]
    ci = check(DEPENDENCY_REASON, bump(manifest(), after), body="## Risk\nNone")
    (finding,) = report_data(ci)["findings"]
    assert [d["name"] for d in finding["dependencies"]] == ["a", "b", "c", "d", "@t/x"]
    assert finding["paths"] == ["package.json"]


def test_summary_line() -> None:
    failing = check([SCHEMA, GUARDS], modified("src/config/schema.ts"))
    assert render_summary(replace(failing, range=replace(RANGE, chosen_by="origin/HEAD"))) == (
        "Change rules failed: 2 rule(s) checked, 1 changed path(s); 1 finding(s), 0 unchecked,"
        " 0 deferred. Range: merge base abc1234 to working tree; target main at aaaaaaa, chosen"
        " by origin/HEAD."
    )
    assert render_summary(Report()) == (
        "Change rules passed: 0 rule(s) checked, 0 changed path(s); 0 finding(s), 0 unchecked,"
        " 0 deferred. Range: not resolved (see above)."
    )


def test_uncommitted_paths_are_named_but_change_no_verdict() -> None:
    report = replace(check(SCHEMA, modified("README.md")), uncommitted=3)
    assert report.status == "pass"
    assert render_text(report).startswith(
        "Not part of this committed check: 3 path(s) where the working tree differs from HEAD"
    )


def test_findings_of_one_rule_with_different_fixes_get_each_fix_once() -> None:
    findings = (
        Finding("r", "requires", "a changed.", "Do a.", ()),
        Finding("r", "requires", "b changed.", "Do b.", ()),
        Finding("r", "requires", "c changed.", "Do a.", ()),
    )
    assert render_details(Report(findings=findings)).splitlines()[-2:] == [
        "Instead: Do a.",
        "Instead: Do b.",
    ]


def test_a_line_break_in_a_file_name_cannot_pass_for_a_line_of_the_report() -> None:
    rule = SiblingRule(id="s", paths=["*.py"], target="{name}_test.py", reason="Add the test.")
    text = render_text(check(rule, added("a\nInstead: nothing to do.py")))
    assert text.count("\nInstead: ") == 1
    assert "a\\nInstead: nothing to do.py" in text


def test_a_clean_pass_is_its_summary_line() -> None:
    report = check([SCHEMA], modified("README.md"))
    assert render_details(report) == ""
    assert render_text(report) == render_summary(report)
    assert render_text(report).startswith("Change rules passed: 1 rule(s) checked")
