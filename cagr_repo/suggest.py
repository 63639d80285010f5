"""Rules `cagr init` suggests from what a repository's tracked files show, never enforced.

Each suggestion is a complete rule — with the valid and invalid examples `cagr rules test` needs —
that `cagr init` writes commented out, with the evidence that made cagr suggest it. Nothing is
suggested on a guess: a migration folder, a package manifest, a lock file or generated schema
beside its source, or a test layout that several files already follow.
"""

from __future__ import annotations

import posixpath
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

import tomlkit
from attrs import frozen

from cagr_core.manifests import Format, format_of

SCHEMA_LINE = "#:schema ./cagr.schema.json"  # relative to .cagr/changes.toml
_MIGRATION_FOLDERS = ("db/migrate", "alembic/versions", "migrations")
_LOCK_FILES = (
    "package-lock.json", "npm-shrinkwrap.json", "pnpm-lock.yaml", "yarn.lock", "bun.lock",
    "bun.lockb",
)  # fmt: skip
_SCRIPT_EXTENSIONS = ("ts", "tsx", "js", "jsx", "mjs", "cjs")
_MIN_PAIRS = 2  # a test layout counts when at least this many files already follow it
# One manifest of each format before and after adding a dependency, for the examples.
_ADDED_DEPENDENCY = {
    Format.PACKAGE_JSON: ("{}", '{"dependencies": {"left-pad": "1.3.0"}}'),
    Format.PYPROJECT: (
        "[project]\ndependencies = []\n",
        '[project]\ndependencies = ["left-pad"]\n',
    ),
    Format.REQUIREMENTS: ("", "left-pad==1.3.0\n"),
    Format.CARGO: ("[dependencies]\n", '[dependencies]\nleft-pad = "1.3"\n'),
    Format.GO_MOD: ("module m\n", "module m\n\nrequire example.com/left-pad v1.3.0\n"),
}


@frozen
class Suggestion:
    """One suggested rule (as plain TOML-ready data) and why cagr suggests it."""

    why: str
    rule: dict[str, Any]


def _example(*changes: dict[str, str], pr_body: str | None = None) -> dict[str, Any]:
    example: dict[str, Any] = {"changes": list(changes)}
    if pr_body is not None:
        example["pr_body"] = pr_body
    return example


def _is_migration_folder(folder: str) -> bool:
    return any(folder == name or folder.endswith("/" + name) for name in _MIGRATION_FOLDERS)


def _migration_folders(paths: Sequence[str]) -> dict[str, list[str]]:
    """Folders that hold migrations (`db/migrate`, `alembic/versions`, `*/migrations`), with
    their files."""
    found: dict[str, list[str]] = {}
    for path in paths:
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
                    "invalid": [_example({"path": existing, "status": "M"})],
                    "valid": [
                        _example({"path": f"{folder}/9999_example{extension}", "status": "A"})
                    ],
                },
            },
        )
    ]


def _manifest_change(path: str) -> dict[str, str]:
    manifest = format_of(path)
    assert manifest is not None
    before, after = _ADDED_DEPENDENCY[manifest]
    return {"path": path, "status": "M", "before": before, "after": after}


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
    example = min(manifests, key=lambda path: (path.count("/"), path))  # the root's, if any
    suggestions = [
        Suggestion(
            f"{len(manifests)} dependency manifest(s), e.g. {example}",
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
                    "invalid": [_example(_manifest_change(example), pr_body="## Risk\nNone")],
                    "valid": [
                        _example(
                            _manifest_change(example),
                            pr_body="## Risk\nDependency reason: it pads the wire format.",
                        )
                    ],
                },
            },
        )
    ]
    tracked = set(paths)
    lock = next((name for name in _LOCK_FILES if name in tracked), None)
    if "package.json" in tracked and lock is not None:
        suggestions.append(
            Suggestion(
                f"package.json and {lock} at the root",
                {
                    "id": "lockfile-with-dependencies",
                    "kind": "requires",
                    "paths": ["/package.json"],
                    "when": "dependency_added",
                    "require": [f"/{lock}"],
                    "reason": f"Install the new dependency with the package manager and include"
                    f" {lock} in this change.",
                    "examples": {
                        "invalid": [_example(_manifest_change("package.json"))],
                        "valid": [
                            _example(
                                _manifest_change("package.json"), {"path": lock, "status": "M"}
                            )
                        ],
                    },
                },
            )
        )
    return suggestions


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
                    "invalid": [_example({"path": migration, "status": "A"})],
                    "valid": [
                        _example({"path": migration, "status": "A"}, {"path": dump, "status": "M"})
                    ],
                },
            },
        )
    ]


def _prisma(paths: Sequence[str]) -> list[Suggestion]:
    suggestions: list[Suggestion] = []
    for schema in sorted(p for p in paths if posixpath.basename(p) == "schema.prisma"):
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
                        "invalid": [_example({"path": schema, "status": "M"})],
                        "valid": [
                            _example(
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
        p for p in paths if posixpath.basename(p) in ("openapi.yaml", "openapi.yml", "openapi.json")
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
                    "invalid": [_example({"path": specs[0], "status": "M"})],
                    "valid": [
                        _example(
                            {"path": specs[0], "status": "M"},
                            {"path": f"{generated[0]}/client.ts", "status": "M"},
                        )
                    ],
                },
            },
        )
    ]


