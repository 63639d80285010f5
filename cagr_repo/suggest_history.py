"""Suggested `requires` rules for files a repository commits beside their sources, where recent
history shows them changing together.

Three families: a lockfile with the manifests it locks (`package.json` -> `pnpm-lock.yaml`,
`pyproject.toml` -> `uv.lock`, `Cargo.toml` -> `Cargo.lock`, `go.mod` -> `go.sum`: the nearest
lockfile at or above a manifest, as package managers find a workspace's, and of those only the
folders the lockfile itself names where it names them: pnpm's `importers`, package-lock.json's
`packages`, yarn's `@workspace:` entries); a build output folder
(`dist/`, `build/`) with its sibling source folders; a Django app's models with a new migration.
Each is suggested only when at least three recent first-parent commits called for the companion
and at least half of them changed it too; the comment says the count.
A lockfile is called for by a commit that added a dependency (as `dependency_added` reads it),
not by any edit of the manifest (a version bump changes no lockfile).
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from cagr_config.globs import compile_matcher
from cagr_core.dependencies import Format, format_of
from cagr_core.values import field, replace, value
from cagr_git.log import first_parent_log
from cagr_git.objects import BLOB, DamagedObject, commit_tree, read_raw
from cagr_git.repository import Repository
from cagr_git.trees import TREE_MODE, TreeEntry, read_tree
from cagr_manifests import ManifestError, added_dependencies

from .pr_export import app_login
from .suggestion import Suggestion, example, examples, in_test_folder, manifest_change, slug

HISTORY_LIMIT = 300  # recent first-parent commits read: enough to show a habit, fast on big repos
_MIN_COMMITS = 3
_STRONG_COMMITS = 5
_MAX_MANIFEST_BYTES = 1 << 20
_MAX_LOCK_BYTES = 64 << 20
_LOCKS: dict[Format, tuple[tuple[str, str], ...]] = {  # lockfile, the command that writes it
    Format.PACKAGE_JSON: (
        ("pnpm-lock.yaml", "pnpm install"),
        ("package-lock.json", "npm install"),
        ("npm-shrinkwrap.json", "npm install"),
        ("yarn.lock", "yarn install"),
        ("bun.lock", "bun install"),
        ("bun.lockb", "bun install"),
    ),
    Format.PYPROJECT: (
        ("uv.lock", "uv lock"),
        ("poetry.lock", "poetry lock"),
        ("pdm.lock", "pdm lock"),
    ),
    Format.CARGO: (("Cargo.lock", "cargo update --workspace"),),
    Format.GO_MOD: (("go.sum", "go mod tidy"),),
}
_OUTPUTS = ("dist", "build")
_NOT_SOURCES = frozenset(("node_modules", "tests", "test", "__tests__", "docs"))


@value
class Commit:
    """One recent commit as the suggestions read it: the paths it changed, those it added, the
    manifests it added a dependency to, and whether a bot made it (an author whose name or
    address has `[bot]` in it, as GitHub names its apps: `github-actions[bot]`), with the bot's
    login where the author shows it (`bot`, "" otherwise)."""

    changed: frozenset[str]
    added: frozenset[str] = frozenset()
    dependencies: frozenset[str] = frozenset()
    by_bot: bool = False
    bot: str = ""


@value
class History:
    """Recent first-parent commits, newest first, and the folders (relative to its own) each
    lockfile at HEAD says it locks, where it says so."""

    commits: tuple[Commit, ...] = ()
    members: Mapping[str, frozenset[str]] = field(factory=dict)


_PNPM_IMPORTER = re.compile(r"^  (['\"]?)([^\s'\"].*?)\1:(?:\s.*)?$")
_YARN_WORKSPACE = re.compile(rb"@workspace:([^\",:\s]*)")


def lock_members(name: str, data: bytes) -> frozenset[str] | None:
    """The folders, relative to its own ("" for its own), a lockfile says it locks; None when
    its format does not say (yarn 1, bun, Cargo, uv, poetry, go.sum) or it cannot be read."""
    base = posixpath.basename(name)
    try:
        if base == "pnpm-lock.yaml":
            return _pnpm_members(data.decode("utf-8"))
        if base == "package-lock.json":
            packages = json.loads(data).get("packages")
            if not isinstance(packages, dict):
                return frozenset({""})  # lockfileVersion 1: one project, no workspaces
            return frozenset(key for key in packages if "node_modules" not in key.split("/"))
        if base == "yarn.lock" and b"__metadata:" in data:  # yarn 2+: workspaces are entries
            found = {m.decode("utf-8").strip("/") for m in _YARN_WORKSPACE.findall(data)}
            return frozenset("" if m == "." else m for m in found)
    except (UnicodeDecodeError, ValueError, AttributeError, RecursionError):
        return None
    return None


def _pnpm_members(text: str) -> frozenset[str]:
    """`importers:` keys (a workspace's projects); a lockfile without them locks one project."""
    members: set[str] = set()
    inside = False
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line.startswith(" "):
            inside = line.rstrip() == "importers:"
            continue
        match = _PNPM_IMPORTER.match(line) if inside else None
        if match:
            member = match.group(2)
            members.add("" if member == "." else member.strip("/"))
    return frozenset(members or {""})


def locked_manifests(paths: Iterable[str]) -> set[str]:
    """The tracked manifests that have a lockfile at or above them (whose history is read)."""
    return {m for group in _lock_groups(sorted(paths)).values() for m in group}


def commit_of(
    changes: Iterable[tuple[str, bool, bool]],
    read: Callable[[str, bool], bytes | None],
    wanted: set[str],
) -> Commit:
    """A commit from its changes (path, had it before, has it after); `read(path, after)` gives
    a side's content (None: unreadable) and is asked only for the `wanted` manifests."""
    changed, added, dependencies = set(), set(), set()
    for path, before, after in changes:
        changed.add(path)
        if after and not before:
            added.add(path)
        manifest = format_of(path)
        if path in wanted and after and manifest is not None:
            old = read(path, False) if before else None
            new = read(path, True)
            if new is None or (before and old is None):
                continue
            try:
                if added_dependencies(manifest, old, new).added:
                    dependencies.add(path)
            except ManifestError:
                continue  # a side that does not parse: no evidence either way
    return Commit(frozenset(changed), frozenset(added), frozenset(dependencies))


def read_history(repo: Repository, paths: Sequence[str], limit: int = HISTORY_LIMIT) -> History:
    """Up to `limit` recent first-parent commits from HEAD (none on an unborn branch), with
    the dependencies added to the tracked `paths`' locked manifests."""
    head = repo.ref("HEAD")
    if head is None:
        return History()
    wanted = locked_manifests(paths)
    commits = []
    for entry in first_parent_log(repo, head, limit):
        sides = {
            path.decode("utf-8", "surrogateescape"): (old, new) for path, old, new in entry.changes
        }
        changes = [(path, old is not None, new is not None) for path, (old, new) in sides.items()]
        commit = commit_of(changes, _blob_reader(repo, sides), wanted)
        commits.append(
            replace(commit, by_bot=b"[bot]" in entry.author, bot=app_login(entry.author))
        )
    return History(tuple(commits), _members_at(repo, head, _lock_groups(paths)))


def _members_at(repo: Repository, head: str, groups: Iterable[str]) -> dict[str, frozenset[str]]:
    """What each lockfile at `head` says it locks, where it says so."""
    members = {}
    for lock in groups:
        data = _file_at(repo, head, lock)
        found = lock_members(lock, data) if data is not None else None
        if found is not None:
            members[lock] = found
    return members


def _file_at(repo: Repository, commit: str, path: str) -> bytes | None:
    """A regular file's content in `commit` (None: absent, not a file, too large, unreadable)."""
    try:
        tree = commit_tree(repo.objects, commit)
        *folders, name = path.split("/")
        for folder in folders:
            entry = read_tree(repo.objects, tree).get(folder.encode("utf-8", "surrogateescape"))
            if entry is None or entry[0] != TREE_MODE:
                return None
            tree = entry[1]
        entry = read_tree(repo.objects, tree).get(name.encode("utf-8", "surrogateescape"))
        if entry is None or entry[0] not in (0o100644, 0o100755):
            return None
        data = read_raw(repo.objects, entry[1], BLOB)
    except (KeyError, ValueError, DamagedObject):
        return None
    return data if len(data) <= _MAX_LOCK_BYTES else None


def _blob_reader(
    repo: Repository, sides: dict[str, tuple[TreeEntry | None, TreeEntry | None]]
) -> Callable[[str, bool], bytes | None]:
    """Reads a changed regular file's content on one side of a commit (None: none to read)."""

    def read(path: str, after: bool) -> bytes | None:
        side = sides[path][1 if after else 0]
        if side is None or side[0] not in (0o100644, 0o100755):
            return None
        try:
            data = read_raw(repo.objects, side[1], BLOB)
        except (KeyError, DamagedObject):
            return None
        return data if len(data) <= _MAX_MANIFEST_BYTES else None

    return read


def _count(
    history: History, fired: Callable[[Commit], bool], met: Callable[[Commit], bool]
) -> tuple[int, int]:
    """(commits that fired, those of them that met the companion)."""
    fired_in = [c for c in history.commits if fired(c)]
    return len(fired_in), sum(1 for c in fired_in if met(c))


def _enough(fired: int, met: int) -> bool:
    return fired >= _MIN_COMMITS and 2 * met >= fired


def _changes(globs: list[str]) -> Callable[[Commit], bool]:
    """Whether a commit changed a path the globs match."""
    matcher = compile_matcher(globs)
    return lambda commit: any(matcher.matches(p) for p in commit.changed)


def _adds(globs: list[str]) -> Callable[[Commit], bool]:
    """Whether a commit added a path the globs match."""
    matcher = compile_matcher(globs)
    return lambda commit: any(matcher.matches(p) for p in commit.added)


# Lockfiles


def _lock_groups(
    paths: Sequence[str], members: Mapping[str, frozenset[str]] | None = None
) -> dict[str, list[str]]:
    """Each tracked lockfile with the tracked manifests it locks: those whose nearest lockfile
    of their kind (in their folder or above) it is, and that it names where it names them."""
    tracked = set(paths)
    groups: dict[str, list[str]] = {}
    for path in paths:
        manifest = format_of(path)
        if manifest not in _LOCKS or posixpath.basename(path) != manifest.value:
            continue
        folder = posixpath.dirname(path)
        while True:
            lock = next(
                (
                    posixpath.join(folder, name)
                    for name, _ in _LOCKS[manifest]
                    if posixpath.join(folder, name) in tracked
                ),
                None,
            )
            if lock is not None:
                named = (members or {}).get(lock)
                inside = posixpath.relpath(posixpath.dirname(path) or ".", folder or ".")
                if named is None or ("" if inside == "." else inside) in named:
                    groups.setdefault(lock, []).append(path)
                break
            if not folder:
                break
            folder = posixpath.dirname(folder)
    return groups


def _since(history: History, path: str) -> History:
    """The commits since `path` was last added: before it, no commit could change it (a project
    that moved from yarn.lock to pnpm-lock.yaml)."""
    for index, commit in enumerate(history.commits):
        if path in commit.added:
            return History(history.commits[: index + 1])
    return history


def _lockfile(
    lock: str, group: list[str], others: list[str], unlocked: list[str], history: History
) -> Suggestion | None:
    """The rule for one lockfile, when its manifests' dependency additions mostly changed it."""
    recent = _since(history, lock)
    span = (
        f"of the {len(recent.commits)} first-parent commits since {lock} was added"
        if len(recent.commits) < len(history.commits)
        else f"of the last {len(history.commits)} first-parent commits"
    )
    history = recent

    def changed_lock(commit: Commit) -> bool:
        return lock in commit.changed

    def adds(manifests: Iterable[str]) -> Callable[[Commit], bool]:
        chosen = set(manifests)
        return lambda commit: bool(commit.dependencies & chosen)

    # A manifest whose additions did not change this lockfile is evidently locked elsewhere.
    excluded = []
    for manifest in group:
        fired, met = _count(history, adds([manifest]), changed_lock)
        if fired and 2 * met < fired:
            excluded.append(manifest)
    included = [m for m in group if m not in excluded]
    fired, met = _count(history, adds(included), changed_lock)
    if not included or not _enough(fired, met):
        return None
    folder, name = posixpath.split(lock)
    kind = posixpath.basename(included[0])
    ecosystem = format_of(kind)
    assert ecosystem is not None
    command = next(c for n, c in _LOCKS[ecosystem] if n == name)
    if len(included) == 1:
        paths, ignores = [f"/{included[0]}"], []
    else:
        paths = [f"/{folder}/**/{kind}" if folder else kind]
        below = f"{folder}/" if folder else ""
        # Manifests of this kind below that another lockfile locks: that lockfile's folders.
        nested = sorted(
            {
                posixpath.dirname(o)
                for o in others
                if o.startswith(below) and posixpath.basename(o) == kind
            }
        )
        ignores = [f"/{n}/**" for n in nested if n != folder] + [f"/{m}" for m in excluded]
        ignores += _outside(folder, included, [u for u in unlocked if u.startswith(below)])
    sample = included[0]
    what = f"one of the {len(included)} {kind} files it locks" if len(included) > 1 else sample
    rule: dict[str, Any] = {
        "id": f"lockfile-{slug(lock)}",
        "kind": "requires",
        "paths": paths,
        "when": "dependency_added",
        "require": [f"/{lock}"],
        "reason": f"Run `{command}` and include {lock} in this change.",
        "examples": examples(
            example(manifest_change(sample)),
            example(manifest_change(sample), {"path": lock, "status": "M"}),
        ),
    }
    if ignores:
        rule["ignores"] = ignores
    return Suggestion(
        f"{lock} changed in {met} of the {fired} recent commits that added a dependency to"
        f" {what} ({span})",
        rule,
    )


def _outside(folder: str, members: list[str], unlocked: list[str]) -> list[str]:
    """Ignores for the manifests below `folder` that its lockfile does not lock: for each, the
    highest folder below `folder` that holds none of the `members`."""
    ignores: set[str] = set()
    for manifest in unlocked:
        where = posixpath.dirname(manifest)
        parts = where.split("/") if where else []
        start = len(folder.split("/")) if folder else 0
        for depth in range(start + 1, len(parts) + 1):
            prefix = "/".join(parts[:depth]) + "/"
            if not any(m.startswith(prefix) for m in members):
                ignores.add(f"/{prefix}**")
                break
    return sorted(ignores)


def _lockfiles(paths: Sequence[str], history: History) -> list[Suggestion]:
    groups = _lock_groups(paths, history.members)
    grouped = {m for group in groups.values() for m in group}
    unlocked = [p for p in paths if p not in grouped and posixpath.basename(p) == "package.json"]
    found = []
    for lock in sorted(groups):
        others = [m for other, group in groups.items() if other != lock for m in group]
        suggestion = _lockfile(lock, groups[lock], others, unlocked, history)
        if suggestion is not None:
            found.append(suggestion)
    return found


# Build outputs


def _output_folder(path: str) -> str | None:
    """The first `dist/` or `build/` folder on a path, if any."""
    if "dist/" not in path and "build/" not in path:
        return None  # most paths, at once
    parts = path.split("/")
    for index, part in enumerate(parts[:-1]):
        if part in _OUTPUTS:
            return "/".join(parts[: index + 1])
    return None


def _build_outputs(paths: Sequence[str], history: History) -> list[Suggestion]:
    """A tracked `dist/` or `build/` folder with the sibling folders whose changes mostly
    changed it too."""
    outputs = sorted({out for out in map(_output_folder, paths) if out is not None})
    parents = {posixpath.dirname(out) for out in outputs}
    folders: dict[str, set[str]] = {}  # an output's parent -> its child folders
    for path in paths if parents else ():
        parts = path.split("/")
        for depth in range(len(parts) - 1):  # each folder on the path, with the child below it
            prefix = "/".join(parts[:depth])
            if prefix in parents:
                folders.setdefault(prefix, set()).add(parts[depth])
    found = []
    for out in outputs:
        parent = posixpath.dirname(out)
        wrote = _changes([f"/{out}/**"])
        sources, counts = [], []
        for child in sorted(folders.get(parent, set()) - {posixpath.basename(out)} - _NOT_SOURCES):
            source = f"{parent}/{child}" if parent else child
            fired, met = _count(history, _changes([f"/{source}/**"]), wrote)
            if _enough(fired, met):
                sources.append(source)
                counts.append(f"{source}/ in {met} of {fired}")
        if sources:
            found.append(_build_suggestion(out, sources, counts, len(history.commits)))
    return found


def _build_suggestion(out: str, sources: list[str], counts: list[str], read: int) -> Suggestion:
    source = f"{sources[0]}/example.js"
    return Suggestion(
        f"{out}/ changed with {', '.join(counts)} recent commits that changed those sources"
        f" (of the last {read} first-parent commits)",
        {
            "id": f"build-output-{slug(out)}",
            "kind": "requires",
            "paths": [f"/{s}/**" for s in sources],
            "require": [f"/{out}/**"],
            "reason": f"Run the build that writes {out}/ and include its output in this change.",
            "examples": examples(
                example({"path": source, "status": "M"}),
                example(
                    {"path": source, "status": "M"}, {"path": f"{out}/bundle.js", "status": "M"}
                ),
            ),
        },
    )


# Django models and migrations


def _django_apps(paths: Sequence[str]) -> list[str]:
    """Folders with `migrations/*.py` beside `models.py` or a `models/` package."""
    migrations, models = set(), set()
    for path in paths:
        if "migrations/" in path or "models" in path:
            folder, _, base = path.rpartition("/")
            parent, _, name = folder.rpartition("/")
            if name == "migrations" and base.endswith(".py"):
                migrations.add(parent)
            elif base == "models.py":
                models.add(folder)
            elif name == "models":
                models.add(parent)
    return sorted(migrations & models)


def _migrations(paths: Sequence[str], history: History) -> list[Suggestion]:
    found = []
    for app in _django_apps(paths):
        prefix = f"{app}/" if app else ""
        models = _changes([f"/{prefix}models.py", f"/{prefix}models/**"])
        fired, met = _count(history, models, _adds([f"/{prefix}migrations/*.py"]))
        # Strong evidence only: many model edits change no field (saleor: 3 of 6 did).
        if fired >= _STRONG_COMMITS and 5 * met >= 4 * fired:
            found.append(_migration_suggestion(app, prefix, fired, met, len(history.commits)))
    return found


def _migration_suggestion(app: str, prefix: str, fired: int, met: int, read: int) -> Suggestion:
    model = f"{prefix}models.py"
    return Suggestion(
        f"a migration was added to {prefix}migrations/ in {met} of the {fired} recent commits"
        f" that changed {app or 'the'} models (of the last {read} first-parent commits)",
        {
            "id": f"migration-for-{slug(app)}-models",
            "kind": "requires",
            "paths": [f"/{prefix}models.py", f"/{prefix}models/**"],
            "require": [{"path": f"/{prefix}migrations/*.py", "status": "added"}],
            "reason": "Run `python manage.py makemigrations` and include the new migration in"
            " this change.",
            "note": "A model edit that changes no field needs no migration, so the rule stays a"
            " warning.",
            "severity": "warn",
            "examples": examples(
                example({"path": model, "status": "M"}),
                example(
                    {"path": model, "status": "M"},
                    {"path": f"{prefix}migrations/9999_example.py", "status": "A"},
                ),
            ),
        },
    )


# Co-change: any two globs (a file, or a folder's files of one extension) that recent commits
# changed together.


_COCHANGE_MIN = 8  # commits that changed the trigger
_COCHANGE_MAX_ITEMS = 40  # a commit changing more globs is a sweep, not evidence of a pair
_COCHANGE_RULES = 5
_LOCK_NAMES = frozenset(name for locks in _LOCKS.values() for name, _ in locks)


def _cochange_items(path: str, groups: frozenset[str] | None = None) -> tuple[str, ...]:
    """The globs a changed path counts for: itself, and its folder's files of its extension
    where `groups` (None: any) holds that glob; none for what other suggestions cover
    (manifests, lockfiles, build outputs, migrations), nor in a tool's dot-folder."""
    folder, _, name = path.rpartition("/")
    if (
        format_of(path) is not None
        or name in _LOCK_NAMES
        or _output_folder(path) is not None
        or "migrations/" in path
        or path.startswith(".")  # a tool's own folder (.changeset/, .github/): not the author's
    ):
        return ()
    extension = posixpath.splitext(name)[1]
    group = (f"/{folder}/*{extension}" if folder else f"/*{extension}") if extension else None
    if group is None or (groups is not None and group not in groups):
        return (f"/{path}",)
    return (f"/{path}", group)


def _folder_of(item: str) -> str:
    return posixpath.dirname(item)


def _in_docs(item: str) -> bool:
    """Whether a glob is inside a documentation folder (`docs/`, `doc/`, at any depth)."""
    return any(part in ("docs", "doc") for part in item.strip("/").split("/")[:-1])


def _cochanges(paths: Sequence[str], history: History) -> list[Suggestion]:
    """`requires` rules for the pairs of globs where at least eight recent commits changed the
    first and nearly all of them (19 in 20) changed the second too: a habit four in five
    commits keep is a chore the fifth rightly skips. Never one a change of tests alone fires
    (a new test needs no other change) or that asks for tests (a sibling rule's question: a
    refactor or a removal changes no test), never a glob in a tool's own dot-folder
    (`.changeset/`, kept by a release bot), never a documentation file asking for a change outside
    the documentation (docs follow code: a typo fix needs no code), and never a glob whose
    commits mostly add a file afresh: a note per change (a changeset, a news fragment) is the
    author's call, which history cannot make; a file kept in step is not. A bot's commit can
    break a habit but never show one: a release bot's `Version Packages` keeps every package's
    CHANGELOG.md in step by machine, which no person is asked to do, while the rule would still
    judge a translation bot's commits that change one file alone."""
    # A folder's glob only where it holds two files or more: else the file says it better.
    seen: dict[str, int] = {}
    for path in paths:
        for item in _cochange_items(path)[1:]:
            seen[item] = seen.get(item, 0) + 1
    groups = frozenset(item for item, files in seen.items() if files > 1)
    tracked = {item for path in paths for item in _cochange_items(path, groups)}
    per_commit = []
    counts: dict[str, int] = {}
    added: dict[str, int] = {}  # commits that only added files of the glob
    for commit in history.commits:
        items, kept = set(), set()
        for path in commit.changed:
            globs = [i for i in _cochange_items(path, groups) if i in tracked]
            items.update(globs)
            if path not in commit.added:
                kept.update(globs)
        per_commit.append(set() if commit.by_bot else items)  # no pair of a bot's shows a habit
        for item in items:
            counts[item] = counts.get(item, 0) + 1
            if item not in kept:
                added[item] = added.get(item, 0) + 1
    both: dict[tuple[str, str], int] = {}
    for items in per_commit:
        frequent = sorted(i for i in items if counts[i] >= _COCHANGE_MIN)
        if len(frequent) > _COCHANGE_MAX_ITEMS:
            continue
        for index, first in enumerate(frequent):
            for second in frequent[index + 1 :]:
                if _folder_of(first) != _folder_of(second):  # not two files of one folder
                    both[first, second] = both.get((first, second), 0) + 1
    candidates = []
    for (first, second), met in both.items():
        for trigger, companion in ((first, second), (second, first)):
            fired = counts[trigger]
            if (
                fired >= _COCHANGE_MIN
                and 20 * met >= 19 * fired
                and not in_test_folder(_folder_of(trigger).lstrip("/"))
                and not in_test_folder(_folder_of(companion).lstrip("/"))
                and (_in_docs(companion) or not _in_docs(trigger))
                and 2 * added.get(companion, 0) <= counts[companion]
                and 2 * added.get(trigger, 0) <= fired
            ):
                # More commits first, then the surer (fewer commits fired it in vain).
                candidates.append((-met, fired, trigger, companion))
    chosen: list[tuple[str, str, int, int]] = []
    for minus_met, _, trigger, companion in sorted(candidates):
        if any(_covers(t, trigger) and _covers(c, companion) for t, c, _, _ in chosen) or any(
            {t, c} == {trigger, companion} for t, c, _, _ in chosen
        ):
            continue
        chosen.append((trigger, companion, -minus_met, counts[trigger]))
        if len(chosen) == _COCHANGE_RULES:
            break
    found = [_cochange_suggestion(*pair, len(history.commits)) for pair in chosen]
    return [
        replace(s, rule={**s.rule, "id": f"{s.rule['id']}-{index + 1}"})
        if any(o.rule["id"] == s.rule["id"] for o in found[:index])
        else s
        for index, s in enumerate(found)
    ]


def _covers(chosen: str, item: str) -> bool:
    """Whether a chosen glob already stands for `item` (itself, or the folder glob of a file)."""
    if chosen == item:
        return True
    folder, _, pattern = chosen.rpartition("/")
    return pattern.startswith("*") and _folder_of(item) == folder and item.endswith(pattern[1:])


def _sample(item: str) -> str:
    """A path the glob matches, for the examples."""
    path = item.lstrip("/")
    return path.replace("*", "example") if "*" in path else path


def _cochange_suggestion(
    trigger: str, companion: str, met: int, fired: int, read: int
) -> Suggestion:
    shown = companion.lstrip("/")
    return Suggestion(
        f"{shown} changed in {met} of the {fired} recent commits that changed"
        f" {trigger.lstrip('/')} (of the last {read} first-parent commits)",
        {
            "id": f"co-change-{slug(trigger.replace('*', 'all'))}",
            "kind": "requires",
            "paths": [trigger],
            "require": [companion],
            "reason": f"Change {shown} with {trigger.lstrip('/')}, as this project does.",
            "examples": examples(
                example({"path": _sample(trigger), "status": "M"}),
                example(
                    {"path": _sample(trigger), "status": "M"},
                    {"path": _sample(companion), "status": "M"},
                ),
            ),
        },
    )


def suggest_from_history(paths: Sequence[str], history: History) -> list[Suggestion]:
    """The `requires` rules the sorted tracked `paths` and recent `history` support."""
    if not history.commits:
        return []
    return [
        *_lockfiles(paths, history),
        *_build_outputs(paths, history),
        *_migrations(paths, history),
        *_cochanges(paths, history),
    ]
