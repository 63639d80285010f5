"""Suggested `sibling` rules for the test layouts a repository already follows, folder by folder.

Python: a source folder's modules (`x.py`) with `test_x.py` in the folder's own tests folder.
That is the `tests/` (or `test/`) of the nearest folder at or above it that has one, at the place
mirroring the source folder there (`src/pkg/sub` -> `tests/sub`, `cagr_core` -> `tests/core`),
or that tests folder itself: `app/tests/` for `app/management/commands/`, never another app's.
Scripts: `x.ts` with `x.test.ts` (or `.spec`) beside it or in `__tests__/`.

A folder is suggested only where at least five of its modules, and three in four of them, already
have their test there: a rule asks every new module for a test, so the layout must be the rule
of the folder, not a coincidence of names (`views.py` beside another app's `test_views.py`).
"""

from __future__ import annotations

import posixpath
from collections import Counter
from collections.abc import Iterable, Sequence

from cagr_config.globs import compile_matcher
from cagr_core.values import replace

from .suggestion import Suggestion, example, examples, in_test_folder, slug

# A rule asks every new module of a folder for a test: only where most modules already have one.
_MIN_PAIRS = 5
_STRONG = "a folder is suggested only where at least 5 modules, and three in four, have one"
_TEST_ROOTS = ("tests", "test", "testing")  # testing: pytest's own layout
_SOURCE_ROOTS = ("src", "lib")  # dropped when mirroring: `src/pkg/x.py` -> `tests/pkg/...`
_TEST_KINDS = ("unit", "unittests")  # `tests/unit/<mirror>` mirrors as `tests/<mirror>` does
_SCRIPT_EXTENSIONS = ("ts", "tsx", "js", "jsx", "mjs", "cjs")
# Script files no one writes a test for: tests, type declarations, configs, stories, indexes.
_SCRIPT_IGNORES = (
    "**/*.test.*", "**/*.spec.*", "**/*.d.ts", "**/*.config.*", "**/*.stories.*", "**/index.*",
)  # fmt: skip
_PY_IGNORES = ("_*.py", "conftest.py")


def _enough(found: int, modules: int) -> bool:
    return found >= _MIN_PAIRS and 4 * found >= 3 * modules


# Python


def _python_layout(paths: Sequence[str]) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """(source folder -> its module names, test folder -> the names it has `test_<name>.py` for)."""
    modules: dict[str, set[str]] = {}
    tests: dict[str, set[str]] = {}
    in_tests: dict[str, bool] = {}
    for path in paths:
        if not path.endswith(".py"):
            continue
        folder, _, base = path.rpartition("/")
        if not folder:
            continue
        name = base[: -len(".py")]
        if folder not in in_tests:
            in_tests[folder] = in_test_folder(folder)
        if in_tests[folder]:
            if name.startswith("test_") and name != "test_":
                tests.setdefault(folder, set()).add(name[len("test_") :])
        elif not name.startswith("_") and base not in _PY_IGNORES:
            modules.setdefault(folder, set()).add(name)
    return modules, tests


def _mirrors(tail: list[str], rel: list[str]) -> bool:
    """Whether a tests folder's path below its tests root (`tail`) mirrors the end of a source
    folder's path below the folder holding that root (`rel`); a test segment may name the last
    part of its source segment (`core` for `cagr_core`)."""
    if tail and tail[0] in _TEST_KINDS:
        tail = tail[1:]
    if len(tail) > len(rel):
        return False
    ends = rel[len(rel) - len(tail) :]
    return all(t == s or s.endswith(("_" + t, "-" + t)) for t, s in zip(tail, ends, strict=True))


def _own_tests_folders(folder: str, tests: dict[str, set[str]]) -> list[str]:
    """The tests folders that are `folder`'s own (see the module's docstring)."""
    parts = folder.split("/")
    for depth in range(len(parts), -1, -1):  # the folder itself, then each one above it
        above = "/".join(parts[:depth])
        for name in _TEST_ROOTS:
            root = f"{above}/{name}" if above else name
            inside = [t for t in tests if t == root or t.startswith(root + "/")]
            if not inside:
                continue
            rel = parts[depth:]
            while rel and rel[0] in _SOURCE_ROOTS:
                rel = rel[1:]
            return [
                t
                for t in inside
                if _mirrors(t[len(root) + 1 :].split("/") if t != root else [], rel)
            ]
    return []


def _ignores(patterns: Sequence[str], files: Iterable[str]) -> dict[str, list[str]]:
    """A rule's `ignores`: the patterns that match one of the folders' `files` (a pattern that
    matches nothing is noise `cagr doctor` would point out); none at all when none does."""
    present = [i for i in patterns if any(compile_matcher([i]).matches(f) for f in files)]
    return {"ignores": present} if present else {}


def _python_suggestion(
    folder: str, test_dir: str, found: int, files: list[str], modules: int
) -> Suggestion:
    source = f"{folder}/new_module.py"
    why = f"{found} of {modules} module(s) in {folder}/ have {test_dir}/test_NAME.py; {_STRONG}"
    return Suggestion(
        why,
        {
            "id": f"tests-for-{slug(folder)}",
            "kind": "sibling",
            "paths": [f"/{folder}/*.py"],
            **_ignores(_PY_IGNORES, files),
            "target": f"{test_dir}/test_{{name}}.py",
            "reason": f"Add {test_dir}/test_NAME.py for the new module NAME.py in this change.",
            "examples": examples(
                example({"path": source, "status": "A"}),
                example(
                    {"path": source, "status": "A"},
                    {"path": f"{test_dir}/test_new_module.py", "status": "A"},
                ),
            ),
        },
    )


