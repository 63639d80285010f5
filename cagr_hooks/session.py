"""Session start: a brief for the agent listing each change rule and what it asks, in one line.

Capped to the agents' 10,000 characters by dropping whole lines (a rule's fix is never cut in
half) and saying how many were left out.
"""

from __future__ import annotations

from cagr_config.rule_kinds import CodeRule, GuardRule, LayoutRule
from cagr_config.rules import (
    AddOnlyRule,
    PrBodyRule,
    RequiresRule,
    Rule,
    Severity,
    SiblingRule,
    When,
    describe_requirement,
)
from cagr_core.sections import heading_marks
from cagr_git.discover import Checkout
from cagr_repo.config import ConfigErrors, load_config
from cagr_repo.judging_config import committed_not_on_disk

from .protocols import NONE, NOTICE_LIMIT, Decision


def _paths(rule: Rule | CodeRule | LayoutRule) -> str:
    shown = ", ".join(rule.paths)
    return shown + (f" (except {', '.join(rule.ignores)})" if rule.ignores else "")


_FIRES = {
    When.CHANGED: "changes",
    When.ADDED: "adds a file matching",
    When.DEPENDENCY_ADDED: "adds a dependency to",
    When.DEPENDENCY_CHANGED: "adds, removes or changes a dependency in",
}


def obligation(rule: Rule | CodeRule | LayoutRule | GuardRule) -> str:
    """What one rule asks of a change, in one line, with its fix."""
    if isinstance(rule, GuardRule):
        denied = "; ".join(rule.commands)
        return f"- {rule.id} (guard): shell commands like {denied} are denied. Why: {rule.reason}"
    if isinstance(rule, CodeRule):
        what = (
            f"code matching its ast-grep rule may not be added to {_paths(rule)} ({rule.language})"
            if rule.scope == "new"
            else f"no changed file under {_paths(rule)} may hold code matching its ast-grep rule"
        )
    elif isinstance(rule, LayoutRule):
        what = (
            f"no file may be added under {_paths(rule)}"
            if rule.forbid
            else f"files added under {_paths(rule)} are named {rule.name}"
        )
    elif isinstance(rule, RequiresRule):
        fires = _FIRES[rule.when]
        needs = ", ".join(describe_requirement(entry) for entry in rule.require)
        what = f"a change that {fires} {_paths(rule)} must also change {needs}"
    elif isinstance(rule, AddOnlyRule):
        what = (
            f"files under {_paths(rule)} that exist on the target branch may not be edited,"
            " deleted or renamed"
        )
    elif isinstance(rule, SiblingRule):
        targets = " or ".join(rule.targets)
        what = f"each new file matching {_paths(rule)} needs {targets} added or changed too"
    else:
        assert isinstance(rule, PrBodyRule)
        fires = _FIRES[rule.when]
        need = f"`{rule.contains}` and an explanation" if rule.contains else "an explanation"
        if rule.checklist:
            need = f"its checklist (`- [ ]` items, ticked or not) and {need}"
        what = (
            f"a change that {fires} {_paths(rule)} needs {need} in the PR description's"
            f" `{heading_marks(rule.section)}` section"
        )
    weight = ", warn only: never blocks" if rule.severity is Severity.WARN else ""
    return f"- {rule.id} ({rule.kind}{weight}): {what}. Fix: {rule.reason}"


def brief(checkout: Checkout) -> Decision:
    assert checkout.root is not None
    try:
        config = load_config(checkout.root, checkout.gitdir)
    except ConfigErrors as errors:
        return Decision(
            "context",
            f"cagr: this repository's change-rule configuration is invalid ({len(errors.issues)}"
            " problem(s)), so no rule will be checked until it is fixed; `cagr rules test`"
            " lists them.",
        )
    rules = sorted(config.config.all_rules(), key=lambda rule: rule.id)
    missing = committed_not_on_disk(checkout, config.root)
    if not rules and not missing:
        return NONE
    head = (
        "cagr checks this branch's whole change (its merge base with the target branch to the"
        " working tree) against these change rules when you end your turn, and again before"
        " `gh pr create` and in CI. `cagr rules check` shows where you stand; `cagr explain"
        " RULE` explains a rule."
    )
    if missing:  # HEAD's rules judge the pull request; what the disk lacks cannot be listed
        head = (
            f"cagr: {', '.join(missing[:5])} is committed but not in this working tree (deleted,"
            " or left out by a sparse checkout or skip-worktree), so the rules below are not"
            " all of HEAD's; `cagr rules check --committed` judges the commits by HEAD's. "
        ) + head
    lines = [obligation(rule) for rule in rules]
    kept: list[str] = []
    used = len(head) + 200
    for line in lines:
        if used + len(line) + 1 > NOTICE_LIMIT:
            continue  # a line too long for what is left: the shorter ones after it still fit
        kept.append(line)
        used += len(line) + 1
    if len(kept) < len(lines):
        kept.append(f"({len(lines) - len(kept)} more rule(s); `cagr explain RULE` shows each.)")
    return Decision("context", "\n".join([head, *kept]))
