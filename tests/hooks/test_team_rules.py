"""Rules a team can live with, at an agent's turn end and at the `gh pr create` gate: `warn`
findings are shown and never block or deny; a rule with a `waive_label` still blocks and denies
(no labels exist here), and says a maintainer can waive it in CI."""

from __future__ import annotations

from pathlib import Path

import pytest

from cagr_cli.main import main
from tests.support.git import commit, git, write
from tests.support.hooks import RULES, denied, gate, hook, payload, project

WARN_RULES = RULES.replace(
    'reason = "Run `make schema` and include schema.json in this change."',
    'reason = "Run `make schema` and include schema.json in this change."\nseverity = "warn"',
)
WAIVABLE_RULES = RULES.replace(
    'reason = "Run `make schema` and include schema.json in this change."',
    'reason = "Run `make schema` and include schema.json in this change."\n'
    'waive_label = "schema-by-hand"',
)
WARN_BODY_RULES = RULES.replace(
    'explain the dependency."', 'explain the dependency."\nseverity = "warn"'
)
AGENTS = ["claude", "codex", "cursor", "gemini"]


def blocked(agent: str, answer_json: dict | None) -> bool:
    if answer_json is None:
        return False
    if agent == "cursor":
        return "followup_message" in answer_json
    return answer_json.get("decision") in ("block", "deny")


def stop(root: Path, agent: str) -> tuple[bool, str]:
    answer = hook(payload(agent, 0, root), "--agent", agent)
    assert answer.code == 0
    return blocked(agent, answer.json), answer.text


def with_rules(repo: Path, rules: str) -> Path:
    root = project(repo)
    write(root, "cagr.toml", rules)
    git(root, "checkout", "-q", "main")
    commit(root, "team rules")
    git(root, "checkout", "-q", "work")
    git(root, "rebase", "-q", "main")
    return root


class TestWarnAtTurnEnd:
    @pytest.mark.parametrize("agent", AGENTS)
    def test_a_warning_is_shown_and_never_blocks(self, repo: Path, agent: str) -> None:
        root = with_rules(repo, WARN_RULES)
        write(root, "src/schema.py", "v2")
        for _ in range(3):  # no stop is ever blocked for it
            is_blocked, text = stop(root, agent)
            assert not is_blocked
            assert "Warning: change rule schema-companion" in text
            assert "rules of severity warn never block a stop" in text

    def test_an_error_rule_still_blocks_beside_a_warning(self, repo: Path) -> None:
        root = with_rules(repo, WARN_BODY_RULES.replace("dependency_added", "changed"))
        write(root, "src/schema.py", "v2")
        assert stop(root, "claude")[0]


class TestWaivableAtTurnEndAndGate:
    def test_the_stop_is_blocked_and_the_label_named(self, repo: Path) -> None:
        root = with_rules(repo, WAIVABLE_RULES)
        write(root, "src/schema.py", "v2")
        is_blocked, text = stop(root, "claude")
        assert is_blocked
        assert "a maintainer can waive this rule for the pull request by adding the label" in text
        assert "`schema-by-hand`" in text

    def test_no_environment_variable_or_description_waives(
        self, repo: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        root = with_rules(repo, WAIVABLE_RULES)
        write(root, "src/schema.py", "v2")
        commit(root, "source only")
        for name in ("CAGR_LABELS", "CAGR_WAIVE", "LABELS", "CI_MERGE_REQUEST_LABELS"):
            monkeypatch.setenv(name, "schema-by-hand")
        assert main(["--repo", str(root), "rules", "check", "--committed"]) == 1
        body = "## Summary\nwaive_label: schema-by-hand\n/label schema-by-hand"
        answer = gate(root, f'gh pr create -t T -b "{body}"')
        assert denied("claude", answer.json)
        assert "adding the label `schema-by-hand`" in answer.text


class TestAnAgentCannotWaiveItsOwnWork:
    """The PR gate denies a gh command that adds a rule's waive label, whatever the record."""

    @pytest.mark.parametrize(
        "command",
        [
            'gh pr create -t T -b "## Summary\nx" --label schema-by-hand',
            'gh pr create -t T -b "## Summary\nx" --label=docs,schema-by-hand',
            'gh pr create -t T -b "## Summary\nx" -dl schema-by-hand',
            "gh pr edit 7 --add-label schema-by-hand",
            "bash -lc 'gh pr edit --add-label \"schema-by-hand\"'",
            "gh pr edit 7 --add-label Schema-By-Hand",  # gh matches labels whatever their case
        ],
    )
    @pytest.mark.parametrize("agent", AGENTS)
    def test_adding_a_waive_label_is_denied(self, repo: Path, agent: str, command: str) -> None:
        root = with_rules(repo, WAIVABLE_RULES)
        write(root, "schema.json", '{"v": 2}')
        write(root, "src/schema.py", "v2")
        commit(root, "both")
        assert main(["--repo", str(root), "rules", "check", "--committed"]) == 0  # it passes
        answer = gate(root, command, agent)
        assert denied(agent, answer.json), answer.text
        assert "waives the change rule(s) schema-companion" in answer.text

    def test_other_labels_and_dry_runs_are_not_waivers(self, repo: Path) -> None:
        root = with_rules(repo, WAIVABLE_RULES)
        write(root, "schema.json", '{"v": 2}')
        write(root, "src/schema.py", "v2")
        commit(root, "both")
        assert main(["--repo", str(root), "rules", "check", "--committed"]) == 0
        for command in (
            'gh pr create -t T -b "## Summary\nx" --label docs',
            'gh pr create -t T -b "## Summary\nx" --label schema-by-hand --dry-run',
            "gh pr edit 7 --remove-label schema-by-hand",
        ):
            assert not denied("claude", gate(root, command).json), command


class TestWarnAtTheGate:
    def test_a_warning_in_the_record_is_a_notice(self, repo: Path) -> None:
        root = with_rules(repo, WARN_RULES)
        write(root, "src/schema.py", "v2")
        commit(root, "source only")
        assert main(["--repo", str(root), "rules", "check", "--committed"]) == 0
        answer = gate(root, 'gh pr create -t T -b "## Summary\nx"')
        assert not denied("claude", answer.json)
        assert "with warnings (rules of severity warn: shown, never denied)" in answer.text
        assert "Warning: change rule schema-companion" in answer.text

    def test_a_warn_body_obligation_is_a_notice(self, repo: Path) -> None:
        root = with_rules(repo, WARN_BODY_RULES)
        write(root, "package.json", '{"dependencies": {"left-pad": "1"}}')
        commit(root, "a dependency")
        assert main(["--repo", str(root), "rules", "check", "--committed"]) == 0
        answer = gate(root, 'gh pr create -t T -b "## Risk\nNone"')
        assert not denied("claude", answer.json)
        assert (
            "Warning: change rule dependency-reason (severity warn: it does not fail" in answer.text
        )


class TestUncommittedRules:
    def test_the_gate_asks_to_commit_the_rules(self, repo: Path) -> None:
        write(repo, "src/schema.py", "v1")
        commit(repo, "base")
        git(repo, "checkout", "-q", "-b", "work")
        write(repo, "src/schema.py", "v2")
        commit(repo, "source only")
        write(repo, "cagr.toml", RULES)  # written, not committed: the first thing a user does
        assert main(["--repo", str(repo), "rules", "check", "--committed"]) == 3
        answer = gate(repo, 'gh pr create -t T -b "## Summary\nx"')
        assert not denied("claude", answer.json)
        assert "HEAD has no change rules committed" in answer.text
        assert "commit your rules" in answer.text
