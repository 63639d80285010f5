"""Revisions to commits, as `git rev-parse --verify REV^{commit}` reads them.

A revision is a name or an object id, then any `~N`, `^N` and `^{}`/`^{commit}` suffixes. A
name is tried as `origin/<name>`, then as the local branch (the target of a change is the
branch it will merge into, and the remote's copy is the shared one), then by git's own rules:
`refs/<name>`, tags, branches, remotes. `HEAD` and `@` name HEAD; other `*_HEAD` names are read
from the git directory. When no ref matches, a name of hex digits is a commit id: the whole id,
or a unique prefix of at least four digits (`git describe` output works too). Only reads.
"""

from __future__ import annotations

import os
import re

from cagr_core.errors import ErrorWithFix
from cagr_core.values import value

from .files import read_regular
from .history import GraphDamaged, parse_commit
from .object_ids import is_sha
from .objects import COMMIT, TAG, TYPE_NAMES, DamagedObject
from .refs import ref_names
from .revision_syntax import SUFFIX, syntax_problem

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .repository import Repository

_PSEUDO_REF = re.compile(r"(?:[A-Z][A-Z_]*_)?HEAD\Z")
_HEX = re.compile(r"[0-9a-fA-F]{4,40}\Z")
_DESCRIBED = re.compile(r".-g([0-9a-fA-F]{4,40})\Z")
_SHORT = 7


class RevisionProblem(ErrorWithFix):
    """A revision that names no commit here; `fix` says what to do."""


@value
class Resolved:
    """A revision's commit, and what it resolved through.

    `ref` is the full ref when the whole revision is a ref; otherwise the revision as cagr read
    it: the name's ref (or the whole commit id it abbreviates) followed by the suffixes, so it
    says which commit it started from (`refs/remotes/origin/main~2`, `HEAD~1`, a full id).
    """

    ref: str
    sha: str


def resolve_revision(repo: Repository, text: str) -> Resolved:
    """The commit `text` names; RevisionProblem when it names none, or not exactly one."""
    base, suffixes = _split(text)
    start, sha = _resolve_name(repo, base, text)
    commit = _peel_to_commit(repo, sha, base, text)
    shallow = {sha.encode("ascii") for sha in repo.shallow} if suffixes else set()
    for match in SUFFIX.finditer(suffixes):
        steps, peel, nth = match.groups()
        if steps is not None:
            count = int(steps or "1")
            commit, count = _first_parents_in_graph(repo, commit, count)
            for _ in range(count):
                commit = _parent(repo, commit, 1, text, shallow)
        elif peel is not None:
            continue  # to the commit: syntax_problem refused any other peel
        elif int(nth or "1"):
            commit = _parent(repo, commit, int(nth or "1"), text, shallow)
    return Resolved(start + suffixes, commit.decode("ascii"))


def _split(text: str) -> tuple[str, str]:
    """(name, suffixes); RevisionProblem for syntax cagr does not read as one commit."""
    problem = syntax_problem(text)
    if problem is not None:
        raise RevisionProblem(*problem)
    cut = min((i for i in (text.find("~"), text.find("^")) if i >= 0), default=len(text))
    base, suffixes = text[:cut], text[cut:]
    return ("HEAD" if base == "@" else base), suffixes


def _name_candidates(name: str) -> list[str]:
    """The refs a name may mean, in the order they are tried."""
    candidates = [f"refs/remotes/origin/{name}", f"refs/heads/{name}"]
    if name.startswith("refs/"):
        candidates.insert(0, name)
    for rule in (
        "refs/{}",
        "refs/tags/{}",
        "refs/heads/{}",
        "refs/remotes/{}",
        "refs/remotes/{}/HEAD",
    ):
        ref = rule.format(name)
        if ref not in candidates:
            candidates.append(ref)
    return candidates


def _resolve_name(repo: Repository, name: str, text: str) -> tuple[str, bytes]:
    """(how the name is written in `Resolved.ref`, the object id it names)."""
    if is_sha(name.lower()):
        return name.lower(), name.lower().encode("ascii")
    if _PSEUDO_REF.match(name):
        sha = _pseudo_ref(repo, name)
        if sha is None:
            raise RevisionProblem(
                f"{name} does not exist in this repository{_within(name, text)}.",
                "Name an existing branch, tag or commit with --base.",
            )
        return name, sha
    tried = _name_candidates(name)
    for ref in tried:
        found = repo.ref(ref)
        if found is not None:
            return ref, found.encode("ascii")
    described = _DESCRIBED.search(name)
    hexes = name if _HEX.match(name) else described.group(1) if described else None
    if hexes is not None:
        abbreviated = _abbreviated(repo, hexes.lower(), name, text)
        if abbreviated is not None:
            return abbreviated.decode("ascii"), abbreviated
    raise _not_found(repo, name, text, tried, hexes is not None)


