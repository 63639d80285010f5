"""Rules a team can live with, in CI: `warn` findings are warnings, and a maintainer's label on
the pull request waives a rule with that `waive_label` — and nothing else does."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft4Validator

from tests.support.ci import (
    GOOD_BODY,
    Project,
    cagr_ci,
    github_env,
    merge_group,
    mr_env,
    pull_request,
    push,
    step_outputs,
)
from tests.support.code_scanning import rejections, sarif_schema

TEAM_RULES = """
[[changes.rules]]
id = "immutable-migrations"
kind = "add_only"
paths = ["**/migrations/*.py"]
reason = "Restore the merged migration and add a new migration instead."
waive_label = "migration-fix"
examples.invalid = [{ changes = [{ path = "app/migrations/0001_initial.py", status = "M" }] }]
examples.valid = [{ changes = [{ path = "app/migrations/0002_more.py", status = "A" }] }]

[[changes.rules]]
id = "module-tests"
kind = "sibling"
paths = ["src/**/*.ts"]
ignores = ["**/*.test.ts"]
target = ["{dir}/{name}.test.{ext}", "{dir}/__tests__/{name}.test.{ext}"]
reason = "Add a test for the new module."
severity = "warn"
examples.invalid = [{ changes = [{ path = "src/a.ts", status = "A" }] }]
examples.valid = [{ changes = [{ path = "src/a.ts", status = "A" }, { path = "src/__tests__/a.test.ts", status = "A" }] }]
"""
LABEL = "migration-fix"


@pytest.fixture
def team(project: Project) -> Project:
    project.baseline(
        {"cagr.toml": TEAM_RULES, "app/migrations/0001_initial.py": "create table a\n"}
    )
    return project


def edit_migration(team: Project) -> str:
    return team.work({"app/migrations/0001_initial.py": "create table a\nfix a crash\n"})


def pr(team: Project, head: str, *labels: str, action: str = "synchronize") -> dict[str, str]:
    payload = pull_request(action, head, GOOD_BODY, labels=labels)
    return github_env(team.tmp, "pull_request", payload)


def lines(text: str, prefix: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith(prefix)]


class TestWaivers:
    def test_the_label_waives_the_rule_and_says_so_everywhere(self, team: Project) -> None:
        head = edit_migration(team)
        sarif = team.tmp / "cagr.sarif"
        env = pr(team, head, "bug", LABEL, action="labeled")
        result = cagr_ci(team.clone(head), env, "--sarif", str(sarif))
        assert result.returncode == 0
        assert "Labels: bug, migration-fix (pull_request.labels)" in result.stdout
        assert (
            "Waived by the label `migration-fix`: change rule immutable-migrations (merge base"
        ) in result.stdout
        assert "app/migrations/0001_initial.py existed at the baseline and was edited." in (
            result.stdout
        )
        assert "Waived, not a pass: 1 finding(s) waived by the label migration-fix" in (
            result.stdout
        )
        assert not lines(result.stdout, "::error")
        (notice,) = lines(result.stdout, "::notice")
        assert notice.startswith(
            "::notice file=app/migrations/0001_initial.py,line=1,title=cagr%3A change rule"
            " immutable-migrations waived::Waived by the label migration-fix (not a pass)"
        )
        summary = (team.tmp / "step_summary.md").read_text()
        assert summary.startswith("## cagr: change rules waived by label (not a pass)\n")
        assert "| `immutable-migrations` | 🏷️ waived | Waived by the label migration-fix:" in (
            summary
        )
        log = json.loads(sarif.read_text())
        assert list(Draft4Validator(sarif_schema()).iter_errors(log)) == []
        (result_,) = log["runs"][0]["results"]
        assert result_["suppressions"] == [
            {
                "kind": "external",
                "status": "accepted",
                "justification": "waived by the pull request label migration-fix",
            }
        ]
        assert rejections(log) == []  # code scanning keeps it, suppressed
        assert step_outputs(team.tmp)["status"] == "pass"  # as the JSON report says

    def test_json_lists_the_waived_findings_apart(self, team: Project) -> None:
        head = edit_migration(team)
        result = cagr_ci(team.clone(head), pr(team, head, LABEL), "--format", "json")
        data = json.loads(result.stdout)
        assert data["status"] == "pass"  # the JSON status keeps its four values; exit 0
        assert result.returncode == 0
        assert data["findings"] == []
        (waived,) = data["waived"]  # each entry is the finding's, with the label that waived it
        assert (
            waived.items()
            >= {
                "rule": "immutable-migrations",
                "label": LABEL,
                "message": "app/migrations/0001_initial.py existed at the baseline and was edited.",
                "paths": ["app/migrations/0001_initial.py"],
                "kind": "add_only",
                "fix": "Restore the merged migration and add a new migration instead.",
                "severity": "error",
                "waive_label": LABEL,
            }.items()
        )
        assert (data["ci"]["labels"], data["ci"]["labels_source"]) == (
            [LABEL],
            "pull_request.labels",
        )

    def test_without_the_label_the_finding_stands_and_names_it(self, team: Project) -> None:
        head = edit_migration(team)
        result = cagr_ci(team.clone(head), pr(team, head, "bug"))
        assert result.returncode == 1
        assert (
            "Waivable: a maintainer can waive this rule for the pull request by adding the label"
            " `migration-fix`; CI then reports it as waived. Nothing else waives it."
        ) in result.stdout
        (error,) = lines(result.stdout, "::error")
        assert "Waivable: a maintainer can waive this rule" in error
        summary = (team.tmp / "step_summary.md").read_text()
        assert "| `immutable-migrations` | ❌ fail |" in summary

    def test_an_unlabeled_event_takes_the_waiver_back(self, team: Project) -> None:
        head = edit_migration(team)
        assert cagr_ci(team.clone(head), pr(team, head, LABEL, action="labeled")).returncode == 0
        env = pr(team, head, action="unlabeled")
        assert cagr_ci(team.clone(head), env).returncode == 1

    def test_nothing_but_a_label_waives(self, team: Project) -> None:
        """Not the description, not an environment variable, not a label of another name."""
        head = edit_migration(team)
        body = GOOD_BODY + f"\n\n## Waiver\nwaive_label: {LABEL}\n/label {LABEL}\n"
        payload = pull_request("synchronize", head, body, labels=("Migration-Fix", "migration"))
        env = github_env(team.tmp, "pull_request", payload, CAGR_WAIVE=LABEL, LABELS=LABEL)
        result = cagr_ci(team.clone(head), env, "--format", "json")
        assert result.returncode == 1
        data = json.loads(result.stdout)
        assert (data["status"], data["waived"]) == ("fail", [])
        text = cagr_ci(team.clone(head), env).stdout  # the label that differs in case is named
        assert (
            "The pull request's label Migration-Fix is not migration-fix, the waive_label its"
            " rule names: a label waives only when spelled exactly so (case too)."
        ) in text

    def test_gitlab_merge_request_labels(self, team: Project) -> None:
        head = edit_migration(team)
        env = mr_env(team, head, GOOD_BODY, CI_MERGE_REQUEST_LABELS=f"backend,{LABEL}")
        result = cagr_ci(team.clone(head), env, "--format", "json")
        assert result.returncode == 0
        data = json.loads(result.stdout)
        assert [w["label"] for w in data["waived"]] == [LABEL]
        assert data["ci"]["labels_source"] == "CI_MERGE_REQUEST_LABELS"
        unlabeled = cagr_ci(team.clone(head), mr_env(team, head, GOOD_BODY))
        assert unlabeled.returncode == 1

    def test_labels_for_any_other_ci(self, team: Project) -> None:
        head = edit_migration(team)
        checkout = team.clone(head)
        assert cagr_ci(checkout, {}, "--labels", f" other , {LABEL}").returncode == 0
        result = cagr_ci(checkout, {})
        assert result.returncode == 1
        assert "pass the labels with --labels A,B" in result.stdout

    def test_a_push_has_no_labels(self, team: Project) -> None:
        head = edit_migration(team)
        env = github_env(team.tmp, "push", push(head, team.base))
        result = cagr_ci(team.clone(head), env, "--base", "main")
        assert result.returncode == 1
        assert "so the label(s) migration-fix cannot waive anything here" in result.stdout

    def test_a_merge_queue_has_no_labels_and_says_what_to_do(self, team: Project) -> None:
        head = edit_migration(team)
        env = github_env(team.tmp, "merge_group", merge_group(head, team.base))
        result = cagr_ci(team.clone(head), env)
        assert result.returncode == 1
        assert "its pull request's labels could not be read" in result.stdout
        assert "GITHUB_TOKEN is not set, so cagr cannot read pull request #7" in result.stdout
        assert "without the merge queue" in result.stdout
        refused = cagr_ci(team.clone(head), env, "--labels", LABEL)
        assert refused.returncode == 2
        assert "--labels cannot be used for a merge queue run" in refused.stderr

    def test_malformed_labels_in_the_payload_exit_2(self, team: Project) -> None:
        head = edit_migration(team)
        payload = pull_request("synchronize", head, GOOD_BODY)
        payload["pull_request"]["labels"] = [LABEL]  # names, not label objects
        result = cagr_ci(team.clone(head), github_env(team.tmp, "pull_request", payload))
        assert result.returncode == 2
        assert "`pull_request.labels` in the `pull_request` event payload is not a list" in (
            result.stderr
        )

    def test_a_waiver_never_hides_another_rules_failure(self, team: Project) -> None:
        text = TEAM_RULES.replace('severity = "warn"\n', "")
        team.baseline({"cagr.toml": text})
        head = team.work(
            {"app/migrations/0001_initial.py": "changed\n", "src/new.ts": "export {}\n"}
        )
        result = cagr_ci(team.clone(head), pr(team, head, LABEL), "--format", "json")
        assert result.returncode == 1
        data = json.loads(result.stdout)
        assert [f["rule"] for f in data["findings"]] == ["module-tests"]
        assert [w["rule"] for w in data["waived"]] == ["immutable-migrations"]


class TestWarnings:
    def test_a_warn_rule_is_shown_everywhere_and_fails_nothing(self, team: Project) -> None:
        head = team.work({"src/lib/new.ts": "export {}\n"})
        sarif = team.tmp / "cagr.sarif"
        result = cagr_ci(team.clone(head), pr(team, head), "--sarif", str(sarif))
        assert result.returncode == 0
        assert "Warning: change rule module-tests (merge base" in result.stdout
        assert "(severity warn: it does not fail the check)." in result.stdout
        assert (
            "Added src/lib/new.ts; one of src/lib/new.test.ts, src/lib/__tests__/new.test.ts"
            " needs to be added or changed in this change."
        ) in result.stdout
        assert "Passed: 1 changed path(s) checked, 1 warning(s)" in result.stdout
        assert not lines(result.stdout, "::error")
        (warning,) = lines(result.stdout, "::warning")
        assert warning.startswith(
            "::warning file=src/lib/new.ts,line=1,title=cagr%3A change rule module-tests (warning)::"
        )
        summary = (team.tmp / "step_summary.md").read_text()
        assert summary.startswith("## cagr: change rules passed\n")
        assert "| `module-tests` | 🟡 warning | Added src/lib/new.ts;" in summary
        log = json.loads(sarif.read_text())
        assert list(Draft4Validator(sarif_schema()).iter_errors(log)) == []
        run = log["runs"][0]
        assert [r["level"] for r in run["results"]] == ["warning"]
        assert run["tool"]["driver"]["rules"][0]["defaultConfiguration"] == {"level": "warning"}

    def test_json_carries_the_severity(self, team: Project) -> None:
        head = team.work({"src/new.ts": "export {}\n"})
        result = cagr_ci(team.clone(head), pr(team, head), "--format", "json")
        data = json.loads(result.stdout)
        assert data["status"] == "pass"
        (finding,) = data["findings"]
        assert (finding["rule"], finding["severity"]) == ("module-tests", "warn")
        assert finding["targets"] == ["src/new.test.ts", "src/__tests__/new.test.ts"]

    def test_either_target_satisfies_the_rule(self, team: Project) -> None:
        head = team.work({"src/new.ts": "x\n", "src/__tests__/new.test.ts": "test\n"})
        data = json.loads(cagr_ci(team.clone(head), pr(team, head), "--format", "json").stdout)
        assert (data["status"], data["findings"]) == ("pass", [])
