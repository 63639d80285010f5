"""Which branch a change targets, and which rule chose it.

Precedence: the caller's base (`--base`, or CI's pull-request target), then the configured
`[git] protected_branch`, then the remote's default branch (as the caller knows it, e.g. from a
CI event, else the branch `origin/HEAD` names, as `git clone` records it), then `main`.
"""

from __future__ import annotations

from cagr_git.discover import Checkout
from cagr_git.refs import remote_default_branch

DEFAULT_TARGET = "main"
BY_BASE_OPTION = "--base"
BY_PROTECTED_BRANCH = "[git] protected_branch"
BY_ORIGIN_HEAD = "origin/HEAD"
BY_DEFAULT = f"default {DEFAULT_TARGET}"


class TargetChoice:
    """The target's name (a branch name or any revision) and the rule that chose it.

    A plain class, not a NamedTuple: the PR gate imports this module, and typing costs it time.
    """

    __slots__ = ("chosen_by", "name")

    def __init__(self, name: str, chosen_by: str) -> None:
        self.name = name
        self.chosen_by = chosen_by

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TargetChoice):
            return NotImplemented
        return (self.name, self.chosen_by) == (other.name, other.chosen_by)

    def __hash__(self) -> int:
        return hash((self.name, self.chosen_by))

    def __repr__(self) -> str:
        return f"TargetChoice({self.name!r}, {self.chosen_by!r})"


def choose_target(
    checkout: Checkout,
    base: str | None,
    protected_branch: str | None,
    base_chosen_by: str = BY_BASE_OPTION,
    remote_default: TargetChoice | None = None,
) -> TargetChoice:
    """`base` (labelled `base_chosen_by`), then `protected_branch`, then the remote's default
    branch (`remote_default` when the caller knows it, else origin/HEAD's), then main."""
    if base:
        return TargetChoice(base, base_chosen_by)
    if protected_branch:
        return TargetChoice(protected_branch, BY_PROTECTED_BRANCH)
    if remote_default is not None:
        return remote_default
    origin_head = remote_default_branch(checkout)
    if origin_head is not None:
        return TargetChoice(origin_head, BY_ORIGIN_HEAD)
    return TargetChoice(DEFAULT_TARGET, BY_DEFAULT)


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
    return ""
