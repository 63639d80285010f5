"""How a change edits cagr's own configuration: the rules at the merge base, read from git
objects, against the rules in force.

A branch can switch off its own rules (delete cagr.toml, or name itself the protected branch):
that follows from reading the checkout's configuration. It is made visible instead: a report on
such a change says which rules it adds, removes or changes, and which settings.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

from cagr_config.sources import (
    FRAGMENTS,
    NOT_CONFIG,
    PYPROJECT,
    ROOT_FILE,
    LinkProblem,
    fragment_order,
    is_config_source,
    resolve_links,
)
from cagr_core.changes import ChangeSet, Range
from cagr_core.report import ConfigChanges, UncommittedConfig
from cagr_git.discover import Checkout
from cagr_git.objects import BLOB, DamagedObject, commit_tree, read_raw
from cagr_git.refs import head_ref
from cagr_git.repository import Repository
from cagr_git.trees import TREE_MODE, read_tree

from .config import RepoConfig
from .config_files import NOT_LOWER_CASE, ConfigFiles

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cagr_config.document import AnyRule, Config

REGULAR_MODES = (0o100644, 0o100755)
_SETTINGS = (
    "git.protected_branch",
    "review.pr_sections",
    "stack.on_turn_end",
    "stack.ci",
    "guards.disable",
)


def config_changes(
    repo: Repository, base: str, config: RepoConfig, changes: ChangeSet
) -> ConfigChanges | None:
    """What the change does to cagr's configuration (None: it edits no config file, or edits
    one without changing any rule or setting)."""
    files = tuple(sorted(c.path for c in changes.changes if is_config_source(c.path)))
    if not files:
        return None
    try:
        at_base = config_files_at(repo, base)
    except (KeyError, DamagedObject) as error:
        return ConfigChanges(files, note=f"its rules at the merge base cannot be read ({error})")
    # The config model is loaded only for a change that edits the configuration.
    from cagr_config.load import combine_sources  # noqa: PLC0415

    before, issues = combine_sources(at_base.sources(), at_base.problems)
    if issues:
        return ConfigChanges(
            files, note="its rules at the merge base are not valid, so they cannot be compared"
        )
    old, new = _digests(before.config.all_rules()), _digests(config.config.all_rules())
    found = ConfigChanges(
        files,
        added=tuple(sorted(new.keys() - old.keys())),
        removed=tuple(sorted(old.keys() - new.keys())),
        changed=tuple(sorted(i for i in old.keys() & new.keys() if old[i] != new[i])),
        settings=tuple(
            k for k in _SETTINGS if _value(before.config, k) != _value(config.config, k)
        ),
    )
    if not (found.added or found.removed or found.changed or found.settings):
        return None  # e.g. pyproject.toml edited outside [tool.cagr], or only reformatted
    return found


def uncommitted_config(head: RepoConfig, working: RepoConfig) -> UncommittedConfig | None:
    """How the working tree's configuration differs from HEAD's, which judges a committed check
    (None: no rule or setting differs)."""
    old, new = _digests(head.config.all_rules()), _digests(working.config.all_rules())
    found = UncommittedConfig(
        added=tuple(sorted(new.keys() - old.keys())),
        removed=tuple(sorted(old.keys() - new.keys())),
        changed=tuple(sorted(i for i in old.keys() & new.keys() if old[i] != new[i])),
        settings=tuple(k for k in _SETTINGS if _value(head.config, k) != _value(working.config, k)),
    )
    return found if found != UncommittedConfig() else None


def _digests(rules: Sequence[AnyRule]) -> dict[str, str]:
    from cagr_config.validate import unstructure_rule  # noqa: PLC0415  # only when configs differ

    return {
        rule.id: hashlib.sha256(
            json.dumps(unstructure_rule(rule), sort_keys=True, ensure_ascii=True).encode()
        ).hexdigest()
        for rule in rules
    }


def _value(config: Config, key: str) -> object:
    table, _, name = key.partition(".")
    return getattr(getattr(config, table), name)


def config_files_at(repo: Repository, commit: str) -> ConfigFiles:
    """The config sources in `commit`'s tree, read, in source order; entries that are no
    regular file are problems. KeyError or DamagedObject when the objects cannot be read."""
    files = ConfigFiles()
    for name, entry in config_entries_at(repo, commit):
        if not name.endswith(".toml") and name != FRAGMENTS and name.lower().endswith(".toml"):
            files.problems.append((name, NOT_LOWER_CASE))
            continue
        if entry[0] not in REGULAR_MODES:
            files.problems.append((name, _not_a_file(repo, commit, name, entry)))
            continue
        files.read.append((name, read_raw(repo.objects, entry[1], BLOB)))
    return files


def _not_a_file(repo: Repository, commit: str, name: str, entry: tuple[int, bytes]) -> str:
    if entry[0] == TREE_MODE:
        return "is a directory, not a TOML file; rename it"
    if entry[0] != LINK_MODE:
        return "is not a regular file"
    try:
        _TreeLinks(repo, commit).entry(name)
    except LinkProblem as problem:
        return str(problem)
    return "is a link to nothing; fix or remove it"


LINK_MODE = 0o120000


class _TreeLinks:
    """Paths of one commit's tree with their links followed as on disk (resolve_links), so a
    committed check reads the config files a checkout of the commit shows."""

    def __init__(self, repo: Repository, commit: str) -> None:
        self.store = repo.objects
        self.root = commit_tree(self.store, commit)

    def _lookup(self, path: str) -> tuple[int, bytes] | None:
        """The entry at `path`, links not followed."""
        entry: tuple[int, bytes] | None = (TREE_MODE, self.root)
        for part in path.split("/"):
            if entry is None or entry[0] != TREE_MODE:
                return None
            entry = read_tree(self.store, entry[1]).get(part.encode("utf-8", "surrogateescape"))
        return entry

    def _read_link(self, path: str) -> str | None:
        entry = self._lookup(path)
        if entry is None or entry[0] != LINK_MODE:
            return None
        return read_raw(self.store, entry[1], BLOB).decode("utf-8", "surrogateescape")

    def entry(self, path: str) -> tuple[int, bytes] | None:
        """The entry `path` leads to (None: nothing there); LinkProblem as resolve_links."""
        return self._lookup(resolve_links(path, self._read_link))


def config_entries_at(repo: Repository, commit: str) -> list[tuple[str, tuple[int, bytes]]]:
    """The config sources in `commit`'s tree as (name, (mode, raw id)), in source order,
    without reading them. A link is followed as a checkout shows it (inside the repository
    only): its entry is the one it leads to, or stays the link's when it leads nowhere."""
    links = _TreeLinks(repo, commit)

    def followed(name: str, entry: tuple[int, bytes]) -> tuple[int, bytes]:
        if entry[0] != LINK_MODE:
            return entry
        try:
            return links.entry(name) or entry
        except LinkProblem:
            return entry

    store = repo.objects
    root = read_tree(store, links.root)
    entries = [
        (name, followed(name, at))
        for name in (ROOT_FILE, PYPROJECT)
        if (at := root.get(name.encode())) is not None
    ]
    fragments = root.get(FRAGMENTS.encode())
    fragments = followed(FRAGMENTS, fragments) if fragments is not None else None
    if fragments is not None and fragments[0] == LINK_MODE:
        entries.append((FRAGMENTS, fragments))  # a link out or to nothing: a problem to say
    if fragments is not None and fragments[0] == TREE_MODE:
        found: list[tuple[str, tuple[int, bytes]]] = []
        stack = [(FRAGMENTS, fragments[1])]
        seen = {fragments[1]}
        while stack:
            folder, tree = stack.pop()
            for raw_name, child in read_tree(store, tree).items():
                name = f"{folder}/{raw_name.decode('utf-8', 'surrogateescape')}"
                if (name + "/").startswith(NOT_CONFIG):
                    continue
                if name.lower().endswith(".toml"):  # .TOML: a problem to say (config_files_at)
                    found.append((name, followed(name, child)))
                    continue
                mode, oid = followed(name, child)
                if mode == TREE_MODE and oid not in seen:
                    seen.add(oid)  # a link back to a folder already read
                    stack.append((name, oid))
        order = dict(found)
        entries.extend((name, order[name]) for name in fragment_order(list(order)))
    return entries


def self_target(
    checkout: Checkout, range_: Range | None, protected_branch: str | None, base: str | None
) -> ConfigChanges | None:
    """A note when the checkout's own `[git].protected_branch` (not --base) names the branch
    being checked: the change is then compared with itself, and no rule can fire."""
    if base is not None or protected_branch is None or range_ is None:
        return None
    branch = head_ref(checkout)
    if branch is None or not branch.startswith("refs/heads/"):
        return None
    name = branch.removeprefix("refs/heads/")
    if range_.target_ref not in (branch, f"refs/remotes/origin/{name}"):
        return None
    return ConfigChanges(
        (),
        settings=("git.protected_branch",),
        note=(
            f"[git] protected_branch names {protected_branch}, the branch being checked, so the"
            " change is compared with itself and no rule can fire"
        ),
    )
