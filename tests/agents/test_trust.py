"""`cagr doctor` on whether each agent will run the hooks, against the trust files the real
agents write, and what the agents then do: run the hooks, or run the session without them.

Each case runs a short script (write src/schema.py, try to stop twice): with the hooks running
the first stop is blocked and the model sees why; without them the turn simply ends.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.support import agent_cli
from tests.support.agent_cli import Project, Run
from tests.support.model_server import ModelServer, say, write

SCRIPT = [write("src/schema.py", "FIELDS = ['a']\n"), say("Done."), say("Done again.")]


def _project(tmp_path: Path, agent: str) -> Project:
    agent_cli.program(agent)  # skips here when the agent is not installed
    return Project(tmp_path, agent)


def _session(project: Project, *args: str, env: dict[str, str] | None = None) -> tuple[Run, bool]:
    """Run SCRIPT; whether the hooks ran (cagr blocked the first stop)."""
    before = len(project.hook_calls())
    with ModelServer(SCRIPT, project.root, project.base / "model.jsonl") as model:
        if env:
            project.env |= env
        run = agent_cli.run_agent(project, model.url, *args)
    blocked = "stop 1 of 2 that cagr blocks" in model.after(1)
    assert blocked == (len(project.hook_calls()) > before), "the hooks ran, or not, as a whole"
    return run, blocked


def _events(project: Project) -> set[str]:
    """Run SCRIPT; the hook events the agent ran in it."""
    before = len(project.hook_calls())
    with ModelServer(SCRIPT, project.root, project.base / "model.jsonl") as model:
        run = agent_cli.run_agent(project, model.url)
    assert run.code == 0, run.stderr[-2000:]
    return {call.event for call in project.hook_calls()[before:]}


def _doctor(project: Project) -> dict[str, object]:
    status: dict[str, object] = project.doctor()["hooks"]["agents"][project.agent]
    return status


class TestCodex:
    """Codex reads project hooks only in a trusted project, and runs each only once reviewed."""

    def test_an_untrusted_project_runs_no_hooks(self, tmp_path: Path) -> None:
        project = _project(tmp_path, "codex")
        status = _doctor(project)
        assert status["will_run"] is False
        assert "has not trusted it" in str(status["why"])
        assert "codex exec --trust" in str(status["fix"])
        _, ran = _session(project)
        assert not ran

    def test_unreviewed_hooks_are_skipped_without_a_word(self, tmp_path: Path) -> None:
        project = _project(tmp_path, "codex")
        agent_cli.trust_codex_project(project)  # Codex writes the project's trust
        config = (project.home / ".codex" / "config.toml").read_text()
        assert f'[projects."{project.root}"]' in config
        status = _doctor(project)
        assert status["will_run"] is False
        assert "not reviewed: Stop, PreToolUse, PostToolUse, SessionStart" in str(status["why"])
        assert "accept its review of the hooks" in str(status["fix"])
        run, ran = _session(project)
        assert not ran
        said = run.stderr.replace(str(project.base), "").lower()
        assert "review" not in said  # Codex says nothing of the skipped hooks
        assert "hook:" not in said

    def test_reviewed_hooks_run_and_doctor_computes_codex_s_own_hashes(
        self, tmp_path: Path
    ) -> None:
        project = _project(tmp_path, "codex")
        agent_cli.trust_codex_project(project)
        agent_cli.review_codex_hooks(project)  # Codex writes each hook's trusted hash
        listed = agent_cli.codex_hooks(project)
        assert {hook["trustStatus"] for hook in listed} == {"trusted"}
        status = _doctor(project)
        assert status["will_run"] is True, status
        _, ran = _session(project)
        assert ran

    def test_a_changed_hook_command_needs_another_review(self, tmp_path: Path) -> None:
        project = _project(tmp_path, "codex")
        agent_cli.trust_codex_project(project)
        agent_cli.review_codex_hooks(project)
        project.cagr("init", "--hooks", "codex", "--hook-command", "cagr hook --deadline 50")
        assert {hook["trustStatus"] for hook in agent_cli.codex_hooks(project)} == {"modified"}
        status = _doctor(project)
        assert status["will_run"] is False
        assert "changed since they were reviewed" in str(status["why"])
        _, ran = _session(project)
        assert not ran

    def test_a_hook_turned_off_in_codex_does_not_run(self, tmp_path: Path) -> None:
        project = _project(tmp_path, "codex")
        agent_cli.trust_codex_project(project)
        agent_cli.review_codex_hooks(project)
        agent_cli.disable_codex_hook(project, "stop")  # Codex writes `enabled = false`
        assert [h["enabled"] for h in agent_cli.codex_hooks(project) if "stop" in h["key"]] == [
            False
        ]
        status = _doctor(project)
        assert status["will_run"] is False
        assert "disables cagr's Stop hook(s)" in str(status["why"])
        events = _events(project)
        assert "Stop" not in events
        assert "PreToolUse" in events  # the others still run

    def test_hooks_turned_off_in_codex_s_features_run_none(self, tmp_path: Path) -> None:
        """`[features] hooks = false`, which a person writes in config.toml."""
        project = _project(tmp_path, "codex")
        agent_cli.trust_codex_project(project)
        agent_cli.review_codex_hooks(project)
        config = project.home / ".codex" / "config.toml"
        config.write_text("[features]\nhooks = false\n\n" + config.read_text())
        status = _doctor(project)
        assert status["will_run"] is False
        assert "`[features] hooks = false`" in str(status["why"])
        assert _events(project) == set()

    def test_a_linked_worktree_runs_the_main_checkout_s_hooks(self, tmp_path: Path) -> None:
        """Codex in a linked worktree trusts, reviews and runs the main checkout's
        `.codex/hooks.json`: with that file gone, the worktree's own hooks do not run."""
        project = _project(tmp_path, "codex")
        main = project.root
        project.git("worktree", "add", "-q", "-b", "other", str(tmp_path / "linked"))
        project.root = tmp_path / "linked"  # Codex, doctor and the session run in the worktree
        agent_cli.trust_codex_project(project)
        config = (project.home / ".codex" / "config.toml").read_text()
        assert f'[projects."{main}"]' in config  # Codex wrote the main checkout's trust
        agent_cli.review_codex_hooks(project)
        keys = {hook["key"] for hook in agent_cli.codex_hooks(project)}
        assert f"{main}/.codex/hooks.json:stop:0:0" in keys
        assert all(key.startswith(f"{main}/.codex/hooks.json:") for key in keys), keys
        status = _doctor(project)
        assert status["will_run"] is True, status
        assert "not this worktree's" in str(status["why"])
        _, ran = _session(project)
        assert ran
        (main / ".codex" / "hooks.json").unlink()  # the worktree keeps its own copy
        status = _doctor(project)
        assert status["will_run"] is False
        assert "that file has no cagr hooks" in str(status["why"])
        _, ran = _session(project)
        assert not ran


