"""cagr as a library: judge a checkout's change against its change rules, get a Report.

    import cagr

    result = cagr.check(".", committed=True, body="## Risk\\nDependency reason: ...")
    print(result.report.status)              # "pass", "fail" or "unchecked"
    data = cagr.report_data(result.report)   # the JSON report `cagr rules check` prints

`check` reads the checkout's configuration, resolves the target and merge base, collects the
change (merge base to the working tree, or to HEAD with `committed=True`) and judges it, the way
`cagr rules check` does. Programs that build change sets themselves use `evaluate` with the
values named here (Change, ChangeSet, Side, the rule kinds): docs/library.md.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from cagr_config.compile import compile_rules
from cagr_config.rules import AddOnlyRule, PrBodyRule, RequireAdded, RequiresRule, Rule, SiblingRule
from cagr_core.changes import Change, ChangeSet, Range, Side, Unchecked
from cagr_core.errors import CagrError
from cagr_core.evaluator import DEFAULT_LIMITS, Limits
from cagr_core.evaluator import evaluate as _evaluate
from cagr_core.pull_request import Phase, PrBody
from cagr_core.render import render_text
from cagr_core.report import Deferred, Finding, Report
from cagr_core.report_json import report_data
from cagr_core.ruleset import RuleSet
from cagr_core.version import VERSION
from cagr_core.when import When
from cagr_git.discover import NotARepository, find_checkout
from cagr_manifests import read_changes
from cagr_markdown import parsed
from cagr_repo.check import CheckRequest, CheckResult
from cagr_repo.check import check as _check
from cagr_repo.collect import BareRepository
from cagr_repo.config import ConfigErrors, RepoConfig, load_config
from cagr_repo.judging_config import read_working_config

__version__ = VERSION
__all__ = [
    "DEFAULT_LIMITS",
    "AddOnlyRule",
    "BareRepository",
    "CagrError",
    "Change",
    "ChangeSet",
    "CheckResult",
    "ConfigErrors",
    "Deferred",
    "Finding",
    "Limits",
    "NotARepository",
    "Phase",
    "PrBodyRule",
    "Range",
    "RepoConfig",
    "Report",
    "RequireAdded",
    "RequiresRule",
    "Rule",
    "RuleSet",
    "SiblingRule",
    "Side",
    "Unchecked",
    "When",
    "__version__",
    "check",
    "compile_rules",
    "evaluate",
    "load",
    "render_text",
    "report_data",
]


def load(path: str | Path = ".") -> RepoConfig:
    """The validated configuration of the checkout containing `path`.

    Raises NotARepository (no repository there, or a bare one) or ConfigErrors (every problem).
    """
    checkout = find_checkout(str(path))
    if checkout.root is None:
        raise NotARepository(f"{checkout.gitdir} is a bare repository: it has no configuration")
    return load_config(Path(checkout.root))


def check(
    path: str | Path = ".",
    *,
    base: str | None = None,
    committed: bool = False,
    body: str | None = None,
    rules: Iterable[str] | None = None,
) -> CheckResult:
    """Check the change of the checkout containing `path`.

    base: the target branch or any revision (default: `[git] protected_branch`, then the
    branch origin/HEAD names, then main). committed: merge base to HEAD (and write the gate
    record) instead of to the working tree. body: a pull-request description: `pr_body` rules
    and `[review].pr_sections` are judged against it; None leaves the rules' obligations
    deferred. rules: only these rule ids run (`--rule`: the report's `rules_filter` says so,
    and a committed check writes no gate record). Raises NotARepository, ConfigErrors (the working
    tree's configuration, which a committed check does not need) or BareRepository; whatever
    could not be checked is in `report.unchecked`, never a pass.
    """
    checkout = find_checkout(str(path))
    if checkout.root is None:
        raise NotARepository(f"{checkout.gitdir} is a bare repository: it has no configuration")
    request = CheckRequest(
        committed=committed,
        base=base,
        body=None if body is None else PrBody(body),
        rules=None if rules is None else tuple(rules),
    )
    # A committed check is judged by HEAD's rules: the working tree's may be invalid.
    config = read_working_config(checkout.root) if committed else load(path)
    return _check(config, checkout, request)


def evaluate(
    rules: RuleSet | Iterable[Rule],
    changes: ChangeSet,
    *,
    body: str | None = None,
    phase: Phase = Phase.CI,
    limits: Limits = DEFAULT_LIMITS,
) -> Report:
    """Judge a change set you built against rules (compiled, or as configured).

    The evaluator is pure: no files, git or clock. Manifests are read from the sides' content
    (cagr_manifests) and the body parsed (cagr_markdown) first, as `check` does. `Phase.CI`
    requires a PR body (None: unavailable, so a fired `pr_body` rule is unchecked);
    `Phase.TURN` defers PR-body obligations (`report.deferred`).
    """
    ruleset = rules if isinstance(rules, RuleSet) else compile_rules(rules)
    pr_body = parsed(PrBody(body))
    return _evaluate(ruleset, read_changes(ruleset, changes), pr_body, phase, limits)
