"""Round four's rule forms at an agent's turn end and at the `gh pr create` gate: a named-part
rule blocks naming the app that lacks its migration; a level-3 section with the project's own
placeholders is deferred, kept in the gate record and judged against the command's body; a
filtered committed check leaves the gate without a record."""

from __future__ import annotations

from pathlib import Path

import pytest

from cagr_cli.main import main
from tests.support.configs import APP_MIGRATION
from tests.support.git import commit, git, write
from tests.support.hooks import committed_check, denied, gate, hook, payload

RULES = (
    APP_MIGRATION
    + """
[[changes.rules]]
id = "ai-usage"
kind = "pr_body"
paths = ["apps/**"]
when = "added"
section = "### AI usage"
placeholders = ["TODO"]
reason = "Say under ### AI usage how AI tools were used (None is an answer)."
examples.invalid = [{ changes = [{ path = "apps/a/views.py", status = "A" }], pr_body = "### AI usage\\nTODO" }]
examples.valid = [{ changes = [{ path = "apps/a/views.py", status = "A" }], pr_body = "### AI usage\\nNone" }]
"""
)
AGENTS = ["claude", "codex", "cursor", "gemini"]


@pytest.fixture
def apps(repo: Path) -> Path:
    write(repo, "cagr.toml", RULES)
    write(repo, "apps/blog/models.py", "class Post: ...\n")
    write(repo, "apps/shop/models.py", "class Cart: ...\n")
    commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "work")
    return repo


@pytest.mark.parametrize("agent", AGENTS)
def test_the_turn_end_blocks_naming_the_app(apps: Path, agent: str) -> None:
    write(apps, "apps/blog/models.py", "class Post: title = 1\n")
    write(apps, "apps/shop/models.py", "class Cart: total = 1\n")
    write(apps, "apps/blog/migrations/0002_title.py", "\n")
    answer = hook(payload(agent, 0, apps), "--agent", agent)
    assert answer.code == 0
    assert answer.json is not None
    key = "followup_message" if agent == "cursor" else "decision"
    assert key in answer.json
    assert "nothing matching apps/shop/migrations/0*.py was added" in answer.text
    assert "nothing matching apps/blog/migrations" not in answer.text  # blog's obligation is met


def test_the_gate_judges_the_deferred_level_three_section(apps: Path) -> None:
    write(apps, "apps/blog/views.py", "def index(): ...\n")
    commit(apps, "a view")
    assert committed_check(apps) == 0  # deferred: the pull request will owe it
    (apps / "none.md").write_text("## Description\nA view.\n### AI usage\nNone\n")
    (apps / "todo.md").write_text("## Description\nA view.\n### AI usage\nTODO\n")
    (apps / "wrong.md").write_text("## AI usage\nNone\n")
    assert not denied("claude", gate(apps, "gh pr create -t T -F none.md").json)
    answer = gate(apps, "gh pr create -t T -F todo.md")
    assert denied("claude", answer.json)
    assert "AI usage has no text beyond placeholders" in answer.text
    wrong = gate(apps, "gh pr create -t T -F wrong.md")
    assert denied("claude", wrong.json)
    assert "the PR body has no `### AI usage` section" in wrong.text


def test_a_filtered_committed_check_writes_no_record(
    apps: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(apps, "apps/shop/models.py", "class Cart: total = 1\n")
    commit(apps, "a field")
    assert committed_check(apps, "--rule", "ai-usage") == 0
    assert "writes no gate record" in capsys.readouterr().err
    answer = gate(apps, "gh pr create -t T -b 'x'")
    assert not denied("claude", answer.json)  # no record: a notice, never a pass
    assert "cagr rules check --committed" in answer.text
    assert main(["--repo", str(apps), "rules", "check", "--committed"]) == 1
    assert denied("claude", gate(apps, "gh pr create -t T -b 'x'").json)
