"""cagr's hooks inside the real agents: one scripted session per agent, each hook's answer
followed to what the agent did with it and what reached the model.

The session, in a repository whose rules want schema.json beside src/schema.py and a Testing
section in the PR description: the agent writes src/schema.py and tries to stop (blocked: the
findings reach the model), commits, opens the PR through `bash -lc` (denied: the commits fail),
writes schema.json, commits and opens the PR on one line (denied: the commit first), commits,
pushes, opens the PR without a Testing section (denied) and with one (it runs), and stops
(nothing is owed: the gate met the body for this head). Skipped, saying why, where the pinned
agents are not installed (tests/agents/install.sh).
"""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

import pytest

from tests.support import agent_cli
from tests.support.agent_cli import HookCall, Project, Run
from tests.support.agents import RUNNERS, environment
from tests.support.hooks import strings
from tests.support.model_server import ModelServer, Step, say, shell, write

BODY = "## Testing\nRan the unit tests."
SESSION: list[Step] = [
    write("src/schema.py", "FIELDS = ['a']\n"),  # 0: the agent's own write tool (Codex: its shell)
    say("Added field a."),  # 1: the turn end blocks
    shell("git add -A && git commit -qm 'schema: add field a'"),  # 2
    shell(f"bash -lc \"gh pr create --title 'Add a' --body '{BODY}'\""),  # 3: denied
    shell("""echo '{"a": 1}' > schema.json"""),  # 4: the fix
    shell(
        f"git commit -qam 'schema.json: field a' && gh pr create --title 'Add a' --body '{BODY}'"
    ),
    shell("git commit -qam 'schema.json: field a'"),  # 6
    shell("git push -q origin work"),  # 7
    shell("gh pr create --title 'Add a' --body 'Adds field a.'"),  # 8: denied, no Testing section
    shell(f"gh pr create --title 'Add a' --body '{BODY}'"),  # 9: runs
    say("Opened the pull request."),  # 10: the turn end: passes, nothing owed
]
AGENTS = ("claude", "codex", "gemini")


class Session:
    """One agent's run of SESSION, and everything kept from it."""

    def __init__(self, agent: str, base: Path) -> None:
        agent_cli.program(agent)  # skips here when the agent is not installed
        self.agent = agent
        self.project = Project(base, agent)
        if agent == "codex":
            agent_cli.trust_codex_project(self.project)
            agent_cli.review_codex_hooks(self.project)
        if agent == "gemini":
            agent_cli.trust_gemini_folder(self.project)
        self.doctor = self.project.doctor()["hooks"]["agents"][agent]
        self.python_ms = agent_cli.bare_python_ms()
        with ModelServer(SESSION, self.project.root, base / "model.jsonl") as model:
            self.run: Run = agent_cli.run_agent(self.project, model.url)
        self.model = model
        self.calls: list[HookCall] = self.project.hook_calls()
        self.python_ms += agent_cli.bare_python_ms()
        _report(self)

    def events(self, *names: str) -> list[HookCall]:
        return [call for call in self.calls if call.event in names]

    def turn_ends(self) -> list[HookCall]:
        return self.events("Stop", "AfterAgent")

    def commands(self) -> list[HookCall]:
        return self.events("PreToolUse", "BeforeTool")


