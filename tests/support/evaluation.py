"""The evaluator as the check service feeds it: manifests read, the body parsed."""

from __future__ import annotations

from collections.abc import Callable

from cagr_core.changes import ChangeSet
from cagr_core.evaluator import DEFAULT_LIMITS, Limits, _evaluate_naive, evaluate
from cagr_core.pull_request import Phase, PrBody
from cagr_core.report import Report
from cagr_core.ruleset import RuleSet
from cagr_core.sections import Document, Section, find_section
from cagr_manifests import read_changes
from cagr_markdown import parse, parsed


def judge(  # evaluate's arguments, and which evaluator
    rules: RuleSet,
    changes: ChangeSet,
    body: PrBody,
    phase: Phase,
    limits: Limits = DEFAULT_LIMITS,
    *,
    expired: Callable[[], bool] | None = None,
    naive: bool = False,
) -> Report:
    """`evaluate` (or the naive oracle) on `changes` with their manifests read and `body`
    parsed, as cagr_repo.check does."""
    run = _evaluate_naive if naive else evaluate
    return run(rules, read_changes(rules, changes), parsed(body), phase, limits, expired=expired)


def document(text: str) -> Document:
    """A description parsed."""
    return parse(text)


def section_of(text: str, name: str) -> Section:
    """The `## name` section of a description."""
    return find_section(parse(text), name)
