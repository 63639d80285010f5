"""A `checklist = true` section in CI: a pull request whose description keeps the checklist's
heading but replaces its items by prose (django-cms #8774) fails; its boxes, ticked or not,
pass."""

from __future__ import annotations

import json

import pytest

from tests.support.ci import Project, cagr_ci, github_env, pull_request
from tests.support.configs import CHECKLIST_RULE as RULES


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ("## Description\nA fix.\n\n## Checklist\n\nTests pass and docs are updated.\n", 1),
        ("## Description\nA fix.\n\n## Checklist\n\n* [ ] tests\n* [ ] docs\n", 0),
        ("## Description\nA fix.\n\n## Checklist\n\n* [x] tests\n* [X] docs\n", 0),
    ],
)
def test_the_pull_request_keeps_its_checklist(project: Project, body: str, code: int) -> None:
    project.baseline({"cagr.toml": RULES, "a.py": "x = 1\n"})
    head = project.work({"a.py": "x = 2\n"})
    env = github_env(project.tmp, "pull_request", pull_request("opened", head, body))
    result = cagr_ci(project.clone(head), env, "--format", "json")
    assert result.returncode == code, result.stdout
    findings = json.loads(result.stdout)["findings"]
    assert [f["message"] for f in findings] == (
        [
            "a.py changed; `## Checklist` has no checklist: keep the template's `- [ ]` items"
            " (tick the ones done)."
        ]
        if code
        else []
    )
