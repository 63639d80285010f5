"""Which branch a change targets, and which rule chose it.

Precedence: the caller's base (`--base`, or CI's pull-request target), then the configured
`[git] protected_branch`, then the remote's default branch (as the caller knows it, e.g. from a
CI event, else the branch `origin/HEAD` names, as `git clone` records it), then `main`.

The last two are guesses: no option named them. A guessed target that is the branch being
checked (a clone made while its source was on `feature` records `origin/HEAD` ->
`origin/feature`; a schedule on the default branch) would compare the branch with its own copy:
only its unpushed commits, or nothing, would be judged. So every check refuses it: the
branch's copy under any remote (its upstream, when that has its name) is no target, nor the
local branch where a committed check would be empty (`own_branch`), and the
range is unchecked with the fix (`--base`, or `[git] protected_branch`, which is no guess).
"""

from __future__ import annotations

from cagr_git.discover import Checkout
from cagr_git.refs import head_ref, remote_default_branch

DEFAULT_TARGET = "main"
BY_BASE_OPTION = "--base"
BY_PROTECTED_BRANCH = "[git] protected_branch"
BY_ORIGIN_HEAD = "origin/HEAD"
BY_DEFAULT = f"default {DEFAULT_TARGET}"
BY_PUSH_BEFORE = "the push's previous tip"  # CI: a push judges before -> after


class TargetChoice:
    """The target's name (a branch name or any revision) and the rule that chose it.

    A plain class, not a NamedTuple: the PR gate imports this module, and typing costs it time.
    """

    __slots__ = ("chosen_by", "guessed", "name")

    def __init__(self, name: str, chosen_by: str, guessed: bool = False) -> None:
        self.name = name
        self.chosen_by = chosen_by
        self.guessed = guessed  # no option named it: the remote's default branch, or main

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TargetChoice):
            return NotImplemented
        return (self.name, self.chosen_by, self.guessed) == (
            other.name,
            other.chosen_by,
            other.guessed,
        )

    def __hash__(self) -> int:
        return hash((self.name, self.chosen_by, self.guessed))

    def __repr__(self) -> str:
        return f"TargetChoice({self.name!r}, {self.chosen_by!r}, guessed={self.guessed!r})"


def choose_target(
    checkout: Checkout,
    base: str | None,
    protected_branch: str | None,
    base_chosen_by: str = BY_BASE_OPTION,
    remote_default: TargetChoice | None = None,
) -> TargetChoice:
    """`base` (labelled `base_chosen_by`), then `protected_branch`, then the remote's default
    branch (`remote_default` when the caller knows it, else origin/HEAD's), then main; the
    last two are marked `guessed`."""
    if base:
        return TargetChoice(base, base_chosen_by)
    if protected_branch:
        return TargetChoice(protected_branch, BY_PROTECTED_BRANCH)
    if remote_default is not None:
        return remote_default
    origin_head = remote_default_branch(checkout)
    if origin_head is not None:
        return TargetChoice(origin_head, BY_ORIGIN_HEAD, guessed=True)
    return TargetChoice(DEFAULT_TARGET, BY_DEFAULT, guessed=True)


def missing_target_advice(chosen_by: str | None) -> str:
    """What to add to the fix for a target that cannot be found, by the rule that chose it."""
    if chosen_by == BY_DEFAULT:
        return (
            " No --base, no [git] protected_branch and no origin/HEAD named a target, so cagr"
            f" tried {DEFAULT_TARGET}: name the branch changes merge into with --base or"
            " [git] protected_branch, or record the remote's default branch"
            " (`git remote set-head origin --auto`)."
        )
    if chosen_by == BY_ORIGIN_HEAD:
        return (
            " origin/HEAD named this branch; if the remote's default branch changed, update it"
            " with `git remote set-head origin --auto`."
        )
    if chosen_by == BY_PROTECTED_BRANCH:
        return " The name comes from [git] protected_branch in cagr's configuration."
    if chosen_by is not None and chosen_by.startswith(BY_PUSH_BEFORE):
        return (
            " This run judges a push from the branch's previous tip: after a force push that"
            " commit is gone, so what the push changed cannot be known; judge the branch"
            " against the branch it merges into with --base. In a shallow clone, fetch the"
            " full history first."
        )
    return ""


def own_branch(checkout: Checkout, head_branch: str | None = None) -> str | None:
    """The branch being checked: `head_branch` when the caller knows it (CI, whose checkout
    is often a detached HEAD), else the branch HEAD is on (None: detached)."""
    if head_branch:
        return head_branch
    ref = head_ref(checkout)
    return ref.removeprefix("refs/heads/") if ref and ref.startswith("refs/heads/") else None


def own_branch_problem(name: str, ref: str, chosen_by: str) -> tuple[str, str]:
    """The message and fix for a guessed target that resolved to HEAD's own branch."""
    return (
        f"the target {name} ({chosen_by}) resolved to {ref}, which is the branch being checked"
        " itself (its own copy): nothing named the branch this one merges"
        " into, so only what it has not pushed, or nothing, would be judged, and a pull"
        " request's other commits would pass unseen.",
        "Name the target: `--base BRANCH`, the branch this one merges into (or `[git]"
        " protected_branch`), and make sure the clone has it (`git fetch origin BRANCH`; a"
        " single-branch clone, `git clone --branch X --depth 1`, has only its own branch; a"
        " clone made while its source was on this branch names it as origin/HEAD: `git remote"
        " set-head origin DEFAULT_BRANCH`). On the default branch itself, set `[git]"
        " protected_branch` to judge its unpushed commits.",
    )
