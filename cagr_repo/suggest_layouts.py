"""Suggested rules a repository's tracked files alone support: migration folders (`add_only`),
dependency manifests (`pr_body` with `dependency_added`), Rails' schema dump, a Prisma schema
beside its migrations, and an OpenAPI spec beside one generated folder (`requires`)."""

from __future__ import annotations

import posixpath
from collections.abc import Sequence

from cagr_core.dependencies import format_of

from .suggestion import Suggestion, example, manifest_change

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


def _migrations(paths: Sequence[str]) -> list[Suggestion]:
    folders = _migration_folders(paths)
    if not folders:
        return []
    names = sorted(folders)
    globs = [f"/{folder}/**" for folder in names] if len(names) <= 3 else ["**/migrations/**"]
    folder = names[0]
    files = sorted(folders[folder])
    existing = next((p for p in files if not p.endswith("__init__.py")), files[0])
    extension = posixpath.splitext(existing)[1]
    counted = sum(len(files) for files in folders.values())
    return [
        Suggestion(
            f"{counted} tracked file(s) in migration folder(s): {', '.join(names[:5])}",
            {
                "id": "immutable-migrations",
                "kind": "add_only",
                "paths": globs,
                "reason": "A migration already on the target branch may have run somewhere:"
                " restore it and add a new migration instead.",
                "examples": {
                    "invalid": [example({"path": existing, "status": "M"})],
                    "valid": [
                        example({"path": f"{folder}/9999_example{extension}", "status": "A"})
                    ],
                },
            },
        )
    ]


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


def _dependencies(paths: Sequence[str]) -> list[Suggestion]:
    manifests = [p for p in paths if format_of(p) is not None]
    if not manifests:
        return []
    sample = min(manifests, key=lambda path: (path.count("/"), path))  # the root's, if any
    return [
        Suggestion(
            f"{len(manifests)} dependency manifest(s), e.g. {sample}",
            {
                "id": "dependency-reason",
                "kind": "pr_body",
                "paths": _manifest_globs(manifests),
                "when": "dependency_added",
                "section": "Risk",
                "contains": "Dependency reason:",
                "reason": "In the PR description's Risk section, write `Dependency reason:` and"
                " why the new dependency is needed.",
                "examples": {
                    "invalid": [example(manifest_change(sample), pr_body="## Risk\nNone")],
                    "valid": [
                        example(
                            manifest_change(sample),
                            pr_body="## Risk\nDependency reason: it pads the wire format.",
                        )
                    ],
                },
            },
        )
    ]


def _rails_schema(paths: Sequence[str]) -> list[Suggestion]:
    """Rails: a new migration changes db/schema.rb (or db/structure.sql) when it runs."""
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
                "require": [f"/{dump}"],
                "reason": f"Run `bin/rails db:migrate` and include {dump} in this change.",
                "examples": {
                    "invalid": [example({"path": migration, "status": "A"})],
                    "valid": [
                        example({"path": migration, "status": "A"}, {"path": dump, "status": "M"})
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


def suggest_from_layout(paths: Sequence[str]) -> list[Suggestion]:
    """What the sorted tracked `paths` support on their own, in a stable order."""
    return [
        *_migrations(paths),
        *_dependencies(paths),
        *_rails_schema(paths),
        *_prisma(paths),
        *_openapi(paths),
    ]
