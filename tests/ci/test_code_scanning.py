"""SARIF that code scanning keeps: held to the upload's own rules (code_scanning.py), not only
to the schema."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft4Validator

from cagr_ci.event import CiEvent
from cagr_ci.run import run_ci
from cagr_ci.sarif import LEFT_OUT, MAX_RESULTS, sarif_log
from cagr_core.pull_request import PrBody
from cagr_core.report import Finding
from cagr_core.values import replace
from cagr_git.discover import find_checkout
from cagr_repo.config import load_config
from tests.support.ci import (
    GOOD_BODY,
    MORE_RULES,
    SECTIONS,
    Project,
    cagr_ci,
    github_env,
    pull_request,
)
from tests.support.code_scanning import (
    github_rule_problems,
    multitool_errors,
    rejections,
    sarif_schema,
    unplaced,
)
from tests.support.git import commit, git, write


def valid(log: dict) -> bool:
    return not list(Draft4Validator(sarif_schema()).iter_errors(log))


class TestResultLimit:
    def test_a_log_past_the_limit_keeps_every_rule_and_says_how_many_are_left_out(
        self, project: Project
    ) -> None:
        project.baseline({"cagr.toml": MORE_RULES})
        head = project.work(
            {f"src/guards/g{n:02}.ts": "guard" for n in range(12)} | {"src/schema.py": "v2"}
        )
        checkout = project.clone(head)
        config = load_config(checkout)
        result = run_ci(config, find_checkout(str(checkout)), CiEvent("none", "", "t"))
        assert len(result.report.findings) == 13
        log = sarif_log(result, max_results=5)
        results = log["runs"][0]["results"]
        assert len(results) == 5
        assert {r["ruleId"] for r in results[:4]} == {"guard-tests", "schema-companion"}
        last = results[-1]
        assert last["ruleId"] == LEFT_OUT
        assert last["message"]["text"].startswith("9 more finding(s) of 1 rule(s) are not in")
        assert "at most 5 results per run" in last["message"]["text"]
        assert valid(log)
        assert unplaced(log) == []

    def test_the_real_limit(self, project: Project) -> None:
        head = project.work({"a.txt": "a"})
        checkout = project.clone(head)
        config = load_config(checkout)
        result = run_ci(config, find_checkout(str(checkout)), CiEvent("none", "", "t"))
        many = tuple(
            Finding("r", "requires", f"f{n} changed.", "Fix it.", (f"f{n}",))
            for n in range(MAX_RESULTS + 10)
        )
        log = sarif_log(replace(result, report=replace(result.report, findings=many)))
        assert len(log["runs"][0]["results"]) == MAX_RESULTS
        assert rejections(log) == []
        assert log["runs"][0]["results"][-1]["message"]["text"].startswith("11 more finding(s)")
        exact = many[:MAX_RESULTS]
        log = sarif_log(replace(result, report=replace(result.report, findings=exact)))
        assert all(r["ruleId"] == "r" for r in log["runs"][0]["results"])  # nothing left out


class TestLocations:
    def test_a_missing_section_is_shown_where_the_config_asks_for_it(
        self, project: Project
    ) -> None:
        project.baseline({"cagr.toml": SECTIONS})
        head = project.work({"a.txt": "a"})
        out = project.tmp / "cagr.sarif"
        env = github_env(project.tmp, "pull_request", pull_request("edited", head, "## Risk\n"))
        result = cagr_ci(project.clone(head), env, "--sarif", str(out))
        assert result.returncode == 1
        line = SECTIONS.splitlines().index('pr_sections = ["Summary"]') + 1
        annotation = next(
            x for x in result.stdout.splitlines() if x.startswith("::error file=cagr")
        )
        assert annotation.startswith(f"::error file=cagr.toml,line={line},title=cagr%3A review.")
        log = json.loads(out.read_text())
        (finding,) = log["runs"][0]["results"]
        assert finding["ruleId"] == "review.pr_sections"
        place = finding["locations"][0]["physicalLocation"]
        assert place["artifactLocation"]["uri"] == "cagr.toml"
        assert place["region"]["startLine"] == line
        assert unplaced(log) == []
        assert rejections(log) == []
        assert valid(log)

    def test_in_pyproject_too(self, project: Project) -> None:
        pyproject = '[project]\nname = "app"\n\n[tool.cagr.review]\npr_sections = ["Summary"]\n'
        project.baseline({"pyproject.toml": pyproject})
        head = project.work({"a.txt": "a"})
        checkout = project.clone(head)
        config = load_config(checkout)
        event = CiEvent("none", "", "t", pull_request=True)
        result = run_ci(config, find_checkout(str(checkout)), replace(event, body=PrBody("")))
        log = sarif_log(result)
        (finding,) = [r for r in log["runs"][0]["results"] if r["ruleId"] == "review.pr_sections"]
        place = finding["locations"][0]["physicalLocation"]
        assert place["artifactLocation"]["uri"] == "pyproject.toml"
        assert place["region"]["startLine"] == 5

    def test_every_result_of_a_passing_description_run_is_placed(self, project: Project) -> None:
        project.baseline({"cagr.toml": SECTIONS})
        head = project.work({"src/schema.py": "v2"})
        out = project.tmp / "cagr.sarif"
        env = github_env(project.tmp, "pull_request", pull_request("opened", head, GOOD_BODY))
        cagr_ci(project.clone(head), env, "--sarif", str(out))
        log = json.loads(out.read_text())
        assert [r["ruleId"] for r in log["runs"][0]["results"]] == ["schema-companion"]
        assert unplaced(log) == []


class TestWhatGitHubAsks:
    def test_deleted_files_are_never_where_results_point(self, project: Project) -> None:
        # Before: a finding whose first path was deleted pointed code scanning and code quality
        # at a file the head does not hold. The head's own tree is the oracle.
        rules = MORE_RULES.replace('paths = ["src/schema.py"]', 'paths = ["src/**"]')
        project.baseline(
            {"cagr.toml": rules, "migrations/001.sql": "a", "src/a.py": "a", "src/b.py": "b"}
        )
        git(project.origin, "checkout", "-q", "work")
        git(project.origin, "rm", "-q", "migrations/001.sql", "src/a.py")
        write(project.origin, "src/b.py", "b2")
        head = commit(project.origin, "delete a migration and a source")
        git(project.origin, "checkout", "-q", "main")
        checkout = project.clone(head)
        sarif, quality = project.tmp / "cagr.sarif", project.tmp / "quality.json"
        env = github_env(project.tmp, "pull_request", pull_request("opened", head, GOOD_BODY))
        ran = cagr_ci(checkout, env, "--sarif", str(sarif), "--codequality", str(quality))
        assert ran.returncode == 1, ran.stdout
        held = {name.decode() for name in git(checkout, "ls-files", "-z").split(b"\0") if name}
        log = json.loads(sarif.read_text())
        places = {
            r["ruleId"]: r["locations"][0]["physicalLocation"] for r in log["runs"][0]["results"]
        }
        assert {p["artifactLocation"]["uri"] for p in places.values()} <= held
        assert places["schema-companion"]["artifactLocation"]["uri"] == "src/b.py"
        declared = rules.splitlines().index('id = "immutable-migrations"') + 1
        assert places["immutable-migrations"]["artifactLocation"]["uri"] == "cagr.toml"
        assert places["immutable-migrations"]["region"]["startLine"] == declared
        issues = json.loads(quality.read_text())
        assert {issue["location"]["path"] for issue in issues} <= held
        assert valid(log)
        assert unplaced(log) == []

    def test_every_descriptor_has_a_full_description_and_help(self, project: Project) -> None:
        project.baseline({"cagr.toml": SECTIONS})
        head = project.work({"src/schema.py": "v2", "package.json": '{"dependencies": {"x": 1}}'})
        out = project.tmp / "cagr.sarif"
        env = github_env(project.tmp, "push", None)  # no description: dependency-reason unchecked
        env.update(GITHUB_EVENT_NAME="workflow_dispatch")
        ran = cagr_ci(project.clone(head), env, "--base", "main", "--sarif", str(out))
        assert ran.returncode == 1, ran.stdout
        log = json.loads(out.read_text())
        driver = log["runs"][0]["tool"]["driver"]
        assert driver["rules"]
        assert driver["notifications"]
        assert github_rule_problems(log) == []
        assert "declared in cagr.toml line" in driver["rules"][0]["fullDescription"]["text"]
        assert valid(log)
        errors = multitool_errors(str(out))
        if errors is None:
            pytest.skip("no SARIF multitool (CAGR_SARIF_MULTITOOL) to run GitHub's rules")
        assert errors == []