class TestGemini:
    """Gemini CLI loads project settings, hooks included, only in a trusted folder."""

    def test_an_untrusted_folder_stops_a_headless_run(self, tmp_path: Path) -> None:
        project = _project(tmp_path, "gemini")
        status = _doctor(project)
        assert status["will_run"] is False
        assert "not trusted yet" in str(status["why"])
        run, ran = _session(project)
        assert (run.code, ran) == (55, False)

    def test_skip_trust_runs_the_session_with_project_hooks_off(self, tmp_path: Path) -> None:
        """The flag Gemini's own error message offers: the session runs, cagr's hooks do not."""
        project = _project(tmp_path, "gemini")
        assert "`--skip-trust` runs the session" in str(_doctor(project)["why"])
        run, ran = _session(project, "--skip-trust")
        assert (run.code, ran) == (0, False)

    def test_the_environment_variable_trusts_it_hooks_included(self, tmp_path: Path) -> None:
        """What doctor's fix says for headless runs, instead of `--skip-trust`."""
        project = _project(tmp_path, "gemini")
        assert "GEMINI_CLI_TRUST_WORKSPACE=true" in str(_doctor(project)["fix"])
        run, ran = _session(project, env={"GEMINI_CLI_TRUST_WORKSPACE": "true"})
        assert (run.code, ran) == (0, True)
        assert _doctor(project)["will_run"] is True  # doctor runs in that environment too
        run, ran = _session(project, "--skip-trust")  # the variable set before it: still trusted
        assert (run.code, ran) == (0, True)

    def test_a_folder_gemini_trusted_runs_the_hooks(self, tmp_path: Path) -> None:
        project = _project(tmp_path, "gemini")
        agent_cli.trust_gemini_folder(project, by_gemini=True)  # Gemini writes the file
        trusted = json.loads((project.home / ".gemini" / "trustedFolders.json").read_text())
        assert trusted == {str(project.root): "TRUST_FOLDER"}
        assert _doctor(project)["will_run"] is True
        _, ran = _session(project)
        assert ran

    def test_skip_trust_in_a_trusted_folder_runs_the_hooks(self, tmp_path: Path) -> None:
        """`--skip-trust` turns project hooks off only where the folder was not trusted."""
        project = _project(tmp_path, "gemini")
        agent_cli.trust_gemini_folder(project)
        status = _doctor(project)
        assert status["will_run"] is True
        assert "a run with `--skip-trust` loads them too" in str(status["why"])
        run, ran = _session(project, "--skip-trust")
        assert (run.code, ran) == (0, True)

    @pytest.mark.parametrize("setting", ["enabled", "disabled"])
    def test_hooks_turned_off_in_gemini_s_settings_do_not_run(
        self, tmp_path: Path, setting: str
    ) -> None:
        """`hooksConfig.enabled = false`, or cagr's command in `hooksConfig.disabled` (the list
        Gemini's `/hooks disable` writes: a hook's name, else its command), in user settings."""
        project = _project(tmp_path, "gemini")
        agent_cli.trust_gemini_folder(project)
        hooks = json.loads((project.root / ".gemini" / "settings.json").read_text())["hooks"]
        turn_end = hooks["AfterAgent"][0]["hooks"][0]["command"]
        off = {"enabled": False} if setting == "enabled" else {"disabled": [turn_end]}
        user = project.home / ".gemini" / "settings.json"
        user.write_text(json.dumps({"hooksConfig": off}))
        status = _doctor(project)
        assert status["will_run"] is False
        assert "hooksConfig" in str(status["why"])
        # Every cagr hook but the session start's has that command: they are all off.
        assert _events(project) == (set() if setting == "enabled" else {"SessionStart"})

    def test_a_distrusted_parent_folder_wins_over_nothing(self, tmp_path: Path) -> None:
        project = _project(tmp_path, "gemini")
        folders = project.home / ".gemini" / "trustedFolders.json"
        folders.parent.mkdir(exist_ok=True)
        folders.write_text(json.dumps({str(project.base): "DO_NOT_TRUST"}))
        status = _doctor(project)
        assert status["will_run"] is False
        assert "DO_NOT_TRUST" in str(status["why"])
        run, ran = _session(project)
        assert not ran
        assert run.code != 0


