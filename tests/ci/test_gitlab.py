"""`cagr ci` in GitLab merge request pipelines, from GitLab's predefined variables."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys

import pytest
from jsonschema import Draft202012Validator

from tests.support.ci import DEPENDENCY, GOOD_BODY, Project, cagr_ci, gitlab_env, mr_env
from tests.support.git import git


def data(result) -> dict:
    return json.loads(result.stdout)


class TestMergeRequestPipelines:
    def test_description_and_diff_base(self, project: Project) -> None:
        head = project.work({"package.json": DEPENDENCY})
        project.main({"later.txt": "main moved after the MR's diff base"})
        checkout = project.clone(head)
        result = cagr_ci(checkout, mr_env(project, head, GOOD_BODY), "--format", "json")
        assert result.returncode == 0, result.stdout
        report = data(result)
        assert report["ci"]["target_source"] == "CI_MERGE_REQUEST_DIFF_BASE_SHA (diff base of main)"
        assert report["range"]["base"] == project.base
        assert report["ci"]["body_source"] == "CI_MERGE_REQUEST_DESCRIPTION"
        failing = cagr_ci(checkout, mr_env(project, head, "## Risk\nNone"))
        assert failing.returncode == 1
        assert "cagr ci: GitLab merge request !12" in failing.stdout
        assert "Risk lacks `Dependency reason:`" in failing.stdout

    def test_an_empty_description_is_checked_as_empty(self, project: Project) -> None:
        head = project.work({"package.json": DEPENDENCY})
        result = cagr_ci(project.clone(head), mr_env(project, head, ""))
        assert result.returncode == 1
        assert "the PR body is empty" in result.stdout

    def test_an_absent_description_is_unchecked(self, project: Project) -> None:
        head = project.work({"package.json": DEPENDENCY})
        result = cagr_ci(project.clone(head), mr_env(project, head, None))
        assert result.returncode == 3
        assert "GitLab did not pass CI_MERGE_REQUEST_DESCRIPTION" in result.stdout

    def test_merged_results_pipelines_must_check_out_the_source_commit(
        self, project: Project
    ) -> None:
        head = project.work({"package.json": DEPENDENCY})
        checkout = project.clone("origin/main")
        git(checkout, "merge", "-q", "--no-ff", "--no-edit", head)
        merge = git(checkout, "rev-parse", "HEAD").decode().strip()
        env = mr_env(
            project,
            merge,
            GOOD_BODY,
            CI_MERGE_REQUEST_EVENT_TYPE="merged_result",
            CI_MERGE_REQUEST_SOURCE_BRANCH_SHA=head,
            CI_MERGE_REQUEST_TARGET_BRANCH_SHA=project.base,
        )
        refused = cagr_ci(checkout, env)
        assert refused.returncode == 2
        assert "CI_MERGE_REQUEST_SOURCE_BRANCH_SHA" in refused.stderr
        assert 'git checkout --detach "$CI_MERGE_REQUEST_SOURCE_BRANCH_SHA"' in refused.stderr
        git(checkout, "checkout", "-q", "--detach", head)
        assert cagr_ci(checkout, env).returncode == 0

    def test_without_a_diff_base_the_target_branch_is_used(self, project: Project) -> None:
        head = project.work({"a.txt": "a"})
        env = mr_env(project, head, GOOD_BODY)
        del env["CI_MERGE_REQUEST_DIFF_BASE_SHA"]
        report = data(cagr_ci(project.clone(head), env, "--format", "json"))
        assert report["ci"]["target_source"] == "CI_MERGE_REQUEST_TARGET_BRANCH_NAME"
        assert report["range"]["target_ref"] == "refs/remotes/origin/main"

    def test_a_pipeline_without_a_merge_request_has_no_body(self, project: Project) -> None:
        head = project.work({"package.json": DEPENDENCY})
        env = gitlab_env("push", head, CI_COMMIT_BEFORE_SHA=project.base, CI_COMMIT_BRANCH="work")
        result = cagr_ci(project.clone(head), env)
        assert result.returncode == 3
        assert "CI_PIPELINE_SOURCE=push) has no merge request" in result.stdout

    def test_a_malformed_commit_variable_exits_2(self, project: Project) -> None:
        head = project.work({"a.txt": "a"})
        result = cagr_ci(project.clone(head), mr_env(project, "main", GOOD_BODY))
        assert result.returncode == 2
        assert "CI_COMMIT_SHA is not a commit id" in result.stderr


PADDING = "## Summary\n" + "Long context. " * 180 + "\n"  # about 2,500 characters


class TestCutDescriptions:
    """GitLab keeps 2,700 characters: a verdict holds only where the required section ends at
    a next heading inside the kept text; otherwise the body is unavailable (unchecked)."""

    def run(self, project: Project, description: str, flag: str | None = "true"):
        head = project.work({"package.json": DEPENDENCY})
        extra = {} if flag is None else {"CI_MERGE_REQUEST_DESCRIPTION_IS_TRUNCATED": flag}
        env = mr_env(project, head, description, **extra)
        return cagr_ci(project.clone(head), env)

    def test_a_section_that_ends_inside_the_kept_text_is_decided(self, project: Project) -> None:
        kept = "## Risk\nDependency reason: x parses it.\n## Testing\nran the su"
        assert self.run(project, kept).returncode == 0
        failing = self.run(project, "## Risk\nLow.\n## Testing\nran the su")
        assert failing.returncode == 1

    def test_a_section_cut_off_is_unchecked(self, project: Project) -> None:
        result = self.run(project, PADDING + "## Risk\nDependency reason: x parses the wi")
        assert result.returncode == 3
        assert "only the start of the PR description is available" in result.stdout
        assert "the Risk section does not end inside it" in result.stdout

    def test_a_section_beyond_the_cut_is_unchecked_not_missing(self, project: Project) -> None:
        result = self.run(project, PADDING + "## Notes\nmore\n## Ri")
        assert result.returncode == 3
        assert "the Risk section is not in it" in result.stdout

    def test_a_heading_cut_mid_line_is_not_trusted(self, project: Project) -> None:
        # `## Risk` might have been `## Risky migrations`: the cut last line is dropped.
        result = self.run(project, "## Summary\nx\n## Notes\nDependency reason: y\n## Risk")
        assert result.returncode == 3

    @pytest.mark.parametrize(("length", "status"), [(2699, 0), (2700, 3)])
    def test_without_the_flag_a_description_at_the_limit_counts_as_cut(
        self, project: Project, length: int, status: int
    ) -> None:
        body = "## Risk\nDependency reason: x parses the wire format.\n"
        description = body + "x" * (length - len(body))
        assert self.run(project, description, flag=None).returncode == status


# GitLab's documented code quality format: the fields it reads, with their types.
CODE_QUALITY = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["description", "check_name", "fingerprint", "severity", "location"],
        "properties": {
            "description": {"type": "string", "minLength": 1},
            "check_name": {"type": "string", "minLength": 1},
            "fingerprint": {"type": "string", "minLength": 1},
            "severity": {"enum": ["info", "minor", "major", "critical", "blocker"]},
            "location": {
                "type": "object",
                "required": ["path", "lines"],
                "properties": {
                    "path": {"type": "string", "minLength": 1},
                    "lines": {
                        "type": "object",
                        "required": ["begin"],
                        "properties": {"begin": {"type": "integer", "minimum": 1}},
                    },
                },
            },
        },
    },
}


class TestCodeQualityReport:
    """`--codequality FILE` for `artifacts: reports: codequality`: findings in the MR."""

    def test_findings_and_unchecked_items(self, project: Project) -> None:
        head = project.work({"src/schema.py": "v2", "package.json": DEPENDENCY})
        out = project.tmp / "gl-code-quality-report.json"
        env = mr_env(project, head, None)  # no description: the body rule is unchecked
        result = cagr_ci(project.clone(head), env, "--codequality", str(out))
        assert result.returncode == 1
        issues = json.loads(out.read_text())
        assert list(Draft202012Validator(CODE_QUALITY).iter_errors(issues)) == []
        by_check = {issue["check_name"]: issue for issue in issues}
        finding = by_check["schema-companion"]
        assert finding["severity"] == "major"
        assert finding["location"] == {"path": "src/schema.py", "lines": {"begin": 1}}
        assert finding["description"].endswith(
            "Instead: Run `make schema` and include schema.json in this change."
        )
        unchecked = by_check["dependency-reason"]
        assert unchecked["severity"] == "info"
        assert unchecked["description"].startswith("Unchecked (body):")
        assert len({issue["fingerprint"] for issue in issues}) == len(issues)

    def test_the_same_finding_keeps_its_fingerprint_across_pipelines(
        self, project: Project
    ) -> None:
        head = project.work({"src/schema.py": "v2"})
        first, second = project.tmp / "a.json", project.tmp / "b.json"
        cagr_ci(project.clone(head), mr_env(project, head, GOOD_BODY), "--codequality", str(first))
        cagr_ci(project.clone(head), mr_env(project, head, GOOD_BODY), "--codequality", str(second))
        assert json.loads(first.read_text()) == json.loads(second.read_text())

    def test_a_passing_pipeline_writes_an_empty_report(self, project: Project) -> None:
        head = project.work({"a.txt": "a"})
        out = project.tmp / "report.json"
        assert (
            cagr_ci(
                project.clone(head), mr_env(project, head, GOOD_BODY), "--codequality", str(out)
            ).returncode
            == 0
        )
        assert json.loads(out.read_text()) == []

    def test_a_folder_is_refused_before_anything_runs(self, project: Project) -> None:
        head = project.work({"a.txt": "a"})
        result = cagr_ci(
            project.clone(head), mr_env(project, head, GOOD_BODY), "--codequality", str(project.tmp)
        )
        assert result.returncode == 2
        assert "is a folder" in result.stderr


class TestBodyFromStandardInput:
    def test_a_piped_description_is_checked(self, project: Project) -> None:
        head = project.work({"package.json": DEPENDENCY})
        env = gitlab_env("push", head, CI_COMMIT_BEFORE_SHA=project.base, CI_COMMIT_BRANCH="work")
        checkout = project.clone(head)
        passing = cagr_ci(checkout, env, "--body-file", "-", "--format", "json", stdin=GOOD_BODY)
        assert passing.returncode == 0, passing.stdout
        assert data(passing)["ci"]["body_source"] == "--body-file - (standard input)"
        failing = cagr_ci(checkout, env, "--body-file", "-", stdin="## Risk\nNone.\n")
        assert failing.returncode == 1
        assert "Risk lacks `Dependency reason:`" in failing.stdout

    def test_a_terminal_is_never_waited_on(self, project: Project) -> None:
        head = project.work({"a.txt": "a"})
        primary, secondary = pty.openpty()
        try:
            result = cagr_ci(project.clone(head), {}, "--body-file", "-", stdin=secondary)
        finally:
            os.close(primary)
            os.close(secondary)
        assert result.returncode == 2
        assert "standard input, which is a terminal here; pipe it in" in result.stderr

    def test_rules_check_says_where_standard_input_is_read(self, project: Project) -> None:
        head = project.work({"a.txt": "a"})
        result = subprocess.run(
            [sys.executable, "-m", "cagr_cli", "rules", "check", "--body-file", "-"],
            cwd=project.clone(head),
            capture_output=True,
            text=True,
            check=False,
            stdin=subprocess.DEVNULL,
        )
        assert result.returncode == 2
        assert "--body-file - (standard input) is read by `cagr ci` only" in result.stderr
