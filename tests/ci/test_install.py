"""Installing cagr in CI: `cagr init --ci github`, the composite action and the pre-commit hook,
each validated by the real tools that read them (actionlint, check-jsonschema, pre-commit)."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from cagr_ci.workflow import (
    CHECKOUT,
    PINNED,
    SETUP_PYTHON,
    WORKFLOW_PATH,
    WorkflowOptions,
    install_workflow,
    is_unedited,
    workflow_text,
)
from cagr_cli.main import main
from tests.support.configs import TWO_RULES
from tests.support.git import GIT_ENV, commit, git, write
from tests.support.tools import ROOT, branch_without_its_schema, run_tool, tool

Capture = pytest.CaptureFixture[str]


SPEC = "cagr @ git+https://github.com/octo-org/cagr@0123456789abcdef0123456789abcdef01234567"
GIVEN = WorkflowOptions(SPEC, given=True)
# Each way the workflow can be written, for the tools that validate it.
VARIANTS = {
    "plain": {},
    "sarif": {"sarif": True},
    "queue": {"pull_requests": True},
    "all": {"sarif": True, "comment": True, "pull_requests": True},
}


def init_ci(repo: Path, *args: str) -> int:
    return main(["--repo", str(repo), "init", "--ci", "github", *args])


class TestInitCiGithub:
    def test_writes_the_workflow_then_leaves_it_unchanged(
        self, repo: Path, capsys: Capture
    ) -> None:
        assert init_ci(repo, "--install", SPEC) == 0
        out = capsys.readouterr().out
        assert "wrote .github/workflows/cagr.yml" in out
        assert f"Install step: pip install {SPEC!r} (given with --install)" in out
        text = (repo / WORKFLOW_PATH).read_text()
        assert text == workflow_text(GIVEN)
        assert main(["--repo", str(repo / ".github"), "init", "--ci", "github"]) == 0
        assert "already up to date" in capsys.readouterr().out  # the given line is kept

    def test_the_workflow_says_what_the_issue_asks(self, repo: Path) -> None:
        yaml = pytest.importorskip("yaml", reason="PyYAML comes with pre-commit (`test` extra)")
        install_workflow(repo, force=False, install=SPEC)
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
        assert steps[2]["env"]["CAGR_REQUIREMENT"] == SPEC  # exactly what was given
        assert steps[2]["run"] == 'python -m pip install "$CAGR_REQUIREMENT"'
        assert steps[3]["run"] == "cagr ci"
        assert len(steps) == 4  # no upload unless asked

    def test_with_sarif_the_upload_runs_after_a_failing_check_with_its_permission(
        self, repo: Path
    ) -> None:
        yaml = pytest.importorskip("yaml", reason="PyYAML comes with pre-commit (`test` extra)")
        install_workflow(repo, force=False, install=SPEC, sarif=True)
        job = yaml.safe_load((repo / WORKFLOW_PATH).read_text())["jobs"]["change-rules"]
        assert job["permissions"] == {"contents": "read", "security-events": "write"}
        check, upload = job["steps"][3], job["steps"][4]
        assert check["id"] == "cagr"
        assert check["run"] == 'cagr ci --sarif "$RUNNER_TEMP/cagr.sarif"'
        assert upload["if"].startswith("always() && steps.cagr.outputs.sarif != ''")
        assert "!github.event.pull_request.head.repo.fork" in upload["if"]
        assert upload["uses"].startswith("github/codeql-action/upload-sarif@")
        assert upload["with"]["sarif_file"] == "${{ runner.temp }}/cagr.sarif"
        # A later run keeps both choices; --no-sarif takes the upload out again.
        assert install_workflow(repo, force=False).outcome == "unchanged"
        assert install_workflow(repo, force=False, sarif=False).outcome == "updated"
        assert "upload-sarif" not in (repo / WORKFLOW_PATH).read_text()
        assert SPEC in (repo / WORKFLOW_PATH).read_text()

    def test_the_token_gets_pull_requests_only_as_the_rules_need(
        self, repo: Path, capsys: Capture
    ) -> None:
        yaml = pytest.importorskip("yaml", reason="PyYAML comes with pre-commit (`test` extra)")
        path = repo / WORKFLOW_PATH
        assert init_ci(repo, "--install", SPEC) == 0
        job = yaml.safe_load(path.read_text())["jobs"]["change-rules"]
        assert "permissions" not in job  # the workflow's own: contents: read
        assert "env" not in job["steps"][3]
        write(repo, "cagr.toml", TWO_RULES)
        assert init_ci(repo) == 0
        assert "(the job's token gets `pull-requests: read`)" in capsys.readouterr().out
        job = yaml.safe_load(path.read_text())["jobs"]["change-rules"]
        assert job["permissions"] == {"contents": "read", "pull-requests": "read"}
        assert job["steps"][3]["env"] == {"GITHUB_TOKEN": "${{ github.token }}"}
        assert job["steps"][3]["run"] == "cagr ci"
        assert init_ci(repo, "--comment") == 0
        job = yaml.safe_load(path.read_text())["jobs"]["change-rules"]
        assert job["permissions"] == {"contents": "read", "pull-requests": "write"}
        assert job["steps"][3]["run"] == "cagr ci --comment"
        write(repo, "cagr.toml", "")  # no rule needs a pull request any more; --comment stays
        assert init_ci(repo) == 0
        text = path.read_text()
        assert "cagr ci --comment" in text
        assert "the queued pull request" not in text
        assert init_ci(repo, "--no-comment") == 0
        job = yaml.safe_load(path.read_text())["jobs"]["change-rules"]
        assert "permissions" not in job
        assert "env" not in job["steps"][3]

    def test_an_invalid_configuration_keeps_the_permission(
        self, repo: Path, capsys: Capture
    ) -> None:
        write(repo, "cagr.toml", TWO_RULES)
        assert init_ci(repo, "--install", SPEC) == 0
        write(repo, "cagr.toml", "[[changes.rules]]\nid = 1\n")
        assert init_ci(repo) == 0
        assert "the workflow keeps its permissions" in capsys.readouterr().err
        assert "pull-requests: read" in (repo / WORKFLOW_PATH).read_text()

    def test_an_editable_install_cannot_be_installed_in_ci_so_init_asks(
        self, repo: Path, capsys: Capture
    ) -> None:
        # This test environment is an editable install (the README's and .ci/run's way).
        records = [
            d.read_text("direct_url.json") or "" for d in metadata.distributions(name="cagr")
        ]
        if not any('"editable": true' in record for record in records):
            pytest.skip("cagr is not installed editable here")
        assert init_ci(repo) == 2
        err = capsys.readouterr().err
        assert "cagr is installed here from an editable install" in err
        assert "cagr init --ci github --install SPEC" in err
        assert not (repo / WORKFLOW_PATH).exists()  # nothing half-written

    @pytest.mark.parametrize(
        ("spec", "said"),
        [
            ("", "--install is empty"),
            ("cagr\nrun: evil", "line break"),
            ("--index-url=https://evil.invalid cagr", "is an option"),
            ("cagr==${{ github.token }}", "would evaluate as an expression"),
        ],
    )
    def test_an_install_line_that_would_break_the_workflow_is_refused(
        self, repo: Path, capsys: Capture, spec: str, said: str
    ) -> None:
        assert init_ci(repo, "--install", spec) == 2
        assert said in capsys.readouterr().err
        assert not (repo / WORKFLOW_PATH).exists()

    def test_a_spec_with_quotes_and_dollars_stays_one_argument(self, repo: Path) -> None:
        yaml = pytest.importorskip("yaml", reason="PyYAML comes with pre-commit (`test` extra)")
        odd = 'cagr @ https://example.invalid/cagr-0.1.0.tar.gz#sha256=ab"$HOME'
        install_workflow(repo, force=False, install=odd)
        steps = yaml.safe_load((repo / WORKFLOW_PATH).read_text())["jobs"]["change-rules"]["steps"]
        assert steps[2]["env"]["CAGR_REQUIREMENT"] == odd

    def test_install_and_sarif_need_ci(self, repo: Path, capsys: Capture) -> None:
        assert main(["--repo", str(repo), "init", "--install", SPEC]) == 2
        assert "--install, --sarif and --comment go with --ci github" in capsys.readouterr().err

    def test_an_edited_workflow_is_never_overwritten_silently(
        self, repo: Path, capsys: Capture
    ) -> None:
        install_workflow(repo, force=False, install=SPEC)
        path = repo / WORKFLOW_PATH
        edited = path.read_text().replace('python-version: "3.12"', 'python-version: "3.13"')
        path.write_text(edited)
        assert not is_unedited(edited)
        assert init_ci(repo) == 2
        assert "has been edited" in capsys.readouterr().err
        assert path.read_text() == edited
        assert init_ci(repo, "--force") == 0  # the given install line survives --force
        assert "--force overwrote its edits" in capsys.readouterr().out
        assert path.read_text() == workflow_text(GIVEN)

    def test_a_foreign_file_is_left_alone(self, repo: Path) -> None:
        path = repo / WORKFLOW_PATH
        path.parent.mkdir(parents=True)
        path.write_text("name: mine\n")
        result = install_workflow(repo, force=False)
        assert result.outcome == "refused"
        assert path.read_text() == "name: mine\n"

    def test_an_unedited_older_workflow_is_updated_keeping_its_install_line(
        self, repo: Path
    ) -> None:
        path = repo / WORKFLOW_PATH
        path.parent.mkdir(parents=True)
        older = workflow_text(WorkflowOptions("cagr==0.0.1")).replace("cagr 0.1.0", "cagr 0.0.1")
        older = (
            "# cagr-digest: sha256:"
            + hashlib.sha256(older.split("\n", 1)[1].encode()).hexdigest()
            + "\n"
            + older.split("\n", 1)[1]
        )
        path.write_text(older)
        assert is_unedited(older)
        result = install_workflow(repo, force=False, sarif=True)
        assert result.outcome == "updated"
        # This environment's own install cannot be derived (editable), so the file's is kept.
        assert result.options is not None
        assert result.options.requirement in ("cagr==0.0.1", "cagr==0.1.0")
        assert "upload-sarif" in path.read_text()

    def test_only_the_part_asked_for(self, repo: Path) -> None:
        assert init_ci(repo, "--install", SPEC) == 0
        assert not (repo / ".cagr" / "changes.toml").exists()  # no suggested rules unasked
        assert main(["--repo", str(repo), "init", "--ci", "gitlab"]) == 2

    @pytest.mark.parametrize("variant", VARIANTS)
    def test_actionlint_accepts_the_workflow(self, repo: Path, variant: str) -> None:
        actionlint = tool("actionlint")
        install_workflow(repo, force=False, install=SPEC, **VARIANTS[variant])
        result = run_tool(actionlint, "-no-color", WORKFLOW_PATH, cwd=repo)
        assert result.returncode == 0, result.stdout + result.stderr

    def test_actionlint_catches_a_broken_workflow(self, repo: Path) -> None:
        # The validation can fail: an expression that reads a step output that does not exist.
        actionlint = tool("actionlint")
        install_workflow(repo, force=False, install=SPEC, sarif=True)
        path = repo / WORKFLOW_PATH
        path.write_text(path.read_text().replace("steps.cagr.outputs", "steps.cagrr.outputs"))
        result = run_tool(actionlint, "-no-color", WORKFLOW_PATH, cwd=repo)
        assert result.returncode == 1
        assert 'property "cagrr" is not defined' in result.stdout

    @pytest.mark.parametrize("variant", VARIANTS)
    def test_the_github_workflow_schema_accepts_the_workflow(
        self, repo: Path, variant: str
    ) -> None:
        check = tool("check-jsonschema")
        install_workflow(repo, force=False, install=SPEC, **VARIANTS[variant])
        result = run_tool(
            check, "--builtin-schema", "vendor.github-workflows", WORKFLOW_PATH, cwd=repo
        )
        assert result.returncode == 0, result.stdout + result.stderr


class TestPinnedActions:
    """Every action cagr writes or ships is pinned by commit id, its version in a comment
    (zizmor's `unpinned-uses`), and the shipped action uses the same pins."""

    @pytest.mark.parametrize("variant", VARIANTS)
    def test_zizmor_finds_nothing_in_the_workflow(self, repo: Path, variant: str) -> None:
        zizmor = tool("zizmor")
        install_workflow(repo, force=False, install=SPEC, **VARIANTS[variant])
        result = run_tool(zizmor, "--offline", "--no-progress", WORKFLOW_PATH, cwd=repo)
        assert result.returncode == 0, result.stdout + result.stderr

    def test_zizmor_finds_nothing_in_the_composite_action(self) -> None:
        zizmor = tool("zizmor")
        result = run_tool(zizmor, "--offline", "--no-progress", "action.yml", cwd=ROOT)
        assert result.returncode == 0, result.stdout + result.stderr

    def test_zizmor_would_flag_a_tag(self, repo: Path) -> None:
        zizmor = tool("zizmor")
        install_workflow(repo, force=False, install=SPEC)
        path = repo / WORKFLOW_PATH
        path.write_text(path.read_text().replace(CHECKOUT, "actions/checkout@v7"))
        result = run_tool(zizmor, "--offline", "--no-progress", WORKFLOW_PATH, cwd=repo)
        assert result.returncode != 0
        assert "unpinned-uses" in result.stdout + result.stderr

    def test_every_uses_is_a_commit_id_with_its_version(self, repo: Path) -> None:
        install_workflow(repo, force=False, install=SPEC, sarif=True)
        written = (repo / WORKFLOW_PATH).read_text()
        shipped = (ROOT / "action.yml").read_text()
        for text in (written, shipped):
            uses = re.findall(r"^\s*(?:-\s+)?uses: (\S+@\S+)(.*)", text, re.MULTILINE)
            assert uses
            for ref, comment in uses:
                assert re.fullmatch(r"[\w./-]+@[0-9a-f]{40}", ref), ref
                assert re.fullmatch(r" # v\d+\.\d+\.\d+", comment), comment
                assert f"{ref}{comment}" in PINNED
        assert SETUP_PYTHON in shipped


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
            "        id: rules\n"
            "        with:\n"
            "          base: main\n"
            "          body-file: description.md\n"
            "          sarif: cagr.sarif\n"
            '          python-version: "3.12"\n'
            "          working-directory: app\n"
            "      - if: always() && steps.rules.outputs.sarif != ''\n"
            "        env:\n"
            "          STATUS: ${{ steps.rules.outputs.status }}\n"
            "          COUNTS: ${{ steps.rules.outputs.findings }} ${{ steps.rules.outputs.unchecked }}\n"
            '        run: echo "$STATUS $COUNTS"\n',
        )
        # actionlint reads the local action's metadata: its inputs, steps and shells.
        result = run_tool(actionlint, "-no-color", cwd=tmp_path)
        assert result.returncode == 0, result.stdout + result.stderr
        (tmp_path / ".github/workflows/use.yml").write_text(
            (tmp_path / ".github/workflows/use.yml").read_text().replace("base: main", "bas: main")
        )
        result = run_tool(actionlint, "-no-color", cwd=tmp_path)
        assert 'input "bas" is not defined in action "cagr change rules"' in result.stdout
        (tmp_path / ".github/workflows/use.yml").write_text(
            (tmp_path / ".github/workflows/use.yml")
            .read_text()
            .replace("bas: main", "base: main")
            .replace("outputs.status", "outputs.verdict")
        )
        result = run_tool(actionlint, "-no-color", cwd=tmp_path)
        assert 'property "verdict" is not defined' in result.stdout  # the outputs are declared


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
        branch_without_its_schema(repo)
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


