"""`cagr replay --body-from FILE`: each commit a pull request merged is judged with that pull
request's description, author and labels (as `gh pr list --json ...` or `glab mr list
--output json` export them), as CI judged it; the others' PR-body obligations stay owed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cagr_cli.main import main
from cagr_repo.pr_export import MAX_EXPORT_BYTES
from tests.support.git import commit, git, write

Capture = pytest.CaptureFixture[str]

RULES = """
[[changes.rules]]
id = "risk-section"
kind = "pr_body"
paths = ["src/**"]
section = "Risk"
reason = "Say in the PR's Risk section what could break."
waive_label = "no-risk"
waive_authors = ["dependabot[bot]"]
examples.invalid = [{ changes = [{ path = "src/a.py", status = "M" }], pr_body = "## Summary\\nx" }]
examples.valid = [{ changes = [{ path = "src/a.py", status = "M" }], pr_body = "## Risk\\nLow." }]
"""
GOOD = "## Summary\nA fix.\n\n## Risk\nThe parser's callers only.\n"
BAD = "## Summary\nA fix.\n"


def gh(number: int, sha: str, body: str | None, login: str = "octocat", **more: object) -> dict:
    """A merged pull request as `gh pr list --state merged --json
    number,title,body,mergeCommit,author,labels` prints it."""
    bot = login.startswith("app/")
    author = {"is_bot": bot, "login": login, **({} if bot else {"id": "U_1", "name": "M"})}
    return {
        "author": author,
        "body": body,
        "labels": more.get("labels", []),
        "mergeCommit": {"oid": sha},
        "number": number,
        "title": f"PR {number}",
    }


def export(tmp_path: Path, entries: list[dict], name: str = "prs.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(entries, indent=2))
    return str(path)


def replay(repo: Path, capsys: Capture, *args: str) -> dict:
    assert main(["--repo", str(repo), "replay", "--format", "json", *args]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture
def squashed(repo: Path) -> dict[str, str]:
    """main as squash merges leave it: a root, then one commit per pull request, each editing
    src/ (the rule fires on every one)."""
    write(repo, "src/a.py", "0")
    shas = {"root": commit(repo, "root")}
    for name in ("good", "bad", "bot", "labelled", "direct"):
        write(repo, "src/a.py", name)
        shas[name] = commit(repo, f"{name} (#n)")
    write(repo, "cagr.toml", RULES)  # the working tree's rules judge
    return shas


@pytest.fixture
def prs(tmp_path: Path, squashed: dict[str, str]) -> str:
    """The export: four of the five commits, and one pull request of another history."""
    return export(
        tmp_path,
        [
            gh(1, squashed["good"], GOOD),
            gh(2, squashed["bad"], BAD),
            gh(3, squashed["bot"], BAD, login="app/dependabot"),
            gh(4, squashed["labelled"], None, labels=[{"name": "no-risk", "color": "ededed"}]),
            gh(5, "c" * 40, BAD),  # not in this history: nothing to judge
        ],
    )


def test_each_pull_requests_commit_is_judged_as_ci_judged_it(
    repo: Path, squashed: dict[str, str], prs: str, capsys: Capture
) -> None:
    data = replay(repo, capsys, "--body-from", prs)
    commits = {c["commit"]: c for c in data["commits"]}
    good, bad, bot, labelled, direct = (
        commits[squashed[k]] for k in ("good", "bad", "bot", "labelled", "direct")
    )
    # Its description has the Risk section: satisfied.
    assert (good["status"], good["findings"], good["deferred"]) == ("pass", [], [])
    assert good["description"] == "pull request #1"
    # Its description lacks it: a finding, as CI reported it.
    assert bad["status"] == "fail"
    assert [f["rule"] for f in bad["findings"]] == ["risk-section"]
    assert bad["description"] == "pull request #2"
    # dependabot's (gh: app/dependabot; CI: dependabot[bot]) and the labelled one: waived.
    assert (bot["status"], bot["findings"]) == ("pass", [])
    assert [(w["rule"], w["author"]) for w in bot["waived"]] == [
        ("risk-section", "dependabot[bot]")
    ]
    assert (labelled["status"], labelled["findings"]) == ("pass", [])
    assert [(w["rule"], w["label"]) for w in labelled["waived"]] == [("risk-section", "no-risk")]
    # No pull request merged it: owed, as without a file.
    assert [d["rule"] for d in direct["deferred"]] == ["risk-section"]
    assert (direct["status"], direct["findings"], direct["description"]) == ("pass", [], None)
    assert commits[squashed["root"]]["status"] == "root"
    assert (data["body_from"], data["described"]) == (prs, 4)
    rule = data["rules"][0]
    assert (rule["fired"], rule["findings"], rule["owed"], rule["waived"]) == (5, 1, 1, 2)


def test_the_text_says_which_pull_request_judged_each_commit(
    repo: Path, squashed: dict[str, str], prs: str, capsys: Capture
) -> None:
    assert main(["--repo", str(repo), "replay", "--body-from", prs]) == 0
    out = capsys.readouterr().out
    assert f"4 of the 5 commits judged were merged by a pull request in {prs}" in out
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.strip()}
    assert rows["commit"][:5] == ["commit", "status", "pr", "rules", "subject"]
    assert rows["risk-section"][1:] == ["pr_body", "error", "5", "1", "1", "1", "0", "2"]

    def row(name: str) -> list[str]:
        return rows[squashed[name][:10]][1:4]

    assert row("good") == ["pass", "#1", "good"]  # no rule spoke; the subject follows
    assert row("bad") == ["fail", "#2", "risk-section"]
    assert row("bot") == ["waived", "#3", "risk-section"]
    assert rows[squashed["bot"][:10]][4] == "(waived)"
    assert row("labelled") == ["waived", "#4", "risk-section"]
    assert row("direct") == ["owed", "-", "risk-section"]


def test_without_a_file_nothing_changes(
    repo: Path, squashed: dict[str, str], capsys: Capture
) -> None:
    data = replay(repo, capsys)
    assert (data["body_from"], data["described"]) == (None, 0)
    assert all(c["description"] is None for c in data["commits"])
    assert main(["--repo", str(repo), "replay"]) == 0
    assert " pr " not in capsys.readouterr().out.splitlines()[-7]  # the commits' header
    data = replay(repo, capsys, "--body-from", "message")
    assert data["described"] == 5
    assert {c["description"] for c in data["commits"][:-1]} == {"message"}


def test_a_merge_commit_is_judged_on_its_first_parent_change(
    repo: Path, tmp_path: Path, capsys: Capture
) -> None:
    """A merge-commit layout: the merge brings the branch's src/ edit in, and its pull request's
    description judges it; the branch's own commits are not on the first-parent line."""
    write(repo, "src/a.py", "0")
    root = commit(repo, "root")
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, "src/a.py", "1")
    branch_commit = commit(repo, "edit a")
    write(repo, "docs.md", "x")
    commit(repo, "docs")
    git(repo, "checkout", "-q", "main")
    write(repo, "README", "main moved on")
    moved = commit(repo, "main moved on")
    git(repo, "merge", "-q", "--no-ff", "-m", "Merge pull request #9 from feature", "feature")
    merge = git(repo, "rev-parse", "HEAD").decode().strip()
    write(repo, "cagr.toml", RULES)
    for body, status in ((BAD, "fail"), (GOOD, "pass")):
        prs = export(tmp_path, [gh(9, merge, body)])
        data = replay(repo, capsys, "--body-from", prs)
        assert [c["commit"] for c in data["commits"]] == [merge, moved, root]
        judged = data["commits"][0]
        assert (judged["status"], judged["description"]) == (status, "pull request #9")
        assert branch_commit not in {c["commit"] for c in data["commits"]}


