"""Suggested rules a repository's tracked files alone support: migration folders (`add_only`),
dependency manifests (`pr_body` with `dependency_added`), Rails' schema dump, a Prisma schema
beside its migrations, and an OpenAPI spec beside one generated folder (`requires`)."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from typing import Any

from cagr_config.globs import compile_matcher
from cagr_core.dependencies import format_of
from cagr_core.sections import heading_marks, heading_text

from .suggestion import Suggestion, example, manifest_change, test_root

_MIGRATION_FOLDERS = ("db/migrate", "alembic/versions", "migrations")


def _is_migration_folder(folder: str) -> bool:
    return any(folder == name or folder.endswith("/" + name) for name in _MIGRATION_FOLDERS)


def _migration_folders(paths: Sequence[str]) -> dict[str, list[str]]:
    """Folders that hold migrations (`db/migrate`, `alembic/versions`, `*/migrations`), with
    their files."""
    found: dict[str, list[str]] = {}
    for path in paths:
        if "migrat" not in path and "alembic/versions/" not in path:
            continue  # most paths, at once
        folder = posixpath.dirname(path)
        while folder and not _is_migration_folder(folder):
            folder = posixpath.dirname(folder)
        if folder:
            found.setdefault(folder, []).append(path)
    return found


def _common_folder(folders: Sequence[str]) -> str:
    """The deepest folder that holds all of `folders` ("" for the root)."""
    common = posixpath.commonpath(folders) if folders else ""
    return common if all(f == common or f.startswith(common + "/") for f in folders) else ""


def _migrations(paths: Sequence[str]) -> list[Suggestion]:
    found = _migration_folders(paths)
    # Test apps', fixtures' and examples' migrations are edited in place by the project's team.
    tests = sorted({root for f in found if (root := _outside_folder(f)) is not None})
    folders = {f: files for f, files in found.items() if _outside_folder(f) is None}
    if not folders:
        return []
    names = sorted(folders)
    # Django's migrations are the folder's own modules; its subfolders hold other code
    # (saleor's migrations/tasks/), edited like any other.
    django = all(
        f.endswith("migrations") and all(p.endswith(".py") for p in files)
        for f, files in folders.items()
    )
    inside = "*.py" if django else "**"
    if len(names) <= 3:
        globs, ignores = [f"/{folder}/{inside}" for folder in names], []
    else:
        common = _common_folder(names)
        globs = [f"/{common}/**/migrations/{inside}" if common else f"**/migrations/{inside}"]
        below = f"{common}/" if common else ""
        ignores = [f"/{t}/**" for t in tests if t.startswith(below)]
    folder = names[0]
    files = sorted(folders[folder])
    existing = next((p for p in files if not p.endswith("__init__.py")), files[0])
    extension = posixpath.splitext(existing)[1]
    counted = sum(len(files) for files in folders.values())
    why = f"{counted} tracked file(s) in migration folder(s): {', '.join(names[:5])}"
    if tests:
        left = sum(len(files) for f, files in found.items() if f not in folders)
        why += (
            f"; the {left} in test, fixture or example folders ({', '.join(tests[:5])}) are"
            " left out"
        )
    rule: dict[str, Any] = {
        "id": "immutable-migrations",
        "kind": "add_only",
        "paths": globs,
        "reason": "A migration already on the target branch may have run somewhere:"
        " restore it and add a new migration instead.",
        "examples": {
            "invalid": [example({"path": existing, "status": "M"})],
            "valid": [example({"path": f"{folder}/9999_example{extension}", "status": "A"})],
        },
    }
    if ignores:
        rule["ignores"] = ignores
    formatter = _ruby_formatter(paths) if extension == ".rb" else None
    if formatter is not None:
        # rubocop's layout fixes (`[ :a ]`, trailing spaces) edit merged migrations' whitespace
        rule["ignore_whitespace"] = "all-space"
        why += (
            f"; {formatter} is tracked, and a formatter's spacing fixes (what `git diff -w` shows"
            " nothing for) do not count: remove ignore_whitespace if a space inside a string"
            " can matter to a migration"
        )
    return [Suggestion(why, rule)]


_RUBY_FORMATTERS = (".rubocop.yml", ".standard.yml")


def _ruby_formatter(paths: Sequence[str]) -> str | None:
    """The root's rubocop (or standard) configuration, when it tracks one."""
    return next((name for name in _RUBY_FORMATTERS if name in paths), None)