class TestTryRepoTakesTheRefs:
    def test_the_to_ref_is_judged_not_head(self, repo: Path, tmp_path: Path) -> None:
        pytest.importorskip("pre_commit", reason="pre-commit is in the `test` extra")
        branch_without_its_schema(repo)
        git(repo, "checkout", "-q", "-b", "ok", "main")
        env = {**os.environ, **GIT_ENV, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}
        command = [
            sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), "cagr-rules",
            "--hook-stage", "pre-push", "--from-ref", "main", "--to-ref", "work",
        ]  # fmt: skip
        judged = subprocess.run(
            command, cwd=repo, env=env, capture_output=True, text=True, check=False
        )
        assert judged.returncode == 1, judged.stdout + judged.stderr  # before: HEAD (ok) passed
        assert "src.py changed; schema.json did not change." in judged.stdout


class TestPrePushJudgesThePushedRef:
    """`git push origin work` from a passing branch sends work's commits: those are judged, not
    the checked-out HEAD (git and pre-commit are the oracles: the push is refused)."""

    @pytest.fixture
    def pushing(self, repo: Path, tmp_path: Path) -> Path:
        branch_without_its_schema(repo)  # `work` fails
        git(repo, "checkout", "-q", "-b", "ok", "main")
        write(repo, "notes.txt", "passes")
        commit(repo, "ok")
        git(tmp_path, "init", "-q", "--bare", "remote.git")
        git(repo, "remote", "add", "origin", str(tmp_path / "remote.git"))
        git(repo, "push", "-q", "origin", "main")
        return repo

    def push(self, repo: Path, *refs: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["git", "push", "origin", *refs],
            cwd=repo,
            env={**os.environ, **GIT_ENV},
            capture_output=True,
            text=True,
            check=False,
        )

    def remote_has(self, repo: Path, branch: str) -> bool:
        listed = subprocess.run(
            ["git", "ls-remote", "--heads", "origin", branch],
            cwd=repo,
            capture_output=True,
            check=False,
        )
        return bool(listed.stdout.strip())

    def test_gits_own_pre_push_hook(self, pushing: Path) -> None:
        hook = pushing / ".git" / "hooks" / "pre-push"
        hook.write_text(f"#!/bin/sh\nexec {sys.executable} -m cagr_cli rules check --pushed\n")
        hook.chmod(0o755)
        refused = self.push(pushing, "work")  # HEAD is `ok`, which passes
        assert refused.returncode != 0, refused.stdout + refused.stderr  # before: pushed
        assert "Pushed refs/heads/work at" in refused.stdout + refused.stderr
        assert "src.py changed; schema.json did not change." in refused.stdout + refused.stderr
        assert not self.remote_has(pushing, "work")
        assert self.push(pushing, "ok").returncode == 0
        assert self.remote_has(pushing, "ok")
        git(pushing, "tag", "-a", "v1", "-m", "a release", "work")
        assert self.push(pushing, "v1").returncode == 0  # a tag changes no branch

    def test_pre_commits_pre_push_hook(self, pushing: Path, tmp_path: Path) -> None:
        pytest.importorskip("pre_commit", reason="pre-commit is in the `test` extra")
        hooks = (ROOT / ".pre-commit-hooks.yaml").read_text()
        entry = re.search(r"^  entry: cagr (.*)$", hooks, re.MULTILINE)
        assert entry is not None
        # The published hook's own command, run from this checkout as a local hook.
        write(
            pushing,
            ".pre-commit-config.yaml",
            "repos:\n- repo: local\n  hooks:\n  - id: cagr-rules\n    name: cagr\n"
            f"    entry: {sys.executable} -m cagr_cli {entry.group(1)}\n    language: system\n"
            "    pass_filenames: false\n    always_run: true\n    stages: [pre-push]\n",
        )
        env = {**os.environ, **GIT_ENV, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}
        installed = subprocess.run(
            [sys.executable, "-m", "pre_commit", "install", "--hook-type", "pre-push"],
            cwd=pushing,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert installed.returncode == 0, installed.stdout + installed.stderr
        commit(pushing, "pre-commit")  # pre-commit reads a committed configuration
        refused = self.push(pushing, "work")
        assert refused.returncode != 0, refused.stdout + refused.stderr  # before: pushed
        assert "Pushed refs/heads/work at" in refused.stdout + refused.stderr
        assert not self.remote_has(pushing, "work")
