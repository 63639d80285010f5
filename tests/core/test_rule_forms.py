"""Round four's triggers and sections (docs/rules.md): `when = "added"`, `dependency_changed`
with `ignore_dependencies`, sections named with their level, a rule's own placeholders,
look-alike placeholders, and the headings GitHub renders."""

from __future__ import annotations

import pytest

from cagr_config.rules import PrBodyRule, RequiresRule
from cagr_core.pull_request import Phase
from cagr_core.sections import Found, check_section, is_placeholder
from cagr_core.when import When
from tests.support.build import added, check, deleted, modified
from tests.support.evaluation import section_of

NEW_WORKFLOW = RequiresRule(
    id="workflow",
    paths=[".github/workflows/*.yml"],
    when=When.ADDED,
    require=["docs/ci.md"],
    reason="Describe it.",
)


class TestWhenAdded:
    def test_only_an_added_path_fires(self) -> None:
        assert check(NEW_WORKFLOW, added(".github/workflows/a.yml")).status == "fail"
        for change in (modified(".github/workflows/a.yml"), deleted(".github/workflows/a.yml")):
            assert check(NEW_WORKFLOW, change).status == "pass"

    def test_a_pr_body_rule_fires_for_added_paths_only(self) -> None:
        rule = PrBodyRule(
            id="new", paths=["src/**"], when=When.ADDED, section="Why", reason="Say why."
        )
        assert check(rule, modified("src/a.py"), body="").status == "pass"
        (finding,) = check(rule, added("src/b.py"), body="").findings
        assert finding.message.startswith("src/b.py was added;")


LOCK = RequiresRule(
    id="lock",
    paths=["package.json", "pyproject.toml", "Cargo.toml", "go.mod", "requirements.txt"],
    when=When.DEPENDENCY_CHANGED,
    ignore_dependencies=["@types/*", "types-*", "golang.org/x/**"],
    require=["LOCK"],
    reason="Update the lock.",
)


class TestDependencyChanged:
    def test_an_addition_alone_is_said_once(self) -> None:
        before, after = '{"dependencies": {}}', '{"dependencies": {"x": "1"}}'
        (finding,) = check(LOCK, modified("package.json", before, after)).findings
        assert finding.message.startswith(
            "Added dependencies.x in package.json;"
        )  # not "Added added"

    @pytest.mark.parametrize(
        ("path", "before", "after"),
        [
            ("package.json", '{"dependencies": {"x": "^1"}}', '{"dependencies": {"x": "^2"}}'),
            ("package.json", '{"dependencies": {"x": "1"}}', '{"dependencies": {}}'),
            (
                "package.json",
                '{"dependencies": {"x": "npm:a@1"}}',
                '{"dependencies": {"x": "npm:b@1"}}',
            ),
            (
                "pyproject.toml",
                "[project]\ndependencies = ['a>=1']",
                "[project]\ndependencies = ['a>=2']",
            ),
            (
                "pyproject.toml",
                "[project]\ndependencies = ['a']",
                "[project]\ndependencies = ['a[x]']",
            ),
            (
                "pyproject.toml",
                "[project]\ndependencies = ['a']",
                "[project]\ndependencies = [\"a; os_name == 'nt'\"]",
            ),
            (
                "Cargo.toml",
                "[dependencies]\nserde = '1'",
                "[dependencies]\nserde = { version = '1', features = ['derive'] }",
            ),
            ("go.mod", "module m\nrequire x.org/y v1.0.0\n", "module m\nrequire x.org/y v1.1.0\n"),
            (
                "go.mod",
                "module m\nrequire x.org/y v1.0.0\n",
                "module m\nrequire x.org/y v1.0.0\nreplace x.org/y => ../y\n",
            ),
            ("requirements.txt", "django==4.2\n", "django==4.2.1\n"),
        ],
    )
    def test_a_requirement_edit_fires(self, path: str, before: str, after: str) -> None:
        (finding,) = check(LOCK, modified(path, before, after)).findings
        assert finding.message.startswith(f"{path} changes its dependencies:")
        assert check(LOCK, modified(path, before, after), modified("LOCK")).status == "pass"

    @pytest.mark.parametrize(
        ("path", "before", "after"),
        [
            (
                "package.json",
                '{"dependencies": {"x": "1"}}',
                '{"name": "n", "dependencies": {"x": "1"}}',
            ),
            (
                "pyproject.toml",
                "[project]\ndependencies = ['Foo_Bar >= 1, <2']",
                "[project]\ndependencies = ['foo-bar<2,>=1']",
            ),
            (
                "package.json",
                '{"devDependencies": {"@types/n": "1"}}',
                '{"devDependencies": {"@types/n": "2"}}',
            ),
            ("requirements.txt", "types-requests==1\n", "Types_Requests==2\n"),
            (
                "go.mod",
                "module m\nrequire golang.org/x/net v0.1.0\n",
                "module m\nrequire golang.org/x/net v0.2.0\n",
            ),
        ],
    )
    def test_no_requirement_edit_or_an_ignored_name_does_not_fire(
        self, path: str, before: str, after: str
    ) -> None:
        assert check(LOCK, modified(path, before, after)).status == "pass"

    def test_a_deleted_manifest_removes_its_dependencies(self) -> None:
        (finding,) = check(LOCK, deleted("package.json", '{"dependencies": {"x": "1"}}')).findings
        assert [(d.name, d.change) for d in finding.dependencies] == [("x", "removed")]

    def test_an_unreadable_side_is_unchecked(self) -> None:
        report = check(LOCK, modified("package.json", "{", '{"dependencies": {}}'))
        assert report.status == "unchecked"

    def test_dependency_added_ignores_names_too(self) -> None:
        rule = RequiresRule(
            id="r",
            paths=["package.json"],
            when=When.DEPENDENCY_ADDED,
            ignore_dependencies=["@types/*"],
            require=["LOCK"],
            reason="x",
        )
        add_types = modified("package.json", "{}", '{"devDependencies": {"@types/n": "1"}}')
        assert check(rule, add_types).status == "pass"
        add_x = modified("package.json", "{}", '{"dependencies": {"x": "1"}}')
        assert check(rule, add_x).status == "fail"


