"""`cagr init`'s suggested rules: only where the files show a structure, each one valid and
passing `cagr rules test` once uncommented."""

from __future__ import annotations

import subprocess
import tomllib
from pathlib import Path

import pytest

from cagr_cli.main import main
from cagr_repo.suggest import SCHEMA_LINE, suggest
from tests.support.configs import uncomment
from tests.support.git import commit, write

Capture = pytest.CaptureFixture[str]
ROOT = Path(__file__).resolve().parents[2]

LAYOUTS = {
    "rails": ["db/migrate/20240101_create_users.rb", "db/migrate/20240202_add_email.rb", "db/schema.rb", "app/x.rb"],
    "rails-rubocop": [".rubocop.yml", "db/migrate/20240101_create_users.rb", "db/schema.rb"],
    "django": [f"app{i}/migrations/0001_initial.py" for i in range(5)] + ["manage.py"],
    "django-new-app": ["shop/migrations/__init__.py", "shop/models.py"],  # no migration yet
    "alembic": ["alembic/versions/abc_first.py", "alembic/env.py"],
    "prisma": ["prisma/schema.prisma", "prisma/migrations/2024_init/migration.sql"],
    "node": ["package.json", "pnpm-lock.yaml", "packages/ui/package.json"],
    "python": ["pyproject.toml", "requirements-docs.txt", "requirements/base.txt", "requirements/dev.in", "src/app.py"],
    "rust": ["Cargo.toml", "Cargo.lock", "crates/a/Cargo.toml", "crates/a/src/lib.rs"],
    "go": ["go.mod", "go.sum", "main.go"],
    "openapi": ["api/openapi.yaml", "web/src/generated/client.ts", "web/src/generated/types.ts"],
    "ts-tests": [*(f"src/{m}.ts" for m in "acef"), *(f"src/{m}.test.ts" for m in "acef"), "src/b.tsx", "src/b.test.tsx", "src/d.ts", "src/d.config.ts", "src/index.ts", "web/x.ts", "web/x.test.ts", "web/y.ts", "web/z.ts"],
    "ts-tests-dir": [*(f"lib/{m}.js" for m in "abcde"), *(f"lib/__tests__/{m}.test.js" for m in "abcde")],
    "ts-tested-by-js": [*(f"src/{m}.ts" for m in "abcde"), *(f"src/{m}.test.js" for m in "abcde")],
    "two-forms": [*(f"src/{m}.ts" for m in "abcdef"), *(f"src/{m}.test.ts" for m in "abc"), *(f"src/{m}.spec.ts" for m in "def"), *(f"lib/{m}.js" for m in "abcde"), *(f"lib/{m}.spec.js" for m in "abcde")],
    "py-tests": [*(f"pkg/{m}.py" for m in ("one", "two", "three", "four", "five")), "pkg/__init__.py", *(f"tests/test_{m}.py" for m in ("one", "two", "three", "four", "five"))],
    "weak-py-tests": ["pkg/one.py", "pkg/two.py", "pkg/three.py", "pkg/four.py", "tests/test_one.py", "tests/test_two.py"],
    "django-migration-tasks": ["shop/migrations/0001_initial.py", "shop/migrations/tasks/saleor3_20.py"],  # tasks are code
    "django-test-apps": [*(f"app{i}/migrations/0001_initial.py" for i in range(5)), "tests/testapp/migrations/0001_initial.py", "pkg/test/fixture/migrations/0001_x.py"],
    "js-fixtures": ["package.json", "packages/a/package.json", "packages/a/test/apps/basic/package.json", "playgrounds/demo/package.json", "templates/starter/requirements.txt"],
}  # fmt: skip
EXPECTED = {
    "rails": {"immutable-migrations": ["/db/migrate/**"], "migrations-update-schema": ["/db/migrate/**"]},
    "rails-rubocop": {"immutable-migrations": ["/db/migrate/**"], "migrations-update-schema": ["/db/migrate/**"]},
    "django": {"immutable-migrations": ["**/migrations/*.py"]},
    "django-new-app": {"immutable-migrations": ["/shop/migrations/*.py"]},
    "alembic": {"immutable-migrations": ["/alembic/versions/**"]},
    "prisma": {"immutable-migrations": ["/prisma/migrations/**"], "prisma-migration": ["/prisma/schema.prisma"]},
    "node": {"dependency-reason": ["/package.json", "/packages/ui/package.json"]},  # a lockfile needs history: see below
    "python": {"dependency-reason": ["/pyproject.toml", "/requirements-docs.txt", "/requirements/base.txt", "/requirements/dev.in"]},
    "rust": {"dependency-reason": ["/Cargo.toml", "/crates/a/Cargo.toml"]},
    "go": {"dependency-reason": ["/go.mod"]},
    "openapi": {"openapi-generated": ["/api/openapi.yaml"]},
    "ts-tests": {"new-modules-have-tests": ["/src/*.{ts,tsx}"]},  # web/: 1 of 3 modules
    "ts-tests-dir": {"new-modules-have-tests": ["/lib/*.js"]},
    "ts-tested-by-js": {"new-modules-have-tests": ["/src/*.ts"]},
    "two-forms": {"new-modules-have-tests": ["/lib/*.js"], "new-modules-have-tests-2": ["/src/*.ts"]},
    "py-tests": {"tests-for-pkg": ["/pkg/*.py"], "python-module-names": ["**/*.py"]},  # 10 modules, 5 of two words
    "weak-py-tests": {},  # 2 of 4 modules: no rule
    "django-test-apps": {"immutable-migrations": ["**/migrations/*.py"]},
    "django-migration-tasks": {"immutable-migrations": ["/shop/migrations/*.py"]},
    "js-fixtures": {"dependency-reason": ["/package.json", "/packages/a/package.json"]},
}  # fmt: skip


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_each_layout_suggests_its_rules(layout: str) -> None:
    found = {s.rule["id"]: s.rule["paths"] for s in suggest(LAYOUTS[layout])}
    assert found == EXPECTED[layout]


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ([".rubocop.yml"], "all-space"),
        ([".standard.yml"], "all-space"),
        ([], None),  # no formatter: any edit counts
        (["app/.rubocop.yml"], None),  # only the root's configuration formats db/migrate
    ],
)
def test_rails_migrations_beside_a_ruby_formatter_ignore_its_whitespace(
    extra: list[str], expected: str | None
) -> None:
    found = {s.rule["id"]: s for s in suggest(sorted([*LAYOUTS["rails"], *extra]))}
    migrations = found["immutable-migrations"]
    assert migrations.rule.get("ignore_whitespace") == expected
    assert ("git diff -w" in migrations.why) is (expected is not None)


