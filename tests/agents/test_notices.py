"""cagr's notices inside the real agents: who sees them in a headless run, and where the person
finds them afterwards (docs/hooks.md, "Who sees what").

The session, in the repository of test_sessions.py: the agent writes src/schema.py and
schema.json, commits and pushes (the rules pass; the PR will owe a Testing section), opens the
PR with `--fill` (a body cagr cannot see: the gate's notice, no decision) and stops (the turn
end's notice: what the PR will owe). Neither is a block or a deny, so the agent carries on.
And a session with cagr missing from the agent's PATH.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cagr_hooks.install import MISSING
from tests.support import agent_cli
from tests.support.agent_cli import Project, Run
from tests.support.model_server import ModelServer, Step, say, shell, write

SCRIPT: list[Step] = [
    write("src/schema.py", "FIELDS = ['a']\n"),  # 0
    shell("""echo '{"a": 1}' > schema.json && git add -A && git commit -qm 'field a'"""),  # 1
    shell("git push -q origin work"),  # 2
    shell("gh pr create --fill"),  # 3: the gate's notice
    say("Opened the pull request."),  # 4: the turn end's notice
]
GATE = "but cagr cannot see the body here"
TURN_END = "the pull request will owe this"
AGENTS = ("claude", "codex", "gemini")


class Notices:
    def __init__(self, agent: str, project: Project) -> None:
        if agent == "codex":
            agent_cli.trust_codex_project(project)
            agent_cli.review_codex_hooks(project)
        if agent == "gemini":
            agent_cli.trust_gemini_folder(project)
        with ModelServer(SCRIPT, project.root, project.base / "model.jsonl") as model:
            self.run: Run = agent_cli.run_agent(project, model.url)
        self.model = model
        self.project = project
        self.shown = self.run.stdout + self.run.stderr  # all a headless run shows the person
        self.answers = [call.answer for call in project.hook_calls()]


@pytest.fixture(scope="module", params=AGENTS)
def notices(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Notices:
    agent_cli.program(request.param)  # skips here when the agent is not installed
    base = tmp_path_factory.mktemp(f"notices-{request.param}")
    return Notices(request.param, Project(base, request.param))


def test_the_agent_carried_on_through_both_notices(notices: Notices) -> None:
    assert notices.run.code == 0, notices.run.stderr[-3000:]
    assert notices.model.served() == list(range(len(SCRIPT)))
    assert len(notices.project.pr_commands()) == 1  # a notice lets the command run
    messages = [str(a.get("systemMessage", "")) for a in notices.answers if a]
    assert any(GATE in text for text in messages)
    assert any(TURN_END in text for text in messages)


def test_the_model_reads_the_gate_s_notice_except_in_gemini(notices: Notices) -> None:
    """Claude Code and Codex give the model `additionalContext`; Gemini's BeforeTool has no
    field for the model."""
    assert (GATE in notices.model.after(3)) == (notices.project.agent != "gemini")


def test_a_headless_run_shows_the_person_the_notices_only_in_gemini(notices: Notices) -> None:
    """`claude -p` and `codex exec` show no `systemMessage`; `gemini -p` prints each on
    stderr."""
    shown = notices.project.agent == "gemini"
    assert (GATE in notices.shown) == shown, notices.shown[-3000:]
    assert (TURN_END in notices.shown) == shown
    if shown:
        lines = notices.run.stderr.split("Hook system message: ")[1:]
        assert any(GATE in line for line in lines)
        assert any(TURN_END in line for line in lines)


def test_doctor_lists_both_among_the_recent_notices(notices: Notices) -> None:
    recent = notices.project.doctor()["hooks"]["recent_notices"]
    said = [(item["moment"], item["kind"], item["text"]) for item in recent]
    assert any(kind == "notice" and GATE in text for _, kind, text in said), said
    assert any(kind == "notice" and TURN_END in text for _, kind, text in said), said
    assert {item["agent"] for item in recent} == {notices.project.agent}
    journal = notices.project.root / ".git" / "cagr" / "notices.jsonl"
    assert len(journal.read_text().splitlines()) == len(recent)
    assert all(json.loads(line)["text"] for line in journal.read_text().splitlines())


@pytest.mark.parametrize("agent", AGENTS)
def test_cagr_missing_is_said_only_where_the_agent_shows_a_hook_s_stderr(
    agent: str, tmp_path: Path
) -> None:
    """The installed command fails open when cagr is not on the agent's PATH, and says so on
    stderr at session start: Gemini CLI shows that to the person, `claude -p` and `codex exec`
    do not."""
    agent_cli.program(agent)  # skips here when the agent is not installed
    project = Project(tmp_path, agent)
    if agent == "codex":
        agent_cli.trust_codex_project(project)
        agent_cli.review_codex_hooks(project)
    if agent == "gemini":
        agent_cli.trust_gemini_folder(project)
    project.drop_cagr()
    script = [write("src/schema.py", "FIELDS = ['a']\n"), say("Done.")]
    with ModelServer(script, project.root, project.base / "model.jsonl") as model:
        run = agent_cli.run_agent(project, model.url)
    assert run.code == 0, run.stderr[-3000:]
    assert model.served() == [0, 1]  # nothing blocked the stop: the hooks let everything through
    assert (MISSING in run.stdout + run.stderr) == (agent == "gemini"), run.stderr[-3000:]
    assert MISSING not in model.seen()  # nor the model
    assert "cagr checks this branch's whole change" not in model.seen()  # no brief: no cagr
