"""`cagr rules test`, `cagr explain` and `cagr schema`, called through main() as a user would."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cagr_cli.main import main
from cagr_config.schema import json_schema
from tests.support.configs import rule
from tests.support.git import write

Capture = pytest.CaptureFixture[str]

SIBLING = """
[[changes.rules]]
id = "guard-tests"
kind = "sibling"
paths = ["src/guards/**/*.ts"]
ignores = ["**/*.test.ts"]
target = "{dir}/{name}.test.{ext}"
reason = "Add or update the matching .test.ts file in this change."
note = "A matching test does not prove the test is useful."
examples.invalid = [{ changes = [{ path = "src/guards/new-guard.ts", status = "A" }] }]
examples.valid = [{ changes = [{ path = "src/guards/new-guard.ts", status = "A" }, { path = "src/guards/new-guard.test.ts", status = "A" }] }]
"""


def run(repo: Path, *args: str) -> int:
    return main(["--repo", str(repo), *args])


class TestRulesTest:
    def test_passing_examples(self, repo: Path, capsys: Capture) -> None:
        write(repo, "cagr.toml", rule("schema") + SIBLING)
        assert run(repo, "rules", "test") == 0
        assert capsys.readouterr().out == (
            "requires: 1 rule(s), 2 example(s), all passed\nsibling: 1 rule(s), 2 example(s), all passed\n"
        )

    def test_broken_matching_fails_with_the_fixture_named(
        self, repo: Path, capsys: Capture
    ) -> None:
        write(repo, "cagr.toml", SIBLING.replace("{name}.test.{ext}", "{name}.spec.{ext}"))
        assert run(repo, "rules", "test") == 1
        out = capsys.readouterr().out
        assert "sibling: 1 rule(s), 2 example(s), 1 failed" in out
        assert "FAIL guard-tests examples.valid[0]: expected this rule to pass, but:" in out
        assert "src/guards/new-guard.spec.ts needs to be added or changed in this change" in out

    def test_json(self, repo: Path, capsys: Capture) -> None:
        write(
            repo,
            "cagr.toml",
            SIBLING.replace('paths = ["src/guards/**/*.ts"]', 'paths = ["src/guard/**/*.ts"]'),
        )
        assert run(repo, "rules", "test", "--format", "json") == 1
        data = json.loads(capsys.readouterr().out)
        assert data["status"] == "fail"
        assert data["kinds"]["sibling"] == {"rules": 1, "examples": 2, "failed": 1}
        assert data["failures"][0]["example"] == "invalid[0]"

    def test_invalid_config_exits_2_and_evaluates_nothing(
        self, repo: Path, capsys: Capture
    ) -> None:
        write(
            repo,
            "cagr.toml",
            SIBLING.replace('target = "{dir}/{name}.test.{ext}"', 'target = "{dir}/{nme}"'),
        )
        assert run(repo, "rules", "test") == 2
        captured = capsys.readouterr()
        assert captured.out == ""
        assert "cagr: the configuration is invalid (1 problem(s)):" in captured.err
        assert "{nme} is not a named part of paths[0]" in captured.err

    def test_invalid_config_json(self, repo: Path, capsys: Capture) -> None:
        write(repo, "cagr.toml", "[[changes.rules]]\nkind = 3\n")
        assert run(repo, "rules", "test", "--format", "json") == 2
        data = json.loads(capsys.readouterr().out)
        assert data["status"] == "error"
        assert data["errors"][0]["source"] == "cagr.toml"

    def test_no_rules(self, repo: Path, capsys: Capture) -> None:
        assert run(repo, "rules", "test") == 0
        assert "no rules are configured" in capsys.readouterr().out


class TestExplain:
    def test_names_source_and_scope(self, repo: Path, capsys: Capture) -> None:
        write(repo, ".cagr/guards.toml", SIBLING)
        assert run(repo, "explain", "guard-tests") == 0
        out = capsys.readouterr().out
        assert out.splitlines()[:5] == [
            "guard-tests (sibling)",
            "  source:   .cagr/guards.toml",
            "  paths:    src/guards/**/*.ts",
            "  ignores:  **/*.test.ts",
            "  target:   {dir}/{name}.test.{ext}",
        ]
        assert "  note:     A matching test does not prove the test is useful." in out
        assert "    invalid[0]: A src/guards/new-guard.ts; no PR body; phase ci" in out
        assert "events:   checked at an agent's turn end" in out

    def test_pr_body_rules_say_they_are_deferred(self, repo: Path, capsys: Capture) -> None:
        write(
            repo,
            "cagr.toml",
            '[[changes.rules]]\nid = "risk"\nkind = "pr_body"\npaths = ["src/**"]\nsection = "Risk"\n'
            'contains = "Risk:"\nreason = "Describe the risk."\n'
            'examples.invalid = [{ changes = [{ path = "src/a", status = "M" }], pr_body = "" }]\n'
            'examples.valid = [{ changes = [{ path = "src/a", status = "M" }], pr_body = "## Risk\\nRisk: low, one caller." }]\n',
        )
        assert run(repo, "explain", "risk") == 0
        out = capsys.readouterr().out
        assert "  section:  ## Risk (level 2: Risk)" in out
        assert "  contains: Risk:" in out
        assert "deferred at an agent's turn end (advisory, never blocks)" in out

    def test_a_dependency_rule_says_what_it_reads(self, repo: Path, capsys: Capture) -> None:
        addition = '{ path = "deps/prod.lst", status = "A", after = "httpx\\n" }'
        write(
            repo,
            "cagr.toml",
            '[[changes.rules]]\nid = "lock"\nkind = "requires"\npaths = ["deps/*.lst"]\n'
            'when = "dependency_added"\nformat = "requirements"\nrequire = ["deps.lock"]\n'
            'reason = "Lock it."\n'
            f"examples.invalid = [{{ changes = [{addition}] }}]\n"
            f'examples.valid = [{{ changes = [{addition}, {{ path = "deps.lock", status = "A" }}] }}]\n',
        )
        assert run(repo, "rules", "test") == 0
        assert run(repo, "explain", "lock") == 0
        out = capsys.readouterr().out
        assert (
            "  when:     dependency_added\n  format:   requirements\n  require:  deps.lock\n" in out
        )

    def test_json(self, repo: Path, capsys: Capture) -> None:
        write(repo, "cagr.toml", SIBLING)
        assert run(repo, "explain", "guard-tests", "--format", "json") == 0
        data = json.loads(capsys.readouterr().out)
        assert data["source"] == "cagr.toml"
        assert data["rule"]["target"] == "{dir}/{name}.test.{ext}"

    def test_unknown_id_lists_close_matches(self, repo: Path, capsys: Capture) -> None:
        write(repo, "cagr.toml", SIBLING)
        assert run(repo, "explain", "guard-test") == 2
        assert "did you mean guard-tests?" in capsys.readouterr().err

    def test_unknown_id_lists_rules_when_nothing_is_close(
        self, repo: Path, capsys: Capture
    ) -> None:
        write(repo, "cagr.toml", SIBLING)
        assert run(repo, "explain", "nope") == 2
        assert capsys.readouterr().err == (
            "cagr explain: no rule has the id 'nope'. The rules are: guard-tests.\n"
        )

    def test_unknown_id_with_no_rules_at_all(self, repo: Path, capsys: Capture) -> None:
        assert run(repo, "explain", "nope") == 2
        assert capsys.readouterr().err == (
            "cagr explain: no rule has the id 'nope'. No rules are configured"
            " (cagr.toml, .cagr/*.toml or [tool.cagr] in pyproject.toml).\n"
        )

    def test_no_id_lists_every_rule_with_its_kind(self, repo: Path, capsys: Capture) -> None:
        write(repo, "cagr.toml", rule("schema"))
        write(repo, ".cagr/tests.toml", SIBLING)
        assert run(repo, "explain") == 0
        assert capsys.readouterr().out == (
            "2 rule(s); `cagr explain ID` shows one:\n"
            "  guard-tests  sibling   .cagr/tests.toml\n"
            "  schema       requires  cagr.toml\n"
            "Built-in guards (`[guards] disable` turns one off): guard.no-verify,"
            " guard.force-push-target, guard.cagr-state.\n"
        )
        assert run(repo, "explain", "--format", "json") == 0
        assert json.loads(capsys.readouterr().out) == {
            "rules": [
                {"id": "guard-tests", "kind": "sibling", "source": ".cagr/tests.toml"},
                {"id": "schema", "kind": "requires", "source": "cagr.toml"},
            ]
        }

    def test_no_id_and_no_rules(self, repo: Path, capsys: Capture) -> None:
        assert run(repo, "explain") == 0
        assert "No rules are configured" in capsys.readouterr().out


class TestSchema:
    def test_print(self, repo: Path, capsys: Capture) -> None:
        assert run(repo, "schema") == 0
        assert json.loads(capsys.readouterr().out) == json_schema()

    def test_write_then_check(self, repo: Path, capsys: Capture) -> None:
        """In a user's repository the schema lives where `cagr init` puts it, and no
        `schema/` folder appears."""
        assert run(repo, "schema", "--check") == 1
        assert "run `cagr schema --write`" in capsys.readouterr().err
        assert run(repo, "schema", "--write") == 0
        assert capsys.readouterr().out == "wrote .cagr/cagr.schema.json\n"
        saved = repo / ".cagr" / "cagr.schema.json"
        assert json.loads(saved.read_text()) == json_schema()
        assert run(repo, "schema", "--check") == 0
        data = json.loads(saved.read_text())
        data["title"] = "edited"
        saved.write_text(json.dumps(data))
        assert run(repo, "schema", "--check") == 1
        assert "is out of date" in capsys.readouterr().err
        assert not (repo / "schema").exists()

    def test_after_init_check_finds_inits_schema(self, repo: Path, capsys: Capture) -> None:
        assert run(repo, "init") == 0
        capsys.readouterr()
        assert run(repo, "schema", "--check") == 0
        assert capsys.readouterr().out == ".cagr/cagr.schema.json is up to date\n"
        assert sorted(p.name for p in repo.iterdir()) == [".cagr", ".git"]

    @pytest.mark.parametrize(
        ("config", "line", "expected"),
        [
            (
                ".cagr/changes.toml",
                "#:schema ../schema/cagr.schema.json",
                "schema/cagr.schema.json",
            ),
            ("cagr.toml", "#:schema ./tools/cagr.json", "tools/cagr.json"),
            (".cagr/team/a.toml", "# team rules\n#:schema ../../x.json", "x.json"),
            ("cagr.toml", "#:schema https://example.invalid/cagr.json", ".cagr/cagr.schema.json"),
            ("cagr.toml", "#:schema ../outside.json", ".cagr/cagr.schema.json"),
            ("cagr.toml", "[git]\n#:schema ./late.json", ".cagr/cagr.schema.json"),
        ],
    )
    def test_the_config_says_where_the_schema_lives(
        self, repo: Path, capsys: Capture, config: str, line: str, expected: str
    ) -> None:
        write(repo, config, line + "\n")
        assert run(repo, "schema", "--write") == 0
        assert capsys.readouterr().out == f"wrote {expected}\n"
        assert (repo / expected).is_file()
        assert run(repo, "schema", "--check") == 0

    def test_every_schema_the_config_names_is_checked(self, repo: Path, capsys: Capture) -> None:
        write(repo, "cagr.toml", "#:schema ./a.json\n")
        write(repo, ".cagr/more.toml", "#:schema ../b.json\n")
        assert run(repo, "schema", "--write") == 0
        assert capsys.readouterr().out == "wrote a.json\nwrote b.json\n"
        (repo / "b.json").write_text("{}")
        assert run(repo, "schema", "--check") == 1
        captured = capsys.readouterr()
        assert captured.out == "a.json is up to date\n"
        assert "b.json is out of date" in captured.err

    def test_write_and_check_another_path(
        self, repo: Path, tmp_path: Path, capsys: Capture
    ) -> None:
        target = tmp_path / "out" / "cagr.json"
        assert run(repo, "schema", "--write", str(target)) == 0
        assert capsys.readouterr().out == f"wrote {target}\n"
        assert json.loads(target.read_text()) == json_schema()
        assert not (repo / "schema").exists()
        assert run(repo, "schema", "--check", str(target)) == 0
        target.write_text("{}")
        assert run(repo, "schema", "--check", str(target)) == 1
        assert f"run `cagr schema --write {target}`" in capsys.readouterr().err

    def test_no_placeholder_id(self, repo: Path, capsys: Capture) -> None:
        assert run(repo, "schema") == 0
        assert "$id" not in json.loads(capsys.readouterr().out)

    def test_write_leaves_no_temporary_files(self, repo: Path) -> None:
        assert run(repo, "schema", "--write") == 0
        assert [p.name for p in (repo / ".cagr").iterdir()] == ["cagr.schema.json"]


class TestUsage:
    def test_no_command_prints_usage_and_exits_2(self, capsys: Capture) -> None:
        assert main([]) == 2
        assert "usage: cagr" in capsys.readouterr().out

    def test_unknown_command_exits_2(self, capsys: Capture) -> None:
        assert main(["frobnicate"]) == 2
        assert "invalid choice" in capsys.readouterr().err

    @pytest.mark.parametrize(
        ("argv", "said"),
        [
            (
                ["rules", "check", "--commited"],
                "cagr rules check: unrecognized argument --commited; did you mean --committed?\n"
                "Run `cagr rules check --help` for its options.\n",
            ),
            (
                ["changes", "--bse=main"],
                "cagr changes: unrecognized argument --bse=main; did you mean --base?\n"
                "Run `cagr changes --help` for its options.\n",
            ),
            (
                ["rules", "test", "extra"],
                "cagr rules test: unrecognized argument extra\n"
                "Run `cagr rules test --help` for its options.\n",
            ),
            (
                ["explain", "a", "b"],
                "cagr explain: unrecognized argument b\nRun `cagr explain --help` for its options.\n",
            ),
        ],
    )
    def test_a_misspelt_option_is_named_with_its_likely_meaning(
        self, repo: Path, capsys: Capture, argv: list[str], said: str
    ) -> None:
        assert run(repo, *argv) == 2
        captured = capsys.readouterr()
        assert (captured.out, captured.err) == ("", said)

    def test_version(self, capsys: Capture) -> None:
        assert main(["--version"]) == 0
        assert capsys.readouterr().out.startswith("cagr ")
