"""cagr_core: the pure change-rule evaluator. Values in, verdicts out; no I/O of any kind."""

from .changes import Change, ChangeSet, Kind, Phase, PrBody, Range, Side, Status, Unchecked
from .errors import CagrError, PatternError, RuleError, TemplateError
from .evaluate import DEFAULT_LIMITS, Limits, evaluate
from .render import render_text, report_data
from .report import Deferred, Finding, Report, Timings
from .rules import AddOnlyRule, PrBodyRule, RequiresRule, Rule, SiblingRule, When
from .ruleset import RuleSet

__all__ = [
    "DEFAULT_LIMITS",
    "AddOnlyRule",
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
    "Status",
    "TemplateError",
    "Timings",
    "Unchecked",
    "When",
    "evaluate",
    "render_text",
    "report_data",
]
