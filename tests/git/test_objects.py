"""cagr's object reader against `git cat-file`: every object of a repository, however stored
(loose, packed with offset or ref deltas, long delta chains, index versions 1 and 2 with
64-bit offsets, alternates), reads back as git reads it."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from cagr_git.objects import BLOB, TYPE_NAMES, DamagedObject, ObjectReader, read_raw
from tests.support.git import git

KINDS = {name.encode(): kind for kind, name in TYPE_NAMES.items()}


def _history(root: Path, versions: int = 60) -> None:
    """Many versions of a few files (so packs hold deltas of blobs and of trees), a tag."""
    git(root, "init", "-q", "-b", "main")
    stream = []
    lines = [f"line {n} of a file with one line changed per commit" for n in range(50)]
    for number in range(versions):
        lines[number % 50] = f"line {number % 50}, version {number}, one line changed per commit"
        text = "\n".join(lines) + "\n"
        data = f"{number}\n"
        stream.append(f"commit refs/heads/main\ncommitter t <t@x> {1_700_000_000 + number} +0000\n")
        stream.append(f"data {len(data)}\n{data}")
        stream.append(f"M 100644 inline edited.txt\ndata {len(text)}\n{text}\n")
        stream.append(
            f"M 100644 inline dir{number % 3}/f{number % 7}.txt\ndata 3\n{number % 10}x\n\n"
        )
    git(root, "fast-import", "--quiet", stdin="".join(stream).encode())
    git(root, "tag", "-a", "-m", "a tag", "v1", "main~1")


def _every_object(root: Path) -> dict[bytes, tuple[int, bytes]]:
    """git's own answer: every object's type and content (`cat-file --batch-all-objects`)."""
    out = git(root, "cat-file", "--batch-all-objects", "--batch")
    found = {}
    at = 0
    while at < len(out):
        header_end = out.index(b"\n", at)
        oid, kind, size = out[at:header_end].split(b" ")
        start = header_end + 1
        found[bytes.fromhex(oid.decode())] = (KINDS[kind], out[start : start + int(size)])
        at = start + int(size) + 1
    assert found
    return found


def _check(root: Path, objects: str | None = None) -> None:
    expected = _every_object(root)
    with ObjectReader(objects or str(root / ".git" / "objects")) as reader:
        for oid, (kind, content) in expected.items():
            assert reader.read(oid) == (kind, content), oid.hex()


def test_loose_objects(tmp_path: Path) -> None:
    _history(tmp_path, 20)
    git(tmp_path, "unpack-objects", "-q", stdin=_repacked_stream(tmp_path))
    for pack in (tmp_path / ".git" / "objects" / "pack").glob("pack-*"):
        pack.unlink()
    assert not list((tmp_path / ".git" / "objects" / "pack").glob("*.pack"))
    _check(tmp_path)


def _repacked_stream(root: Path) -> bytes:
    names = git(root, "rev-list", "--objects", "--all")
    ids = b"\n".join(line.split(b" ")[0] for line in names.splitlines()) + b"\n"
    return git(root, "pack-objects", "--stdout", "-q", stdin=ids)


@pytest.mark.parametrize(
    "settings",
    [
        ["repack", "-adf"],  # offset deltas, index version 2
        ["-c", "repack.useDeltaBaseOffset=false", "repack", "-adf"],  # ref deltas
        ["-c", "pack.indexVersion=1", "repack", "-adf"],
        ["repack", "-adf", "--depth=4095", "--window=250"],  # long chains
    ],
    ids=["offset-deltas", "ref-deltas", "index-v1", "long-chains"],
)
def test_packed_objects(tmp_path: Path, settings: list[str]) -> None:
    long = "--depth=4095" in settings
    _history(tmp_path, 1500 if long else 60)
    git(tmp_path, *settings)
    assert not list((tmp_path / ".git" / "objects").glob("??/*"))  # nothing loose
    verified = git(tmp_path, "verify-pack", "-v", *map(str, _indexes(tmp_path))).decode()
    depths = [int(line.split()[5]) for line in verified.splitlines() if len(line.split()) == 7]
    assert depths  # the pack holds deltas
    if long:
        assert max(depths) > 1_100  # deeper than Python's recursion limit
    _check(tmp_path)


def _indexes(root: Path) -> list[Path]:
    return sorted((root / ".git" / "objects" / "pack").glob("*.idx"))


def test_large_offsets(tmp_path: Path) -> None:
    """An index version 2 whose offsets past 64 bytes are kept in the 64-bit table."""
    _history(tmp_path, 30)
    stream = _repacked_stream(tmp_path)
    pack_dir = tmp_path / ".git" / "objects" / "pack"
    for old in pack_dir.glob("pack-*"):
        old.unlink()
    (pack_dir / "incoming.pack").write_bytes(stream)
    git(tmp_path, "index-pack", "--index-version=2,64", str(pack_dir / "incoming.pack"))
    _check(tmp_path)


def test_packs_and_loose_objects_together(tmp_path: Path) -> None:
    _history(tmp_path, 30)
    git(tmp_path, "repack", "-adq")
    (tmp_path / "new.txt").write_text("after the pack\n")
    git(tmp_path, "add", "new.txt")
    git(tmp_path, "commit", "-qm", "loose")
    _check(tmp_path)


def test_alternates(tmp_path: Path) -> None:
    origin = tmp_path / "origin"
    origin.mkdir()
    _history(origin, 30)
    git(origin, "repack", "-adq")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--shared", str(origin), str(clone))
    (clone / "new.txt").write_text("only in the clone\n")
    git(clone, "add", "new.txt")
    git(clone, "commit", "-qm", "clone")
    git(clone, "repack", "-dq")  # the clone's own objects, packed; the rest stays borrowed
    _check(clone)


def test_a_missing_object_is_a_key_error(tmp_path: Path) -> None:
    _history(tmp_path, 5)
    with ObjectReader(str(tmp_path / ".git" / "objects")) as reader, pytest.raises(KeyError):
        reader.read(b"\x01" * 20)


def test_an_object_of_another_type_is_a_key_error(tmp_path: Path) -> None:
    _history(tmp_path, 5)
    commit = bytes.fromhex(git(tmp_path, "rev-parse", "main").decode().strip())
    with ObjectReader(str(tmp_path / ".git" / "objects")) as reader, pytest.raises(KeyError):
        read_raw(reader, commit, BLOB)


def test_a_pack_written_after_the_reader_opened_is_found(tmp_path: Path) -> None:
    _history(tmp_path, 10)
    git(tmp_path, "repack", "-adq")
    with ObjectReader(str(tmp_path / ".git" / "objects")) as reader:
        first = bytes.fromhex(git(tmp_path, "rev-parse", "main").decode().strip())
        assert reader.read(first)[0] == 1
        (tmp_path / "later.txt").write_text("later\n")
        git(tmp_path, "add", "later.txt")
        git(tmp_path, "commit", "-qm", "later")
        git(tmp_path, "repack", "-adq")  # the pack the reader mapped is gone
        later = bytes.fromhex(git(tmp_path, "rev-parse", "main").decode().strip())
        assert reader.read(later)[0] == 1


def test_a_damaged_delta_is_named(tmp_path: Path) -> None:
    _history(tmp_path, 40)
    git(tmp_path, "repack", "-adf")
    (index,) = _indexes(tmp_path)
    verified = git(tmp_path, "verify-pack", "-v", str(index)).decode().splitlines()
    # "<id> <type> <size> <size in pack> <offset> <depth> <base id>": a delta at depth 1
    delta = next(line.split() for line in verified if len(line.split()) == 7)
    pack = index.with_suffix(".pack")
    data = bytearray(pack.read_bytes())
    start = int(delta[4])
    for at in range(start + 4, start + int(delta[3])):
        data[at] ^= 0xFF
    os.chmod(pack, 0o644)
    pack.write_bytes(bytes(data))
    with ObjectReader(str(tmp_path / ".git" / "objects")) as reader:
        with pytest.raises(DamagedObject) as raised:
            reader.read(bytes.fromhex(delta[0]))
        assert delta[0] in str(raised.value)


def test_no_pack_folder(tmp_path: Path) -> None:
    _history(tmp_path, 3)
    objects = tmp_path / ".git" / "objects"
    shutil.rmtree(objects / "pack")
    with ObjectReader(str(objects)) as reader:
        commit = bytes.fromhex(git(tmp_path, "rev-parse", "main").decode().strip())
        assert reader.read(commit)[0] == 1
