"""Example tests for the forms teams need: added-only requirements, target lists, severity and
waivers, and the config errors each can make."""

from __future__ import annotations

import tomllib

import pytest
from attrs import evolve

from cagr_config.rules import RequireAdded, RequiresRule, Severity, SiblingRule
from cagr_config.validate import structure_config, unstructure_rule
from cagr_core.pull_request import Phase
from cagr_core.render import render_summary, render_text
from cagr_core.report import waive
from cagr_core.report_json import report_data
from tests.support.build import added, check, deleted, modified
from tests.support.rules import DEPENDENCY_REASON, GUARDS, MIGRATIONS, bump, manifest

MODELS = RequiresRule(
    id="models-migration",
    paths=["**/models.py"],
    require=[RequireAdded(path="**/migrations/*.py", status="added")],
    reason="Run `manage.py makemigrations` and commit the new migration.",
)
TESTS = SiblingRule(
    id="component-tests",
    paths=["src/**/*.tsx"],
    ignores=["**/*.test.tsx"],
    target=["{dir}/{name}.test.{ext}", "{dir}/__tests__/{name}.test.{ext}"],
    reason="Add a test beside the component or under __tests__/.",
)


class TestAddedRequirement:
    def test_a_new_migration_satisfies(self) -> None:
        report = check(MODELS, modified("app/models.py"), added("app/migrations/0002_x.py"))
        assert report.status == "pass"

    def test_editing_an_old_migration_does_not(self) -> None:
        report = check(MODELS, modified("app/models.py"), modified("app/migrations/0001_x.py"))
        (finding,) = report.findings
        assert finding.message == (
            "app/models.py changed; app/migrations/0001_x.py was changed, not added, and this"
            " rule needs a file matching **/migrations/*.py added."
        )
        assert finding.requires == ("**/migrations/*.py (added)",)
        assert finding.paths == ("app/models.py", "app/migrations/0001_x.py")

    def test_nothing_added(self) -> None:
        (finding,) = check(MODELS, modified("app/models.py")).findings
        assert finding.message == (
            "app/models.py changed; nothing matching **/migrations/*.py was added."
        )

    def test_a_literal_path_says_was_not_added(self) -> None:
        rule = RequiresRule(
            id="r",
            paths=["a"],
            require=["b", RequireAdded(path="c", status="added")],
            reason="x",
        )
        (finding,) = check(rule, modified("a"), modified("b")).findings
        assert finding.message == "a changed; c was not added."

    def test_an_added_symlink_does_not_count(self) -> None:
        link = added("app/migrations/0002_x.py", mode=0o120000)
        (finding,) = check(MODELS, modified("app/models.py"), link).findings
        assert "is now a symlink, not a regular file" in finding.message


class TestTargetLists:
    def test_either_layout_satisfies(self) -> None:
        for test in ("src/ui/Button.test.tsx", "src/ui/__tests__/Button.test.tsx"):
            assert check(TESTS, added("src/ui/Button.tsx"), added(test)).status == "pass"

    def test_the_message_names_every_accepted_target(self) -> None:
        (finding,) = check(TESTS, added("src/ui/Button.tsx")).findings
        assert finding.message == (
            "Added src/ui/Button.tsx; one of src/ui/Button.test.tsx,"
            " src/ui/__tests__/Button.test.tsx needs to be added or changed in this change."
        )
        assert finding.targets == ("src/ui/Button.test.tsx", "src/ui/__tests__/Button.test.tsx")
        assert finding.target == "src/ui/Button.test.tsx"
        data = report_data(check(TESTS, added("src/ui/Button.tsx")))
        assert data["findings"][0]["targets"] == list(finding.targets)

    def test_a_deleted_target_is_named(self) -> None:
        report = check(
            TESTS, added("src/ui/Button.tsx"), deleted("src/ui/__tests__/Button.test.tsx")
        )
        (finding,) = report.findings
        assert finding.message.endswith(
            "needs to be added or changed in this change (src/ui/__tests__/Button.test.tsx was"
            " deleted)."
        )
        assert finding.paths == ("src/ui/Button.tsx", "src/ui/__tests__/Button.test.tsx")

    def test_a_single_target_keeps_its_message(self) -> None:
        (finding,) = check(
            GUARDS, added("src/guards/a.ts"), deleted("src/guards/a.test.ts")
        ).findings
        assert finding.message == (
            "Added src/guards/a.ts; src/guards/a.test.ts needs to be added or changed in this"
            " change (it was deleted)."
        )