AI = PrBodyRule(
    id="ai",
    paths=["**"],
    section="### AI usage",
    placeholders=["TODO", "TBD"],
    reason="Say how AI was used, or None.",
)


class TestSections:
    @pytest.mark.parametrize(
        ("body", "status"),
        [
            ("### AI usage\nNone", "pass"),
            ("## Description\nx\n### AI usage\nNone\n### Testing\ny", "pass"),
            ("### AI usage\nTODO", "fail"),
            ("### AI usage\nTODO / TBD", "fail"),
            ("## AI usage\nNone", "fail"),
            ("### AI usage\n## Next\nNone", "fail"),  # a level-2 heading ends a level-3 one
            ("### AI usage\n#### Detail\nNone", "pass"),  # a deeper one does not
            ("### AI usage\nNone\n### ai USAGE\nNone", "fail"),
        ],
    )
    def test_a_level_three_section_with_its_own_placeholders(self, body: str, status: str) -> None:
        assert check(AI, modified("a.py"), body=body).status == status

    def test_the_deferred_obligation_keeps_the_placeholders(self) -> None:
        (deferred,) = check(AI, modified("a.py"), phase=Phase.TURN).deferred
        assert (deferred.section, deferred.placeholders) == ("### AI usage", ("TODO", "TBD"))

    def test_an_empty_list_leaves_only_blank_text_and_comments_empty(self) -> None:
        rule = PrBodyRule(id="r", paths=["**"], section="Risk", placeholders=[], reason="x")
        assert check(rule, modified("a.py"), body="## Risk\nN/A").status == "pass"
        assert check(rule, modified("a.py"), body="## Risk\n<!-- x -->\n- ...").status == "fail"


@pytest.mark.parametrize(
    "line",
    [  # full-width, full-width with a slash, mathematical bold, superscript, small capitals,
        # Cyrillic, repeated, two kinds, a task list
        "\uff34\uff2f\uff24\uff2f",
        "\uff2e/\uff21",
        "\U0001d413\U0001d40e\U0001d403\U0001d40e",
        "\u1d40\u1d2e\u1d30",
        "\u0274\u1d0f\u0274\u1d07",
        "\u0422\u041eD\u041e",
        "TODO TODO",
        "TODO / TBD",
        "- [ ] N/A, TBD.",
    ],
)
def test_look_alike_and_repeated_placeholders_are_no_substance(line: str) -> None:
    assert is_placeholder(line)


@pytest.mark.parametrize("line", ["Nana", "None of the callers change", "TODO: rewrite it", "ok"])
def test_words_that_merely_contain_placeholders_are_substance(line: str) -> None:
    assert not is_placeholder(line)


class TestRenderedHeadings:
    @pytest.mark.parametrize(
        "body",
        [
            "## Risk\nlow\n\nRisk\n----\nmore\n",
            "## Risk\nlow\n\n<h2>Risk</h2>\n\nmore\n",
            "<h2 id='r'>RISK</h2>\n\n## Risk\nlow\n",
        ],
    )
    def test_a_second_heading_github_renders_is_a_duplicate(self, body: str) -> None:
        assert section_of(body, "Risk").found is Found.DUPLICATE

    def test_an_html_heading_ends_a_section(self) -> None:
        found = section_of("## Risk\nlow\n\n<h2>Other</h2>\n\ndetail\n", "Risk")
        assert (found.lines, found.ended) == (("low",), True)

    def test_a_section_written_only_as_html_says_how_to_write_it(self) -> None:
        found = section_of("<h2>Risk</h2>\n\nlow\n", "Risk")
        assert found.found is Found.MISSING
        rule = PrBodyRule(id="r", paths=["**"], section="Risk", reason="x")
        (finding,) = check(rule, modified("a"), body="<h2>Risk</h2>\n\nlow\n").findings
        assert "its Risk heading is underlined or HTML: write it as `## Risk`" in finding.message
        assert check_section(found, None) is not None
