"""What a CI run leaves behind: annotations, the job summary, JSON and a valid SARIF log."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from jsonschema import Draft4Validator, FormatChecker

from cagr_ci.annotations import escape_data, escape_property
from cagr_ci.event import CiEvent
from cagr_ci.run import run_ci
from cagr_ci.sarif import path_uri
from cagr_ci.summary import step_summary
from cagr_git.discover import find_checkout
from cagr_repo.config import load_config
from tests.support.ci import (
    DEPENDENCY,
    GOOD_BODY,
    MORE_RULES,
    RULES,
    Project,
    cagr_ci,
    github_env,
    pull_request,
    push,
    step_outputs,
)
from tests.support.code_scanning import rejections, sarif_schema, unplaced


@pytest.fixture
def many(project: Project) -> tuple[Project, str]:
    """A PR with 12 unguarded guards, a deleted migration, and a schema edit: 14 findings."""
    project.baseline({"cagr.toml": MORE_RULES, "migrations/001 a,b:c.sql": "create"})
    files = {f"src/guards/g{n:02}.ts": "guard" for n in range(12)}
    files["src/schema.py"] = "v2"
    git_rm = project.origin / "migrations" / "001 a,b:c.sql"
    git_rm.unlink()
    head = project.work(files)
    return project, head


def pr_env(project: Project, head: str, body: str = GOOD_BODY) -> dict[str, str]:
    return github_env(project.tmp, "pull_request", pull_request("synchronize", head, body))


class TestAnnotations:
    def test_one_error_per_finding_within_githubs_limit(self, many: tuple[Project, str]) -> None:
        project, head = many
        result = cagr_ci(project.clone(head), pr_env(project, head))
        assert result.returncode == 1
        errors = [line for line in result.stdout.splitlines() if line.startswith("::error ")]
        assert len(errors) == 10
        assert errors[-1].startswith("::error title=cagr%3A 5 more::5 more finding(s)")
        assert errors[0] == (
            "::error file=src/guards/g00.ts,line=1,title=cagr%3A change rule guard-tests::Added"
            " src/guards/g00.ts; src/guards/g00.test.ts needs to be added or changed in this"
            " change.%0AInstead: Add the matching .test.ts file in this change."
        )

    def test_a_deleted_path_is_annotated_with_escaped_properties(
        self, many: tuple[Project, str]
    ) -> None:
        project, head = many
        result = cagr_ci(project.clone(head), pr_env(project, head), "--format", "json")
        annotations = result.stderr.splitlines()  # stdout holds only the JSON report
        json.loads(result.stdout)
        assert any(
            line.startswith(
                "::error file=migrations/001 a%2Cb%3Ac.sql,line=1,title=cagr%3A change rule"
            )
            for line in annotations
        )

    def test_unchecked_items_are_warnings(self, project: Project) -> None:
        head = project.work({"package.json": '{"dependencies": {"x": "1"}}'})
        env = github_env(project.tmp, "push", push(head, project.base, ref="refs/heads/work"))
        result = cagr_ci(project.clone(head), env)
        assert result.returncode == 3
        (warning,) = [line for line in result.stdout.splitlines() if line.startswith("::warning")]
        # No path to show it on: it goes where the rule is declared.
        declared = RULES.splitlines().index('id = "dependency-reason"') + 1
        assert warning.startswith(
            f"::warning file=cagr.toml,line={declared},title=cagr%3A change rule"
            " dependency-reason::Unchecked: this rule needs"
        )

    def test_escaping(self) -> None:
        assert escape_data("100%\r\nnext") == "100%25%0D%0Anext"
        assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"

    def test_paths_and_pr_text_cannot_forge_workflow_commands(self, project: Project) -> None:
        project.baseline({"cagr.toml": MORE_RULES})
        head = project.work({"src/guards/x\n::error::forged.ts": "guard"})
        result = cagr_ci(project.clone(head), pr_env(project, head))
        lines = result.stdout.splitlines()
        start = next(i for i, line in enumerate(lines) if line.startswith("::stop-commands::"))
        token = lines[start].removeprefix("::stop-commands::")
        assert re.fullmatch(r"[0-9a-f]{32}", token)
        end = lines.index(f"::{token}::")
        # The name's line break is shown as \n, and the report sits inside the guard anyway;
        # an annotation names it inside its own message, escaped the same way.
        assert not [line for line in lines if line.startswith("::error::forged")]
        shown = [i for i, line in enumerate(lines) if "x\\n::error::forged.ts" in line]
        assert shown
        assert all(start < i < end or lines[i].startswith("::error file=") for i in shown)


class TestStepSummary:
    def test_a_table_of_rules_verdicts_and_fixes(self, many: tuple[Project, str]) -> None:
        project, head = many
        cagr_ci(project.clone(head), pr_env(project, head))
        summary = (project.tmp / "step_summary.md").read_text()
        assert summary.startswith("## cagr: change rules failed\n")
        assert "| Rule | Verdict | What happened | Fix |" in summary
        assert (
            "| `schema-companion` | ❌ fail | src/schema.py changed; schema.json did not change."
            " | Run `make schema` and include schema.json in this change. |"
        ) in summary
        # A rule the change never triggered is told apart from one it met.
        assert "| `dependency-reason` | ✅ pass | Not triggered by this change. |" in summary
        assert "migrations/001 a,b:c.sql existed at the baseline and was deleted." in summary

    def test_a_rule_the_change_met_reads_satisfied(self, project: Project) -> None:
        head = project.work({"src/schema.py": "v2", "schema.json": '{"v": 2}'})
        cagr_ci(project.clone(head), pr_env(project, head))
        summary = (project.tmp / "step_summary.md").read_text()
        assert "| `schema-companion` | ✅ pass | Satisfied. |" in summary
        assert "| `dependency-reason` | ✅ pass | Not triggered by this change. |" in summary

    def test_the_table_stays_short_and_every_path_is_listed_below_it(
        self, project: Project
    ) -> None:
        # Before: a cell stopped at 600 characters while an annotation said the summary lists
        # them all.
        files = {f"src/p{n:03}_{'x' * 40}.py": "v2" for n in range(60)}
        project.baseline(
            {"cagr.toml": RULES.replace('paths = ["src/schema.py"]', 'paths = ["src/**"]')}
        )
        head = project.work(files)
        cagr_ci(project.clone(head), pr_env(project, head))
        summary = (project.tmp / "step_summary.md").read_text()
        (row,) = [line for line in summary.splitlines() if line.startswith("| `schema-companion`")]
        assert len(row) < 1000
        assert "(and 59 more selected paths: " in row
        assert " and 56 more); schema.json did not change." in row
        assert "(Every path below the table.)" in row
        assert "<summary>schema-companion: 1 finding(s), 60 path(s)</summary>" in summary
        for path in files:
            assert f"  - `{path}`" in summary

    def test_bounded_to_the_limit(self, many: tuple[Project, str]) -> None:
        project, head = many
        checkout = project.clone(head)
        config = load_config(checkout)
        result = run_ci(config, find_checkout(str(checkout)), CiEvent("none", "", "t"))
        whole = step_summary(result, config)
        cut = step_summary(result, config, limit=len(whole.encode()) // 2 + 4096)
        assert len(cut.encode()) < len(whole.encode())
        assert "more line(s) omitted" in cut
        assert cut.startswith("## cagr: change rules failed")

    def test_a_path_holding_a_line_break_is_shown_as_that_one_path(self, project: Project) -> None:
        # Before: `src/real` and `schema.json` on two lines of a cell, or `src/real schema.json`
        # in a code span: other paths that look real. GitHub's cmark-gfm shows what it renders.
        cmarkgfm = pytest.importorskip("cmarkgfm", reason="cmarkgfm is in the `test` extra")
        project.baseline(
            {"cagr.toml": RULES.replace('paths = ["src/schema.py"]', 'paths = ["src/**"]')}
        )
        head = project.work({"src/real\nschema.json": "x", "src/other.py": "y"})
        result = cagr_ci(project.clone(head), pr_env(project, head))
        html = cmarkgfm.github_flavored_markdown_to_html(
            (project.tmp / "step_summary.md").read_text()
        )
        assert "<code>src/real\\nschema.json</code>" in html
        assert "src/real\\nschema.json was added" in html or "src/real\\nschema.json" in html
        assert "src/real schema.json" not in html
        assert "src/real<br" not in html
        assert "src/real\n" not in html
        errors = [line for line in result.stdout.splitlines() if line.startswith("::error")]
        assert any("src/real\\nschema.json" in line for line in errors)
        assert not any("src/real%0A" in line for line in errors)

    def test_cells_cannot_break_the_table(self, project: Project) -> None:
        project.baseline({"cagr.toml": MORE_RULES})
        head = project.work({"src/guards/a|b<i>.ts": "guard"})
        cagr_ci(project.clone(head), pr_env(project, head))
        summary = (project.tmp / "step_summary.md").read_text()
        assert "Added src/guards/a\\|b&lt;i&gt;.ts;" in summary


class TestSarif:
    def test_the_log_validates_against_the_official_schema(self, many: tuple[Project, str]) -> None:
        project, head = many
        out = project.tmp / "cagr.sarif"
        result = cagr_ci(project.clone(head), pr_env(project, head), "--sarif", str(out))
        assert result.returncode == 1
        log = json.loads(out.read_text())
        checker = FormatChecker()
        assert {"uri", "uri-reference"} <= set(checker.checkers), "format checks need rfc3986"
        errors = list(Draft4Validator(sarif_schema(), format_checker=checker).iter_errors(log))
        assert errors == []
        (run,) = log["runs"]
        assert run["tool"]["driver"]["name"] == "cagr"
        assert len(run["results"]) == 14
        assert rejections(log) == []
        assert unplaced(log) == []
        uris = {
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]
        }
        # The deleted migration is not in the head: its result is where the rule is declared.
        assert path_uri("migrations/001 a,b:c.sql") == "migrations/001%20a%2Cb%3Ac.sql"
        assert "migrations/001%20a%2Cb%3Ac.sql" not in uris
        deleted = next(r for r in run["results"] if r["ruleId"] == "immutable-migrations")
        assert deleted["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "cagr.toml"
        assert deleted["message"]["text"].endswith(
            "Instead: Restore the merged migration and add a new migration instead."
        )

    def test_an_incomplete_check_is_not_a_clean_log_and_keeps_its_findings(
        self, project: Project
    ) -> None:
        # A finding and an unchecked obligation in one run.
        head = project.work({"package.json": DEPENDENCY, "src/schema.py": "v2"})
        out = project.tmp / "cagr.sarif"
        assert cagr_ci(project.clone(head), {}, "--sarif", str(out)).returncode == 1
        log = json.loads(out.read_text())
        assert list(Draft4Validator(sarif_schema()).iter_errors(log)) == []
        # executionSuccessful: false would make code scanning keep none of the results.
        assert rejections(log) == []
        (run,) = log["runs"]
        assert [r["ruleId"] for r in run["results"]] == ["schema-companion"]
        (invocation,) = run["invocations"]
        assert invocation["executionSuccessful"] is True
        (note,) = invocation["toolExecutionNotifications"]
        assert note["level"] == "error"  # SARIF: the results are not complete
        assert note["descriptor"]["id"] == "cagr/unchecked"
        assert note["message"]["text"].startswith("Unchecked (body): this rule needs")
        ids = [n["id"] for n in run["tool"]["driver"]["notifications"]]
        assert ids[note["descriptor"]["index"]] == "cagr/unchecked"

    def test_path_uris(self) -> None:
        assert path_uri("src/a b#c?.py") == "src/a%20b%23c%3F.py"
        assert path_uri("é/\udcff.txt") == "%C3%A9/%FF.txt"


def test_json_report_keys(project: Project) -> None:
    head = project.work({"src/schema.py": "v2", "schema.json": "{}\n"})
    result = cagr_ci(project.clone(head), pr_env(project, head), "--format", "json")
    data = json.loads(result.stdout)
    assert {
        "status",
        "range",
        "findings",
        "unchecked",
        "deferred",
        "pending_staged",
        "timings_ms",
        "ci",
        "stack",
        "problems",
        "notes",
    } <= set(data)
    assert data["status"] == "pass"
    assert data["ci"]["body_truncated"] is False
    assert set(data["timings_ms"]) == {"collect", "evaluate"}


def test_text_report_names_the_range(project: Project) -> None:
    head = project.work({"src/schema.py": "v2"})
    text = cagr_ci(project.clone(head), {}).stdout
    assert (
        f"Change rule schema-companion failed (merge base {project.base[:7]} to {head[:7]})."
        in (text)
    )
    assert f"Base:   {project.base} (the merge base)" in text
    assert text.rstrip().endswith("Failed: 1 finding(s).")


def test_sarif_needs_no_github(project: Project, tmp_path: Path) -> None:
    head = project.work({"a.txt": "a"})
    out = tmp_path / "sub" / "log.sarif"
    assert cagr_ci(project.clone(head), {}, "--sarif", str(out)).returncode == 0
    assert json.loads(out.read_text())["runs"][0]["results"] == []


def test_every_failing_rule_is_among_the_annotations_shown(many: tuple[Project, str]) -> None:
    project, head = many
    result = cagr_ci(project.clone(head), pr_env(project, head))
    shown = [line for line in result.stdout.splitlines() if line.startswith("::error ")]
    rules = {re.search(r"change rule ([\w-]+)::", line).group(1) for line in shown[:-1]}
    assert rules == {"guard-tests", "immutable-migrations", "schema-companion"}


class TestStepOutputs:
    """GITHUB_OUTPUT: status, findings, unchecked and sarif, for later steps."""

    def test_a_failing_run_with_a_sarif_log(self, many: tuple[Project, str]) -> None:
        project, head = many
        sarif = project.tmp / "out dir" / "cagr.sarif"
        cagr_ci(project.clone(head), pr_env(project, head), "--sarif", str(sarif))
        assert step_outputs(project.tmp) == {
            "status": "fail",
            "findings": "14",
            "unchecked": "0",
            "sarif": str(sarif),
        }

    def test_an_unchecked_run_without_sarif(self, project: Project) -> None:
        head = project.work({"package.json": DEPENDENCY})
        env = github_env(project.tmp, "push", push(head, project.base, ref="refs/heads/work"))
        assert cagr_ci(project.clone(head), env).returncode == 3
        assert step_outputs(project.tmp) == {
            "status": "unchecked",
            "findings": "0",
            "unchecked": "1",
            "sarif": "",
        }

    def test_a_run_that_could_not_check_says_error(self, project: Project) -> None:
        head = project.work({"a.txt": "a"})
        env = pr_env(project, head)
        env["GITHUB_EVENT_PATH"] = str(project.tmp / "missing.json")
        assert cagr_ci(project.clone(head), env).returncode == 2
        assert step_outputs(project.tmp)["status"] == "error"

    def test_a_path_with_a_line_break_stays_one_value(self, project: Project) -> None:
        head = project.work({"a.txt": "a"})
        sarif = project.tmp / "odd\nsarif=x" / "cagr.sarif"
        assert (
            cagr_ci(project.clone(head), pr_env(project, head), "--sarif", str(sarif)).returncode
            == 0
        )
        outputs = step_outputs(project.tmp)
        assert outputs["sarif"] == str(sarif)
        assert set(outputs) == {"status", "findings", "unchecked", "sarif"}

    def test_not_on_github_nothing_is_written(self, project: Project) -> None:
        head = project.work({"a.txt": "a"})
        output = project.tmp / "github_output"
        assert cagr_ci(project.clone(head), {"GITHUB_OUTPUT": str(output)}).returncode == 0
        assert not output.exists()
