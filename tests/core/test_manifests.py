"""The dependency selector's readers, format by format: every section the docs list, the names
they compare, and the manifests they refuse (unchecked, never an empty list)."""

from __future__ import annotations

import json

import pytest

from cagr_config.manifest_globs import could_be_read
from cagr_core.dependencies import Format, format_of
from cagr_manifests import ManifestError, added_dependencies


def added(manifest: Format, before: str | bytes | None, after: str | bytes) -> list[str]:
    """The labels of what `after` adds over `before`."""
    return [a.label for a in added_dependencies(manifest, _bytes(before), _bytes(after)).added]


def refused(manifest: Format, after: str | bytes, before: str | bytes | None = None) -> str:
    """The message of the ManifestError reading the sides raises."""
    with pytest.raises(ManifestError) as caught:
        added_dependencies(manifest, _bytes(before), _bytes(after))
    return str(caught.value)


def _bytes(text: str | bytes | None) -> bytes | None:
    return text.encode() if isinstance(text, str) else text


DEEP_TOML = "x = " + "[" * 5000 + "]" * 5000 + "\n"
HUGE_INTEGER = "1" * 5000


class TestFormatOf:
    @pytest.mark.parametrize(
        ("path", "expected"),
        [
            ("package.json", Format.PACKAGE_JSON),
            ("web/package.json", Format.PACKAGE_JSON),
            ("pyproject.toml", Format.PYPROJECT),
            ("crates/cli/Cargo.toml", Format.CARGO),
            ("go.mod", Format.GO_MOD),
            ("requirements.txt", Format.REQUIREMENTS),
            ("requirements-dev.txt", Format.REQUIREMENTS),
            ("test-requirements.txt", Format.REQUIREMENTS),
            ("base_requirements.txt", Format.REQUIREMENTS),
            ("requirements.in", Format.REQUIREMENTS),
            ("requirements/base.txt", Format.REQUIREMENTS),
            ("backend/requirements/dev.in", Format.REQUIREMENTS),
            ("MANIFEST.in", None),  # setuptools' file list, not requirements
            ("Makefile.in", None),
            ("constraints.txt", None),
            ("setup.py", None),
            ("cargo.toml", None),  # Cargo reads Cargo.toml only
            ("go.sum", None),
            ("package-lock.json", None),
        ],
    )
    def test_the_name_says_the_format(self, path: str, expected: Format | None) -> None:
        assert format_of(path) is expected


class TestCouldBeRead:
    @pytest.mark.parametrize(
        "pattern",
        [
            "package.json",
            "/pyproject.toml",
            "**/Cargo.toml",
            "crates/*/Cargo.toml",
            "[Cc]argo.toml",
            "go.mod",
            "requirements*.txt",
            "requirements/*.in",
            "**/requirements/*.txt",
            "src/*/base.txt",  # a wildcard folder may be a requirements/ folder
            "*",
            "**",
            "{api,web}/package.json",
        ],
    )
    def test_a_pattern_that_can_match_a_manifest(self, pattern: str) -> None:
        assert could_be_read(pattern)

    @pytest.mark.parametrize(
        "pattern", ["setup.py", "MANIFEST.in", "base.txt", "docs/*.md", "src/**/*.py", "Pipfile"]
    )
    def test_a_pattern_that_cannot(self, pattern: str) -> None:
        assert not could_be_read(pattern)


