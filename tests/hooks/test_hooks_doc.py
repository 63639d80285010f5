"""docs/hooks.md's exchanges are what cagr answers: each documented request, sent to `cagr hook`
in the README tour's repository, gets the documented answer."""

from __future__ import annotations

import json
import re
from pathlib import Path

from cagr_cli.main import main
from tests.support.git import commit, git, write
from tests.support.hooks import hook

DOC = (Path(__file__).resolve().parents[2] / "docs" / "hooks.md").read_text()
SECTION = DOC.split("## What each agent sends, and what cagr answers", 1)[1].split("\n## ", 1)[0]
EXCHANGE = re.compile(
    r"`cagr hook --agent (\w+)` reads:\n\n```json\n(.*?)\n```\n\nand answers"
    r"(?: \(exit 0\):\n\n```json\n(.*?)\n```| nothing \(exit 0\)\.)",
    re.DOTALL,
)
EXCHANGES = EXCHANGE.findall(SECTION)
SHOWN = "/home/me/demo"
RULE = """[[changes.rules]]
id = "schema-companion"
kind = "requires"
paths = ["src/schema.py"]
require = ["schema.json"]
reason = "Run `make schema` and include schema.json in this change."
examples.invalid = [{ changes = [{ path = "src/schema.py", status = "M" }] }]
examples.valid = [{ changes = [{ path = "src/schema.py", status = "M" }, { path = "schema.json", status = "M" }] }]
"""


def test_every_agent_and_moment_is_shown() -> None:
    agents = [agent for agent, _, _ in EXCHANGES]
    assert sorted(set(agents)) == ["claude", "codex", "cursor", "gemini"]
    for agent in ("claude", "cursor", "gemini"):  # the session brief, the turn end, the PR gate
        assert agents.count(agent) >= 3
    assert len(EXCHANGES) == SECTION.count("reads:")


def test_each_answer_is_what_cagr_answers(repo: Path) -> None:
    write(repo, "cagr.toml", RULE)
    write(repo, "src/schema.py", "v1\n")
    write(repo, "schema.json", "{}\n")
    commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "work")
    write(repo, "src/schema.py", "v1\n# new field\n")
    commit(repo, "field")
    assert main(["--repo", str(repo), "rules", "check", "--committed", "--base", "main"]) == 1
    for agent, request, answer in EXCHANGES:
        payload = json.loads(request.replace(SHOWN, str(repo)))
        got = hook(payload, "--agent", agent, cwd=repo)
        assert got.code == 0, (agent, got.stderr)
        said = re.sub(r"\b[0-9a-f]{7}\b", "1a2b3c4", got.raw.replace(str(repo), SHOWN))
        if not answer:
            assert said == "", (agent, payload)
        else:
            assert json.loads(said) == json.loads(answer), (agent, payload)
