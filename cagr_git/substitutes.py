"""What git reads in place of objects: replace refs and the graft file.

A replace ref (`refs/replace/<id>`, written by `git replace`) makes git read another object
wherever it would read `<id>`: a commit's tree and parents, a tree, a blob, followed up to five
replacements deep. The graft file (`info/grafts` in the common git directory, or
`GIT_GRAFT_FILE`; deprecated, still read by git 2.39) gives a commit other parents. git reads
replace refs unless `core.useReplaceRefs` is false or `GIT_NO_REPLACE_OBJECTS` is set (their
namespace is `GIT_REPLACE_REF_BASE`, else `refs/replace/`), and grafts always. While either is in
force git reads no commit-graph, whose parents would be the objects' own. Only reads.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from cagr_core.values import value

from .discover import Checkout
from .files import read_regular
from .object_ids import is_sha
from .refs import read_ref

_HEX_ID = re.compile(rb"[0-9a-fA-F]{40}")
_MAX_FILE = 256 * 1024 * 1024
_SPACE = b" \t\n\r"  # git's isspace
MAX_REPLACE_DEPTH = 5  # git's MAXREPLACEDEPTH: a longer chain is an error


class SubstituteProblem(Exception):
    """A replacement git refuses (a chain deeper than five), or a graft file that is no file."""


@value
class Substitutes:
    """Replacements (raw id -> raw id of the object read instead) and grafts (raw commit id ->
    the raw ids of its parents), each as git reads them here."""

    replacements: Mapping[bytes, bytes]
    grafts: Mapping[bytes, tuple[bytes, ...]]

    @property
    def active(self) -> bool:
        """Whether git reads any object otherwise than it is stored (and so no commit-graph)."""
        return bool(self.replacements or self.grafts)

    def replacement(self, oid: bytes) -> bytes:
        """The id git reads in place of `oid` (itself when nothing replaces it); chains are
        known to end within git's depth (`read_substitutes` refuses others)."""
        current = oid
        for _ in range(MAX_REPLACE_DEPTH):
            found = self.replacements.get(current)
            if found is None:
                return current
            current = found
        return current


NONE = Substitutes({}, {})


def read_substitutes(
    checkout: Checkout, environ: Mapping[str, str], use_replace_refs: bool
) -> Substitutes:
    """The replacements and grafts git reads in this repository, with this environment and the
    value of `core.useReplaceRefs`; SubstituteProblem where git refuses them (two refs replacing
    one object, a chain deeper than five) or for a graft file that is no regular file."""
    replacements: dict[bytes, bytes] = {}
    if use_replace_refs and "GIT_NO_REPLACE_OBJECTS" not in environ:
        base = environ.get("GIT_REPLACE_REF_BASE") or "refs/replace/"
        for name in sorted(_ref_names_under(checkout, base)):
            # git takes the id from the name's last part, its first 40 digits (`get_oid_hex`)
            digits = name.rpartition("/")[2][:40].lower()
            target = read_ref(checkout, base + name)
            if not is_sha(digits) or target is None:
                continue  # git warns of a bad name and passes over it, and over a broken ref
            original = bytes.fromhex(digits)
            if original in replacements:
                raise SubstituteProblem(
                    f"two replace refs replace {digits} (one is {base}{name}), which git"
                    " refuses to read; `git replace -d` removes one"
                )
            replacements[original] = bytes.fromhex(target)
    for original in replacements:
        current: bytes | None = original
        for _ in range(MAX_REPLACE_DEPTH):
            current = replacements.get(current) if current is not None else None
        if current is not None:  # git looks five times and finds a replacement each time
            raise SubstituteProblem(
                f"the replace refs of {original.hex()} form a chain deeper than"
                f" {MAX_REPLACE_DEPTH}, which git refuses to read (`git replace -l` lists them;"
                " `git replace -d` removes one)"
            )
    path = environ.get("GIT_GRAFT_FILE") or os.path.join(checkout.commondir, "info", "grafts")
    return Substitutes(replacements, _read_grafts(path))


def _ref_names_under(checkout: Checkout, base: str) -> set[str]:
    """The names below `base` (`refs/replace/`) there are, loose and packed, without `base`."""
    names: set[str] = set()
    folder = os.path.join(checkout.commondir, base)
    for where, _, files in os.walk(folder):
        relative = os.path.relpath(where, folder).replace(os.sep, "/")
        prefix = "" if relative == "." else relative + "/"
        names.update(prefix + name for name in files if not name.endswith(".lock"))
    packed = read_regular(os.path.join(checkout.commondir, "packed-refs"), _MAX_FILE) or b""
    wanted = b" " + base.encode("utf-8", "surrogateescape")
    for line in packed.splitlines():
        at = line.find(wanted)
        if at == 40 and not line.startswith((b"#", b"^")):
            names.add(line[41 + len(base) :].decode("utf-8", "surrogateescape"))
    return names


def _read_grafts(path: str) -> dict[bytes, tuple[bytes, ...]]:
    """The graft file's lines as git reads them (`read_graft_line`): a commit id, then its
    parents' ids, each after one blank; comments, empty lines and bad lines are passed over, and
    the first line for a commit wins."""
    data = read_regular(path, _MAX_FILE, follow=True)
    if data is None:
        if os.path.lexists(path) and not os.path.isdir(path):
            raise SubstituteProblem(f"{path} is no regular file cagr can read")
        return {}
    grafts: dict[bytes, tuple[bytes, ...]] = {}
    for raw in data.split(b"\n"):
        line = raw.rstrip(_SPACE)
        if not line or line.startswith(b"#"):
            continue
        ids = _graft_ids(line)
        if ids is not None and ids[0] not in grafts:
            grafts[ids[0]] = ids[1:]
    return grafts


def _graft_ids(line: bytes) -> tuple[bytes, ...] | None:
    """The ids of one graft line, or None when git calls it bad graft data."""
    if not _HEX_ID.match(line):
        return None
    ids = [bytes.fromhex(line[:40].decode("ascii"))]
    at = 40
    while at < len(line):
        if line[at] not in _SPACE:
            return None
        if not _HEX_ID.match(line, at + 1):
            return None
        ids.append(bytes.fromhex(line[at + 1 : at + 41].decode("ascii")))
        at += 41
    return tuple(ids)