class TestPackageJson:
    def test_an_npm_alias_that_points_elsewhere_adds_that_package(self) -> None:
        before = '{"dependencies": {"x": "npm:lodash@4"}}'
        after = '{"dependencies": {"x": "npm:evil-pkg@1"}}'
        assert added(Format.PACKAGE_JSON, before, after) == ["dependencies.evil-pkg"]

    @pytest.mark.parametrize(
        ("before", "after", "expected"),
        [
            ('{"x": "npm:lodash@4"}', '{"x": "npm:lodash@^4.17"}', []),  # a version edit
            ('{"lodash": "4"}', '{"x": "npm:lodash@4"}', []),  # the same package, aliased
            ('{"x": "npm:a@1"}', '{"x": "npm:@evil/a@1"}', ["dependencies.@evil/a"]),
            ('{"x": "npm:@s/a@1"}', '{"x": "npm:@s/a"}', []),
            ('{"x": "1"}', '{"x": "npm:x@1"}', []),  # an alias to itself
            ("{}", '{"x": "npm:lodash"}', ["dependencies.lodash"]),
        ],
    )
    def test_aliases_are_named_by_their_package(
        self, before: str, after: str, expected: list[str]
    ) -> None:
        wrap = '{{"dependencies": {}}}'.format
        assert added(Format.PACKAGE_JSON, wrap(before), wrap(after)) == expected

    @pytest.mark.parametrize("spec", ["npm:", "npm:@1", "npm:@scope"])
    def test_an_alias_that_names_no_package_is_refused(self, spec: str) -> None:
        message = refused(Format.PACKAGE_JSON, json.dumps({"dependencies": {"x": spec}}))
        assert "an npm alias that names no package" in message

    def test_numbers_are_never_converted(self) -> None:
        after = f'{{"version": {HUGE_INTEGER}, "dependencies": {{"x": {HUGE_INTEGER}.5e99999}}}}'
        assert added(Format.PACKAGE_JSON, "{}", after) == ["dependencies.x"]

    def test_a_byte_order_mark_is_read(self) -> None:
        assert added(Format.PACKAGE_JSON, "{}", b'\xef\xbb\xbf{"dependencies": {"x": "1"}}') == [
            "dependencies.x"
        ]

    @pytest.mark.parametrize(
        ("after", "said"),
        [
            ("[" * 100_000, "the new side nests too deeply to read"),
            ("null", "the new side is JSON but null, not an object"),
            ('"x"', "the new side is JSON but a string, not an object"),
            ('{"peerDependencies": 1}', "the new side has peerDependencies as a number, not"),
            ('{"dependencies": {', "the new side is not valid JSON (Expecting property name"),
            (b"\xc3\x28{}", "the new side is not UTF-8 (invalid continuation byte at byte 0)"),
        ],
    )
    def test_refused(self, after: str | bytes, said: str) -> None:
        assert refused(Format.PACKAGE_JSON, after).startswith(said)


PEP_621 = """
[project]
name = "demo"
dependencies = ["Foo_Bar>=1", "httpx[http2]; python_version >= '3.9'"]

[project.optional-dependencies]
socks = ["PySocks"]
"""


