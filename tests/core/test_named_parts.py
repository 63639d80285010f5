"""Named parts in paths (docs/rules.md, "Named parts"): what they match, what they bind, how
require entries and sibling targets use them, and the configurations that are errors."""

from __future__ import annotations

import json

import pytest

from cagr_config.compile import compile_rules
from cagr_config.globs import check_pattern, compile_matcher
from cagr_config.rules import RequireAdded, RequiresRule, SiblingRule
from cagr_config.validate import structure_config
from cagr_core.changes import ChangeSet
from cagr_core.errors import PatternError, RuleError
from cagr_core.pull_request import Phase, PrBody
from tests.support.build import RANGE, added, check, deleted, modified
from tests.support.evaluation import judge

MIGRATION = RequiresRule(
    id="app-migration",
    paths=["apps/{app}/models.py"],
    require=[RequireAdded(path="apps/{app}/migrations/*.py", status="added")],
    reason="Run makemigrations for this app.",
)


class TestMatching:
    def test_a_part_matches_one_or_more_characters_of_one_name(self) -> None:
        matcher = compile_matcher(["apps/{app}/models.py"], "bind")
        assert matcher.matches("apps/blog/models.py")
        assert not matcher.matches("apps//models.py")
        assert not matcher.matches("apps/a/b/models.py")
        assert matcher.bindings("apps/blog/models.py") == ((("app", "blog"),),)

    def test_braces_keep_their_meaning_and_an_escaped_brace_is_literal(self) -> None:
        matcher = compile_matcher(["{src,lib}/{pkg}/v{1..2}.py"], "bind")
        assert matcher.bindings("lib/x/v2.py") == ((("pkg", "x"),),)
        assert not matcher.matches("lib/x/v3.py")
        literal = compile_matcher(["docs/\\{app\\}.md"])
        assert literal.matches("docs/{app}.md")
        assert not literal.matches("docs/blog.md")

    def test_deep_globstars_bind_exactly(self) -> None:
        matcher = compile_matcher(["{pkg}/**/tests/**/test_{name_}.py"], "bind")
        path = "core/a/tests/tests/b/test_x.py"
        assert matcher.bindings(path) == ((("name_", "x"), ("pkg", "core")),)
        deep = "core/" + "tests/" * 60 + "test_y.py"
        assert matcher.bindings(deep) == ((("name_", "y"), ("pkg", "core")),)

    def test_a_basename_pattern_binds_the_file_name(self) -> None:
        matcher = compile_matcher(["{stem}.proto"], "bind")
        assert matcher.bindings("a/b/api.proto") == ((("stem", "api"),),)

    def test_the_filled_in_value_is_literal(self) -> None:
        require = compile_matcher(["apps/{app}/migrations/*.py"], "fill")
        bound = require.bind({"app": "b[l]*g"}, ("x",))
        assert bound.matches("apps/b[l]*g/migrations/0001.py")
        assert not bound.matches("apps/bl0g/migrations/0001.py")
        assert not bound.matches("apps/blg/migrations/0001.py")


class TestObligations:
    def test_each_app_needs_its_own_migration(self) -> None:
        report = check(
            MIGRATION,
            modified("apps/blog/models.py"),
            modified("apps/shop/models.py"),
            added("apps/blog/migrations/0002_x.py"),
        )
        (finding,) = report.findings
        assert finding.parts == (("app", "shop"),)
        assert finding.message == (
            "apps/shop/models.py changed; nothing matching apps/shop/migrations/*.py was added."
        )
        assert finding.requires == ("apps/shop/migrations/*.py (added)",)

    def test_another_apps_migration_never_satisfies(self) -> None:
        report = check(
            MIGRATION, modified("apps/blog/models.py"), added("apps/shop/migrations/1.py")
        )
        assert [f.parts for f in report.findings] == [(("app", "blog"),)]

    def test_the_near_miss_is_the_apps_own(self) -> None:
        report = check(
            MIGRATION,
            modified("apps/blog/models.py"),
            modified("apps/blog/migrations/0001.py"),
            added("apps/shop/migrations/0002.py"),
        )
        (finding,) = report.findings
        assert "apps/blog/migrations/0001.py was changed, not added" in finding.message
        assert finding.paths == ("apps/blog/models.py", "apps/blog/migrations/0001.py")

    def test_a_sibling_target_uses_the_part(self) -> None:
        rule = SiblingRule(
            id="pg",
            paths=["playground/{pg}/src/*.ts"],
            target="playground/{pg}/__tests__/{pg}.spec.ts",
            reason="Add its spec.",
        )
        report = check(rule, added("playground/ssr/src/a.ts"), added("playground/vue/src/b.ts"))
        assert [f.target for f in report.findings] == [
            "playground/ssr/__tests__/ssr.spec.ts",
            "playground/vue/__tests__/vue.spec.ts",
        ]
        met = check(
            rule, added("playground/ssr/src/a.ts"), added("playground/ssr/__tests__/ssr.spec.ts")
        )
        assert met.status == "pass"

    def test_two_patterns_binding_differently_owe_both(self) -> None:
        rule = RequiresRule(
            id="docs",
            paths=["pkg/{p}/**", "pkg/core/{p}/*.py"],
            require=["docs/{p}.md"],
            reason="Document it.",
        )
        report = check(rule, modified("pkg/core/io/a.py"), modified("docs/core.md"))
        assert [f.parts for f in report.findings] == [(("p", "io"),)]

    def test_a_deleted_companion_does_not_count(self) -> None:
        report = check(
            MIGRATION, modified("apps/blog/models.py"), deleted("apps/blog/migrations/0002_x.py")
        )
        assert report.status == "fail"

    def test_the_indexed_evaluator_answers_as_the_naive_scan(self) -> None:
        rules = compile_rules([MIGRATION])
        changes = ChangeSet(
            (
                modified("apps/blog/models.py"),
                modified("apps/shop/models.py"),
                added("apps/shop/migrations/0002.py"),
                added("apps/blog/migrations/x/0002.py"),
            ),
            RANGE,
        )
        indexed = judge(rules, changes, PrBody(None), Phase.CI)
        naive = judge(rules, changes, PrBody(None), Phase.CI, naive=True)
        assert indexed == naive
        assert [f.parts for f in indexed.findings] == [(("app", "blog"),)]