def _pseudo_ref(repo: Repository, name: str) -> bytes | None:
    """HEAD and the `*_HEAD` files in the git directory (FETCH_HEAD's first line counts)."""
    if name != "FETCH_HEAD":
        found = repo.ref(name)
        return None if found is None else found.encode("ascii")
    data = read_regular(os.path.join(repo.gitdir, name), 40) or b""
    first = data.decode("ascii", "replace")
    return first.encode("ascii") if is_sha(first) else None


def _abbreviated(repo: Repository, prefix: str, name: str, text: str) -> bytes | None:
    """The one commit-ish object whose id starts with `prefix`, as git disambiguates for a
    commit; None when no object does; RevisionProblem when several commits do."""
    matches = repo.objects.ids_with_prefix(prefix)
    if not matches:
        return None
    commits = [sha for sha in matches if _commit_of(repo, sha) is not None]
    if len(commits) == 1:
        return commits[0]
    if not commits and len(matches) == 1:
        return matches[0]  # not a commit: peeling says so
    listed = ", ".join(f"{sha.decode()[:12]} ({_kind(repo, sha)})" for sha in matches[:10])
    raise RevisionProblem(
        f"the short id {name}{_within(name, text)} is ambiguous: {len(matches)} objects start"
        f" with it ({listed}).",
        "Give more digits of the commit id with --base.",
    )


def _kind(repo: Repository, sha: bytes) -> str:
    try:
        return TYPE_NAMES.get(_object(repo, sha)[0], "unknown")
    except KeyError:
        return "missing"


def _commit_of(repo: Repository, sha: bytes) -> bytes | None:
    """The commit (hex id) an object peels to (tags followed), or None."""
    try:
        kind, raw = _object(repo, sha)
        for _ in range(64):  # tags of tags; git stops such chains too
            if kind != TAG:
                break
            if not raw.startswith(b"object ") or not is_sha(raw[7:47].decode("ascii", "replace")):
                raise _unreadable(DamagedObject(sha.decode("ascii"), "a tag that names no object"))
            sha = raw[7:47]
            kind, raw = _object(repo, sha)
    except KeyError:
        return None
    return sha if kind == COMMIT else None


def _object(repo: Repository, sha: bytes) -> tuple[int, bytes]:
    """One object (hex id): its type and raw content; KeyError when missing, RevisionProblem
    naming it when it is damaged."""
    text = sha.decode("ascii", "replace")
    if not is_sha(text):
        raise KeyError(text)  # a ref holding junk names no object here
    try:
        return repo.objects.read(bytes.fromhex(text))
    except DamagedObject as damaged:
        raise _unreadable(damaged) from None


def _unreadable(damaged: DamagedObject) -> RevisionProblem:
    return RevisionProblem("the target cannot be read:", damaged.advice)


def _peel_to_commit(repo: Repository, sha: bytes, name: str, text: str) -> bytes:
    commit = _commit_of(repo, sha)
    if commit is not None:
        return commit
    kind = _kind(repo, sha)
    if kind in {"missing", "tag"}:
        raise RevisionProblem(
            f"{name}{_within(name, text)} points at {sha.decode()[:_SHORT]}, which this clone"
            " does not have.",
            f"Fetch it: {_fetch_command(name)}.",
        )
    raise RevisionProblem(
        f"{name}{_within(name, text)} is a {kind}, not a commit.",
        "Name a commit with --base (a branch, tag, commit id or `REV~N`).",
    )


def _parents(repo: Repository, commit: bytes) -> list[bytes]:
    """A commit's parents (hex ids), from its raw object, as git parses it."""
    _, raw = _object(repo, commit)
    try:
        _, parents, _ = parse_commit(raw)
    except ValueError as error:
        why = f"not a well-formed commit ({error})"
        raise _unreadable(DamagedObject(commit.decode("ascii"), why)) from None
    return [parent.hex().encode("ascii") for parent in parents]


def _first_parents_in_graph(repo: Repository, commit: bytes, count: int) -> tuple[bytes, int]:
    """Up to `count` first-parent steps down from `commit` (hex) through the commit-graph, as
    git takes them (`HEAD~1500` reads no commit object): where it got, and the steps left for
    the objects (a commit the graph does not list, a root, a graph found damaged)."""
    graph = repo.commit_graph
    if graph is None or not count:
        return commit, count
    left = count
    try:
        position = graph.position(bytes.fromhex(commit.decode("ascii")))
        if position is None:
            return commit, count
        while left:
            parent = graph.first_parent(position)
            if parent is None:
                break  # a root: the objects say what is wrong
            position = parent
            left -= 1
        return graph.oid(position).hex().encode("ascii"), left
    except GraphDamaged:
        return commit, count  # every step from the objects instead