class TestPyproject:
    def test_each_section(self) -> None:
        after = """
[project]
dependencies = ["attrs"]
[project.optional-dependencies]
socks = ["pysocks"]
[dependency-groups]
dev = ["pytest-xdist", {include-group = "lint"}]
lint = ["ruff"]
[tool.poetry.dependencies]
python = "^3.11"
requests = "*"
[tool.poetry.dev-dependencies]
black = "*"
[tool.poetry.group.docs.dependencies]
mkdocs = { version = "1", optional = true }
"""
        assert added(Format.PYPROJECT, None, after) == [
            "project.optional-dependencies.socks: pysocks",
            "dependency-groups.dev: pytest-xdist",
            "tool.poetry.dev-dependencies: black",  # Poetry's old spelling of the dev group
            "tool.poetry.group.docs.dependencies: mkdocs",
            "dependency-groups.lint: ruff",
            "project.dependencies: attrs",
            "tool.poetry.dependencies: requests",
        ]

    def test_the_issue_example(self) -> None:
        before = '[dependency-groups]\ndev = ["pytest"]\n'
        after = '[dependency-groups]\ndev = ["pytest", "pytest-xdist>=3"]\n'
        assert added(Format.PYPROJECT, before, after) == ["dependency-groups.dev: pytest-xdist"]

    def test_the_project_naming_itself_adds_no_dependency(self) -> None:
        # pytest's `dev` group installs its own `dev` extra: the extra's entries are the news.
        before = '[project]\nname = "Py_Test"\n[project.optional-dependencies]\ndev = []\n'
        after = (
            '[project]\nname = "Py_Test"\n[project.optional-dependencies]\n'
            'dev = ["py-test[testing]", "pexpect"]\n[dependency-groups]\ndev = ["py.test[dev]"]\n'
        )
        assert added(Format.PYPROJECT, before, after) == [
            "project.optional-dependencies.dev: pexpect"
        ]

    def test_names_compare_normalised_and_show_as_written(self) -> None:
        before = '[project]\ndependencies = ["foo-bar", "zope.interface"]\n'
        after = '[project]\ndependencies = ["Foo_Bar", "ZOPE-Interface", "New.Thing"]\n'
        assert added(Format.PYPROJECT, before, after) == ["project.dependencies: New.Thing"]

    @pytest.mark.parametrize(
        "after",
        [
            PEP_621.replace("Foo_Bar>=1", "Foo_Bar>=2"),  # version
            PEP_621.replace("httpx[http2]", "httpx[http2,brotli]"),  # extras
            PEP_621.replace(">= '3.9'", ">= '3.10'"),  # marker
            PEP_621.replace(", \"httpx[http2]; python_version >= '3.9'\"", ""),  # removal
            PEP_621.replace('["Foo_Bar>=1", "httpx', '["httpx').replace(
                "]\n\n", ', "foo-bar"]\n\n', 1
            ),
        ],
        ids=["version", "extras", "marker", "removal", "reorder"],
    )
    def test_edits_that_add_nothing(self, after: str) -> None:
        assert added(Format.PYPROJECT, PEP_621, after) == []

    def test_a_move_between_sections_adds(self) -> None:
        after = PEP_621.replace('socks = ["PySocks"]', 'socks = ["PySocks", "httpx"]')
        assert added(Format.PYPROJECT, PEP_621, after) == [
            "project.optional-dependencies.socks: httpx"
        ]
        group = '[project]\ndependencies = []\n[dependency-groups]\ntest = ["Foo_Bar"]\n'
        assert added(Format.PYPROJECT, PEP_621, group) == ["dependency-groups.test: Foo_Bar"]

    @pytest.mark.parametrize(
        ("before", "after"),
        [
            (
                '[tool.poetry.dev-dependencies]\npytest = "*"\n',
                '[tool.poetry.group.dev.dependencies]\npytest = "*"\n',
            ),
            (
                '[tool.poetry.group.dev.dependencies]\npytest = "*"\n',
                '[dependency-groups]\ndev = ["pytest"]\n',
            ),
            (
                '[tool.poetry.dependencies]\npython = "^3.9"\nrich = "*"\n',
                '[project]\ndependencies = ["rich"]\n',
            ),
        ],
        ids=["poetry dev group", "poetry group to PEP 735", "poetry to PEP 621"],
    )
    def test_one_section_written_another_way_adds_nothing(self, before: str, after: str) -> None:
        assert added(Format.PYPROJECT, before, after) == []

    def test_extra_and_group_names_compare_normalised(self) -> None:
        before = '[project.optional-dependencies]\nTest_Extra = ["pytest"]\n'
        after = '[project.optional-dependencies]\ntest-extra = ["pytest"]\n'
        assert added(Format.PYPROJECT, before, after) == []

    def test_python_is_not_a_poetry_dependency(self) -> None:
        assert added(Format.PYPROJECT, None, '[tool.poetry.dependencies]\nPython = "^3.9"\n') == []

    def test_a_pyproject_without_dependencies_adds_nothing(self) -> None:
        assert added(Format.PYPROJECT, None, "[tool.ruff]\nline-length = 100\n") == []

    @pytest.mark.parametrize(
        ("after", "said"),
        [
            ("[project\n", "the new side is not valid TOML (Expected ']' at the end of a table"),
            (f"x = {HUGE_INTEGER}\n", "the new side holds a number with more digits than cagr"),
            (DEEP_TOML, "the new side nests arrays or tables too deeply to read"),
            (b"[project]\nname = '\xff'\n", "the new side is not UTF-8 (invalid start byte at"),
            ('project = "x"\n', "the new side has project as a string, not a table"),
            (
                '[project]\ndependencies = "x"\n',
                "the new side has project.dependencies as a string",
            ),
            (
                "[project]\ndependencies = [1]\n",
                "the new side has project.dependencies[0] as a number",
            ),
            (
                '[project]\ndependencies = ["foo bar"]\n',
                "the new side has project.dependencies[0] `foo bar`, which is not a PEP 508"
                " requirement (Expected semicolon",
            ),
            (
                '[project.optional-dependencies]\nx = "y"\n',
                "the new side has project.optional-dependencies.x as a string, not an array",
            ),
            (
                "[dependency-groups]\ndev = [{include-group = 1}]\n",
                "the new side has dependency-groups.dev[0] with an include-group that is not a",
            ),
            (
                '[dependency-groups]\ndev = [{name = "x"}]\n',
                "the new side has dependency-groups.dev[0] as a table; it holds requirement",
            ),
            ("[tool]\npoetry = 1\n", "the new side has tool.poetry as a number, not a table"),
            (
                "[tool.poetry]\ngroup = { dev = 1 }\n",
                "the new side has tool.poetry.group.dev as a number, not a table",
            ),
            (
                '[project]\ndependencies = ["x; '
                + "(" * 300
                + "os_name == 'nt'"
                + ")" * 300
                + '"]\n',
                "the new side has project.dependencies[0] `x; ((((",
            ),
        ],
    )
    def test_refused(self, after: str | bytes, said: str) -> None:
        assert refused(Format.PYPROJECT, after).startswith(said)

    def test_the_old_side_is_named(self) -> None:
        assert refused(Format.PYPROJECT, "", before="[project\n").startswith(
            "the old side is not valid TOML"
        )