class TestClaude:
    """Claude Code runs project hooks unless a setting turns them off."""

    def test_hooks_run_by_default(self, tmp_path: Path) -> None:
        project = _project(tmp_path, "claude")
        assert _doctor(project)["will_run"] is True
        _, ran = _session(project)
        assert ran

    @pytest.mark.parametrize("where", ["user", "project", "local"])
    def test_disable_all_hooks_turns_them_off(self, tmp_path: Path, where: str) -> None:
        """In the user's settings, the project's own (the file cagr's hooks are in) or the
        local ones."""
        project = _project(tmp_path, "claude")
        path = {
            "user": project.home / ".claude" / "settings.json",
            "project": project.root / ".claude" / "settings.json",
            "local": project.root / ".claude" / "settings.local.json",
        }[where]
        path.parent.mkdir(exist_ok=True)
        settings = json.loads(path.read_text()) if path.exists() else {}
        path.write_text(json.dumps(settings | {"disableAllHooks": True}))
        status = _doctor(project)
        assert status["will_run"] is False
        assert "`disableAllHooks` is true" in str(status["why"])
        _, ran = _session(project)
        assert not ran

    def test_managed_settings_that_allow_only_managed_hooks_ignore_the_project(
        self, tmp_path: Path
    ) -> None:
        """Managed settings live in /etc/claude-code, which a test does not write: Claude Code's
        `--managed-settings` gives the same tier for one run, and doctor reads the file form
        (tests/hooks/test_agent_trust.py)."""
        project = _project(tmp_path, "claude")
        managed = json.dumps({"allowManagedHooksOnly": True})
        _, ran = _session(project, "--managed-settings", managed)
        assert not ran


def test_the_harness_checks_what_it_installed(tmp_path: Path) -> None:
    """The versions the suite ran are the pinned ones (tests/agents/pins.txt)."""
    for agent, (_, version) in agent_cli.pins().items():
        program = agent_cli.program(agent)
        if agent == "gemini":
            continue  # its --version takes seconds: the package's manifest was checked
        shown = subprocess.run(
            [str(program), "--version"], capture_output=True, text=True, check=False
        )
        assert version in shown.stdout, (agent, shown.stdout)