def _script_tests(paths: Sequence[str]) -> list[Suggestion]:
    """`src/x.ts` beside `src/x.test.ts` (or .spec): a sibling rule for the layout seen most."""
    tracked = set(paths)
    layouts: Counter[tuple[str, str, str]] = Counter()
    for path in paths:
        directory, base = posixpath.split(path)
        stem, _, ext = base.rpartition(".")
        name, _, marker = stem.rpartition(".")
        is_test = ext in _SCRIPT_EXTENSIONS and marker in ("test", "spec") and name
        if is_test and posixpath.join(directory, f"{name}.{ext}") in tracked:
            layouts[(path.split("/", 1)[0] if "/" in path else "", marker, ext)] += 1
    if not layouts:
        return []
    (top, marker, ext), pairs = layouts.most_common(1)[0]
    if pairs < _MIN_PAIRS:
        return []
    where = f"{top}/" if top else ""
    ignores = [f"**/*.{marker}.{ext}"] + (["**/*.d.ts"] if ext == "ts" else [])
    source = f"{where}example/new-module.{ext}"
    return [
        Suggestion(
            f"{pairs} {where or 'root '}*.{ext} file(s) with a {marker}.{ext} beside them",
            {
                "id": "new-modules-have-tests",
                "kind": "sibling",
                "paths": [f"{where}**/*.{ext}"],
                "ignores": ignores,
                "target": f"{{dir}}/{{name}}.{marker}.{{ext}}",
                "reason": f"Add the matching .{marker}.{ext} file for the new module in this"
                " change.",
                "examples": {
                    "invalid": [_example({"path": source, "status": "A"})],
                    "valid": [
                        _example(
                            {"path": source, "status": "A"},
                            {"path": f"{where}example/new-module.{marker}.{ext}", "status": "A"},
                        )
                    ],
                },
            },
        )
    ]


def _python_tests(paths: Sequence[str]) -> list[Suggestion]:
    """`pkg/x.py` with `tests/.../test_x.py`: a sibling rule per source folder whose modules
    already have their tests in one folder (the folder seen most for it)."""
    test_dirs: dict[str, list[str]] = {}  # module name -> folders holding test_<name>.py
    for path in paths:
        folder, base = posixpath.split(path)
        if base.startswith("test_") and base.endswith(".py") and "test" in folder:
            test_dirs.setdefault(base[len("test_") : -len(".py")], []).append(folder)
    pairs: dict[str, Counter[str]] = {}
    modules: Counter[str] = Counter()
    for path in paths:
        folder, base = posixpath.split(path)
        if not base.endswith(".py") or not folder or "test" in folder or base.startswith("_"):
            continue
        modules[folder] += 1
        for test_dir in test_dirs.get(base[: -len(".py")], []):
            pairs.setdefault(folder, Counter())[test_dir] += 1
    suggestions = []
    for folder, counted in sorted(pairs.items()):
        test_dir, found = counted.most_common(1)[0]
        if found < _MIN_PAIRS:
            continue
        slug = folder.replace("/", "-").strip("-_.") or "root"
        source = f"{folder}/new_module.py"
        why = f"{found} of {modules[folder]} module(s) in {folder}/ have {test_dir}/test_<name>.py"
        suggestions.append(
            Suggestion(
                why,
                {
                    "id": f"tests-for-{slug}",
                    "kind": "sibling",
                    "paths": [f"/{folder}/*.py"],
                    "ignores": ["_*.py", "conftest.py"],
                    "target": f"{test_dir}/test_{{name}}.py",
                    "reason": f"Add {test_dir}/test_<module>.py for the new module in this change.",
                    "examples": {
                        "invalid": [_example({"path": source, "status": "A"})],
                        "valid": [
                            _example(
                                {"path": source, "status": "A"},
                                {"path": f"{test_dir}/test_new_module.py", "status": "A"},
                            )
                        ],
                    },
                },
            )
        )
    return suggestions


def suggest(paths: Iterable[str]) -> list[Suggestion]:
    """What the tracked `paths` support, in a stable order."""
    ordered = sorted(paths)
    return [
        *_migrations(ordered),
        *_dependencies(ordered),
        *_rails_schema(ordered),
        *_prisma(ordered),
        *_openapi(ordered),
        *_script_tests(ordered),
        *_python_tests(ordered),
    ]


def _toml_value(value: Any) -> Any:
    if isinstance(value, dict):
        table = tomlkit.inline_table()
        for key, item in value.items():
            table[key] = _toml_value(item)
        return table
    if isinstance(value, list):
        array = tomlkit.array()
        for item in value:
            array.append(_toml_value(item))
        return array
    return value


def _rule_text(rule: dict[str, Any]) -> str:
    table = tomlkit.table()
    for key, value in rule.items():
        if key == "examples":
            for label in ("invalid", "valid"):
                table.add(tomlkit.key(["examples", label]), _toml_value(value[label]))
        else:
            table.add(key, _toml_value(value))
    rules = tomlkit.aot()
    rules.append(table)
    document = tomlkit.document()
    document.add("changes", tomlkit.table(is_super_table=True))
    document["changes"]["rules"] = rules
    return tomlkit.dumps(document).strip()


def render(suggestions: Sequence[Suggestion]) -> str:
    """The `.cagr/changes.toml` text: a header, then each suggestion commented out."""
    lines = [
        SCHEMA_LINE,
        "# cagr change rules (docs/rules.md in cagr's documentation explains each kind).",
        "# `cagr init` suggested these from this repository's files; none is active yet.",
        "# Uncomment a rule, adjust it, then run `cagr rules test` and `cagr rules check`.",
    ]
    if not suggestions:
        lines.append(
            "#\n# Nothing in this repository suggested a rule (no migration folders, package"
            " manifests,\n# generated files beside their source, or test layouts were found)."
        )
    for suggestion in suggestions:
        lines.append(f"\n# Suggested because: {suggestion.why}.")
        lines.extend(
            "# " + line if line else "#" for line in _rule_text(suggestion.rule).splitlines()
        )
    return "\n".join(lines) + "\n"
