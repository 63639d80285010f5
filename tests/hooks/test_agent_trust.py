"""Whether each agent will run the installed hooks, read from its trust and settings files.

The files here are written in the agents' own formats; tests/agents/test_trust.py has the real
agents write them and run (or not run) the hooks. The Codex hashes below are the ones Codex
0.171.0's `hooks/list` reported for the commands `cagr init --hooks codex` writes.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cagr_cli.main import main
from cagr_hooks.agent_trust import codex_hook_hash, will_run
from cagr_hooks.install import entries, hook_command, install
from tests.support.git import commit, git, write
from tests.support.hooks import hook as run_hook
from tests.support.hooks import payload, project

GEMINI_QUIET = hook_command("cagr hook", "gemini", note=False)
CODEX_0_171 = {  # event -> trusted hash of cagr's default entry, as Codex computed it
    "PreToolUse": "sha256:71f5e79ea3ccbdafd2209dc9c890831960c3ca2b0fc1ffa1e68ede5476aabc55",
    "PostToolUse": "sha256:8a480b42b97ac17288d8d76920f7fc95801f71f899ff16db1ef62886d61f5d5a",
    "SessionStart": "sha256:dad64876dd0b74822bfce70252422396e4c41bf37661fee4bda7332f4e3dda10",
    "UserPromptSubmit": "sha256:a0d23dca33486c4aab1ccf8ec11b8fe8088d5b825f06e0e3eeeb9c5726627a8d",
    "Stop": "sha256:764c3d5f53a3b44327aad4a8366134d6208ae58dcdc8ff97f1b4fdc27c4d8410",
}
EVENT_KEYS = {"PreToolUse": "pre_tool_use", "PostToolUse": "post_tool_use",
              "SessionStart": "session_start", "UserPromptSubmit": "user_prompt_submit",
              "Stop": "stop"}  # fmt: skip


def _hooks(agent: str) -> dict[str, list[dict[str, object]]]:
    return {event: [entry] for event, entry in entries(agent, "cagr hook").items()}


def test_codex_hashes_are_the_ones_codex_computes() -> None:
    for event, entry in entries("codex", "cagr hook").items():
        handler = entry["hooks"][0]
        assert codex_hook_hash(event, entry.get("matcher"), handler) == CODEX_0_171[event]


class TestCodex:
    @pytest.fixture
    def home(self, tmp_path: Path) -> Path:
        (tmp_path / "home" / ".codex").mkdir(parents=True)
        return tmp_path / "home"

    def _config(self, home: Path, root: Path, *, trusted: bool = True, hashes: bool = True) -> None:
        lines = [f'[projects."{root}"]', f'trust_level = "{"trusted" if trusted else "untrusted"}"']
        for event, value in CODEX_0_171.items() if hashes else ():
            key = f"{root}/.codex/hooks.json:{EVENT_KEYS[event]}:0:0"
            lines += [f'[hooks.state."{key}"]', f'trusted_hash = "{value}"']
        (home / ".codex" / "config.toml").write_text("\n".join(lines) + "\n")

    def test_reviewed_hooks_of_a_trusted_project_run(self, repo: Path, home: Path) -> None:
        self._config(home, repo)
        assert will_run(repo, "codex", _hooks("codex"), {"HOME": str(home)}).will_run is True

    def test_untrusted_or_unlisted_projects_run_none(self, repo: Path, home: Path) -> None:
        env = {"HOME": str(home)}
        unlisted = will_run(repo, "codex", _hooks("codex"), env)
        assert (unlisted.will_run, "has not trusted it" in unlisted.why) == (False, True)
        self._config(home, repo, trusted=False)
        untrusted = will_run(repo, "codex", _hooks("codex"), env)
        assert "marks this project untrusted" in untrusted.why
        assert "codex exec --trust" in str(untrusted.fix)

    def test_unreviewed_and_changed_hooks_are_named(self, repo: Path, home: Path) -> None:
        self._config(home, repo, hashes=False)
        found = will_run(repo, "codex", _hooks("codex"), {"HOME": str(home)})
        assert found.will_run is False
        assert "not reviewed: Stop, PreToolUse, PostToolUse, SessionStart, UserPromptSubmit" in (
            found.why
        )
        self._config(home, repo)
        changed = _hooks("codex")
        changed["Stop"][0]["hooks"][0]["timeout"] = 91  # type: ignore[index]
        found = will_run(repo, "codex", changed, {"HOME": str(home)})
        assert "changed since they were reviewed: Stop" in found.why

    def test_codex_home_features_and_disabled_hooks(self, repo: Path, tmp_path: Path) -> None:
        elsewhere = tmp_path / "codex-home"
        elsewhere.mkdir()
        (tmp_path / ".codex").mkdir()
        self._config(tmp_path, repo)  # written to tmp_path/.codex: not CODEX_HOME
        env = {"HOME": str(tmp_path), "CODEX_HOME": str(elsewhere)}
        assert will_run(repo, "codex", _hooks("codex"), env).will_run is False
        (elsewhere / "config.toml").write_text((tmp_path / ".codex" / "config.toml").read_text())
        assert will_run(repo, "codex", _hooks("codex"), env).will_run is True
        text = (elsewhere / "config.toml").read_text()
        (elsewhere / "config.toml").write_text("[features]\nhooks = false\n" + text)
        assert "`[features] hooks = false`" in will_run(repo, "codex", _hooks("codex"), env).why
        key = f"{repo}/.codex/hooks.json:stop:0:0"
        (elsewhere / "config.toml").write_text(
            text.replace(f'[hooks.state."{key}"]\n', f'[hooks.state."{key}"]\nenabled = false\n')
        )
        assert "disables cagr's Stop hook" in will_run(repo, "codex", _hooks("codex"), env).why

    def test_managed_requirements_that_allow_only_managed_hooks(
        self, repo: Path, home: Path, tmp_path: Path
    ) -> None:
        self._config(home, repo)
        system = tmp_path / "system"
        (system / "etc" / "codex").mkdir(parents=True)
        (system / "etc" / "codex" / "requirements.toml").write_text(
            "allow_managed_hooks_only = true\n"
        )
        found = will_run(repo, "codex", _hooks("codex"), {"HOME": str(home)}, system)
        assert (found.will_run, "allow only managed hooks" in found.why) == (False, True)

    def test_a_linked_worktree_runs_the_main_checkout_s_hooks(
        self, repo: Path, home: Path, tmp_path: Path
    ) -> None:
        """Codex keys a linked worktree's trust and hook review by the main checkout, and runs
        the main checkout's hooks file (tests/agents/test_trust.py watches Codex do it)."""
        commit(repo, "base")
        linked = tmp_path / "linked"
        git(repo, "worktree", "add", "-q", str(linked), "-b", "side")
        env = {"HOME": str(home)}
        self._config(home, repo)  # reviewed under the main checkout's hooks file, as Codex keys it
        missing = will_run(linked, "codex", _hooks("codex"), env)
        assert missing.will_run is False
        assert f"the main checkout's {repo}/.codex/hooks.json" in missing.why
        assert "that file has no cagr hooks" in missing.why
        assert f"`cagr init --hooks codex` in {repo}" in str(missing.fix)
        install(repo, "codex", "cagr hook")
        found = will_run(linked, "codex", _hooks("codex"), env)
        assert found.will_run is True, found
        assert "not this worktree's" in found.why
        other = _hooks("codex")
        other["Stop"][0]["hooks"][0]["command"] = "cagr hook --deadline 50"  # type: ignore[index]
        differ = will_run(linked, "codex", other, env)
        assert (differ.will_run, "differ from this worktree's" in differ.why) == (True, True)
        lines = [f'[projects."{repo}"]', 'trust_level = "trusted"']
        for event, value in CODEX_0_171.items():  # keyed by the worktree: not what Codex reads
            key = f"{linked}/.codex/hooks.json:{EVENT_KEYS[event]}:0:0"
            lines.append(f'[hooks.state."{key}"]\ntrusted_hash = "{value}"')
        (home / ".codex" / "config.toml").write_text("\n".join(lines) + "\n")
        unreviewed = will_run(linked, "codex", _hooks("codex"), env)
        assert unreviewed.will_run is False
        assert "not reviewed: Stop" in unreviewed.why

    def test_an_unreadable_config_cannot_tell(self, repo: Path, home: Path) -> None:
        (home / ".codex" / "config.toml").write_text("[projects\n")
        found = will_run(repo, "codex", _hooks("codex"), {"HOME": str(home)})
        assert (found.will_run, "is not TOML" in found.why) == (None, True)