class TestRequirements:
    def test_lines_as_pip_reads_them(self) -> None:
        after = r"""
# a comment
-r base.txt
-c constraints.txt
--index-url https://example.org/simple
-i https://example.org/simple

Django>=4.2  # an inline comment
requests[socks]==2.31 \
    --hash=sha256:0123
attrs ; python_version >= "3.8"
pkg @ https://example.org/pkg-1.0.tar.gz
-e git+https://example.org/lib.git#egg=editable_lib
--editable=git+https://example.org/other.git@main#subdirectory=py&egg=Other
git+https://example.org/named.git#egg=named-by-egg
"""
        assert added(Format.REQUIREMENTS, "", after) == [
            "attrs",
            "Django",
            "editable_lib",
            "named-by-egg",
            "Other",
            "pkg",
            "requests",
        ]

    def test_a_continued_comment_does_not_swallow_the_next_line(self) -> None:
        assert added(Format.REQUIREMENTS, "", "# note \\\nflask\n") == ["flask"]

    def test_names_compare_normalised(self) -> None:
        assert added(Format.REQUIREMENTS, "django_filter==1\n", "Django-Filter==2\n") == []

    def test_removal_adds_nothing(self) -> None:
        assert added(Format.REQUIREMENTS, "a\nb\n", "b\n") == []

    def test_entries_that_name_no_package_are_unnamed(self) -> None:
        after = "./vendor/thing\nhttps://example.org/x.whl\n-e .\nlocal-1.0-py3-none-any.whl\nok\n"
        result = added_dependencies(Format.REQUIREMENTS, b"", after.encode())
        assert [a.name for a in result.added] == ["ok"]
        assert result.unnamed == (
            "line 1 (./vendor/thing)",
            "line 2 (https://example.org/x.whl)",
            "line 3 (.)",
            "line 4 (local-1.0-py3-none-any.whl)",
        )

    def test_an_unnamed_entry_already_there_is_not_new(self) -> None:
        before = "-e .\nflask\n"
        result = added_dependencies(Format.REQUIREMENTS, before.encode(), b"-e .\nflask>=3\n")
        assert result.added == ()
        assert result.unnamed == ()

    def test_included_files_are_not_followed(self) -> None:
        assert added(Format.REQUIREMENTS, "", "-r other-requirements.txt\n") == []

    @pytest.mark.parametrize(
        ("after", "said"),
        [
            (
                "ok\nnot a requirement\n",
                "the new side has line 2 `not a requirement`, which is not a PEP 508 requirement",
            ),
            (b"\xff\n", "the new side is not UTF-8"),
            ("x; " + "(" * 300 + "os_name == 'nt'" + ")" * 300, "the new side has line 1"),
            ("bad\0name\n", "the new side has line 1"),
            ("=" * 100_000, "the new side has line 1 `" + "=" * 77 + "...`"),
        ],
    )
    def test_refused(self, after: str | bytes, said: str) -> None:
        assert refused(Format.REQUIREMENTS, after).startswith(said)