def _issues(rule: str) -> list[str]:
    data = {
        "changes": {
            "rules": [
                {
                    "id": "r",
                    "reason": "x",
                    "examples": {"valid": [], "invalid": []},
                    **json.loads(rule),
                }
            ]
        }
    }
    _, issues = structure_config(data, "cagr.toml")
    return [f"{issue.where}: {issue.message}" for issue in issues if "examples" not in issue.where]


@pytest.mark.parametrize(
    ("rule", "said"),
    [
        (
            '{"kind": "requires", "paths": ["apps/{app}/models.py", "lib/models.py"],'
            ' "require": ["apps/{app}/migrations/*.py"]}',
            "require[0]: {app} is not a named part of paths[1] 'lib/models.py'",
        ),
        (
            '{"kind": "requires", "paths": ["{x,y/{app}}/models.py"], "require": ["{app}.md"]}',
            "require[0]: {app} is not a named part of paths[0] '{x,y/{app}}/models.py' (x/models.py)",
        ),
        (
            '{"kind": "sibling", "paths": ["a/{app}/*.py"], "target": "{dir}/{nme}.py"}',
            "target: {nme} is not a named part of paths[0]",
        ),
        (
            '{"kind": "requires", "paths": ["a/{app}/{app}.py"], "require": ["x"]}',
            "paths[0]: pattern 'a/{app}/{app}.py': {app} is named twice in one pattern",
        ),
        (
            '{"kind": "add_only", "paths": ["a/**"], "ignores": ["a/{app}/x"]}',
            "ignores[0]: pattern 'a/{app}/x': a named part ({app}) is for a change rule's paths",
        ),
        (
            '{"kind": "requires", "paths": ["**/{app}/**"], "require": ["{app}.md"]}',
            "paths[0]: pattern '**/{app}/**': {app} stands between two **",
        ),
        (
            '{"kind": "requires", "paths": ["a/{app}_*.py"], "require": ["{app}.md"]}',
            "paths[0]: pattern 'a/{app}_*.py': {app} shares its folder or file name",
        ),
        (
            '{"kind": "requires", "paths": ["a/{dir}/x"], "require": ["y"]}',
            "paths[0]: pattern 'a/{dir}/x': {dir} is a sibling target's placeholder",
        ),
        (
            '{"kind": "requires", "paths": ["a/{App}/x"], "require": ["y"]}',
            "paths[0]: pattern 'a/{App}/x': {App} is neither braces with a comma",
        ),
    ],
)
def test_config_errors_name_the_key_and_the_fix(rule: str, said: str) -> None:
    issues = _issues(rule)
    assert any(said in issue for issue in issues), issues


def test_stack_paths_take_no_named_parts() -> None:
    with pytest.raises(PatternError, match="a named part"):
        check_pattern("src/{app}/**")


def test_compiling_an_undefined_part_is_a_rule_error() -> None:
    rule = RequiresRule(id="r", paths=["a/*.py"], require=["b/{app}.md"], reason="x")
    with pytest.raises(RuleError, match=r"require\[0\]: \{app\} is not a named part"):
        compile_rules([rule])
