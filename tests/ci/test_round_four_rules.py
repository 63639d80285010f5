"""Round four's rule forms in CI: named parts per app, a dependency edit needing its lockfile,
a level-3 section with the project's own placeholders, and waivers by the pull request's
author (GitHub's `pull_request.user.login`, GitLab's CI_MERGE_REQUEST_AUTHOR, --author)."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft4Validator

from tests.support.ci import Project, cagr_ci, github_env, mr_env, pull_request
from tests.support.code_scanning import sarif_schema
from tests.support.configs import APP_MIGRATION

RULES = (
    APP_MIGRATION
    + """
[[changes.rules]]
id = "lockfile"
kind = "requires"
paths = ["package.json"]
when = "dependency_changed"
ignore_dependencies = ["@types/*"]
require = ["package-lock.json"]
reason = "Run npm install and commit package-lock.json."
examples.invalid = [{ changes = [{ path = "package.json", status = "M", before = '{"dependencies": {"x": "1"}}', after = '{"dependencies": {"x": "2"}}' }] }]
examples.valid = [{ changes = [{ path = "package.json", status = "M", before = '{"devDependencies": {"@types/x": "1"}}', after = '{"devDependencies": {"@types/x": "2"}}' }] }]

[[changes.rules]]
id = "ai-usage"
kind = "pr_body"
paths = ["apps/**"]
section = "### AI usage"
placeholders = []
reason = "Say under ### AI usage how AI tools were used (None is an answer)."
examples.invalid = [{ changes = [{ path = "apps/a/views.py", status = "M" }], pr_body = "## AI usage\\nNone" }]
examples.valid = [{ changes = [{ path = "apps/a/views.py", status = "M" }], pr_body = "### AI usage\\nNone" }]
"""
)
BODY = "## Description\nA fix.\n### AI usage\nNone\n"


@pytest.fixture
def apps(project: Project) -> Project:
    project.baseline(
        {
            "cagr.toml": RULES,
            "apps/blog/models.py": "class Post: ...\n",
            "apps/shop/models.py": "class Cart: ...\n",
            "apps/blog/migrations/0001_initial.py": "\n",
            "package.json": '{"dependencies": {"x": "1"}, "devDependencies": {"@types/x": "1"}}',
            "package-lock.json": "{}",
        }
    )
    return project


def _pr(project: Project, head: str, *, author: str = "octocat", body: str = BODY) -> dict:
    return github_env(
        project.tmp, "pull_request", pull_request("opened", head, body, author=author)
    )


def test_each_app_owes_its_own_migration_and_the_finding_names_it(apps: Project) -> None:
    head = apps.work(
        {
            "apps/blog/models.py": "class Post: title = 1\n",
            "apps/shop/models.py": "class Cart: total = 1\n",
            "apps/blog/migrations/0002_title.py": "\n",
        }
    )
    result = cagr_ci(apps.clone(head), _pr(apps, head), "--format", "json")
    data = json.loads(result.stdout)
    assert result.returncode == 1
    (finding,) = data["findings"]
    assert finding["rule"] == "app-migration"
    assert finding["parts"] == {"app": "shop"}
    assert finding["requires"] == ["apps/shop/migrations/0*.py (added)"]
    assert finding["message"] == (
        "apps/shop/models.py changed; nothing matching apps/shop/migrations/0*.py was added."
    )


def test_the_authors_pull_request_is_waived_and_says_by_whom(apps: Project) -> None:
    head = apps.work({"apps/shop/models.py": "class Cart: total = 1\n"})
    sarif = apps.tmp / "cagr.sarif"
    env = _pr(apps, head, author="Renovate[bot]")  # logins compare ignoring case
    result = cagr_ci(apps.clone(head), env, "--sarif", str(sarif))
    assert result.returncode == 0, result.stdout
    assert "Author: Renovate[bot] (pull_request.user.login)" in result.stdout
    assert "Waived by the author `Renovate[bot]`: change rule app-migration" in result.stdout
    log = json.loads(sarif.read_text())
    assert list(Draft4Validator(sarif_schema()).iter_errors(log)) == []
    (found,) = log["runs"][0]["results"]
    assert found["suppressions"][0]["justification"] == (
        "waived by the pull request author Renovate[bot]"
    )
    data = json.loads(cagr_ci(apps.clone(head), env, "--format", "json").stdout)
    (waived,) = data["waived"]
    assert (waived["author"], "label" in waived) == ("Renovate[bot]", False)
    assert data["ci"]["author"] == "Renovate[bot]"


def test_another_author_is_not_waived(apps: Project) -> None:
    head = apps.work({"apps/shop/models.py": "class Cart: total = 1\n"})
    result = cagr_ci(apps.clone(head), _pr(apps, head, author="renovate"))
    assert result.returncode == 1
    assert "Waived" not in result.stdout


def test_gitlab_names_the_author_and_any_ci_passes_it(apps: Project) -> None:
    head = apps.work({"apps/shop/models.py": "class Cart: total = 1\n"})
    env = mr_env(apps, head, BODY, CI_MERGE_REQUEST_AUTHOR="renovate[bot]")
    assert cagr_ci(apps.clone(head), env).returncode == 0
    unknown = mr_env(apps, head, BODY)
    said = cagr_ci(apps.clone(head), unknown)
    assert said.returncode == 1
    assert "This run knows no pull-request author (CI_MERGE_REQUEST_AUTHOR is not set" in (
        said.stdout
    )
    args = ("--base", "main", "--body-file", "-", "--author", "renovate[bot]")
    elsewhere = cagr_ci(apps.clone(head), {}, *args, stdin=BODY)
    assert elsewhere.returncode == 0, elsewhere.stdout


def test_a_dependency_edit_needs_the_lockfile_but_types_do_not(apps: Project) -> None:
    bump = apps.work({"package.json": '{"dependencies": {"x": "2"}, "devDependencies": {}}'})
    result = cagr_ci(apps.clone(bump), _pr(apps, bump), "--format", "json")
    (finding,) = json.loads(result.stdout)["findings"]
    assert finding["rule"] == "lockfile"
    assert finding["message"] == (  # removing @types/x is no edit the rule sees
        "package.json changes its dependencies: dependencies.x 1 -> 2;"
        " package-lock.json did not change."
    )
    assert [d["change"] for d in finding["dependencies"]] == ["changed"]
    types = apps.work({"package.json": '{"dependencies": {"x": "1"}}'})
    assert cagr_ci(apps.clone(types), _pr(apps, types)).returncode == 0


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (BODY, 0),
        ("### AI usage\n<!-- fill in -->\n", 1),
        ("## AI usage\nNone\n", 1),  # level 2 is another heading
        ("### AI usage\nNone\n\n### AI usage\nsome\n", 1),  # a duplicate
        ("### AI usage\nNone\n<h3>AI usage</h3>\nsome\n", 1),  # GitHub renders both
    ],
)
def test_a_level_three_section_where_none_is_an_answer(apps: Project, body: str, code: int) -> None:
    head = apps.work({"apps/blog/views.py": "def index(): ...\n"})
    result = cagr_ci(apps.clone(head), _pr(apps, head, body=body))
    assert result.returncode == code, result.stdout
