"""Turn end through `cagr hook`, for every agent: the Events acceptance rows and fail-open."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cagr_git.discover import find_checkout
from cagr_repo.gate_record import read_gate_record
from tests.support.git import commit, git, write
from tests.support.hooks import RULES, hook, payload, project

AGENTS = ("claude", "codex", "cursor", "gemini")


def blocked(agent: str, answer_json: dict | None) -> bool:
    assert answer_json is not None, "a turn end always answers with JSON"
    if agent == "cursor":
        return "followup_message" in answer_json
    key = "deny" if agent == "gemini" else "block"
    return answer_json.get("decision") == key


@pytest.fixture
def work(repo: Path) -> Path:
    return project(repo)


class TestEvents:
    @pytest.mark.parametrize("agent", AGENTS)
    def test_two_violating_stops_block_and_the_third_escapes_with_a_notice(
        self, work: Path, agent: str
    ) -> None:
        write(work, "src/schema.py", "v2")  # a shell edit: no edit tool was ever recorded
        answers = [hook(payload(agent, 0, work), "--agent", agent) for _ in range(3)]
        assert [blocked(agent, a.json) for a in answers] == [True, True, False]
        first = answers[0].text
        assert "Change rule schema-companion failed (merge base" in first
        assert "src/schema.py changed; schema.json did not change." in first
        assert "Instead: Run `make schema` and include schema.json in this change." in first
        assert "still fail after 2 blocked stops" in answers[2].text
        assert "not a pass" in answers[2].text
        # the escape records no pass: the committed record (made for HEAD) is not a pass for W
        assert all(a.code == 0 for a in answers)

    @pytest.mark.parametrize("agent", AGENTS)
    def test_the_persons_next_prompt_resets_the_count(self, work: Path, agent: str) -> None:
        write(work, "src/schema.py", "v2")
        for _ in range(3):
            hook(payload(agent, 0, work), "--agent", agent)
        assert hook(payload(agent, 3, work, prompt="try again"), "--agent", agent).code == 0
        write(work, "src/other.py", "an edit in the new turn")
        assert blocked(agent, hook(payload(agent, 0, work), "--agent", agent).json)

    @pytest.mark.parametrize("agent", AGENTS)
    def test_a_turn_that_changed_nothing_is_not_charged_again(self, work: Path, agent: str) -> None:
        """A question with no edits, after the agent was let stop: one short notice."""
        write(work, "src/schema.py", "v2")
        for _ in range(3):
            hook(payload(agent, 0, work), "--agent", agent)
        for question in ("what does this rule mean?", "and that one?"):
            hook(payload(agent, 3, work, prompt=question), "--agent", agent)
            answer = hook(payload(agent, 0, work), "--agent", agent)
            assert not blocked(agent, answer.json)
            assert "neither the change nor the findings moved" in answer.text
            assert "not a pass" in answer.text
        write(work, "src/schema.py", "v3")  # any change to the snapshot blocks as before
        hook(payload(agent, 3, work, prompt="go on"), "--agent", agent)
        assert blocked(agent, hook(payload(agent, 0, work), "--agent", agent).json)

    @pytest.mark.parametrize("agent", ["codex", "cursor", "gemini"])
    def test_an_agent_replaying_the_block_reason_as_a_prompt_does_not_reset_it(
        self, work: Path, agent: str
    ) -> None:
        write(work, "src/schema.py", "v2")
        reasons = []
        for _ in range(2):
            answer = hook(payload(agent, 0, work), "--agent", agent)
            assert answer.json is not None
            reasons.append(answer.json.get("reason") or answer.json.get("followup_message"))
            hook(payload(agent, 3, work, prompt=reasons[-1]), "--agent", agent)
        assert not blocked(agent, hook(payload(agent, 0, work), "--agent", agent).json)

    def test_stop_hook_active_alone_is_not_trusted(self, work: Path) -> None:
        write(work, "src/schema.py", "v2")
        for _ in range(2):
            assert blocked("claude", hook(payload("claude", 0, work, stop_hook_active=False)).json)
        assert not blocked("claude", hook(payload("claude", 0, work, stop_hook_active=False)).json)

    def test_the_companion_may_be_edited_later_in_the_turn(self, work: Path) -> None:
        write(work, "src/schema.py", "v2")
        assert blocked("claude", hook(payload("claude", 0, work)).json)
        write(work, "schema.json", '{"v": 2}')
        answer = hook(payload("claude", 0, work))
        assert answer.json == {}

    def test_commits_made_in_the_session_count(self, work: Path) -> None:
        write(work, "src/schema.py", "v2")
        commit(work, "only the source")
        assert blocked("claude", hook(payload("claude", 0, work)).json)

    def test_a_deferred_pr_obligation_never_blocks(self, work: Path) -> None:
        write(work, "package.json", '{"dependencies": {"left-pad": "1"}}')
        answer = hook(payload("claude", 0, work))
        assert answer.json is not None
        assert "decision" not in answer.json
        assert "pull request will owe" in answer.json["systemMessage"]
        assert "Dependency reason:" in answer.json["systemMessage"]

    def test_change_rules_run_without_any_review_config(self, work: Path) -> None:
        assert "[review]" not in RULES
        write(work, "src/schema.py", "v2")
        assert blocked("claude", hook(payload("claude", 0, work)).json)

    def test_a_passing_turn_end_warms_the_gate_record(self, work: Path) -> None:
        write(work, "src/schema.py", "v2")
        write(work, "schema.json", '{"v": 2}')
        commit(work, "both")
        assert hook(payload("claude", 0, work)).json == {}
        record = read_gate_record(find_checkout(str(work)).gitdir)
        assert record is not None
        assert record.status == "pass"
        assert record.head == git(work, "rev-parse", "HEAD").decode().strip()


class TestFailOpen:
    def _assert_let_through(self, answer_json: dict | None, agent: str = "claude") -> None:
        assert not blocked(agent, answer_json)

    def test_no_merge_base_is_unchecked_with_the_command_to_run(self, work: Path) -> None:
        write(work, "cagr.toml", RULES + '\n[git]\nprotected_branch = "nope"\n')
        answer = hook(payload("claude", 0, work))
        self._assert_let_through(answer.json)
        assert "could not all be checked" in answer.text
        assert "cannot find the target branch nope" in answer.text
        assert "no passing result was recorded" in answer.text

    def test_corrupt_config_is_a_notice(self, work: Path) -> None:
        write(work, "cagr.toml", "[[changes.rules]\n")
        answer = hook(payload("claude", 0, work))
        self._assert_let_through(answer.json)
        assert "configuration is invalid" in answer.text

    def test_deadline_zero_is_unchecked_never_a_pass(self, work: Path) -> None:
        write(work, "src/schema.py", "v2")
        answer = hook(payload("claude", 0, work), "--deadline", "0")
        self._assert_let_through(answer.json)
        assert "ran out" in answer.text
        assert read_gate_record(find_checkout(str(work)).gitdir) is None

    def test_a_missing_object_is_unchecked(self, work: Path) -> None:
        write(work, "notes.txt", "committed, so the index's tree is not the baseline's\n")
        commit(work, "notes")  # (a tree equal to the index's is known by its id, read or not)
        write(work, "src/schema.py", "v2")
        base = git(work, "rev-parse", "main").decode().strip()
        tree = git(work, "rev-parse", "main^{tree}").decode().strip()
        (work / ".git" / "objects" / tree[:2] / tree[2:]).unlink()
        answer = hook(payload("claude", 0, work))
        self._assert_let_through(answer.json)
        assert "missing" in answer.text
        assert base

    def test_an_unwritable_state_folder_lets_the_agent_stop_with_the_findings(
        self, work: Path
    ) -> None:
        (work / ".git" / "cagr").write_text("not a folder")
        write(work, "src/schema.py", "v2")
        answer = hook(payload("claude", 0, work))
        # without its stop count cagr could block forever (Codex has no cap): it tells instead
        assert not blocked("claude", answer.json)
        assert "cannot keep count" in answer.text
        assert "Change rule schema-companion failed" in answer.text
        assert "not a pass" in answer.text

    @pytest.mark.parametrize(
        "junk",
        [b"", b"not json", b"[1, 2]", b'{"hook_event_name": 3}', b"\xff\xfe", b"[" * 100_000],
    )
    def test_junk_on_stdin_says_nothing_and_exits_0(self, work: Path, junk: bytes) -> None:
        answer = hook(junk, cwd=work)
        assert answer.code == 0
        assert answer.json is None or answer.json == {}

    def test_outside_a_repository_says_nothing(self, tmp_path: Path) -> None:
        answer = hook(payload("claude", 0, tmp_path))
        assert answer.code == 0
        assert answer.json == {}


class TestSessionStart:
    @pytest.mark.parametrize("agent", AGENTS)
    def test_the_brief_lists_rules_and_obligations(self, work: Path, agent: str) -> None:
        answer = hook(payload(agent, 2, work, source="startup"), "--agent", agent)
        assert answer.json is not None
        text = answer.text
        assert "schema-companion (requires): a change that changes src/schema.py must also" in text
        assert "Fix: Run `make schema` and include schema.json in this change." in text
        assert "dependency-reason (pr_body)" in text
        if agent == "cursor":
            assert set(answer.json) == {"additional_context"}
        else:
            assert answer.json["hookSpecificOutput"]["hookEventName"] == "SessionStart"

    def test_the_brief_is_capped_without_cutting_a_fix(self, work: Path) -> None:
        many = "".join(
            RULES.split("[[changes.rules]]")[1]
            .replace('"schema-companion"', f'"rule-{i:03}"')
            .replace("Run `make schema`", "Run `make schema` " + "carefully " * 20)
            .join(["[[changes.rules]]", ""])
            for i in range(120)
        )
        write(work, "cagr.toml", many)
        answer = hook(payload("claude", 2, work))
        assert answer.json is not None
        text = answer.json["hookSpecificOutput"]["additionalContext"]
        assert len(text) <= 10_000
        assert "more rule(s)" in text
        assert all(line.endswith("this change.") for line in text.splitlines() if "Fix:" in line)


def test_timings_are_recorded_per_moment(work: Path) -> None:
    hook(payload("claude", 0, work))
    lines = (work / ".git" / "cagr" / "hook-timings.jsonl").read_text().splitlines()
    last = json.loads(lines[-1])
    assert last["moment"] == "turn_end"
    assert {"collect", "evaluate"} <= set(last["stages"])


class TestStackCommands:
    def test_a_failing_command_blocks_like_a_finding_with_its_output(self, work: Path) -> None:
        write(
            work,
            "cagr.toml",
            RULES
            + '\n[stack]\non_turn_end = [{ run = "echo schema drift >&2; exit 3", paths = ["src/**"] }]\n',
        )
        write(work, "src/schema.py", "v2")
        write(work, "schema.json", '{"v": 2}')
        answer = hook(payload("claude", 0, work))
        assert blocked("claude", answer.json)
        assert "Check command `echo schema drift >&2; exit 3` failed (exit 3)." in answer.text
        assert "schema drift" in answer.text

    def test_a_command_whose_paths_did_not_change_is_skipped(self, work: Path) -> None:
        write(
            work,
            "cagr.toml",
            RULES + '\n[stack]\non_turn_end = [{ run = "exit 1", paths = ["docs/**"] }]\n',
        )
        write(work, "src/schema.py", "v2")
        write(work, "schema.json", '{"v": 2}')
        assert hook(payload("claude", 0, work)).json == {}

    def test_a_command_that_runs_out_of_time_is_unchecked(self, work: Path) -> None:
        write(work, "cagr.toml", RULES + '\n[stack]\non_turn_end = [{ run = "sleep 30" }]\n')
        answer = hook(payload("claude", 0, work), "--deadline", "4")
        assert not blocked("claude", answer.json)
        assert "ran out of time" in answer.text
        assert "no passing result was recorded" in answer.text


class TestLongReasons:
    @pytest.mark.parametrize("agent", AGENTS)
    def test_a_20000_character_reason_keeps_the_violation_and_its_whole_fix(
        self, work: Path, agent: str
    ) -> None:
        reason = "Regenerate it: " + "run the generator, " * 1_100 + "then commit."
        assert len(reason) > 20_000
        text = RULES.replace(
            'reason = "Run `make schema` and include schema.json in this change."',
            f'reason = "{reason}"',
        )
        write(work, "cagr.toml", text)
        commit(work, "a long reason")
        write(work, "src/schema.py", "v2")
        answer = hook(payload(agent, 0, work), "--agent", agent)
        assert blocked(agent, answer.json)
        assert "src/schema.py changed; schema.json did not change." in answer.text
        assert f"Instead: {reason}\n" in answer.text  # before: both lines were cut away


class TestTheTargetsRules:
    def test_a_turn_that_deletes_a_rule_passes_by_its_own_rules_and_says_ci_will_not(
        self, work: Path
    ) -> None:
        write(
            work, "cagr.toml", RULES[RULES.index('[[changes.rules]]\nid = "dependency-reason"') :]
        )
        write(work, "src/schema.py", "v2")
        answer = hook(payload("claude", 0, work), "--agent", "claude")
        assert not blocked("claude", answer.json)  # local checks keep the branch's own rules
        assert "rules only the target has: schema-companion" in answer.text
        assert "`cagr ci` judges by both" in answer.text
