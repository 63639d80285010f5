"""`cagr rules check` and `cagr changes` as a user runs them: output, exit codes, gate record."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import cagr
from cagr_cli.main import main
from tests.support.configs import TWO_RULES as RULES
from tests.support.git import commit, git, write

Capture = pytest.CaptureFixture[str]


@pytest.fixture
def project(repo: Path) -> Path:
    write(repo, "cagr.toml", RULES)
    write(repo, "src/schema.py", "v1")
    write(repo, "schema.json", "{}")
    write(repo, "package.json", "{}")
    commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "work")
    return repo


def run(root: Path, *args: str) -> int:
    return main(["--repo", str(root), *args])


def record(root: Path) -> dict:
    return json.loads((root / ".git" / "cagr" / "gate.json").read_text())


class TestRulesCheck:
    def test_pass(self, project: Path, capsys: Capture) -> None:
        assert run(project, "rules", "check") == 0
        base = git(project, "rev-parse", "--short=7", "main").decode().strip()
        assert capsys.readouterr().out == (
            "Change rules passed: 2 rule(s) checked, 0 changed path(s); 0 finding(s), 0"
            f" unchecked, 0 deferred. Range: merge base {base} to working tree; target"
            f" refs/heads/main at {base}, chosen by default main.\n"
        )

    def test_finding_prints_the_rule_message_and_exits_1(
        self, project: Path, capsys: Capture
    ) -> None:
        write(project, "src/schema.py", "v2")
        base = git(project, "rev-parse", "--short=7", "main").decode().strip()
        assert run(project, "rules", "check") == 1
        assert capsys.readouterr().out == (
            f"Change rule schema-companion failed (merge base {base} to working tree).\n"
            "src/schema.py changed; schema.json did not change.\n"
            "Instead: Run `make schema` and include schema.json in this change.\n"
            "\n"
            "Change rules failed: 2 rule(s) checked, 1 changed path(s); 1 finding(s), 0"
            f" unchecked, 0 deferred. Range: merge base {base} to working tree; target"
            f" refs/heads/main at {base}, chosen by default main.\n"
        )

    def test_pr_body_rules_are_deferred_locally(self, project: Path, capsys: Capture) -> None:
        write(project, "package.json", '{"devDependencies": {"left-pad": "1"}}')
        assert run(project, "rules", "check") == 0
        out = capsys.readouterr().out
        assert (
            "Deferred to the pull request: change rule dependency-reason: Added devDependencies.left-pad in package.json"
            in out
        )

    def test_symlinked_manifest_is_unchecked_exit_3(self, project: Path, capsys: Capture) -> None:
        write(project, "real.json", '{"dependencies": {"x": "1"}}')
        os.unlink(project / "package.json")
        os.symlink("real.json", project / "package.json")
        assert run(project, "rules", "check") == 3
        out = capsys.readouterr().out
        assert (
            "Unchecked (selector): change rule dependency-reason: cannot read dependencies from package.json"
            in out
        )
        assert out.splitlines()[-1].startswith(
            "Change rules left something unchecked (not a pass): 2 rule(s) checked, 2 changed"
            " path(s); 0 finding(s), 1 unchecked, 0 deferred."
        )

    def test_json_report(self, project: Path, capsys: Capture) -> None:
        write(project, "src/schema.py", "v2")
        assert run(project, "rules", "check", "--format", "json") == 1
        data = json.loads(capsys.readouterr().out)
        assert data["status"] == "fail"
        assert data["range"]["result"] == "working-tree"
        assert data["range"]["head"] is None
        assert data["findings"][0]["paths"] == ["src/schema.py"]
        assert data["findings"][0]["requires"] == ["schema.json"]
        assert (data["rules_checked"], data["changed_paths"]) == (2, 1)
        assert data["uncommitted"] is None  # a working-tree check leaves nothing out
        assert set(data["timings_ms"]) == {"collect", "evaluate"}
        assert all(isinstance(v, float) for v in data["timings_ms"].values())

    def test_working_tree_check_writes_no_gate_record(self, project: Path) -> None:
        assert run(project, "rules", "check") == 0
        assert not (project / ".git" / "cagr" / "gate.json").exists()

    def test_committed_check_ignores_dirt_and_records_its_result(
        self, project: Path, capsys: Capture
    ) -> None:
        write(project, "src/schema.py", "v2")
        commit(project, "edit source")
        write(project, "schema.json", '{"v": 2}')  # dirty companion: not in the committed diff
        assert run(project, "rules", "check") == 0
        assert run(project, "rules", "check", "--committed") == 1
        capsys.readouterr()
        saved = record(project)
        head = git(project, "rev-parse", "HEAD").decode().strip()
        assert saved["report"]["range"]["head"] == head
        assert (
            saved["report"]["range"]["base"] == git(project, "rev-parse", "main").decode().strip()
        )
        assert saved["report"]["range"]["target_ref"] == "refs/heads/main"
        assert saved["target_name"] == "main"
        assert saved["report"]["status"] == "fail"
        assert saved["report"]["findings"][0]["rule"] == "schema-companion"
        assert saved["worktree"] == os.path.realpath(project)
        assert len(saved["rules_digest"]) == 64
        assert len(saved["config_digest"]) == 64
        assert saved["cagr_version"]

    def test_committed_check_counts_what_it_left_out(self, project: Path, capsys: Capture) -> None:
        write(project, "schema.json", '{"v": 2}')
        commit(project, "schema")
        assert run(project, "rules", "check", "--committed") == 0
        assert "Not part of this committed check" not in capsys.readouterr().out
        write(project, "src/schema.py", "v2")  # dirty: would fail a working-tree check
        write(project, "notes.txt", "untracked")
        (project / "package.json").unlink()
        git(project, "add", "package.json")
        assert run(project, "rules", "check", "--committed") == 0  # the verdict is HEAD's
        out = capsys.readouterr().out
        assert out.startswith(
            "Not part of this committed check: 3 path(s) where the working tree differs from HEAD"
        )
        assert out.splitlines()[-1].startswith("Change rules passed: 2 rule(s) checked, 1 changed")
        assert run(project, "rules", "check", "--committed", "--format", "json") == 0
        assert json.loads(capsys.readouterr().out)["uncommitted"] == 3
        assert record(project)["report"]["uncommitted"] == 3

    def test_committed_record_keeps_deferred_obligations(self, project: Path) -> None:
        write(project, "package.json", '{"dependencies": {"x": "1"}}')
        commit(project, "add dependency")
        assert run(project, "rules", "check", "--committed") == 0
        (deferred,) = record(project)["report"]["deferred"]
        assert deferred["rule"] == "dependency-reason"
        assert deferred["contains"] == "Dependency reason:"

    def test_base_option_and_protected_branch(self, project: Path, capsys: Capture) -> None:
        assert run(project, "rules", "check", "--base", "trunk") == 3
        assert "cannot find the target branch trunk" in capsys.readouterr().out
        git(project, "branch", "trunk", "main")
        write(project, "cagr.toml", RULES + '\n[git]\nprotected_branch = "trunk"\n')
        assert run(project, "rules", "check", "--format", "json") == 0
        assert json.loads(capsys.readouterr().out)["range"]["target_ref"] == "refs/heads/trunk"

    @pytest.mark.parametrize("base", ["HEAD~1", "@^", "SHORT", "v1.0", "v1.0^{}", "work^", "main"])
    def test_any_revision_of_a_commit_is_a_base(
        self, project: Path, capsys: Capture, base: str
    ) -> None:
        write(project, "schema.json", '{"v": 2}')
        commit(project, "schema")
        git(project, "tag", "-a", "-m", "release", "v1.0", "main")
        if base == "SHORT":
            base = git(project, "rev-parse", "--short=7", "main").decode().strip()
        assert run(project, "rules", "check", "--format", "json", "--base", base) == 0
        data = json.loads(capsys.readouterr().out)
        expected = git(project, "rev-parse", "--verify", f"{base}^{{commit}}").decode().strip()
        assert data["range"]["target"] == expected
        assert data["range"]["chosen_by"] == "--base"

    def test_a_missing_commit_id_gets_no_branch_fetch_advice(
        self, project: Path, capsys: Capture
    ) -> None:
        assert run(project, "rules", "check", "--base", "534af9880^") == 3
        out = capsys.readouterr().out
        assert "cannot find 534af9880 (in 534af9880^): no commit in this clone" in out
        assert "git fetch origin 534af9880" not in out

    def test_the_default_branch_comes_from_origin_head(
        self, project: Path, capsys: Capture
    ) -> None:
        git(project, "branch", "-m", "main", "master")
        assert run(project, "rules", "check") == 3
        out = capsys.readouterr().out
        assert "cannot find the target branch main (tried refs/remotes/origin/main," in out
        assert "No --base, no [git] protected_branch and no origin/HEAD named a target" in out
        git(project, "update-ref", "refs/remotes/origin/master", "master")
        git(project, "remote", "add", "origin", "https://example.invalid/repo.git")
        git(project, "remote", "set-head", "origin", "master")
        assert run(project, "rules", "check", "--format", "json") == 0
        data = json.loads(capsys.readouterr().out)
        assert data["range"]["target_ref"] == "refs/remotes/origin/master"
        assert data["range"]["chosen_by"] == "origin/HEAD"
        write(project, "cagr.toml", RULES + '\n[git]\nprotected_branch = "work"\n')
        assert run(project, "rules", "check", "--format", "json") == 0
        assert json.loads(capsys.readouterr().out)["range"]["chosen_by"] == "[git] protected_branch"

    def test_invalid_config_exits_2(self, project: Path, capsys: Capture) -> None:
        write(project, "cagr.toml", "[[changes.rules]]\n")
        assert run(project, "rules", "check") == 2
        assert "the configuration is invalid" in capsys.readouterr().err

    def test_not_a_repository_exits_2(self, tmp_path: Path, capsys: Capture) -> None:
        assert run(tmp_path, "rules", "check") == 2
        assert "is not inside a git repository" in capsys.readouterr().err

    def test_bare_repository(self, project: Path, tmp_path: Path, capsys: Capture) -> None:
        bare = tmp_path / "bare.git"
        git(tmp_path, "clone", "-q", "--bare", str(project), str(bare))
        # A bare repository has no checkout to read rules from: reading none would be a false pass.
        for args in (("rules", "check"), ("rules", "check", "--committed", "--base", "main")):
            assert run(bare, *args) == 2
            assert "is a bare repository: it has no checkout" in capsys.readouterr().err


class TestChanges:
    def test_text(self, project: Path, capsys: Capture) -> None:
        write(project, "src/schema.py", "v2")
        write(project, "new\tname.py", "x")
        assert run(project, "changes") == 0
        lines = capsys.readouterr().out.splitlines()
        assert lines[0].startswith("merge base ")
        assert "to working tree (target refs/heads/main at" in lines[0]
        assert lines[0].endswith(", chosen by default main)")
        assert lines[1].startswith("A - -> 100644 regular ")
        assert lines[1].endswith('  "new\\tname.py"')
        assert lines[2].startswith("M 100644 regular ")
        assert lines[2].endswith("  src/schema.py")

    def test_json(self, project: Path, capsys: Capture) -> None:
        os.chmod(project / "schema.json", 0o755)
        assert run(project, "changes", "--format", "json") == 0
        data = json.loads(capsys.readouterr().out)
        (change,) = data["changes"]
        assert change["path"] == "schema.json"
        assert change["status"] == "M"
        assert change["old"]["mode"] == "100644"
        assert change["new"] == {"mode": "100755", "kind": "executable", "id": change["old"]["id"]}
        assert data["pending_staged"] == []
        assert data["unchecked"] == []
        assert data["range"]["chosen_by"] == "default main"

    def test_unchecked_exits_3(self, project: Path, capsys: Capture) -> None:
        assert run(project, "changes", "--base", "nope") == 3
        assert "unchecked (range): cannot find the target branch nope" in capsys.readouterr().out


class TestBodyFile:
    """`--body-file`: test PR-body rules on a real change before the PR exists."""

    @pytest.fixture
    def dependency(self, project: Path) -> Path:
        write(project, "package.json", '{"dependencies": {"x": "1"}}')
        return project

    def test_working_tree_form_checks_the_drafted_body(
        self, dependency: Path, tmp_path: Path, capsys: Capture
    ) -> None:
        draft = tmp_path / "draft.md"
        draft.write_text("## Risk\nNone.\n")
        assert run(dependency, "rules", "check", "--body-file", str(draft)) == 1
        assert (
            "Added dependencies.x in package.json; Risk lacks `Dependency reason:`."
            in capsys.readouterr().out
        )
        draft.write_text("## Risk\nDependency reason: x parses the wire format.\n")
        assert run(dependency, "rules", "check", "--body-file", str(draft)) == 0
        assert "Deferred" not in capsys.readouterr().out

    def test_committed_form_checks_the_body_but_records_the_obligation_deferred(
        self, dependency: Path, tmp_path: Path, capsys: Capture
    ) -> None:
        commit(dependency, "add dependency")
        draft = tmp_path / "draft.md"
        draft.write_text("")
        assert run(dependency, "rules", "check", "--committed", "--body-file", str(draft)) == 1
        assert "the PR body is empty" in capsys.readouterr().out
        saved = record(dependency)["report"]
        assert saved["status"] == "pass"
        assert [d["rule"] for d in saved["deferred"]] == ["dependency-reason"]

    def test_pr_sections_are_checked_against_the_draft_too(
        self, project: Path, tmp_path: Path, capsys: Capture
    ) -> None:
        write(project, "cagr.toml", RULES + '\n[review]\npr_sections = ["Summary"]\n')
        draft = tmp_path / "draft.md"
        draft.write_text("## Risk\nlow\n")
        assert run(project, "rules", "check", "--body-file", str(draft), "--format", "json") == 1
        (finding,) = json.loads(capsys.readouterr().out)["findings"]
        assert finding["rule"] == "review.pr_sections"
        assert finding["message"] == "The PR description has no `## Summary` section."

    def test_without_a_body_file_pr_sections_are_not_judged(self, project: Path) -> None:
        write(project, "cagr.toml", RULES + '\n[review]\npr_sections = ["Summary"]\n')
        assert run(project, "rules", "check") == 0

    @pytest.mark.parametrize("kind", ["missing", "folder", "fifo", "too big"])
    def test_a_body_file_cagr_will_not_read_exits_2(
        self, dependency: Path, tmp_path: Path, capsys: Capture, kind: str
    ) -> None:
        path = tmp_path / "draft.md"
        if kind == "folder":
            path.mkdir()
        elif kind == "fifo":
            os.mkfifo(path)
        elif kind == "too big":
            path.write_text("x" * (256 * 1024 + 1))
        assert run(dependency, "rules", "check", "--body-file", str(path)) == 2
        assert capsys.readouterr().err.startswith("cagr rules check: ")


class TestLibraryText:
    """`cagr.render_text` is the text `cagr rules check` prints, summary line included."""

    def test_a_finding(self, project: Path, capsys: Capture) -> None:
        write(project, "src/schema.py", "v2")
        capsys.readouterr()
        assert run(project, "rules", "check") == 1
        printed = capsys.readouterr().out
        assert printed == cagr.render_text(cagr.check(project).report) + "\n"
        assert printed.splitlines()[-1].startswith("Change rules failed: 2 rule(s) checked")

    def test_a_clean_pass(self, project: Path, capsys: Capture) -> None:
        capsys.readouterr()
        assert run(project, "rules", "check") == 0
        text = cagr.render_text(cagr.check(project).report)
        assert capsys.readouterr().out == text + "\n"
        assert text.startswith("Change rules passed: 2 rule(s) checked, 0 changed path(s)")
