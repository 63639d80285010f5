"""cagr_core: the pure change-rule evaluator. Values in, verdicts out; no I/O of any kind.

A facade: names are imported from their modules on first use, so a caller that imports one small
module (`cagr_core.pull_request`, say) does not pay for the evaluator, wcmatch or cattrs.
"""

from __future__ import annotations

import importlib
import types

TYPE_CHECKING = False  # not typing's: importing typing costs hook paths about 2 ms
if TYPE_CHECKING:
    from typing import Any

    from .changes import Change, ChangeSet, Kind, Range, Side, Stage, Status, Unchecked
    from .errors import CagrError, PatternError, RuleError, TemplateError
    from .evaluate import DEFAULT_LIMITS, Limits, evaluate
    from .pull_request import Phase, PrBody
    from .render import render_text, report_data
    from .report import AddedDependency, Deferred, Finding, Report, Timings
    from .rules import AddOnlyRule, PrBodyRule, RequiresRule, Rule, SiblingRule, When
    from .ruleset import RuleSet

_HOMES = {
    "changes": ("Change", "ChangeSet", "Kind", "Range", "Side", "Stage", "Status", "Unchecked"),
    "errors": ("CagrError", "PatternError", "RuleError", "TemplateError"),
    "evaluate": ("DEFAULT_LIMITS", "Limits", "evaluate"),
    "pull_request": ("Phase", "PrBody"),
    "render": ("render_text", "report_data"),
    "report": ("AddedDependency", "Deferred", "Finding", "Report", "Timings"),
    "rules": ("AddOnlyRule", "PrBodyRule", "RequiresRule", "Rule", "SiblingRule", "When"),
    "ruleset": ("RuleSet",),
}
_MODULE_OF = {name: module for module, names in _HOMES.items() for name in names}

__all__ = [
    "DEFAULT_LIMITS",
    "AddOnlyRule",
    "AddedDependency",
    "CagrError",
    "Change",
    "ChangeSet",
    "Deferred",
    "Finding",
    "Kind",
    "Limits",
    "PatternError",
    "Phase",
    "PrBody",
    "PrBodyRule",
    "Range",
    "Report",
    "RequiresRule",
    "Rule",
    "RuleError",
    "RuleSet",
    "SiblingRule",
    "Side",
    "Stage",
    "Status",
    "TemplateError",
    "Timings",
    "Unchecked",
    "When",
    "evaluate",
    "render_text",
    "report_data",
]


class _Facade(types.ModuleType):
    """This package's module type: importing a submodule never hides a facade name.

    Python binds each imported submodule as an attribute of its package, so once anything
    imported `cagr_core.evaluate` (the module), `from cagr_core import evaluate` would give that
    module instead of the function. Skipping that one binding keeps every name its meaning.
    """

    def __setattr__(self, name: str, value: object) -> None:
        if name in _MODULE_OF and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


importlib.import_module(__name__).__class__ = _Facade


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'cagr_core' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