class TestGemini:
    def _trust(self, home: Path, rules: dict[str, str]) -> None:
        (home / ".gemini").mkdir(parents=True, exist_ok=True)
        (home / ".gemini" / "trustedFolders.json").write_text(json.dumps(rules))

    def test_the_longest_matching_rule_decides(self, repo: Path, tmp_path: Path) -> None:
        home = tmp_path / "home"
        env = {"HOME": str(home)}
        assert "not trusted yet" in will_run(repo, "gemini", _hooks("gemini"), env).why
        self._trust(home, {str(tmp_path): "TRUST_FOLDER"})
        assert will_run(repo, "gemini", _hooks("gemini"), env).will_run is True
        self._trust(home, {str(tmp_path): "TRUST_FOLDER", str(repo): "DO_NOT_TRUST"})
        assert will_run(repo, "gemini", _hooks("gemini"), env).will_run is False
        self._trust(home, {str(repo / "x"): "TRUST_PARENT"})  # trusts the parent: repo
        assert will_run(repo, "gemini", _hooks("gemini"), env).will_run is True
        self._trust(home, {f"{repo}-other": "TRUST_FOLDER"})  # a name that only starts the same
        assert will_run(repo, "gemini", _hooks("gemini"), env).will_run is False

    def test_environment_and_settings(self, repo: Path, tmp_path: Path) -> None:
        home = tmp_path / "home"
        (home / ".gemini").mkdir(parents=True)
        env = {"HOME": str(home), "GEMINI_CLI_TRUST_WORKSPACE": "true"}
        assert will_run(repo, "gemini", _hooks("gemini"), env).will_run is True
        env["GEMINI_CLI_TRUST_WORKSPACE"] = "false"
        assert will_run(repo, "gemini", _hooks("gemini"), env).will_run is False
        settings = home / ".gemini" / "settings.json"
        settings.write_text(
            '// comments are allowed\n{"security": {"folderTrust": {"enabled": false}}}'
        )
        assert will_run(repo, "gemini", _hooks("gemini"), {"HOME": str(home)}).will_run is True
        settings.write_text('{"hooksConfig": {"enabled": false}}')
        found = will_run(repo, "gemini", _hooks("gemini"), {"HOME": str(home)})
        assert (found.will_run, "`hooksConfig.enabled` is false" in found.why) == (False, True)
        settings.write_text(json.dumps({"hooksConfig": {"disabled": [GEMINI_QUIET]}}))
        found = will_run(repo, "gemini", _hooks("gemini"), {"HOME": str(home)})
        assert "`hooksConfig.disabled`" in found.why
        named = _hooks("gemini")  # a hook with a name is listed by it, not by its command
        named["AfterAgent"][0]["hooks"][0]["name"] = "cagr-turn-end"  # type: ignore[index]
        settings.write_text(json.dumps({"hooksConfig": {"disabled": ["cagr-turn-end"]}}))
        found = will_run(repo, "gemini", named, {"HOME": str(home)})
        assert (found.will_run, "`hooksConfig.disabled`" in found.why) == (False, True)