# Folders whose manifests belong to no workspace: examples, templates a project ships for its
# users, playgrounds, documentation builds (and test fixtures, suggestion.test_root).
_NOT_WORKSPACE = frozenset(
    (
        "examples", "example", "templates", "template", "playground", "playgrounds",
        "sandbox", "demo", "demos", "docs", "doc", "benchmarks",
    )
)  # fmt: skip
_LISTED = 6  # up to this many manifests are named one by one


def _outside_folder(folder: str) -> str | None:
    """The outermost folder on a folder's path that keeps what it holds out of the project's
    workspace (an example, a template, a test fixture), if any."""
    parts = folder.split("/")
    for index, part in enumerate(parts):
        if _NOT_WORKSPACE.intersection(re.split(r"[-_.]", part.lower())):  # project_template
            return "/".join(parts[: index + 1])
    return test_root(folder)


def _manifest_globs(manifests: Sequence[str]) -> list[str]:
    """A glob per kind of manifest: its name (anywhere, so workspaces count), or for a file of a
    requirements/ folder, that folder's files of its extension."""
    globs: list[str] = []
    for path in manifests:
        folder, name = posixpath.split(path)
        glob = name if format_of(name) else f"/{folder}/*{posixpath.splitext(name)[1]}"
        if glob not in globs:
            globs.append(glob)
    return globs


def _dependencies(paths: Sequence[str], section: tuple[str, str] | None) -> list[Suggestion]:
    """`section`: (the heading, where it comes from) the PR template names, if any."""
    found = [p for p in paths if format_of(p) is not None]
    outside = {
        p: folder for p in found if (folder := _outside_folder(posixpath.dirname(p))) is not None
    }
    manifests = [p for p in found if p not in outside]
    if not manifests:
        return []
    if len(manifests) <= _LISTED:
        globs, ignores = [f"/{m}" for m in manifests], []
    else:
        globs = _manifest_globs(manifests)
        matcher = compile_matcher(globs)
        ignores = sorted({f"/{folder}/**" for p, folder in outside.items() if matcher.matches(p)})
    sample = min(manifests, key=lambda path: (path.count("/"), path))  # the root's, if any
    heading, where = section or ("Risk", "")
    shown, name = heading_marks(heading), heading_text(heading)
    why = f"{len(manifests)} dependency manifest(s) of the project, e.g. {sample}"
    if outside:
        folders = sorted(set(outside.values()))
        why += (
            f"; {len(outside)} in examples, templates, docs or test fixtures are left out"
            f" ({', '.join(folders[:5])}{' ...' if len(folders) > 5 else ''})"
        )
    if where:
        why += f"; {where}"
    rule: dict[str, Any] = {
        "id": "dependency-reason",
        "kind": "pr_body",
        "paths": globs,
        "when": "dependency_added",
        "section": heading,
        "contains": "Dependency reason:",
        "reason": f"In the PR description's {name} section, write `Dependency reason:` and"
        " why the new dependency is needed.",
        "examples": {
            "invalid": [example(manifest_change(sample), pr_body=f"{shown}\nNone")],
            "valid": [
                example(
                    manifest_change(sample),
                    pr_body=f"{shown}\nDependency reason: it pads the wire format.",
                )
            ],
        },
    }
    if ignores:
        rule["ignores"] = ignores
    return [Suggestion(why, rule)]


