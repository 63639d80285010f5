"""Merged pull requests exported by gh or glab, read into commit -> pull request; anything else
is a PrExportError naming the file, the entry and the fix."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from cagr_repo.pr_export import (
    ExportedPullRequest,
    PrExportError,
    parse_pr_export,
    read_pr_export,
)

A, B = "a" * 40, "b" * 40


def gh(number: int, oid: str | None, body: object = "", **more: object) -> dict:
    """One entry as `gh pr list --json number,title,body,mergeCommit,author,labels` prints it."""
    return {
        "number": number,
        "title": f"PR {number}",
        "body": body,
        "mergeCommit": None if oid is None else {"oid": oid},
        **more,
    }


def parse(entries: object) -> dict[str, ExportedPullRequest]:
    return parse_pr_export(json.dumps(entries).encode(), "prs.json")


def test_github_entries_map_their_merge_commits() -> None:
    author = {"id": "U_1", "is_bot": False, "login": "octocat", "name": "Mona"}
    labels = [{"id": "L_1", "name": "no-migration", "description": "", "color": "ededed"}]
    got = parse(
        [
            gh(12, A.upper(), "## Risk\nok", author=author, labels=labels),
            gh(13, None, "closed, merged elsewhere"),  # not merged: no commit to map
        ]
    )
    assert got == {
        A: ExportedPullRequest("github", 12, "## Risk\nok", "octocat", frozenset({"no-migration"}))
    }
    assert got[A].name == "pull request #12"


def test_a_null_body_is_an_empty_description_and_a_missing_one_an_error() -> None:
    assert parse([gh(1, A, None)])[A].body == ""
    entry = gh(1, A)
    del entry["body"]
    with pytest.raises(PrExportError, match=r"entry 0 \(pull request #1\) has no `body`"):
        parse([entry])


def test_apps_are_named_as_ci_names_them() -> None:
    """gh writes an app's login `app/NAME`; the webhook's `pull_request.user.login`, which
    `waive_authors` names, is `NAME[bot]`."""
    bot = {"is_bot": True, "login": "app/dependabot"}
    gone = {"is_bot": True, "login": "app/"}  # gh's form of an author whose account is gone
    got = parse([gh(1, A, author=bot), gh(2, B, author=gone)])
    assert (got[A].author, got[B].author) == ("dependabot[bot]", None)


def test_author_and_labels_left_out_waive_nothing() -> None:
    got = parse([gh(1, A)])[A]
    assert (got.author, got.labels) == (None, None)


def test_gitlab_entries_map_merge_and_squash_commits() -> None:
    entry = {
        "iid": 7,
        "description": None,
        "merge_commit_sha": A,
        "squash_commit_sha": B,
        "author": {"id": 3, "username": "alice", "name": "Alice"},
        "labels": ["no-migration"],
    }
    ff = {"iid": 8, "description": "x", "merge_commit_sha": None, "squash_commit_sha": ""}
    got = parse([entry, ff])
    mr = ExportedPullRequest("gitlab", 7, "", "alice", frozenset({"no-migration"}))
    assert got == {A: mr, B: mr}
    assert mr.name == "merge request !7"


def test_the_same_pull_request_twice_is_one() -> None:
    assert parse([gh(1, A, "x"), gh(1, A, "x")]) == parse([gh(1, A, "x")])


def test_two_pull_requests_claiming_one_commit_is_an_error() -> None:
    with pytest.raises(PrExportError) as raised:
        parse([gh(1, A), gh(2, A)])
    said = str(raised.value)
    assert f"pull request #2 claims the commit {A}, which pull request #1 claims too" in said
    assert "entry 1" in said


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (b"", "is not JSON (Expecting value"),
        (b"{not json", "is not JSON"),
        (b"\xff\xff\xff", "is not JSON"),
        (b'{"number": 1}', "is JSON an object, not an array of pull requests"),
        (b"null", "is JSON null, not an array"),
        (b"[1, 2]", "entry 0 is a number, not a pull request (an object)"),
        (b'[["x"]]', "entry 0 is an array, not a pull request"),
        (b'[{"title": "x"}]', "entry 0 has neither `number` (gh's) nor `iid` (glab's)"),
        (b'[{"number": "1", "body": ""}]', "`number` is not a pull request's number: '1'"),
        (b'[{"number": true, "body": ""}]', "`number` is not a pull request's number: True"),
        (b'[{"number": 1, "body": 2, "mergeCommit": null}]', "`body` is neither text nor null"),
        (b'[{"number": 1, "body": ""}]', "has no `mergeCommit`"),
        (b'[{"number": 1, "body": "", "mergeCommit": {"oid": "xyz"}}]', "not a full commit id"),
        (
            b'[{"number": 1, "body": "", "mergeCommit": "' + A.encode() + b'"}]',
            'is neither `{"oid": SHA}`',
        ),
        (b'[{"number": 1, "body": "", "mergeCommit": {"oid": "' + b"g" * 40 + b'"}}]', "commit id"),
        (b'[{"number": 1, "body": "", "mergeCommit": null, "author": "me"}]', "`author` is not"),
        (b'[{"number": 1, "body": "", "mergeCommit": null, "labels": ["x"]}]', "`labels` is not"),
        (b'[{"iid": 1, "description": ""}]', "neither `merge_commit_sha` nor `squash_commit_sha`"),
        (b'[{"iid": 1, "description": "", "merge_commit_sha": 5}]', "not a full commit id: 5"),
        (b'[{"iid": 1, "merge_commit_sha": null}]', "has no `description`"),
        (b'[{"iid": 1, "description": "", "squash_commit_sha": null, "labels": [{}]}]', "labels"),
        (b'[{"iid": 1, "description": "", "squash_commit_sha": null, "author": {}}]', "author"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_what_is_not_an_export_is_said_so(data: bytes, said: str) -> None:
    with pytest.raises(PrExportError) as raised:
        parse_pr_export(data, "prs.json")
    assert "the pull-request export prs.json" in str(raised.value)
    assert said in str(raised.value)
    assert "gh pr list --state merged" in str(raised.value)  # the fix, always


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16", "utf-16-le", "utf-32"])
def test_a_byte_order_mark_or_a_windows_shells_encoding_reads_the_same(encoding: str) -> None:
    """PowerShell's `>` writes UTF-16 with a byte-order mark; Notepad saves UTF-8 with one."""
    text = json.dumps([gh(1, A, "## Risk\nÄrger")], ensure_ascii=False)
    assert parse_pr_export(text.encode(encoding), "prs.json") == parse([gh(1, A, "## Risk\nÄrger")])


def test_reads_a_regular_file_under_the_cap(tmp_path: Path) -> None:
    path = tmp_path / "prs.json"
    path.write_text(json.dumps([gh(1, A, "x")]))
    assert read_pr_export(str(path))[A].body == "x"
    size = path.stat().st_size
    assert read_pr_export(str(path), limit=size)[A].number == 1
    with pytest.raises(PrExportError, match=f"larger than the {size - 1} bytes cagr reads"):
        read_pr_export(str(path), limit=size - 1)


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda _: None, "is missing"),
        (lambda p: p.mkdir(), "is not a regular file"),
        (os.mkfifo, "is not a regular file"),  # refused at once: nothing waits on a pipe
    ],
    ids=["missing", "folder", "fifo"],
)
def test_what_cannot_be_read_is_named(tmp_path: Path, make, said: str) -> None:
    path = tmp_path / "prs.json"
    make(path)
    with pytest.raises(PrExportError, match=f"the pull-request export {path} {said}"):
        read_pr_export(str(path))