class TestClaude:
    def _settings(self, folder: Path, name: str, data: dict[str, object]) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(json.dumps(data))

    def test_the_last_source_that_sets_disable_all_hooks_wins(
        self, repo: Path, tmp_path: Path
    ) -> None:
        home = tmp_path / "home"
        env = {"HOME": str(home)}
        assert will_run(repo, "claude", {}, env).will_run is True
        self._settings(home / ".claude", "settings.json", {"disableAllHooks": True})
        assert will_run(repo, "claude", {}, env).will_run is False
        self._settings(repo / ".claude", "settings.local.json", {"disableAllHooks": False})
        assert will_run(repo, "claude", {}, env).will_run is True
        self._settings(repo / ".claude", "settings.json", {"disableAllHooks": True})
        assert will_run(repo, "claude", {}, env).will_run is True  # local comes later
        configured = tmp_path / "config-dir"
        self._settings(configured, "settings.json", {"disableAllHooks": True})
        (repo / ".claude" / "settings.local.json").unlink()
        assert (
            will_run(
                repo, "claude", {}, {"HOME": str(home), "CLAUDE_CONFIG_DIR": str(configured)}
            ).will_run
            is False
        )

    def test_managed_settings(self, repo: Path, tmp_path: Path) -> None:
        system = tmp_path / "system"
        managed = system / "etc" / "claude-code"
        env = {"HOME": str(tmp_path / "home")}
        self._settings(managed, "managed-settings.json", {"allowManagedHooksOnly": True})
        found = will_run(repo, "claude", {}, env, system)
        assert (found.will_run, "`allowManagedHooksOnly`" in found.why) == (False, True)
        self._settings(managed, "managed-settings.json", {})
        self._settings(managed / "managed-settings.d", "10-hooks.json", {"disableAllHooks": True})
        assert "turn every hook off" in will_run(repo, "claude", {}, env, system).why

    def test_interactive_trust_is_mentioned_until_accepted(
        self, repo: Path, tmp_path: Path
    ) -> None:
        home = tmp_path / "home"
        asks = will_run(repo, "claude", {}, {"HOME": str(home)})
        assert "first asks to trust this folder" in asks.why
        home.mkdir()
        state = {"projects": {str(repo): {"hasTrustDialogAccepted": True}}}
        (home / ".claude.json").write_text(json.dumps(state))
        assert "asks" not in will_run(repo, "claude", {}, {"HOME": str(home)}).why