class TestWaivers:
    def test_a_label_moves_the_rules_findings_to_waived(self) -> None:
        rule = evolve(MIGRATIONS, waive_label="db-fix")
        report = check(rule, modified("migrations/001.sql"))
        assert report.status == "fail"
        assert "Waivable: a maintainer can waive this rule" in render_text(report)
        waived = waive(report, frozenset({"db-fix", "other"}))
        assert (waived.status, waived.findings) == ("waived", ())
        assert render_text(waived).startswith(
            "Waived by the label `db-fix`: change rule immutable-migrations (merge base"
        )
        assert "1 waived" in render_summary(waived)
        data = report_data(waived)
        assert data["waived"][0]["label"] == "db-fix"
        assert waive(report, frozenset({"DB-fix"})) == report

    def test_a_waiver_is_never_a_pass_and_never_hides_an_unchecked_rule(self) -> None:
        rule = evolve(MIGRATIONS, waive_label="db-fix")
        report = check(
            [rule, DEPENDENCY_REASON],
            modified("migrations/001.sql"),
            bump("{}", manifest(dependencies={"x": "1"})),
            body=None,
            phase=Phase.CI,
        )
        assert waive(report, frozenset({"db-fix"})).status == "unchecked"


class TestConfig:
    def test_the_new_keys_read_back(self) -> None:
        config = _toml(
            'id = "m"\nkind = "requires"\npaths = ["**/models.py"]\n'
            'require = ["CHANGELOG.md", { path = "**/migrations/*.py", status = "added" }]\n'
            'reason = "x"\nseverity = "warn"\nwaive_label = "no-migration"\n' + _EXAMPLES
        )
        (rule,) = config.changes.rules
        assert isinstance(rule, RequiresRule)
        assert rule.require == (
            "CHANGELOG.md",
            RequireAdded(path="**/migrations/*.py", status="added"),
        )
        assert (rule.severity, rule.waive_label) == (Severity.WARN, "no-migration")
        data = unstructure_rule(rule)
        assert data["require"] == [
            "CHANGELOG.md",
            {"path": "**/migrations/*.py", "status": "added"},
        ]
        assert (data["severity"], data["waive_label"]) == ("warn", "no-migration")

    @pytest.mark.parametrize(
        ("extra", "where", "message"),
        [
            ('severity = "fatal"', "severity", "expected one of 'error', 'warn', got 'fatal'"),
            ('waive_label = "a,b"', "waive_label", "cannot hold a comma"),
            ('waive_label = " "', "waive_label", "cannot be blank"),
            ('waive_label = " x"', "waive_label", "remove the spaces around the label"),
            ("target = []", "target", "list at least one target template"),
            ('target = ["{dir}/t_{name}.py", "*.py"]', "target[1]", "'*' is glob syntax"),
            ('target = ["{dir}/{name}.{ext}"]', "target[0]", "names the added file itself"),
            ("target = 3", "target", "expected a template or an array of them, got an integer"),
        ],
    )
    def test_sibling_problems(self, extra: str, where: str, message: str) -> None:
        issues = _issues(
            'id = "s"\nkind = "sibling"\npaths = ["src/*.py"]\nreason = "x"\n'
            + ("" if extra.startswith("target") else 'target = "{dir}/t_{name}.py"\n')
            + extra
            + "\n"
            + _EXAMPLES
        )
        assert any(i.where.endswith(f".{where}") and message in i.message for i in issues), issues

    @pytest.mark.parametrize(
        ("entry", "message"),
        [
            ('{ path = "m/*", status = "modified" }', '`status` must be "added"'),
            ('{ path = "m/*" }', '`status` must be "added"'),
            ('{ path = "m/*", status = "added", why = 1 }', "unknown key why"),
            ("3", "expected a glob or a table"),
            ('{ path = "m/{a", status = "added" }', "brace"),
        ],
    )
    def test_require_problems(self, entry: str, message: str) -> None:
        issues = _issues(
            f'id = "r"\nkind = "requires"\npaths = ["a"]\nreason = "x"\nrequire = [{entry}]\n'
            + _EXAMPLES
        )
        assert any(".require" in i.where and message in i.message for i in issues), issues


_EXAMPLES = (
    'examples.invalid = [{ changes = [{ path = "a", status = "M" }] }]\n'
    'examples.valid = [{ changes = [{ path = "b", status = "M" }] }]\n'
)


def _parsed(text: str):  # type: ignore[no-untyped-def]
    return structure_config(tomllib.loads("[[changes.rules]]\n" + text), "cagr.toml")


def _toml(text: str):  # type: ignore[no-untyped-def]
    config, issues = _parsed(text)
    assert issues == []
    assert config is not None
    return config


def _issues(text: str):  # type: ignore[no-untyped-def]
    _, issues = _parsed(text)
    assert issues, "expected the configuration to be refused"
    return issues