@pytest.fixture(scope="module", params=AGENTS)
def session(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Session:
    return Session(request.param, tmp_path_factory.mktemp(request.param))


def test_the_agent_ran_every_step_of_the_script(session: Session) -> None:
    assert session.run.code == 0, session.run.stderr[-3000:]
    assert session.model.served() == list(range(len(SESSION)))


def test_doctor_said_the_agent_would_run_the_hooks(session: Session) -> None:
    assert session.doctor["will_run"] is True, session.doctor


def test_the_session_brief_reached_the_model(session: Session) -> None:
    first = session.model.requests[0].new_text
    brief = "cagr checks this branch's whole change"
    wrapped = {"claude": f"SessionStart hook additional context: {brief}",
               "codex": f"\n{brief}", "gemini": f"<hook_context>{brief}"}  # fmt: skip
    assert wrapped[session.agent] in first  # docs/hooks.md, "Who sees what"
    assert "- schema-companion (requires): a change that changes src/schema.py" in first
    assert "Fix: Say in the PR description's Testing section" in first


def test_the_first_stop_was_blocked_and_its_findings_reached_the_model(session: Session) -> None:
    seen = session.model.after(1)
    assert "cagr: the change rules fail for this branch's change (stop 1 of 2" in seen
    assert "src/schema.py was added; schema.json did not change." in seen
    assert "Instead: Run `make schema` and include schema.json in this change." in seen
    blocked = session.turn_ends()[0].answer
    assert blocked is not None
    assert blocked["decision"] == ("deny" if session.agent == "gemini" else "block")


def test_the_block_and_the_deny_reached_whom_docs_hooks_md_says(session: Session) -> None:
    """docs/hooks.md's "Who sees what": each agent's wrapping of a blocked stop's reason and a
    deny's, as the model reads them, and what the headless run printed for the person."""
    stop, deny = session.model.after(1), session.model.after(3)
    block = "cagr: the change rules fail for this branch's change"
    denied = "cagr: the change rules fail for this PR's commits."
    printed = session.run.stdout + session.run.stderr
    if session.agent == "claude":
        assert stop.startswith(f"Stop hook feedback:\n{block}")
        assert deny.startswith(denied)
        assert block not in printed
        assert denied not in printed
    elif session.agent == "codex":
        assert stop.startswith('<hook_prompt hook_run_id="stop:')
        assert deny.startswith(f"Command blocked by PreToolUse hook: {denied}")
        assert block not in printed
        assert f"error=Command blocked by PreToolUse hook: {denied}" in session.run.stderr
    else:
        assert stop.startswith(block)
        assert deny.startswith(f"Tool execution blocked: {denied}")
        assert f"Agent execution blocked: {block}" in session.run.stderr
        assert f"Tool execution blocked: {denied}" in session.run.stderr
    assert session.run.stdout.strip().endswith("Opened the pull request.")


def test_a_pr_command_inside_bash_lc_was_denied_for_the_failing_commits(session: Session) -> None:
    seen = session.model.after(3)
    assert "cagr: the change rules fail for this PR's commits." in seen
    assert "Change rule schema-companion failed" in seen


def test_a_commit_and_a_pr_command_on_one_line_were_denied(session: Session) -> None:
    seen = session.model.after(5)
    assert "so the commits the PR would hold do not exist yet" in seen
    assert "as a command of its own first" in seen
    log = session.project.git("log", "--format=%s", "main..work").splitlines()
    assert log == ["schema.json: field a", "schema: add field a"]  # the denied line never ran


def test_a_body_without_the_testing_section_was_denied(session: Session) -> None:
    seen = session.model.after(8)
    assert "cagr: the PR description does not meet the change rules." in seen
    assert "the PR body has no `## Testing` section" in seen


def test_only_the_pr_command_cagr_let_through_ran(session: Session) -> None:
    assert session.project.pr_commands() == [["--title", "Add a", "--body", BODY]]


def test_the_last_turn_end_owed_nothing_the_gate_had_met(session: Session) -> None:
    last = session.turn_ends()[-1]
    assert last.answer in (None, {}), last.answer
    assert "will owe" not in session.run.stderr


def test_every_hook_exited_0_and_none_answered_allow(session: Session) -> None:
    assert session.calls
    for call in session.calls:
        assert call.code == 0, call.stderr
        assert '"allow"' not in json.dumps(call.answer), call


def test_cagr_text_reached_the_model_unescaped(session: Session) -> None:
    """Codex and Gemini CLI XML-escape what hooks give the model: cagr's own text uses no
    angle brackets, so it reads the same after their escaping."""
    said = [text for call in session.calls for text in strings(call.answer)]
    assert said
    for text in said:
        assert "<" not in text, text
        assert ">" not in text, text
    assert "&lt;" not in session.model.seen()
    assert "&gt;" not in session.model.seen()


def test_the_payloads_are_what_the_simulated_runners_expect(session: Session) -> None:
    """tests/support/hooks.py builds each agent's payloads as the real agents send them."""
    tool = {"gemini": "run_shell_command"}.get(session.agent, "Bash")
    for call in session.commands():
        assert call.payload["tool_name"] == tool
        assert call.payload["cwd"] == str(session.project.root)
        assert "workdir" not in call.payload["tool_input"]  # Codex 0.171: the folder is `cwd`
    if session.agent == "codex":
        assert all("turn_id" in call.payload for call in session.events("Stop", "PreToolUse"))


def test_the_simulated_runners_read_each_answer_as_the_real_agent_did(session: Session) -> None:
    """tests/support/agents.py reads a hook's output by each agent's rules; fed the answers
    cagr gave in the real session, it must do what the real agent did: block the stop the
    agent kept working after, and deny exactly the PR commands that never ran."""
    runner = RUNNERS[session.agent]
    env = environment(session.project.path, session.project.base / "runner-home")
    ran = session.project.pr_commands()
    for call in session.commands():
        command = str(call.payload["tool_input"]["command"])
        if "gh pr create" not in command:
            continue
        replayed = runner(f"cat {call.folder}/out", call.payload, session.project.root, env)
        assert replayed.blocked == (shlex.split(command)[3:] not in ran), command
    stops = [
        runner(f"cat {c.folder}/out", c.payload, session.project.root, env)
        for c in session.turn_ends()
    ]
    assert [stop.blocked for stop in stops] == [True, False]


def test_cagr_timed_each_moment_inside_the_agent(session: Session) -> None:
    moments = {item["moment"] for item in session.project.timings()}
    assert {"session_start", "turn_end", "command", "after_command"} <= moments


_MOMENTS = {"Stop": "turn_end", "AfterAgent": "turn_end", "SessionStart": "session_start",
            "UserPromptSubmit": "prompt", "BeforeAgent": "prompt",
            "PostToolUse": "after_command", "AfterTool": "after_command"}  # fmt: skip


def _moment(call: HookCall) -> str:
    """The hook call's moment, with a shell command before it split into the gate's fast path
    (not a PR command) and the gate itself."""
    if call.event in ("PreToolUse", "BeforeTool"):
        command = str(call.payload.get("tool_input", {}).get("command", ""))
        return "command (PR gate)" if "gh pr" in command else "command (not a PR command)"
    return _MOMENTS.get(call.event, call.event)


def _report(session: Session) -> None:
    """With CAGR_AGENTS_REPORT=FILE, one JSON line per session: the hooks' wall times as the
    agent ran them, cagr's own timings, and a bare Python start measured in the same run."""
    target = os.environ.get("CAGR_AGENTS_REPORT")
    if not target:
        return
    by_moment: dict[str, list[float]] = {}
    for call in session.calls:
        by_moment.setdefault(_moment(call), []).append(call.ms)
    own: dict[str, list[float]] = {}
    for item in session.project.timings():
        own.setdefault(item["moment"], []).append(item["ms"])
    line = {
        "agent": session.agent,
        "version": agent_cli.pins()[session.agent][1],
        "session_seconds": round(session.run.seconds, 2),
        "hook_wall_ms": by_moment,
        "cagr_ms": own,
        "python_ms": [round(ms, 1) for ms in session.python_ms],
    }
    with open(target, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(line) + "\n")
