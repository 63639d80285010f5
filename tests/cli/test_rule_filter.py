"""`--rule ID` on `rules check`, `rules test` and `explain`: only the named rules run, the report
says so, a filtered committed check writes no gate record, and an unknown id is a usage error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cagr_cli.main import main
from tests.support.configs import APP_MIGRATION, TWO_RULES
from tests.support.git import commit, git, write

Capture = pytest.CaptureFixture[str]


@pytest.fixture
def project(repo: Path) -> Path:
    write(repo, "cagr.toml", TWO_RULES + APP_MIGRATION)
    write(repo, "src/schema.py", "v1")
    write(repo, "schema.json", "{}")
    write(repo, "package.json", "{}")
    write(repo, "apps/blog/models.py", "x")
    commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "work")
    write(repo, "src/schema.py", "v2")
    write(repo, "apps/blog/models.py", "y")
    commit(repo, "two violations")
    return repo


def run(root: Path, *args: str) -> int:
    return main(["--repo", str(root), *args])


def test_only_the_named_rule_runs_and_the_report_says_so(project: Path, capsys: Capture) -> None:
    assert run(project, "rules", "check", "--committed", "--format", "json") == 1
    whole = json.loads(capsys.readouterr().out)
    assert {f["rule"] for f in whole["findings"]} == {"schema-companion", "app-migration"}
    assert whole["rules_filter"] is None
    gate = project / ".git" / "cagr" / "gate.json"
    before = gate.read_bytes()
    args = ("rules", "check", "--committed", "--rule", "app-migration", "--format", "json")
    assert run(project, *args) == 1
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert [f["rule"] for f in data["findings"]] == ["app-migration"]
    assert data["rules_filter"] == ["app-migration"]
    assert data["rules_checked"] == 1
    assert "writes no gate record" in captured.err
    assert gate.read_bytes() == before  # the whole verdict's record stands, untouched


def test_the_text_summary_says_it_is_not_the_whole_verdict(project: Path, capsys: Capture) -> None:
    assert run(project, "rules", "check", "--rule", "schema-companion") == 1
    out = capsys.readouterr().out
    assert "(only schema-companion, as --rule asked: not the whole verdict)" in out
    assert "app-migration" not in out


def test_an_unknown_rule_is_a_usage_error(project: Path, capsys: Capture) -> None:
    assert run(project, "rules", "check", "--rule", "app-migratoin") == 2
    err = capsys.readouterr().err
    assert "--rule 'app-migratoin' (did you mean app-migration?) names no rule" in err
    assert run(project, "rules", "test", "--rule", "nope") == 2
    assert run(project, "explain", "--rule", "nope") == 2


def test_rules_test_runs_the_named_rules_examples_only(project: Path, capsys: Capture) -> None:
    assert run(project, "rules", "test", "--rule", "app-migration", "--format", "json") == 0
    data = json.loads(capsys.readouterr().out)
    assert data["kinds"]["requires"] == {"rules": 1, "examples": 2, "failed": 0}
    assert data["kinds"]["pr_body"]["rules"] == 0
    assert data["rules_filter"] == ["app-migration"]


def test_explain_shows_each_named_rule_with_its_parts(project: Path, capsys: Capture) -> None:
    assert run(project, "explain", "app-migration", "--rule", "dependency-reason") == 0
    out = capsys.readouterr().out
    assert "app-migration (requires)" in out
    assert "dependency-reason (pr_body)" in out
    assert (
        "  parts:    {app}: what the paths matched there, put in literally; each distinct"
        " binding needs its own companion"
    ) in out
    assert "waivable: in CI, a pull request opened by renovate[bot]" in out
    assert "  section:  ## Risk (level 2: Risk)" in out
    assert run(project, "explain", "--rule", "app-migration", "--format", "json") == 0
    data = json.loads(capsys.readouterr().out)
    assert data["rule"]["waive_authors"] == ["renovate[bot]"]
