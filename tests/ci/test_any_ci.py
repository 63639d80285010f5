"""`cagr ci --base REF --body-file FILE` works the same with no CI variables at all."""

from __future__ import annotations

import json

from tests.support.ci import DEPENDENCY, GOOD_BODY, Project, cagr_ci


def test_base_and_body_file_without_any_ci_variables(project: Project) -> None:
    head = project.work({"package.json": DEPENDENCY})
    checkout = project.clone(head)
    body = project.tmp / "description.md"
    body.write_text(GOOD_BODY)
    result = cagr_ci(checkout, {}, "--base", "main", "--body-file", str(body), "--format", "json")
    assert result.returncode == 0, result.stdout
    data = json.loads(result.stdout)
    assert data["ci"]["provider"] == "none"
    assert data["ci"]["target_source"] == "--base"
    assert data["ci"]["body_source"] == f"--body-file {body}"
    body.write_text("## Risk\nNone.")
    failing = cagr_ci(checkout, {}, "--base", "main", "--body-file", str(body))
    assert failing.returncode == 1
    assert "Risk lacks `Dependency reason:`" in failing.stdout
    assert "::" not in failing.stdout  # no GitHub workflow commands outside GitHub


def test_without_a_body_file_a_fired_obligation_is_unchecked(project: Project) -> None:
    head = project.work({"package.json": DEPENDENCY})
    result = cagr_ci(project.clone(head), {}, "--base", "main")
    assert result.returncode == 3
    assert "pass the description with --body-file FILE" in result.stdout
    assert result.stdout.rstrip().endswith("Not a pass: 1 item(s) unchecked.")


def test_file_rules_need_no_body(project: Project) -> None:
    head = project.work({"src/schema.py": "v2", "schema.json": '{"v": 2}'})
    assert cagr_ci(project.clone(head), {}).returncode == 0


def test_a_body_file_cagr_will_not_read_exits_2(project: Project) -> None:
    head = project.work({"a.txt": "a"})
    folder = project.tmp / "folder"
    folder.mkdir()
    result = cagr_ci(project.clone(head), {}, "--body-file", str(folder))
    assert result.returncode == 2
    assert "is not a regular file" in result.stderr


def test_invalid_config_exits_2(project: Project) -> None:
    head = project.work({"cagr.toml": "[[changes.rules]]\n"})
    checkout = project.clone(head)
    result = cagr_ci(checkout, {})
    assert result.returncode == 2
    assert "the configuration committed at HEAD is invalid" in result.stderr
    on_github = cagr_ci(checkout, {"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "push"})
    assert on_github.returncode == 2
    assert on_github.stdout.startswith("::error title=cagr ci could not check this run::")