def test_a_gitlab_export_judges_its_merge_requests(
    repo: Path, squashed: dict[str, str], tmp_path: Path, capsys: Capture
) -> None:
    mrs = [
        {
            "iid": 11,
            "description": GOOD,
            "merge_commit_sha": None,
            "squash_commit_sha": squashed["good"],
            "author": {"username": "alice"},
            "labels": [],
        },
        {
            "iid": 12,
            "description": BAD,
            "merge_commit_sha": squashed["bad"],
            "squash_commit_sha": None,
            "author": {"username": "bob"},
            "labels": ["no-risk"],
        },
    ]
    data = replay(repo, capsys, "--body-from", export(tmp_path, mrs))
    commits = {c["commit"]: c for c in data["commits"]}
    good, bad = commits[squashed["good"]], commits[squashed["bad"]]
    assert (good["status"], good["description"]) == ("pass", "merge request !11")
    assert [w["label"] for w in bad["waived"]] == ["no-risk"]
    assert bad["description"] == "merge request !12"
    assert main(["--repo", str(repo), "replay", "--body-from", export(tmp_path, mrs)]) == 0
    assert f"{squashed['bad'][:10]}  waived  !12" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b"{not json", "is not JSON"),
        (b'{"number": 1}', "is JSON an object, not an array of pull requests"),
        (b"[1]", "entry 0 is a number, not a pull request"),
        (b'[{"number": 1, "mergeCommit": null}]', "entry 0 (pull request #1) has no `body`"),
        (b'[{"number": 1, "body": "", "mergeCommit": {"oid": "HEAD"}}]', "not a full commit id"),
        (
            json.dumps([gh(1, "a" * 40, ""), gh(2, "a" * 40, "")]).encode(),
            "pull request #2 claims the commit " + "a" * 40 + ", which pull request #1 claims",
        ),
        (b"[" * 200_000, "nested too deeply"),
    ],
    ids=[
        "not json",
        "an object",
        "not objects",
        "no body",
        "not a sha",
        "one commit twice",
        "deep",
    ],
)
@pytest.mark.usefixtures("squashed")
def test_an_export_cagr_cannot_read_is_a_usage_error(
    repo: Path, tmp_path: Path, capsys: Capture, content: bytes, said: str
) -> None:
    path = tmp_path / "prs.json"
    path.write_bytes(content)
    assert main(["--repo", str(repo), "replay", "--body-from", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"cagr: --body-from: the pull-request export {path}")
    assert said in err
    assert "Traceback" not in err
    assert main(["--repo", str(repo), "replay", "--format", "json", "--body-from", str(path)]) == 2
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == "error"
    assert said in data["errors"][0]["message"]


def test_a_missing_or_oversized_export_is_a_usage_error(
    repo: Path, squashed: dict[str, str], tmp_path: Path, capsys: Capture
) -> None:
    missing = tmp_path / "none.json"
    assert main(["--repo", str(repo), "replay", "--body-from", str(missing)]) == 2
    assert f"the pull-request export {missing} is missing" in capsys.readouterr().err
    huge = tmp_path / "huge.json"
    with huge.open("wb") as handle:
        handle.truncate(MAX_EXPORT_BYTES + 1)  # sparse: 64 MiB and a byte, of nothing
    assert main(["--repo", str(repo), "replay", "--body-from", str(huge)]) == 2
    err = capsys.readouterr().err
    assert f"the pull-request export {huge} is larger than the {MAX_EXPORT_BYTES} bytes" in err


def test_a_byte_order_mark_is_read_through(
    repo: Path, squashed: dict[str, str], tmp_path: Path, capsys: Capture
) -> None:
    path = tmp_path / "prs.json"
    path.write_bytes(json.dumps([gh(2, squashed["bad"], BAD)]).encode("utf-16"))  # PowerShell's >
    data = replay(repo, capsys, "--body-from", str(path))
    assert data["described"] == 1