def _parent(repo: Repository, commit: bytes, nth: int, text: str, shallow: set[bytes]) -> bytes:
    """The commit's `nth` parent, as git sees it (a shallow clone's boundary has none)."""
    cut = commit in shallow
    parents = [] if cut else _parents(repo, commit)
    short = commit.decode("ascii")[:_SHORT]
    if len(parents) < nth:
        if cut:
            raise RevisionProblem(
                f"{text} reaches past {short}, where this shallow clone's history stops.",
                "Fetch more history: `git fetch --unshallow` (in CI: fetch-depth: 0).",
            )
        have = "no parent" if not parents else f"only {len(parents)} parent(s)"
        raise RevisionProblem(
            f"{text} does not exist: {short} has {have}.",
            "Name a commit that exists with --base (`git log --oneline` lists them).",
        )
    parent = _commit_of(repo, parents[nth - 1])
    if parent is None:
        raise RevisionProblem(
            f"{text} reaches {parents[nth - 1].decode()[:_SHORT]}, which this clone does not have.",
            "Fetch the full history: `git fetch --unshallow` or `git fetch origin`.",
        )
    return parent


def _within(name: str, text: str) -> str:
    return "" if name == text else f" (in {text})"


def _fetch_command(name: str) -> str:
    branch = None if is_sha(name) else remote_branch(name)
    return f"`git fetch origin {branch}`" if branch else "`git fetch origin`"


def remote_branch(name: str) -> str | None:
    """The branch `git fetch origin BRANCH` would fetch for a target name, if it could be one."""
    for prefix in ("refs/remotes/origin/", "refs/heads/", "origin/"):
        if name.startswith(prefix):
            name = name[len(prefix) :]
            break
    if name.startswith("refs/") or _PSEUDO_REF.match(name) or name.endswith((".lock", "/", ".")):
        return None
    return name or None


def _close_names(repo: Repository, name: str) -> list[str]:
    """Branches and tags named almost like `name`, as `--base` takes them (`main` for origin's
    main or a local branch, `v1.0`; `origin/main` when `name` names origin): a typo's likely
    meaning. Only the part after `origin/` is compared, so that prefix alone matches nothing."""
    remote = name.startswith("origin/")
    spellings: set[str] = set()
    for ref in ref_names(repo.checkout):
        if ref.startswith("refs/remotes/origin/"):
            spellings.add(ref[len("refs/remotes/origin/") :])
        elif not remote and not ref.startswith("refs/remotes/"):
            spellings.add(ref.split("/", 2)[2])
    spellings.discard("HEAD")
    typed = name.removeprefix("origin/")
    import difflib  # noqa: PLC0415  # only a revision not found needs it: checks do not

    close = difflib.get_close_matches(typed, sorted(spellings - {typed}), n=3, cutoff=0.75)
    return [f"origin/{c}" for c in close] if remote else close


def _not_found(
    repo: Repository, name: str, text: str, tried: list[str], hexes: bool
) -> RevisionProblem:
    within = _within(name, text)
    first = tried[: 3 if name.startswith("refs/") else 2]
    listed = f"tried {', '.join(first)}, then tags and other refs named {name}"
    branch = remote_branch(name)
    if hexes:
        return RevisionProblem(
            f"cannot find {name}{within}: no commit in this clone has an id starting with it,"
            " and no branch or tag has that name.",
            "Fetch the history that holds it (`git fetch origin`), or check the id.",
        )
    close = _close_names(repo, name)
    meant = ""
    if close:
        options = " or ".join(f"{c} (`--base {c}`)" for c in close)
        meant = f"Did you mean {options}? "
    if branch is None:
        return RevisionProblem(
            f"cannot find {name}{within} ({listed}).",
            f"{meant}Name an existing branch, tag or commit with --base.",
        )
    if meant:
        return RevisionProblem(
            f"cannot find the target branch {name}{within} ({listed}).",
            f"{meant}If {branch} is a branch on origin that this clone lacks, fetch it"
            f" (`git fetch origin {branch}`).",
        )
    return RevisionProblem(
        f"cannot find the target branch {name}{within} ({listed}).",
        f"Fetch it (`git fetch origin {branch}`) or name the target with --base.",
    )
