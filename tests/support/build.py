"""Small builders for core values, so tests read like the acceptance table they cover."""

from __future__ import annotations

import hashlib

from cagr_config.compile import compile_rules
from cagr_config.rules import Rule
from cagr_core.changes import Change, ChangeSet, Range, Side
from cagr_core.pull_request import Phase, PrBody
from cagr_core.report import Report
from tests.support.evaluation import judge

REGULAR = 0o100644
EXECUTABLE = 0o100755
SYMLINK = 0o120000
GITLINK = 0o160000


def side(content: str = "", mode: int = REGULAR) -> Side:
    data = content.encode()
    return Side(mode, hashlib.sha1(data).hexdigest(), data)


def added(path: str, content: str = "new", mode: int = REGULAR) -> Change:
    return Change(path, None, side(content, mode))


def deleted(path: str, content: str = "old", mode: int = REGULAR) -> Change:
    return Change(path, side(content, mode), None)


def modified(
    path: str,
    before: str = "old",
    after: str = "new",
    old_mode: int = REGULAR,
    new_mode: int = REGULAR,
) -> Change:
    return Change(path, side(before, old_mode), side(after, new_mode))


RANGE = Range("main", "a" * 40, "abc1234" + "0" * 33, None)


def check(
    rules: Rule | list[Rule],
    *changes: Change,
    body: str | None = None,
    phase: Phase = Phase.CI,
) -> Report:
    ruleset = compile_rules(rules if isinstance(rules, list) else [rules])
    return judge(ruleset, ChangeSet(changes, RANGE), PrBody(body), phase)