def _rails_schema(paths: Sequence[str]) -> list[Suggestion]:
    """Rails: a new migration changes db/schema.rb (or db/structure.sql) when it runs. Only a new
    one (`when = "added"`): an edit of an existing migration (a lint fix, say) need not change the
    schema, and whether it may be edited at all is the add_only rule's question."""
    tracked = set(paths)
    dump = next((d for d in ("db/schema.rb", "db/structure.sql") if d in tracked), None)
    if dump is None or not any(p.startswith("db/migrate/") for p in paths):
        return []
    migration = "db/migrate/20260101000000_example.rb"
    return [
        Suggestion(
            f"db/migrate/ beside {dump}",
            {
                "id": "migrations-update-schema",
                "kind": "requires",
                "paths": ["/db/migrate/**"],
                "when": "added",
                "require": [f"/{dump}"],
                "reason": f"Run `bin/rails db:migrate` and include {dump} in this change.",
                "examples": {
                    "invalid": [example({"path": migration, "status": "A"})],
                    "valid": [
                        example({"path": migration, "status": "A"}, {"path": dump, "status": "M"}),
                        example({"path": migration, "status": "M"}),
                    ],
                },
            },
        )
    ]


def _prisma(paths: Sequence[str]) -> list[Suggestion]:
    suggestions: list[Suggestion] = []
    for schema in sorted(p for p in paths if p.rpartition("/")[2] == "schema.prisma"):
        migrations = posixpath.join(posixpath.dirname(schema), "migrations")
        if not any(p.startswith(migrations + "/") for p in paths):
            continue
        suggestions.append(
            Suggestion(
                f"{schema} beside {migrations}/",
                {
                    "id": "prisma-migration" + (f"-{len(suggestions) + 1}" if suggestions else ""),
                    "kind": "requires",
                    "paths": [f"/{schema}"],
                    # A new migration: editing an applied one must not satisfy the rule.
                    "require": [{"path": f"/{migrations}/**", "status": "added"}],
                    "reason": "Run `prisma migrate dev` and include the new migration in this"
                    " change.",
                    "examples": {
                        "invalid": [example({"path": schema, "status": "M"})],
                        "valid": [
                            example(
                                {"path": schema, "status": "M"},
                                {
                                    "path": f"{migrations}/20260101000000_example/migration.sql",
                                    "status": "A",
                                },
                            )
                        ],
                    },
                },
            )
        )
    return suggestions


def _openapi(paths: Sequence[str]) -> list[Suggestion]:
    specs = [
        p for p in paths if p.rpartition("/")[2] in ("openapi.yaml", "openapi.yml", "openapi.json")
    ]
    generated = sorted(
        {p[: p.index("/generated/") + len("/generated")] for p in paths if "/generated/" in p}
        | ({"generated"} if any(p.startswith("generated/") for p in paths) else set())
    )
    if len(specs) != 1 or len(generated) != 1:
        return []
    return [
        Suggestion(
            f"{specs[0]} and one generated folder, {generated[0]}/",
            {
                "id": "openapi-generated",
                "kind": "requires",
                "paths": [f"/{specs[0]}"],
                "require": [f"/{generated[0]}/**"],
                "reason": f"Regenerate the code from {specs[0]} and include {generated[0]}/ in"
                " this change.",
                "examples": {
                    "invalid": [example({"path": specs[0], "status": "M"})],
                    "valid": [
                        example(
                            {"path": specs[0], "status": "M"},
                            {"path": f"{generated[0]}/client.ts", "status": "M"},
                        )
                    ],
                },
            },
        )
    ]


def suggest_from_layout(
    paths: Sequence[str], section: tuple[str, str] | None = None
) -> list[Suggestion]:
    """What the sorted tracked `paths` support on their own, in a stable order; `section`: the
    heading a dependency's reason goes under, and why (None: `## Risk`)."""
    return [
        *_migrations(paths),
        *_dependencies(paths, section),
        *_rails_schema(paths),
        *_prisma(paths),
        *_openapi(paths),
    ]
