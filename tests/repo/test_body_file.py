"""Body files are read as data: regular files only, bounded, UTF-8; nothing waits on a pipe."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cagr_repo.body_file import BodyFileError, read_body_file


def test_reads_a_regular_file(tmp_path: Path) -> None:
    path = tmp_path / "body.md"
    path.write_text("## Risk\nDependency reason: $(rm -rf /) is just text\n")
    assert read_body_file(str(path), 1000) == (
        "## Risk\nDependency reason: $(rm -rf /) is just text\n"
    )


def test_a_link_to_a_regular_file_is_read(tmp_path: Path) -> None:
    (tmp_path / "body.md").write_text("text")
    os.symlink("body.md", tmp_path / "link.md")
    assert read_body_file(str(tmp_path / "link.md"), 10) == "text"


def test_exactly_the_limit_is_read_one_byte_more_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "body.md"
    path.write_bytes(b"x" * 10)
    assert read_body_file(str(path), 10) == "x" * 10
    with pytest.raises(BodyFileError, match="larger than the 9 bytes cagr reads"):
        read_body_file(str(path), 9)


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda p: p.mkdir(), "is not a regular file"),
        (os.mkfifo, "is not a regular file"),
        (lambda _: None, "No such file or directory"),
        (lambda p: p.write_bytes(b"\xff\xfe"), "is not UTF-8 (invalid start byte at byte 0)"),
    ],
    ids=["folder", "fifo", "missing", "not utf-8"],
)
def test_refused(tmp_path: Path, make, said: str) -> None:
    path = tmp_path / "body"
    make(path)
    with pytest.raises(BodyFileError, match=r"the body file .*body") as raised:
        read_body_file(str(path), 1000)
    assert said in str(raised.value)
