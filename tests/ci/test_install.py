"""Installing cagr in CI: `cagr init --ci github`, the composite action and the pre-commit hook,
each validated by the real tools that read them (actionlint, check-jsonschema, pre-commit)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cagr_ci.workflow import WORKFLOW_PATH, install_workflow, is_unedited, workflow_text
from cagr_cli.main import main

from ..conftest import GIT_ENV
from ..repo.gitutil import commit, git, write

ROOT = Path(__file__).resolve().parents[2]
Capture = pytest.CaptureFixture[str]


def tool(name: str) -> str:
    """A command-line tool from this environment (the `test` extra installs them), or a skip."""
    found = shutil.which(
        name, path=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    )
    if found is None:
        pytest.skip(f"{name} is not installed here; `pip install -e '.[test]'` provides it")
    return found


def run_tool(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, check=False)


class TestInitCiGithub:
    def test_writes_the_workflow_then_leaves_it_unchanged(
        self, repo: Path, capsys: Capture
    ) -> None:
        assert main(["--repo", str(repo), "init", "--ci", "github"]) == 0
        assert "wrote .github/workflows/cagr.yml" in capsys.readouterr().out
        text = (repo / WORKFLOW_PATH).read_text()
        assert text == workflow_text()
        assert main(["--repo", str(repo / ".github"), "init", "--ci", "github"]) == 0
        assert "already up to date" in capsys.readouterr().out

    def test_the_workflow_says_what_the_issue_asks(self, repo: Path) -> None:
        yaml = pytest.importorskip("yaml", reason="PyYAML comes with pre-commit (`test` extra)")
        install_workflow(repo, force=False)
        data = yaml.safe_load((repo / WORKFLOW_PATH).read_text())
        triggers = data[True]  # YAML 1.1 reads the key `on` as true
        assert triggers["pull_request"]["types"] == [
            "opened",
            "synchronize",
            "reopened",
            "edited",
            "ready_for_review",
            "labeled",
            "unlabeled",
        ]
        assert "merge_group" in triggers
        steps = data["jobs"]["change-rules"]["steps"]
        checkout = steps[0]
        assert checkout["uses"].startswith("actions/checkout@")
        assert checkout["with"]["fetch-depth"] == 0
        assert checkout["with"]["ref"] == (
            "${{ github.event.pull_request.head.sha || github.event.merge_group.head_sha }}"
        )
        assert steps[1]["uses"].startswith("actions/setup-python@")
        assert "pip install" in steps[2]["run"]
        assert steps[3]["run"] == "cagr ci"

    def test_an_edited_workflow_is_never_overwritten_silently(
        self, repo: Path, capsys: Capture
    ) -> None:
        install_workflow(repo, force=False)
        path = repo / WORKFLOW_PATH
        edited = path.read_text().replace('python-version: "3.12"', 'python-version: "3.13"')
        path.write_text(edited)
        assert not is_unedited(edited)
        assert main(["--repo", str(repo), "init", "--ci", "github"]) == 2
        assert "has been edited" in capsys.readouterr().err
        assert path.read_text() == edited
        assert main(["--repo", str(repo), "init", "--ci", "github", "--force"]) == 0
        assert "--force overwrote its edits" in capsys.readouterr().out
        assert path.read_text() == workflow_text()

    def test_a_foreign_file_is_left_alone(self, repo: Path) -> None:
        path = repo / WORKFLOW_PATH
        path.parent.mkdir(parents=True)
        path.write_text("name: mine\n")
        result = install_workflow(repo, force=False)
        assert result.outcome == "refused"
        assert path.read_text() == "name: mine\n"

    def test_an_unedited_older_workflow_is_updated(self, repo: Path) -> None:
        path = repo / WORKFLOW_PATH
        path.parent.mkdir(parents=True)
        path.write_text(workflow_text(requirement="cagr==0.0.1"))
        result = install_workflow(repo, force=False)
        assert result.outcome == "updated"
        assert path.read_text() == workflow_text()

    def test_only_the_part_asked_for(self, repo: Path) -> None:
        assert main(["--repo", str(repo), "init", "--ci", "github"]) == 0
        assert not (repo / ".cagr" / "changes.toml").exists()  # no suggested rules unasked
        assert main(["--repo", str(repo), "init", "--ci", "gitlab"]) == 2

    def test_actionlint_accepts_the_workflow(self, repo: Path) -> None:
        actionlint = tool("actionlint")
        install_workflow(repo, force=False)
        result = run_tool(actionlint, "-no-color", WORKFLOW_PATH, cwd=repo)
        assert result.returncode == 0, result.stdout + result.stderr

    def test_actionlint_catches_a_broken_workflow(self, repo: Path) -> None:
        # The validation can fail: a step with an input actions/checkout does not have.
        actionlint = tool("actionlint")
        install_workflow(repo, force=False)
        path = repo / WORKFLOW_PATH
        path.write_text(path.read_text().replace("fetch-depth: 0", "fetch-dept: 0"))
        result = run_tool(actionlint, "-no-color", WORKFLOW_PATH, cwd=repo)
        assert result.returncode == 1
        assert 'input "fetch-dept" is not defined' in result.stdout

    def test_the_github_workflow_schema_accepts_the_workflow(self, repo: Path) -> None:
        check = tool("check-jsonschema")
        install_workflow(repo, force=False)
        result = run_tool(
            check, "--builtin-schema", "vendor.github-workflows", WORKFLOW_PATH, cwd=repo
        )
        assert result.returncode == 0, result.stdout + result.stderr


class TestCompositeAction:
    def test_the_github_action_schema_accepts_it(self) -> None:
        check = tool("check-jsonschema")
        result = run_tool(
            check, "--builtin-schema", "vendor.github-actions", "action.yml", cwd=ROOT
        )
        assert result.returncode == 0, result.stdout + result.stderr

    def test_actionlint_accepts_a_workflow_that_uses_it(self, tmp_path: Path) -> None:
        actionlint = tool("actionlint")
        subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
        shutil.copy(ROOT / "action.yml", tmp_path / "action.yml")
        write(
            tmp_path,
            ".github/workflows/use.yml",
            "on: pull_request\n"
            "jobs:\n"
            "  rules:\n"
            "    runs-on: ubuntu-latest\n"
            "    steps:\n"
            "      - uses: actions/checkout@v6\n"
            "        with:\n"
            "          ref: ${{ github.event.pull_request.head.sha }}\n"
            "          fetch-depth: 0\n"
            "      - uses: ./\n"
            "        with:\n"
            "          base: main\n"
            "          body-file: description.md\n"
            "          sarif: cagr.sarif\n"
            '          python-version: "3.12"\n',
        )
        # actionlint reads the local action's metadata: its inputs, steps and shells.
        result = run_tool(actionlint, "-no-color", cwd=tmp_path)
        assert result.returncode == 0, result.stdout + result.stderr
        (tmp_path / ".github/workflows/use.yml").write_text(
            (tmp_path / ".github/workflows/use.yml").read_text().replace("base: main", "bas: main")
        )
        result = run_tool(actionlint, "-no-color", cwd=tmp_path)
        assert 'input "bas" is not defined in action "cagr change rules"' in result.stdout


class TestPreCommitHook:
    def test_pre_commits_own_schema_accepts_the_manifest(self) -> None:
        pytest.importorskip("pre_commit", reason="pre-commit is in the `test` extra")
        result = run_tool(
            sys.executable,
            "-m",
            "pre_commit",
            "validate-manifest",
            ".pre-commit-hooks.yaml",
            cwd=ROOT,
        )
        assert result.returncode == 0, result.stdout + result.stderr

    def test_try_repo_runs_the_hook_before_a_push(self, repo: Path, tmp_path: Path) -> None:
        pytest.importorskip("pre_commit", reason="pre-commit is in the `test` extra")
        write(
            repo,
            "cagr.toml",
            '[[changes.rules]]\nid = "schema"\nkind = "requires"\npaths = ["src.py"]\n'
            'require = ["schema.json"]\nreason = "Regenerate schema.json."\n'
            'examples.invalid = [{ changes = [{ path = "src.py", status = "M" }] }]\n'
            'examples.valid = [{ changes = [{ path = "src.py", status = "M" },'
            ' { path = "schema.json", status = "M" }] }]\n',
        )
        write(repo, "src.py", "1")
        write(repo, "schema.json", "{}")
        commit(repo, "base")
        git(repo, "checkout", "-q", "-b", "work")
        write(repo, "src.py", "2")
        commit(repo, "edit the source only")
        env = {**os.environ, **GIT_ENV, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}
        command = [
            sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), "cagr-rules",
            "--hook-stage", "pre-push", "--all-files",
        ]  # fmt: skip
        failing = subprocess.run(
            command, cwd=repo, env=env, capture_output=True, text=True, check=False
        )
        assert failing.returncode == 1, failing.stdout + failing.stderr
        assert "Change rule schema failed" in failing.stdout
        assert "src.py changed; schema.json did not change." in failing.stdout
        write(repo, "schema.json", '{"v": 2}')
        commit(repo, "regenerate")
        passing = subprocess.run(
            command, cwd=repo, env=env, capture_output=True, text=True, check=False
        )
        assert passing.returncode == 0, passing.stdout + passing.stderr
        assert (repo / ".git" / "cagr" / "gate.json").exists()  # the gate record is prepared