class TestCargo:
    def test_each_section(self) -> None:
        after = """
[dependencies]
serde = "1"
[dev-dependencies]
proptest = "1"
[build-dependencies]
cc = "1"
[target.'cfg(windows)'.dependencies]
winapi = "0.3"
[target.x86_64-unknown-linux-gnu.dev-dependencies]
libc = "0.2"
[workspace.dependencies]
anyhow = "1"
"""
        assert added(Format.CARGO, None, after) == [
            "build-dependencies: cc",
            "dependencies: serde",
            "dev-dependencies: proptest",
            "target.'cfg(windows)'.dependencies: winapi",
            "target.x86_64-unknown-linux-gnu.dev-dependencies: libc",
            "workspace.dependencies: anyhow",
        ]

    def test_a_renamed_dependency_is_its_package(self) -> None:
        before = '[dependencies]\nmemmap = "0.7"\n'
        after = '[dependencies]\nmemmap = { package = "memmap2", version = "0.5" }\n'
        assert added(Format.CARGO, before, after) == ["dependencies: memmap2"]

    def test_a_table_entry_and_workspace_inheritance(self) -> None:
        after = '[dependencies.regex]\nversion = "1"\n[dependencies]\nserde.workspace = true\n'
        assert added(Format.CARGO, "", after) == ["dependencies: regex", "dependencies: serde"]

    def test_names_ignore_case_and_dashes(self) -> None:
        before = '[dependencies]\nserde_json = "1"\n'
        assert added(Format.CARGO, before, '[dependencies]\nSerde-JSON = "2"\n') == []

    def test_the_old_underscore_spelling_is_the_same_section(self) -> None:
        before = '[dev_dependencies]\nquickcheck = "1"\n'
        assert added(Format.CARGO, before, '[dev-dependencies]\nquickcheck = "1"\n') == []

    def test_a_move_between_sections_adds(self) -> None:
        before = '[dependencies]\nlog = "0.4"\n'
        after = '[dev-dependencies]\nlog = "0.4"\n'
        assert added(Format.CARGO, before, after) == ["dev-dependencies: log"]

    def test_patches_and_features_are_not_dependencies(self) -> None:
        after = '[patch.crates-io]\nregex = { path = "../regex" }\n[features]\nsimd = []\n'
        assert added(Format.CARGO, "", after) == []

    @pytest.mark.parametrize(
        ("after", "said"),
        [
            (
                '[dependencies]\nx = "1"\nx = "2"\n',
                "the new side is not valid TOML (Cannot overwrite",
            ),
            (f"[package]\nversion = {HUGE_INTEGER}\n", "the new side holds a number with more"),
            (DEEP_TOML, "the new side nests arrays or tables too deeply to read"),
            (b"\xfe\xff", "the new side is not UTF-8"),
            ("dependencies = []\n", "the new side has dependencies as an array, not a table"),
            ("[target]\nlinux = 1\n", "the new side has target.linux as a number, not a table"),
            (
                "[target.'cfg(unix)']\ndependencies = 1\n",
                "the new side has target.'cfg(unix)'.dependencies as a number, not a table",
            ),
            (
                "[dependencies]\nx = { package = 1 }\n",
                "the new side has dependencies.x.package as a number, not a crate name",
            ),
            (
                '[dependencies]\nx = { package = "" }\n',
                "the new side has dependencies.x.package as an empty string, not a crate name",
            ),
            ("workspace = 1\n", "the new side has workspace as a number, not a table"),
        ],
    )
    def test_refused(self, after: str | bytes, said: str) -> None:
        assert refused(Format.CARGO, after).startswith(said)


