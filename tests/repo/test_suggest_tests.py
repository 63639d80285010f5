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


FIVE = ["a", "b", "c", "d", "e"]  # the fewest tested modules a folder's rule needs


def each(template: str, names: list[str] = FIVE) -> list[str]:
    """`template` with `{}` filled in by each name."""
    return [template.format(n) for n in names]


class TestPython:
    def test_apps_map_to_their_own_tests_only(self) -> None:
        """An app without its own tests is not pointed at another app's: `views.py` beside
        another app's `tests/test_views.py` is a coincidence of names."""
        paths = [
            *app("proj/dcim", [*FIVE, "signals"], FIVE),
            *app("proj/account", ["views", "forms", "urls"], []),
            *app("proj/tenancy", [*FIVE, "models"], FIVE),
        ]
        assert targets(paths) == {
            "/proj/dcim/*.py": "proj/dcim/tests/test_{name}.py",
            "/proj/tenancy/*.py": "proj/tenancy/tests/test_{name}.py",
        }

    def test_a_subpackage_uses_its_apps_tests(self) -> None:
        paths = [
            *app("hc/accounts", ["admin"], []),
            *each("hc/accounts/management/commands/{}.py"),
            *each("hc/accounts/tests/test_{}.py"),
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
                [*each("src/flask/{}.py"), *each("tests/test_{}.py")],
                {"/src/flask/*.py": "tests/test_{name}.py"},
            ),
            (  # pytest's own: src/_pytest -> testing/
                [*each("src/_pytest/{}.py"), *each("testing/test_{}.py")],
                {"/src/_pytest/*.py": "testing/test_{name}.py"},
            ),
            (  # a mirrored tree: src/pkg/sub -> tests/sub
                [*each("src/pkg/io/{}.py"), *each("tests/io/test_{}.py"), "tests/test_a.py"],
                {"/src/pkg/io/*.py": "tests/io/test_{name}.py"},
            ),
            (  # tests/unit/<mirror>
                [*each("pkg/db/{}.py"), *each("tests/unit/db/test_{}.py")],
                {"/pkg/db/*.py": "tests/unit/db/test_{name}.py"},
            ),
            (  # a package named for its tests folder's last part: cagr_core -> tests/core
                [*each("cagr_core/{}.py"), *each("tests/core/test_{}.py"), *each("tests/repo/test_{}.py")],
                {"/cagr_core/*.py": "tests/core/test_{name}.py"},
            ),
            (  # a sibling package's mirror is not this package's
                [*each("cagr_repo/{}.py"), *each("tests/core/test_{}.py")],
                {},
            ),
            (  # the nearest tests folder decides: the app's own, even when the root's matches more
                [*each("app/{}.py"), "app/tests/test_x.py", *each("tests/test_{}.py")],
                {},
            ),
            (  # five of seven modules: fewer than three in four, not the folder's rule
                [*each("pkg/{}.py", [*FIVE, "f", "g"]), *each("tests/test_{}.py")],
                {},
            ),
            (  # two of four modules: evidence too thin for a rule on every new module
                [*each("pkg/{}.py", ["a", "b", "c", "d"]), *each("tests/test_{}.py", ["a", "b"])],
                {},
            ),
            (  # one pair is no layout
                ["pkg/a.py", "tests/test_a.py"],
                {},
            ),
        ],
    )  # fmt: skip
    def test_layouts(self, paths: list[str], expected: dict[str, str]) -> None:
        assert targets(paths) == expected

    def test_private_modules_and_conftest_do_not_count(self) -> None:
        paths = [*each("pkg/{}.py"), "pkg/_c.py", "pkg/conftest.py", *each("tests/test_{}.py")]
        (found,) = [s for s in suggest(paths) if s.rule["kind"] == "sibling"]
        assert found.why == (
            "5 of 5 module(s) in pkg/ have tests/test_NAME.py; a folder is suggested only where"
            " at least 5 modules, and three in four, have one"
        )
        assert found.rule["ignores"] == ["_*.py", "conftest.py"]

    def test_only_ignores_that_match_a_file_there(self) -> None:
        """An ignore that matches nothing is noise (`cagr doctor` would say so)."""
        paths = [*each("pkg/{}.py"), *each("tests/test_{}.py"), "tests/conftest.py"]
        (found,) = [s for s in suggest(paths) if s.rule.get("kind") == "sibling"]
        assert "ignores" not in found.rule


class TestScripts:
    def test_folders_that_mostly_have_tests_beside_their_modules(self) -> None:
        paths = [
            *each("src/lib/{}.ts"), *each("src/lib/{}.test.ts"), "src/lib/f.ts",
            "src/components/x.tsx", "src/components/y.tsx", "src/components/z.tsx", "src/components/x.test.tsx",
        ]  # fmt: skip
        (found,) = suggest(paths)
        assert found.rule["paths"] == ["/src/lib/*.ts"]
        assert found.rule["target"] == "{dir}/{name}.test.{ext}"
        assert found.why.startswith(
            "5 of 6 script module(s) in src/lib/ have a test ({name}.test.{ext}); a folder is"
            " suggested only where at least 5 modules"
        )

    def test_the_tests_extension_is_learnt_from_the_tests(self) -> None:
        """`.ts` sources tested by `.test.js` files: the target says `.test.js`."""
        (found,) = suggest([*each("src/{}.ts"), *each("src/{}.test.js")])
        assert found.rule["target"] == "{dir}/{name}.test.js"

    def test_folders_with_different_forms_get_their_own_rules(self) -> None:
        paths = [
            *each("a/{}.js"), *each("a/{}.spec.js"),
            *each("b/{}.js"), *each("b/__tests__/{}.test.js"),
        ]  # fmt: skip
        found = {s.rule["paths"][0]: s.rule["target"] for s in suggest(paths)}
        assert found == {
            "/a/*.js": "{dir}/{name}.spec.{ext}",
            "/b/*.js": "{dir}/__tests__/{name}.test.{ext}",
        }

    def test_a_folder_using_two_forms_gets_a_target_list(self) -> None:
        paths = [
            *each("a/{}.js"),
            *each("a/{}.spec.js", ["a", "b", "c"]),
            *each("a/{}.test.js", ["d", "e"]),
        ]
        (found,) = suggest(paths)
        assert found.rule["target"] == ["{dir}/{name}.spec.{ext}", "{dir}/{name}.test.{ext}"]

    def test_a_large_source_tree_with_a_few_tests_gets_none(self) -> None:
        """umami: six tests among hundreds of modules are not a rule for every new module."""
        paths = [f"src/lib/m{i}.ts" for i in range(38)]
        paths += [f"src/lib/m{i}.test.ts" for i in range(6)]
        assert suggest(paths) == []

    def test_tests_folders_index_files_and_declarations_are_no_modules(self) -> None:
        paths = [
            *each("pkg/{}.ts"), *each("pkg/{}.test.ts"), "pkg/index.ts", "pkg/types.d.ts",
            "pkg/vite.config.ts", "tests/helpers.ts", "e2e/flow.ts",
        ]  # fmt: skip
        (found,) = suggest(paths)
        assert found.why.startswith("5 of 5 script module(s) in pkg/")
