"""Code and layout rules in CI: the branch's new matches as annotations with line and column,
SARIF results with regions (valid against the SARIF schema), GitLab code-quality lines, the
job summary; and a code rule without ast-grep is unchecked, never a pass."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft4Validator

from tests.support.ci import Project, cagr_ci, github_env, mr_env, pull_request
from tests.support.code_scanning import sarif_schema
from tests.support.configs import CODE_LAYOUT_GUARD

BODY = "## Summary\nA change.\n"


@pytest.fixture
def coded(project: Project) -> Project:
    project.baseline(
        {"cagr.toml": CODE_LAYOUT_GUARD, "src/app.py": "def main():\n    print('hello')\n"}
    )
    return project


def _head(project: Project) -> str:
    return project.work(
        {
            "src/app.py": "def main():\n    print('hello')\n    x = 1;  print(x)\n",
            "src/NewModule.py": "VALUE = 1\n",
        }
    )


def _github(project: Project, head: str) -> dict[str, str]:
    return github_env(project.tmp, "pull_request", pull_request("opened", head, BODY))


def test_annotations_have_the_match_s_line_and_column(coded: Project) -> None:
    head = _head(coded)
    result = cagr_ci(coded.clone(head), _github(coded, head))
    assert result.returncode == 1
    assert (
        "::error file=src/app.py,line=3,col=13,title=cagr%3A code rule no-print::" in result.stdout
    )
    assert "::error file=src/NewModule.py,line=1,title=cagr%3A layout rule snake-modules::" in (
        result.stdout
    )
    assert "print('hello')" not in result.stdout.split("Instead")[0]  # the base's is no finding
    summary = (coded.tmp / "step_summary.md").read_text()
    assert "`no-print`" in summary
    assert "src/app.py:3:13" in summary


def test_sarif_results_have_regions(coded: Project) -> None:
    head = _head(coded)
    sarif = coded.tmp / "cagr.sarif"
    assert cagr_ci(coded.clone(head), _github(coded, head), "--sarif", str(sarif)).returncode == 1
    log = json.loads(sarif.read_text())
    assert list(Draft4Validator(sarif_schema()).iter_errors(log)) == []
    regions = {
        r["ruleId"]: r["locations"][0]["physicalLocation"]["region"]
        for r in log["runs"][0]["results"]
    }
    assert regions == {
        "no-print": {"startLine": 3, "startColumn": 13},
        "snake-modules": {"startLine": 1},
    }
    kinds = {
        rule["id"]: rule["properties"]["kind"] for rule in log["runs"][0]["tool"]["driver"]["rules"]
    }
    assert kinds == {"no-print": "code", "snake-modules": "layout"}
    names = {
        r["id"]: r["shortDescription"]["text"] for r in log["runs"][0]["tool"]["driver"]["rules"]
    }
    assert names == {
        "no-print": "cagr code rule no-print",
        "snake-modules": "cagr layout rule snake-modules",
    }


def test_gitlab_code_quality_lines(coded: Project) -> None:
    head = _head(coded)
    out = coded.tmp / "gl-code-quality.json"
    result = cagr_ci(coded.clone(head), mr_env(coded, head, BODY), "--codequality", str(out))
    assert result.returncode == 1
    issues = {i["check_name"]: i["location"] for i in json.loads(out.read_text())}
    assert issues["no-print"] == {"path": "src/app.py", "lines": {"begin": 3}}
    assert issues["snake-modules"] == {"path": "src/NewModule.py", "lines": {"begin": 1}}


def test_a_code_rule_without_ast_grep_is_unchecked_never_a_pass(coded: Project) -> None:
    head = coded.work({"src/app.py": "def main():\n    print('hello')\n    print('new')\n"})
    checkout = coded.clone(head)
    blocker = coded.tmp / "no-ast-grep"
    blocker.mkdir()
    (blocker / "ast_grep_py.py").write_text("raise ImportError('not installed here')\n")
    env = {**_github(coded, head), "PYTHONPATH": str(blocker)}
    result = cagr_ci(checkout, env, "--format", "json")
    data = json.loads(result.stdout)
    assert result.returncode == 3, result.stdout
    assert data["status"] == "unchecked"
    (item,) = data["unchecked"]
    assert item["rule"] == "no-print"
    assert "pip install 'cagr[code]'" in item["message"]
    annotations = cagr_ci(checkout, env).stdout
    assert "title=cagr%3A code rule no-print::Unchecked" in annotations, annotations