GO_MOD = """module example.com/demo

go 1.22

require golang.org/x/net v0.20.0

require (
	github.com/spf13/cobra v1.8.0
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
)

replace github.com/spf13/cobra => ../cobra
exclude example.com/old v1.0.0
"""


class TestGoMod:
    def test_lines_and_blocks(self) -> None:
        assert added(Format.GO_MOD, None, GO_MOD) == [
            "require: github.com/inconshreveable/mousetrap",
            "require: github.com/spf13/cobra",
            "require: golang.org/x/net",
        ]

    @pytest.mark.parametrize(
        "after",
        [
            GO_MOD.replace("v1.8.0", "v1.9.0"),  # version
            GO_MOD.replace(" // indirect", ""),  # indirect to direct
            GO_MOD.replace("\tgithub.com/spf13/cobra v1.8.0\n", ""),  # removal
            GO_MOD.replace("\n", "\r\n"),  # line endings
            GO_MOD.replace(
                "require golang.org/x/net v0.20.0", 'require "golang.org/x/net" `v0.20.0`'
            ),
            GO_MOD.replace("exclude example.com/old v1.0.0", "// require example.com/not v1.0.0"),
            GO_MOD.replace("exclude", "retract [v1.0.0, v1.0.1]\nexclude"),
        ],
        ids=["version", "indirect", "removal", "crlf", "quoted", "comment", "retract"],
    )
    def test_edits_that_add_nothing(self, after: str) -> None:
        assert added(Format.GO_MOD, GO_MOD, after) == []

    def test_a_new_major_version_is_a_new_module(self) -> None:
        after = GO_MOD.replace(
            "require golang.org/x/net v0.20.0", "require gopkg.in/yaml.v3 v3.0.1"
        )
        assert added(Format.GO_MOD, GO_MOD, after) == ["require: gopkg.in/yaml.v3"]

    def test_an_empty_block_and_a_comment_after_the_paren(self) -> None:
        after = "module m\n\nrequire ()\nrequire ( // deps\n\tx.org/y v1.0.0\n) // end\n"
        assert added(Format.GO_MOD, "module m\n", after) == ["require: x.org/y"]

    @pytest.mark.parametrize(
        ("after", "said"),
        [
            (
                "require (\n\tx.org/y v1\n",
                "the new side has a block opened at line 1 that is never",
            ),
            ("/* old */\nmodule m\n", "the new side has a /* comment at line 1; go.mod allows //"),
            ("require x.org/y\n", "the new side has a require at line 1 that is not `module/path"),
            ("require x.org/y v1 v2\n", "the new side has a require at line 1 that is not"),
            ('require "x.org/y v1\n', "the new side has an unterminated string at line 1"),
            ('require "x\\q" v1\n', "the new side has a quoted string at line 1 cagr cannot read"),
            ("module m\n)\n", "the new side has a line that starts with ) at line 2"),
            ("module m\x00\n", "the new side has an unexpected character '\\x00' at line 1"),
            (b"module \xff\n", "the new side is not UTF-8"),
            ("require (\n\trequire (\n", "the new side has a require at line 2 that is not"),
        ],
    )
    def test_refused(self, after: str | bytes, said: str) -> None:
        assert refused(Format.GO_MOD, after).startswith(said)


@pytest.mark.parametrize("manifest", list(Format))
def test_a_deleted_manifest_adds_nothing(manifest: Format) -> None:
    result = added_dependencies(manifest, b"\xff broken either way", None)
    assert result.added == ()
    assert result.unnamed == ()