def test_cursor_cannot_be_told(repo: Path) -> None:
    found = will_run(repo, "cursor", {}, {"HOME": "/nonexistent"})
    assert found.will_run is None
    assert "Hooks" in found.why


def test_doctor_reports_will_run_and_the_recent_notices(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    project(repo)
    assert main(["--repo", str(repo), "init", "--hooks", "codex"]) == 0
    assert "Will Codex run them here? not yet" in capsys.readouterr().out
    write(repo, "src/schema.py", "v2")
    commit(repo, "v2")
    assert main(["--repo", str(repo), "rules", "check", "--committed"]) == 1
    denied = run_hook(
        payload("codex", 1, repo, command="gh pr create -t T -b x"), "--agent", "codex"
    )
    assert "change rules fail" in denied.text
    capsys.readouterr()
    main(["--repo", str(repo), "doctor", "--format", "json"])
    data = json.loads(capsys.readouterr().out)["hooks"]
    assert data["agents"]["codex"]["will_run"] is False
    assert "codex exec --trust" in data["agents"]["codex"]["fix"]
    assert (data["agents"]["gemini"]["will_run"], data["agents"]["gemini"]["fix"]) == (
        False,
        "cagr init --hooks gemini",
    )
    notice = data["recent_notices"][-1]
    assert (notice["agent"], notice["moment"], notice["kind"]) == ("codex", "command", "deny")
    main(["--repo", str(repo), "doctor"])
    text = capsys.readouterr().out
    assert "will codex run them: NO: Codex reads a project's own configuration" in text
    assert "Recent notices" in text
    assert "codex command (deny): cagr: the change rules fail for this PR's commits." in text