def test_python_migrations_never_ignore_whitespace() -> None:
    """Indentation is Python's syntax: a formatter there is no reason to look away."""
    paths = sorted([*LAYOUTS["django"], ".rubocop.yml", "pyproject.toml"])
    found = {s.rule["id"]: s.rule for s in suggest(paths)}
    assert "ignore_whitespace" not in found["immutable-migrations"]


def test_nothing_is_suggested_without_evidence() -> None:
    assert suggest(["README.md", "src/main.go", "src/a.ts", "src/a.test.ts"]) == []


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_init_writes_commented_rules_that_pass_once_uncommented(
    repo: Path, layout: str, capsys: Capture
) -> None:
    for path in LAYOUTS[layout]:
        write(repo, path, {".json": "{}", ".toml": ""}.get(Path(path).suffix, "x"))
    commit(repo, "layout")
    assert main(["--repo", str(repo), "init"]) == 0
    text = (repo / ".cagr" / "changes.toml").read_text()
    assert text.startswith(SCHEMA_LINE + "\n")
    assert tomllib.loads(text) == {}  # nothing is active until a person says so
    assert (repo / ".cagr" / "cagr.schema.json").exists()
    assert not (repo / "schema").exists()  # init adds no top-level folder
    (repo / ".cagr" / "changes.toml").write_text(uncomment(text))
    capsys.readouterr()
    assert main(["--repo", str(repo), "rules", "test"]) == 0, capsys.readouterr().out


def test_init_never_overwrites_without_force(repo: Path, capsys: Capture) -> None:
    write(repo, ".cagr/changes.toml", "# mine\n")
    assert main(["--repo", str(repo), "init"]) == 2
    assert (repo / ".cagr" / "changes.toml").read_text() == "# mine\n"
    assert "left as it was" in capsys.readouterr().err
    assert main(["--repo", str(repo), "init", "--force"]) == 0
    assert (repo / ".cagr" / "changes.toml").read_text().startswith(SCHEMA_LINE)


def test_init_hooks_alone_writes_no_rules(repo: Path) -> None:
    assert main(["--repo", str(repo), "init", "--hooks", "claude"]) == 0
    assert not (repo / ".cagr").exists()


@pytest.mark.skipif(not (ROOT / ".git").exists(), reason="cagr's own history is not here")
def test_on_cagrs_own_repository() -> None:
    """No package maps to another package's tests."""
    tracked = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files"], capture_output=True, text=True, check=True
    ).stdout.split()
    found = {s.rule["id"]: s.rule["target"] for s in suggest(tracked) if "target" in s.rule}
    for rule_id, target in found.items():
        package = rule_id.removeprefix("tests-for-cagr_")
        assert target == f"tests/{package}/test_{{name}}.py"
