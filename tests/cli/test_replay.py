"""`cagr replay`: real history judged a commit at a time, as pull requests, by the working
tree's rules; nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cagr_cli.commands.replay import _names
from cagr_cli.main import main
from tests.support.configs import TWO_RULES as RULES
from tests.support.git import commit, git, write

Capture = pytest.CaptureFixture[str]
BODY = "## Risk\nDependency reason: x parses the wire format."


@pytest.fixture
def history(repo: Path) -> dict[str, str]:
    """main: a root commit, then a schema edit without its companion, one with it, a new
    dependency whose message explains it, and one whose message does not."""
    write(repo, "src/schema.py", "v1")
    write(repo, "schema.json", "{}")
    write(repo, "package.json", "{}")
    shas = {"root": commit(repo, "root")}
    write(repo, "src/schema.py", "v2")
    shas["alone"] = commit(repo, "schema alone")
    write(repo, "src/schema.py", "v3")
    write(repo, "schema.json", '{"v": 3}')
    shas["both"] = commit(repo, "schema with its companion")
    write(repo, "package.json", '{"dependencies": {"x": "1"}}')
    shas["explained"] = commit(repo, f"add x\n\n{BODY}")
    write(repo, "package.json", '{"dependencies": {"x": "1", "y": "1"}}')
    shas["unexplained"] = commit(repo, "add y")
    write(repo, "cagr.toml", RULES)  # the rules are in the working tree only: they judge
    return shas


def replay(repo: Path, capsys: Capture, *args: str) -> dict:
    assert main(["--repo", str(repo), "replay", "--format", "json", *args]) == 0
    return json.loads(capsys.readouterr().out)


def _by_commit(data: dict) -> dict[str, dict]:
    return {c["commit"]: c for c in data["commits"]}


def test_each_commit_is_judged_as_a_pull_request_from_its_first_parent(
    repo: Path, history: dict[str, str], capsys: Capture
) -> None:
    data = replay(repo, capsys)
    commits = _by_commit(data)
    assert [c["commit"] for c in data["commits"]] == [
        history[k] for k in ("unexplained", "explained", "both", "alone", "root")
    ]
    assert commits[history["alone"]]["status"] == "fail"
    assert [f["rule"] for f in commits[history["alone"]]["findings"]] == ["schema-companion"]
    assert commits[history["both"]]["status"] == "pass"
    assert commits[history["root"]]["status"] == "root"
    # Without a body, PR-body obligations are owed, not failed.
    assert [d["rule"] for d in commits[history["unexplained"]]["deferred"]] == ["dependency-reason"]
    rules = {row["rule"]: row for row in data["rules"]}
    assert (rules["schema-companion"]["fired"], rules["schema-companion"]["findings"]) == (2, 1)
    assert (rules["dependency-reason"]["fired"], rules["dependency-reason"]["owed"]) == (2, 2)


def test_commit_messages_stand_in_for_descriptions_only_when_asked(
    repo: Path, history: dict[str, str], capsys: Capture
) -> None:
    commits = _by_commit(replay(repo, capsys, "--body-from", "message"))
    assert commits[history["explained"]]["status"] == "pass"
    assert commits[history["unexplained"]]["status"] == "fail"
    assert commits[history["unexplained"]]["deferred"] == []


def test_given_revisions_and_a_limit(repo: Path, history: dict[str, str], capsys: Capture) -> None:
    data = replay(repo, capsys, "main~3")
    assert [c["commit"] for c in data["commits"]] == [history["alone"]]
    data = replay(repo, capsys, "--last", "2")
    assert [c["commit"] for c in data["commits"]] == [history["unexplained"], history["explained"]]


def test_it_writes_nothing_and_prints_a_table(
    repo: Path, history: dict[str, str], capsys: Capture
) -> None:
    before = git(repo, "status", "--porcelain=v2", "--untracked-files=all")
    assert main(["--repo", str(repo), "replay"]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.strip()}
    assert rows["schema-companion"][:8] == [
        "schema-companion",
        "requires",
        "error",
        "2",
        "1",
        "1",
        "0",
        "0",
    ]
    assert rows[history["alone"][:10]][:3] == [history["alone"][:10], "fail", "schema-companion"]
    # A commit that passes only if its description gives what a rule asks says so, and which.
    owing = history["unexplained"][:10]
    assert rows[owing][:4] == [owing, "owed", "dependency-reason", "(owed)"]
    assert git(repo, "status", "--porcelain=v2", "--untracked-files=all") == before
    # Nothing of cagr's own either: not a gate record, nor a kept configuration (before: one
    # config/<key>.json).
    assert not (repo / ".git" / "cagr").exists()


def test_a_commit_only_warnings_were_found_for_says_warn(
    repo: Path, history: dict[str, str], capsys: Capture
) -> None:
    """It passes, but a reader deciding whether to make the rule an error must see it."""
    write(
        repo,
        "cagr.toml",
        RULES.replace('id = "schema-companion"', 'id = "schema-companion"\nseverity = "warn"'),
    )
    assert main(["--repo", str(repo), "replay"]) == 0
    rows = {
        line.split()[0]: line.split()
        for line in capsys.readouterr().out.splitlines()
        if line.strip()
    }
    alone = history["alone"][:10]
    assert rows[alone][:3] == [alone, "warn", "schema-companion"]
    assert rows[history["both"][:10]][1] == "pass"
    assert _by_commit(replay(repo, capsys))[history["alone"]]["status"] == "pass"  # as JSON says


def test_usage_and_configuration_errors_exit_2(
    repo: Path, history: dict[str, str], capsys: Capture
) -> None:
    assert main(["--repo", str(repo), "replay", "--last", "0"]) == 2
    assert main(["--repo", str(repo), "replay", "no-such-rev"]) == 2
    write(repo, "cagr.toml", "[[changes.rules]]\nid = 1\n")
    assert main(["--repo", str(repo), "replay"]) == 2
    assert "changes.rules" in capsys.readouterr().err


def test_a_github_apps_commit_is_judged_as_its_pull_request(repo: Path, capsys: Capture) -> None:
    """django-cms: 44 of 150 commits were dependabot's, each shown owing the PR-template rules
    that waive dependabot[bot]; as its pull request, the app's commit would be waived in CI."""
    write(repo, "package.json", "{}")
    commit(repo, "root")
    write(repo, "package.json", '{"dependencies": {"x": "1"}}')
    app = "dependabot[bot] <49699333+dependabot[bot]@users.noreply.github.com>"
    git(repo, "commit", "-q", "-a", "-m", "Bump x", f"--author={app}")
    write(repo, "package.json", '{"dependencies": {"x": "1", "y": "1"}}')
    person = commit(repo, "add y")
    rules = RULES.replace(
        'id = "dependency-reason"', 'id = "dependency-reason"\nwaive_authors = ["dependabot[bot]"]'
    )
    write(repo, "cagr.toml", rules)
    data = replay(repo, capsys)
    by_app, by_person = data["commits"][1], data["commits"][0]
    assert by_person["commit"] == person
    assert (by_app["author"], by_app["waived_owed"]) == ("dependabot[bot]", ["dependency-reason"])
    assert (by_person["author"], by_person["waived_owed"]) == (None, [])
    row = {r["rule"]: r for r in data["rules"]}["dependency-reason"]
    assert (row["owed"], row["waived"]) == (1, 1)
    assert main(["--repo", str(repo), "replay"]) == 0
    lines = {line.split()[0]: line.split() for line in capsys.readouterr().out.splitlines() if line}
    app_sha = by_app["commit"][:10]
    assert lines[app_sha][:4] == [app_sha, "waived", "dependency-reason", "(waived)"]
    # With its message as the description, the app's finding is waived as CI waives it.
    judged = replay(repo, capsys, "--body-from", "message")["commits"][1]
    assert [w["rule"] for w in judged["waived"]] == ["dependency-reason"]
    assert judged["findings"] == []


def test_a_row_names_the_rules_that_fit_and_counts_the_rest() -> None:
    names = ["pr-template-checklist", "pr-template-description", "pr-template-related-resources"]
    assert _names(names) == "pr-template-checklist, pr-template-description +1 more"
    assert _names(names[:2]) == "pr-template-checklist, pr-template-description"
    assert _names(["x" * 80]) == "x" * 80  # the first is always named
