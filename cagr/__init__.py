"""cagr as a library: judge a checkout's change against its change rules, get a Report.

    import cagr

    result = cagr.check(".", committed=True, body="## Risk\\nDependency reason: ...")
    print(result.report.status)              # "pass", "fail" or "unchecked"
    data = cagr.report_data(result.report)   # the JSON report `cagr rules check` prints

`check` reads the checkout's configuration, resolves the target and merge base, collects the
change (merge base to the working tree, or to HEAD with `committed=True`) and evaluates it.
Programs that build change sets themselves use the pure core instead: `cagr_core.RuleSet`,
`cagr_core.ChangeSet` and `cagr_core.evaluate` (docs/library.md).
"""

from __future__ import annotations

from pathlib import Path

from cagr_core.errors import CagrError
from cagr_core.pull_request import PrBody
from cagr_core.render import render_text, report_data
from cagr_core.report import Report
from cagr_core.version import VERSION
from cagr_git.discover import NotARepository, find_checkout
from cagr_repo.check import CheckResult
from cagr_repo.check import check as _check
from cagr_repo.collect import BareRepository
from cagr_repo.config import ConfigErrors, RepoConfig, load_config
from cagr_repo.judging_config import read_working_config

__version__ = VERSION
__all__ = [
    "BareRepository",
    "CagrError",
    "CheckResult",
    "ConfigErrors",
    "NotARepository",
    "RepoConfig",
    "Report",
    "__version__",
    "check",
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
) -> CheckResult:
    """Check the change of the checkout containing `path`.

    base: the target branch or any revision (default: `[git] protected_branch`, then the
    branch origin/HEAD names, then main). committed: merge base to HEAD (and write the gate
    record) instead of to the working tree. body: a pull-request description to check PR-body
    rules against; None leaves them deferred. Raises NotARepository, ConfigErrors (the working
    tree's configuration, which a committed check does not need) or BareRepository; whatever
    could not be checked is in `report.unchecked`, never a pass.
    """
    pr_body = None if body is None else PrBody(body)
    if not committed:
        return _check(load(path), find_checkout(str(path)), base=base, body=pr_body)
    checkout = find_checkout(str(path))
    if checkout.root is None:
        raise NotARepository(f"{checkout.gitdir} is a bare repository: it has no configuration")
    config = read_working_config(checkout.root)
    return _check(config, checkout, base=base, committed=True, body=pr_body)
