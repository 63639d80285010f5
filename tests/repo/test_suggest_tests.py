"""Suggested sibling rules: each source folder maps to its own tests folder, or gets none."""

from __future__ import annotations

import pytest

from cagr_repo.suggest import suggest


def targets(paths: list[str]) -> dict[str, str]:
    """Each suggested sibling rule's source glob and target."""
    return {s.rule["paths"][0]: s.rule["target"] for s in suggest(paths) if "target" in s.rule}


def app(name: str, modules: list[str], tested: list[str]) -> list[str]:
    """A Django app: its modules, and tests/test_<name>.py for some names."""
    return [f"{name}/{m}.py" for m in modules] + [f"{name}/tests/test_{t}.py" for t in tested]


class TestPython:
    def test_apps_map_to_their_own_tests_only(self) -> None:
        """An app without its own tests is not pointed at another app's: `views.py` beside
        another app's `tests/test_views.py` is a coincidence of names."""
        paths = [
            *app(
                "proj/dcim",
                ["views", "forms", "filtersets", "signals"],
                ["views", "forms", "filtersets"],
            ),
            *app("proj/account", ["views", "forms", "urls"], []),
            *app("proj/tenancy", ["views", "forms", "models"], ["views", "forms"]),
        ]
        assert targets(paths) == {
            "/proj/dcim/*.py": "proj/dcim/tests/test_{name}.py",
            "/proj/tenancy/*.py": "proj/tenancy/tests/test_{name}.py",
        }

    def test_a_subpackage_uses_its_apps_tests(self) -> None:
        paths = [
            *app("hc/accounts", ["admin"], []),
            "hc/accounts/management/commands/senddeletion.py",
            "hc/accounts/management/commands/pruneusers.py",
            "hc/accounts/tests/test_senddeletion.py",
            "hc/accounts/tests/test_pruneusers.py",
            "hc/api/tests/test_admin.py",  # another app's
            "hc/api/tests/test_other.py",
        ]
        assert targets(paths) == {
            "/hc/accounts/management/commands/*.py": "hc/accounts/tests/test_{name}.py"
        }

    @pytest.mark.parametrize(
        ("paths", "expected"),
        [
            (  # src layout: src/pkg -> tests/
                ["src/flask/app.py", "src/flask/cli.py", "tests/test_app.py", "tests/test_cli.py"],
                {"/src/flask/*.py": "tests/test_{name}.py"},
            ),
            (  # a mirrored tree: src/pkg/sub -> tests/sub
                [
                    "src/pkg/io/a.py",
                    "src/pkg/io/b.py",
                    "tests/io/test_a.py",
                    "tests/io/test_b.py",
                    "tests/test_a.py",
                ],
                {"/src/pkg/io/*.py": "tests/io/test_{name}.py"},
            ),
            (  # tests/unit/<mirror>
                [
                    "pkg/db/a.py",
                    "pkg/db/b.py",
                    "tests/unit/db/test_a.py",
                    "tests/unit/db/test_b.py",
                ],
                {"/pkg/db/*.py": "tests/unit/db/test_{name}.py"},
            ),
            (  # a package named for its tests folder's last part: cagr_core -> tests/core
                [
                    "cagr_core/a.py",
                    "cagr_core/b.py",
                    "tests/core/test_a.py",
                    "tests/core/test_b.py",
                    "tests/repo/test_a.py",
                    "tests/repo/test_b.py",
                ],
                {"/cagr_core/*.py": "tests/core/test_{name}.py"},
            ),
            (  # a sibling package's mirror is not this package's
                [
                    "cagr_repo/a.py",
                    "cagr_repo/b.py",
                    "tests/core/test_a.py",
                    "tests/core/test_b.py",
                ],
                {},
            ),
            (  # the nearest tests folder decides: the app's own, even when the root's matches more
                [
                    "app/a.py",
                    "app/b.py",
                    "app/tests/test_x.py",
                    "tests/test_a.py",
                    "tests/test_b.py",
                ],
                {},
            ),
            (  # fewer than half of the folder's modules: not the folder's rule
                [
                    "pkg/a.py",
                    "pkg/b.py",
                    "pkg/c.py",
                    "pkg/d.py",
                    "pkg/e.py",
                    "tests/test_a.py",
                    "tests/test_b.py",
                ],
                {},
            ),
            (  # one pair is no layout
                ["pkg/a.py", "tests/test_a.py"],
                {},
            ),
        ],
    )
    def test_layouts(self, paths: list[str], expected: dict[str, str]) -> None:
        assert targets(paths) == expected

    def test_private_modules_and_conftest_do_not_count(self) -> None:
        paths = ["pkg/a.py", "pkg/b.py", "pkg/_c.py", "pkg/conftest.py"]
        paths += ["tests/test_a.py", "tests/test_b.py"]
        (found,) = [s for s in suggest(paths) if s.rule["kind"] == "sibling"]
        assert found.why == "2 of 2 module(s) in pkg/ have tests/test_NAME.py"
        assert found.rule["ignores"] == ["_*.py", "conftest.py"]

    def test_only_ignores_that_match_a_file_there(self) -> None:
        """An ignore that matches nothing is noise (`cagr doctor` would say so)."""
        paths = ["pkg/a.py", "pkg/b.py", "tests/test_a.py", "tests/test_b.py", "tests/conftest.py"]
        (found,) = [s for s in suggest(paths) if s.rule["kind"] == "sibling"]
        assert "ignores" not in found.rule


class TestScripts:
    def test_folders_that_mostly_have_tests_beside_their_modules(self) -> None:
        paths = [
            "src/lib/a.ts", "src/lib/a.test.ts", "src/lib/b.ts", "src/lib/b.test.ts", "src/lib/c.ts",
            "src/components/x.tsx", "src/components/y.tsx", "src/components/z.tsx", "src/components/x.test.tsx",
        ]  # fmt: skip
        (found,) = suggest(paths)
        assert found.rule["paths"] == ["/src/lib/*.ts"]
        assert found.rule["target"] == "{dir}/{name}.test.{ext}"
        assert found.why == "2 of 3 script module(s) in src/lib/ have a test ({name}.test.{ext})"

    def test_both_layouts_give_a_target_list(self) -> None:
        paths = [
            "a/x.js", "a/x.spec.js", "a/y.js", "a/y.spec.js",
            "b/x.js", "b/__tests__/x.test.js", "b/y.js", "b/__tests__/y.test.js",
        ]  # fmt: skip
        (found,) = suggest(paths)
        assert found.rule["paths"] == ["/a/*.js", "/b/*.js"]
        assert sorted(found.rule["target"]) == [
            "{dir}/__tests__/{name}.test.{ext}",
            "{dir}/{name}.spec.{ext}",
        ]

    def test_a_large_source_tree_with_a_few_tests_gets_none(self) -> None:
        """umami: six tests among hundreds of modules are not a rule for every new module."""
        paths = [f"src/lib/m{i}.ts" for i in range(38)]
        paths += [f"src/lib/m{i}.test.ts" for i in range(6)]
        assert suggest(paths) == []

    def test_tests_folders_index_files_and_declarations_are_no_modules(self) -> None:
        paths = [
            "pkg/a.ts", "pkg/a.test.ts", "pkg/b.ts", "pkg/b.test.ts", "pkg/index.ts", "pkg/types.d.ts",
            "pkg/vite.config.ts", "tests/helpers.ts", "e2e/flow.ts",
        ]  # fmt: skip
        (found,) = suggest(paths)
        assert found.why.startswith("2 of 2 script module(s) in pkg/")
