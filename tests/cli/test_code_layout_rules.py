"""Code and layout rules through the command line: `cagr rules check` judges what the branch
adds (new findings only), `cagr check` judges the working tree's files as a snapshot, `cagr
rules test` counts every kind, `cagr explain` shows any kind."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cagr_cli.main import main
from tests.support.configs import CODE_LAYOUT_GUARD
from tests.support.git import commit, git, write

Capture = pytest.CaptureFixture[str]


@pytest.fixture
def project(repo: Path) -> Path:
    write(repo, "cagr.toml", CODE_LAYOUT_GUARD)
    write(repo, "src/app.py", "print('old')\nprint('old')\n")
    write(repo, "src/OldName.py", "x = 1\n")
    write(repo, ".gitignore", "build/\n")
    commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "work")
    return repo


def run(root: Path, *args: str) -> int:
    return main(["--repo", str(root), *args])


def _json(capsys: Capture) -> dict:
    return json.loads(capsys.readouterr().out)


class TestRulesCheck:
    def test_only_what_the_branch_adds_is_a_finding(self, project: Path, capsys: Capture) -> None:
        write(project, "src/app.py", "print('old')\nprint('new')\nprint('old')\nprint('old')\n")
        assert run(project, "rules", "check", "--format", "json") == 1
        findings = _json(capsys)["findings"]
        assert [(f["rule"], f["kind"], f["paths"], f["line"], f["column"]) for f in findings] == [
            ("no-print", "code", ["src/app.py"], 2, 1),
            ("no-print", "code", ["src/app.py"], 4, 1),
        ]

    def test_moving_old_matches_is_no_finding(self, project: Path, capsys: Capture) -> None:
        write(project, "src/app.py", "import os\n\n\nprint('old')\nprint('old')\n")
        assert run(project, "rules", "check") == 0
        assert "0 finding(s)" in capsys.readouterr().out

    def test_a_committed_check_judges_the_commits_and_the_record_keeps_line_and_column(
        self, project: Path, capsys: Capture
    ) -> None:
        write(project, "src/NewThing.py", "print(1)\n")
        commit(project, "a module")
        assert run(project, "rules", "check", "--committed") == 1
        out = capsys.readouterr().out
        assert "Code rule no-print failed" in out
        assert "src/NewThing.py:1:1: `print(1)` is in a file this change adds." in out
        assert "Layout rule snake-modules failed" in out
        record = json.loads((project / ".git" / "cagr" / "gate.json").read_text())
        code = [f for f in record["report"]["findings"] if f["kind"] == "code"]
        assert code[0]["line"] == 1

    def test_a_file_that_does_not_parse_is_unchecked(self, project: Path, capsys: Capture) -> None:
        write(project, "src/app.py", "def f(:\n    print('old')\n")
        assert run(project, "rules", "check") == 3
        assert "does not parse as python" in capsys.readouterr().out

    def test_an_existing_bad_name_is_not_judged_by_a_change_check(self, project: Path) -> None:
        write(project, "src/OldName.py", "x = 2\n")
        assert run(project, "rules", "check") == 0


class TestSnapshot:
    def test_every_tracked_and_untracked_file_that_is_not_ignored(
        self, project: Path, capsys: Capture
    ) -> None:
        write(project, "src/Untracked.py", "print(2)\n")
        write(project, "build/Ignored.py", "print(3)\n")
        assert run(project, "check", "--format", "json") == 1
        data = _json(capsys)
        assert data["range"]["result"] == "snapshot"
        assert data["range"]["base"] is None
        found = sorted((f["rule"], f["paths"][0], f["line"]) for f in data["findings"])
        assert found == [
            ("no-print", "src/Untracked.py", 1),
            ("no-print", "src/app.py", 1),
            ("no-print", "src/app.py", 2),
            ("snake-modules", "src/OldName.py", None),
            ("snake-modules", "src/Untracked.py", None),
        ]
        assert data["changed_paths"] == 5  # cagr.toml, .gitignore and the three modules

    def test_paths_and_a_rule(self, project: Path, capsys: Capture) -> None:
        assert run(project, "check", str(project / "src" / "OldName.py")) == 1
        assert "is there; its name's stem `OldName` is not snake_case" in capsys.readouterr().out
        assert run(project, "check", "--rule", "no-print", str(project / "src")) == 1
        out = capsys.readouterr().out
        assert "snake-modules" not in out
        assert "no change was judged" in out

    def test_a_clean_tree_passes_and_usage_errors_exit_2(
        self, project: Path, capsys: Capture
    ) -> None:
        write(project, "src/app.py", "x = 1\n")
        git(project, "mv", "src/OldName.py", "src/old_name.py")
        assert run(project, "check") == 0
        assert run(project, "check", str(project / "nothing")) == 2
        assert run(project, "check", "--rule", "no-such") == 2
        assert run(project, "check", "--all", str(project / "src")) == 2
        assert run(project, "check", "/") == 2
        err = capsys.readouterr().err
        assert "no tracked file" in err
        assert "is not inside the repository" in err

    def test_no_code_or_layout_rule_says_so(self, repo: Path, capsys: Capture) -> None:
        """A repository whose rules are all change rules: `cagr check` has nothing to run, and
        "passed: 0 rule(s) checked" alone read as if the files had been judged."""
        write(
            repo,
            "cagr.toml",
            '[[changes.rules]]\nid = "r"\nkind = "requires"\npaths = ["a"]\nrequire = ["b"]\nreason = "x"\nexamples.invalid = [{ changes = [{ path = "a", status = "M" }] }]\nexamples.valid = [{ changes = [{ path = "a", status = "M" }, { path = "b", status = "M" }] }]\n',
        )
        write(repo, "a", "x\n")
        commit(repo, "base")
        assert run(repo, "check") == 0
        out = capsys.readouterr().out
        assert "0 rule(s) checked" in out
        assert "No code or layout rules are configured" in out
        assert "`cagr rules check` judges the change rules" in out


class TestRulesTestAndExplain:
    def test_rules_test_counts_every_kind(self, project: Path, capsys: Capture) -> None:
        assert run(project, "rules", "test") == 0
        out = capsys.readouterr().out
        assert "code: 1 rule(s), 2 example(s), all passed" in out
        assert "layout: 1 rule(s), 2 example(s), all passed" in out
        assert "guard: 1 rule(s), 3 example(s), all passed" in out
        assert run(project, "rules", "test", "--format", "json") == 0
        kinds = _json(capsys)["kinds"]
        assert {k: kinds[k]["rules"] for k in ("code", "layout", "guard", "requires")} == {
            "code": 1, "layout": 1, "guard": 1, "requires": 0,
        }  # fmt: skip

    def test_a_failing_example_of_each_kind_fails_the_run(
        self, repo: Path, capsys: Capture
    ) -> None:
        broken = (
            CODE_LAYOUT_GUARD.replace(
                'after = "print(1)\\nx = 2\\n"', 'after = "print(1)\\nprint(2)\\n"'
            )
            .replace('"src/good_name.py"', '"src/GoodName.py"')
            .replace('{ command = "terraform plan" }', '{ command = "terraform destroy" }')
        )
        write(repo, "cagr.toml", broken)
        assert run(repo, "rules", "test") == 1
        out = capsys.readouterr().out
        assert "FAIL no-print examples.valid[0]" in out
        assert "FAIL snake-modules examples.valid[0]" in out
        assert "FAIL no-destroy examples.valid[0]" in out

    def test_explain_shows_any_kind(self, project: Path, capsys: Capture) -> None:
        assert run(project, "explain") == 0
        listing = capsys.readouterr().out
        assert "no-print       code" in listing
        assert "guard.no-verify" in listing
        assert run(project, "explain", "no-print") == 0
        assert 'rule:     {"rule":{"pattern":"print($$$A)"}}' in capsys.readouterr().out
        assert run(project, "explain", "guard.force-push-target") == 0
        assert "(guard, built in: on)" in capsys.readouterr().out
        assert run(project, "explain", "no-destroy", "--format", "json") == 0
        assert _json(capsys)["rule"]["commands"] == [
            "terraform destroy",
            "terraform apply -destroy",
        ]