def _python(paths: Sequence[str]) -> list[Suggestion]:
    modules, tests = _python_layout(paths)
    files: dict[str, list[str]] = {}  # folder -> its Python files (what the ignores may match)
    for path in paths:
        if path.endswith(".py"):
            files.setdefault(path.rpartition("/")[0], []).append(path)
    suggestions = []
    for folder in sorted(modules):
        names = modules[folder]
        counted = Counter({t: len(names & tests[t]) for t in _own_tests_folders(folder, tests)})
        if not counted:
            continue
        # The folder with the most of them; on a tie, the most specific (deepest) one.
        test_dir = max(counted, key=lambda t: (counted[t], t.count("/"), t))
        if _enough(counted[test_dir], len(names)):
            found = counted[test_dir]
            suggestions.append(
                _python_suggestion(folder, test_dir, found, files[folder], len(names))
            )
    return suggestions


# Scripts


def _scripts(paths: Sequence[str]) -> list[Suggestion]:
    """Rules for the folders whose script modules mostly have a test beside them (or in
    `__tests__/`): one per set of forms the folders' tests take, with the extension the tests
    have (`.test.js` for `.ts` sources where that is what exists) and a target list where a
    folder uses more than one form."""
    ignored = compile_matcher(_SCRIPT_IGNORES)
    modules: dict[str, dict[str, str]] = {}  # folder -> module name -> extension
    tests: list[tuple[str, str, str, str, str]] = []  # (source folder, name, marker, layout, ext)
    for path in paths:
        if path.rpartition(".")[2] not in _SCRIPT_EXTENSIONS:
            continue  # most paths, at once
        folder, _, base = path.rpartition("/")
        stem, _, ext = base.rpartition(".")
        if not stem:
            continue
        name, _, marker = stem.rpartition(".")
        if marker in ("test", "spec") and name:
            if posixpath.basename(folder) == "__tests__":
                tests.append((posixpath.dirname(folder), name, marker, "__tests__", ext))
            elif not in_test_folder(folder):
                tests.append((folder, name, marker, "beside", ext))
        elif not in_test_folder(folder) and not ignored.matches(path):
            modules.setdefault(folder, {})[stem] = ext
    tested: dict[str, set[str]] = {}
    forms: dict[str, Counter[str]] = {}  # folder -> target template -> tests in that form
    for folder, name, marker, layout, ext in tests:
        source = modules.get(folder, {}).get(name)
        if source is None:
            continue
        tested.setdefault(folder, set()).add(name)
        inside = "__tests__/" if layout == "__tests__" else ""
        form = f"{{dir}}/{inside}{{name}}.{marker}.{'{ext}' if ext == source else ext}"
        forms.setdefault(folder, Counter())[form] += 1
    chosen = sorted(f for f, names in tested.items() if _enough(len(names), len(modules[f])))
    groups: dict[tuple[str, ...], list[str]] = {}
    for folder in chosen:
        groups.setdefault(tuple(sorted(forms[folder])), []).append(folder)
    ordered = sorted(groups.items(), key=lambda group: (-len(group[1]), group[1]))
    found = [
        _script_suggestion(
            folders,
            [t for t, _ in sum((forms[f] for f in folders), Counter()).most_common()],
            {f: len(tested[f]) for f in folders},
            modules,
            paths,
        )
        for _, folders in ordered
    ]
    return [
        replace(s, rule={**s.rule, "id": f"{s.rule['id']}-{index + 1}"}) if index else s
        for index, s in enumerate(found)
    ]


def _script_suggestion(
    chosen: list[str],
    targets: list[str],
    tested: dict[str, int],
    modules: dict[str, dict[str, str]],
    paths: Sequence[str],
) -> Suggestion:
    globs = []
    for folder in chosen:
        exts = sorted(set(modules[folder].values()))
        pattern = exts[0] if len(exts) == 1 else "{" + ",".join(exts) + "}"
        globs.append(f"/{folder}/*.{pattern}" if folder else f"/*.{pattern}")
    found = sum(tested.values())
    counted = sum(len(modules[f]) for f in chosen)
    where = ", ".join(f"{f or '.'}/" for f in chosen[:3]) + (" ..." if len(chosen) > 3 else "")
    folder = chosen[0]
    ext = min(modules[folder].values())
    source = f"{folder}/new-module.{ext}" if folder else f"new-module.{ext}"
    companion = targets[0].format(dir=folder, name="new-module", ext=ext).lstrip("/")
    return Suggestion(
        f"{found} of {counted} script module(s) in {where} have a test"
        f" ({' or '.join(t.replace('{dir}/', '') for t in targets)}); {_STRONG}",
        {
            "id": "new-modules-have-tests",
            "kind": "sibling",
            "paths": globs,
            **_ignores(_SCRIPT_IGNORES, [p for p in paths if posixpath.dirname(p) in chosen]),
            "target": targets[0] if len(targets) == 1 else targets,
            "reason": "Add the new module's test in this change.",
            "examples": examples(
                example({"path": source, "status": "A"}),
                example({"path": source, "status": "A"}, {"path": companion, "status": "A"}),
            ),
        },
    )


def suggest_tests(paths: Sequence[str]) -> list[Suggestion]:
    """Sibling rules for the test layouts the sorted tracked `paths` already follow."""
    return [*_scripts(paths), *_python(paths)]
