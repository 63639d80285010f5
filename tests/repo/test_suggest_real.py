"""`cagr init`'s suggestions on layouts and recent histories copied from real projects.

tests/repo/layouts/ holds each project's tracked paths (docs, images and translations left out)
and the part of its last 300 first-parent commits the suggestions read, as cagr read them from
the real clone: NetBox (a Django project with many apps and a committed static build), umami
(Next.js with Prisma, which moved from yarn to pnpm), Flask (a src/ package with tests/), tRPC (a
JS monorepo with pnpm workspaces), ripgrep (a Rust workspace with a second lockfile),
paperless-ngx (Django apps beside an Angular UI, images left out) and TanStack query (a pnpm
workspace whose changesets bot releases every package); those two, recorded whole, also say
which commits a bot made (`by_bot`) and which projects each lockfile names (`members`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cagr_config.example_runner import run_examples
from cagr_config.validate import structure_config
from cagr_core.values import replace
from cagr_repo.suggest import suggest
from cagr_repo.suggest_history import Commit, History
from cagr_repo.suggestion import Suggestion

LAYOUTS = Path(__file__).with_name("layouts")
MOCKS = ["**/__mocks__/**", "**/mocks/**"]  # a mock is named after what it stands in for


def real_paths(name: str) -> list[str]:
    return [
        line
        for line in (LAYOUTS / f"{name}.txt").read_text().splitlines()
        if line and not line.startswith("# ")
    ]


def real(name: str) -> list[Suggestion]:
    return suggest(real_paths(name), real_history(name))


def real_history(name: str) -> History:
    data = json.loads((LAYOUTS / f"{name}.history.json").read_text())
    commits = tuple(
        Commit(
            frozenset(c["changed"]),
            frozenset(c["added"]),
            frozenset(c["dependencies"]),
            c.get("by_bot", False),
        )
        for c in data["commits"]
    )
    members = {lock: frozenset(names) for lock, names in data.get("members", {}).items()}
    return History(commits, members)


def shape(suggestion: Suggestion) -> tuple[Any, ...]:
    rule = suggestion.rule
    return (
        rule.get("kind", suggestion.table),
        rule["paths"],
        rule.get("ignores"),
        rule.get("require") or rule.get("target") or rule.get("name"),
    )


EXPECTED: dict[str, dict[str, tuple[Any, ...]]] = {
    "django-netbox": {
        "immutable-migrations": ("add_only", ["/netbox/**/migrations/**"], ["/netbox/netbox/tests/**"], None),
        "dependency-reason": ("pr_body", ["/base_requirements.txt", "/netbox/project-static/netbox-graphiql/package.json", "/netbox/project-static/package.json", "/pyproject.toml", "/requirements.txt"], None, None),
        "build-output-netbox-project-static-dist": ("requires", ["/netbox/project-static/src/**", "/netbox/project-static/styles/**"], None, ["/netbox/project-static/dist/**"]),
        "ts-file-names": ("layout", ["**/*.ts"], MOCKS, "camelCase"),
    },
    "django-paperless-ngx": {
        "immutable-migrations": ("add_only", ["/src/documents/migrations/*.py", "/src/paperless/migrations/*.py", "/src/paperless_mail/migrations/*.py"], None, None),
        "dependency-reason": ("pr_body", ["/pyproject.toml", "/src-ui/package.json"], None, None),
        "lockfile-src-ui-pnpm-lock.yaml": ("requires", ["/src-ui/package.json"], None, ["/src-ui/pnpm-lock.yaml"]),
        "lockfile-uv.lock": ("requires", ["/pyproject.toml"], None, ["/uv.lock"]),
        "migration-for-src-documents-models": ("requires", ["/src/documents/models.py", "/src/documents/models/**"], None, [{"path": "/src/documents/migrations/*.py", "status": "added"}]),
        "new-modules-have-tests": ("sibling", ["/src-ui/src/app/pipes/*.ts", "/src-ui/src/app/services/*.ts", "/src-ui/src/app/services/rest/*.ts", "/src-ui/src/app/utils/*.ts"], ["**/*.spec.*"], "{dir}/{name}.spec.{ext}"),
        "ts-file-names": ("layout", ["**/*.ts"], MOCKS, "kebab-case"),
    },
    "js-workspaces-tanstack-query": {
        "dependency-reason": ("pr_body", ["package.json"], ["/examples/**"], None),
        "lockfile-pnpm-lock.yaml": ("requires", ["package.json"], ["/examples/vue/2.6-basic/**", "/examples/vue/2.7-basic/**", "/examples/vue/nuxt3/**"], ["/pnpm-lock.yaml"]),
        "new-modules-have-tests": ("sibling", ["/packages/query-devtools/src/*.{ts,tsx}"], ["**/index.*"], ["{dir}/__tests__/{name}.test.{ext}", "{dir}/__tests__/{name}.test.ts"]),
        "new-modules-have-tests-2": ("sibling", ["/packages/react-query/src/*.{ts,tsx}"], ["**/index.*"], ["{dir}/__tests__/{name}.test.tsx", "{dir}/__tests__/{name}.test.{ext}"]),
        "new-modules-have-tests-3": ("sibling", ["/packages/vue-query/src/*.ts"], ["**/index.*"], "{dir}/__tests__/{name}.test.{ext}"),
    },
    "js-workspaces-trpc": {
        "dependency-reason": ("pr_body", ["package.json"], ["/examples/**", "/packages/tests/**"], None),
        "prisma-migration": ("requires", ["/examples/next-prisma-starter/prisma/schema.prisma"], None, [{"path": "/examples/next-prisma-starter/prisma/migrations/**", "status": "added"}]),
        "prisma-migration-2": ("requires", ["/examples/next-prisma-todomvc/prisma/schema.prisma"], None, [{"path": "/examples/next-prisma-todomvc/prisma/migrations/**", "status": "added"}]),
        "prisma-migration-3": ("requires", ["/examples/next-prisma-websockets-starter/prisma/schema.prisma"], None, [{"path": "/examples/next-prisma-websockets-starter/prisma/migrations/**", "status": "added"}]),
        "openapi-generated": ("requires", ["/examples/openapi-codegen/openapi.json"], None, ["/examples/openapi-codegen/src/client/generated/**"]),
        "lockfile-pnpm-lock.yaml": ("requires", ["package.json"], None, ["/pnpm-lock.yaml"]),
    },
    "nextjs-prisma-umami": {
        "immutable-migrations": ("add_only", ["/db/clickhouse/migrations/**", "/prisma/migrations/**"], None, None),
        "dependency-reason": ("pr_body", ["/package.json"], None, None),
        "prisma-migration": ("requires", ["/prisma/schema.prisma"], None, [{"path": "/prisma/migrations/**", "status": "added"}]),
        "lockfile-pnpm-lock.yaml": ("requires", ["/package.json"], None, ["/pnpm-lock.yaml"]),
        "js-file-names": ("layout", ["**/*.js"], MOCKS, "kebab-case"),
    },
    "rust-workspace-ripgrep": {
        "dependency-reason": ("pr_body", ["Cargo.toml"], None, None),
        "lockfile-Cargo.lock": ("requires", ["Cargo.toml"], ["/fuzz/**"], ["/Cargo.lock"]),
    },
    "src-tests-flask": {
        "dependency-reason": ("pr_body", ["/pyproject.toml"], None, None),
        "python-module-names": ("layout", ["**/*.py"], ["**/__init__.py", "**/__main__.py"], "snake_case"),
    },
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_suggestions_fit_the_project(name: str) -> None:
    assert {s.rule["id"]: shape(s) for s in real(name)} == EXPECTED[name]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_suggestion_is_a_valid_rule_whose_examples_pass(name: str) -> None:
    tables: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for suggestion in real(name):
        tables.setdefault(suggestion.table, {"rules": []})["rules"].append(suggestion.rule)
    config, issues = structure_config(tables, "changes.toml")
    assert issues == []
    assert config is not None
    results = run_examples([*config.changes.rules, *config.layout.rules])
    assert [r.said for r in results if not r.ok] == []


def test_test_apps_examples_and_fixtures_are_left_out() -> None:
    """NetBox's test migrations are edited in place; tRPC's example and test manifests belong
    to no workspace: the rules leave them out and the comments name them."""
    why = {s.rule["id"]: s.why for s in real("django-netbox") + real("js-workspaces-trpc")}
    assert why["immutable-migrations"].endswith("left out")
    assert "netbox/netbox/tests" in why["immutable-migrations"]
    assert "examples" in why["dependency-reason"]


def test_a_bots_commits_show_no_co_change_habit() -> None:
    """Out of sample, both mistakes were made on these histories: TanStack query's changesets bot
    bumps every package's CHANGELOG.md (read as people's commits, five co-change rules asked a
    README edit for other packages' CHANGELOG.md), and paperless-ngx's translation bot changes
    src-ui/messages.xlf alone (with the bot's commits dropped, not counted against, 8 of the
    people's commits made messages.xlf -> src/paperless/*.py a rule that failed 29 bot commits)."""
    query, paperless = (
        real_history("js-workspaces-tanstack-query"),
        real_history("django-paperless-ngx"),
    )
    for name, history, wrong, noise in (
        (
            "js-workspaces-tanstack-query",
            query,
            History(tuple(replace(c, by_bot=False) for c in query.commits), query.members),
            "co-change-packages-angular-query-experimental-all.md",
        ),
        (
            "django-paperless-ngx",
            paperless,
            History(tuple(c for c in paperless.commits if not c.by_bot), paperless.members),
            "co-change-src-ui-messages.xlf",
        ),
    ):
        ids = {s.rule["id"] for s in suggest(real_paths(name), history)}
        assert not any(i.startswith("co-change") for i in ids), ids
        assert noise in {s.rule["id"] for s in suggest(real_paths(name), wrong)}


def test_netbox_apps_are_never_pointed_at_another_apps_tests() -> None:
    for suggestion in real("django-netbox"):
        if suggestion.rule.get("kind") == "sibling":
            source = suggestion.rule["paths"][0].strip("/").split("/")[:2]
            assert suggestion.rule["target"].split("/")[:2] == source


def test_the_counts_are_in_the_comments() -> None:
    why = {s.rule["id"]: s.why for s in real("rust-workspace-ripgrep") + real("django-netbox")}
    assert why["lockfile-Cargo.lock"] == (
        "Cargo.lock changed in 4 of the 4 recent commits that added a dependency to one of"
        " the 11 Cargo.toml files it locks (of the last 300 first-parent commits)"
    )
    assert why["build-output-netbox-project-static-dist"].startswith(
        "netbox/project-static/dist/ changed with netbox/project-static/src/ in 6 of 6,"
        " netbox/project-static/styles/ in 7 of 7 recent commits"
    )


def test_the_copied_layouts_are_whole() -> None:
    """The fixtures are what they say: hundreds of paths and 300 commits each."""
    for name in EXPECTED:
        data = json.loads((LAYOUTS / f"{name}.history.json").read_text())
        assert len(data["commits"]) == 300
        assert len((LAYOUTS / f"{name}.txt").read_text().splitlines()) > 100
