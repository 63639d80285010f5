"""One configuration source's cagr table, read from its bytes: TOML parsed (tomllib), the
`[tool.cagr]` table of pyproject.toml taken, and `[git] protected_branch` checked as a name git
can resolve. Standard library and the readers only, no config model: both ways of compiling
(`load`, the model's, and `quick`) and CI's rule locations read sources through here.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Sequence
from typing import Any

from cagr_core.errors import ConfigIssue
from cagr_git.revision_syntax import syntax_problem
from cagr_manifests.toml_bounds import parts_problem

from .sources import PYPROJECT

_BOM = b"\xef\xbb\xbf"
_HEAD_ITSELF = re.compile(r"(?:HEAD|@)(?:~\d*|\^\d*|\^\{[^}]*\})*")  # HEAD, @, HEAD~1, @^


def _parse(name: str, data: bytes) -> tuple[dict[str, Any] | None, ConfigIssue | None]:
    if data.startswith(_BOM):
        return None, ConfigIssue(
            name, "", "starts with a byte-order mark, which TOML does not allow; remove it"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        return None, ConfigIssue(name, "", f"is not UTF-8 ({error.reason} at byte {error.start})")
    too_deep = parts_problem(text)  # before tomllib, whose time grows with their square
    if too_deep is not None:
        return None, ConfigIssue(name, "", too_deep)
    try:
        return tomllib.loads(text), None
    except tomllib.TOMLDecodeError as error:
        return None, ConfigIssue(name, "", f"is not valid TOML: {error}")
    except ValueError:  # an integer with more digits than Python converts
        return None, ConfigIssue(name, "", "holds a number with more digits than cagr reads")
    except RecursionError:
        return None, ConfigIssue(name, "", "nests too deeply to read; flatten its arrays or tables")


def cagr_table(name: str, data: bytes) -> tuple[dict[str, Any] | None, ConfigIssue | None]:
    """The cagr table of one source: the whole file, or pyproject's `[tool.cagr]` (None: absent)."""
    table, issue = _parse(name, data)
    if table is None or name != PYPROJECT:
        return table, issue
    tool = table.get("tool", {})
    if not isinstance(tool, dict):
        return None, ConfigIssue(name, "tool", "must be a table (it holds [tool.cagr])")
    cagr = tool.get("cagr")
    if cagr is not None and not isinstance(cagr, dict):
        return None, ConfigIssue(name, "tool.cagr", "must be a table")
    return cagr, None


def branch_problems(name: str, branch: str | None) -> list[ConfigIssue]:
    """`[git] protected_branch` must be a name git can resolve as one commit, as `--base`."""
    problem = syntax_problem(branch) if branch is not None and branch.strip() else None
    if problem is None and branch is not None and _HEAD_ITSELF.fullmatch(branch):
        return [
            ConfigIssue(
                name,
                "git.protected_branch",
                f"{branch!r} is this checkout's own HEAD, so every change would be compared"
                " with itself and pass. Name the branch changes merge into, e.g. main.",
            )
        ]
    if problem is None:
        return []
    return [ConfigIssue(name, "git.protected_branch", f"{problem[0]} Name the branch.")]


RESERVED = "guard."  # the built-in guards' ids: no rule of the configuration may use one


class Joined:
    """What several sources say together (`join_sources`), for either way of compiling to build
    its Config from: each kind's rules, where each rule came from, and the settings."""

    __slots__ = ("ci", "disable", "on_turn_end", "pr_sections", "protected_branch", "rule_sources",
                 "rules")  # fmt: skip

    def __init__(self) -> None:
        self.rules: dict[str, tuple[Any, ...]] = {}
        self.rule_sources: tuple[tuple[str, str], ...] = ()
        self.disable: tuple[str, ...] = ()
        self.on_turn_end: tuple[Any, ...] = ()
        self.ci: tuple[Any, ...] = ()
        self.protected_branch: str | None = None
        self.pr_sections: tuple[str, ...] = ()


def join_sources(parts: Sequence[tuple[str, Any]]) -> tuple[Joined, list[ConfigIssue]]:
    """Per-source configs (the model's or the quick compile's) joined: table lists add up, an id
    is used once, a scalar set in two sources is an issue."""
    issues: list[ConfigIssue] = []
    rules: dict[str, list[Any]] = {"changes": [], "code": [], "layout": [], "guards": []}
    rule_sources: list[tuple[str, str]] = []
    first_source: dict[str, str] = {}
    disabled: list[str] = []
    on_turn_end: list[Any] = []
    ci: list[Any] = []
    protected: tuple[str, str] | None = None
    sections: tuple[str, tuple[str, ...]] | None = None
    for source, part in parts:
        for kind, kept in rules.items():
            for index, rule in enumerate(getattr(part, kind).rules):
                where = f"{kind}.rules[{index}] (id {rule.id!r})"
                if rule.id.startswith(RESERVED):
                    issues.append(
                        ConfigIssue(
                            source,
                            f"{where}.id",
                            f"ids starting with {RESERVED!r} are the built-in guards'; rename it",
                        )
                    )
                    continue
                if rule.id in first_source:
                    issues.append(
                        ConfigIssue(
                            source,
                            where,
                            f"the id {rule.id!r} is already used in {first_source[rule.id]};"
                            " ids are unique across all rules (change, code, layout and guard"
                            " rules): rename one",
                        )
                    )
                    continue
                first_source[rule.id] = f"{source} ({kind}.rules)"
                kept.append(rule)
                rule_sources.append((rule.id, source))
        disabled.extend(part.guards.disable)
        on_turn_end.extend(part.stack.on_turn_end)
        ci.extend(part.stack.ci)
        if part.git.protected_branch is not None:
            if protected is not None:
                issues.append(_twice(source, "git.protected_branch", protected[1]))
            else:
                protected = (part.git.protected_branch, source)
        if part.review.pr_sections:
            if sections is not None:
                issues.append(_twice(source, "review.pr_sections", sections[0]))
            else:
                sections = (source, part.review.pr_sections)
    joined = Joined()
    joined.rules = {kind: tuple(kept) for kind, kept in rules.items()}
    joined.rule_sources = tuple(rule_sources)
    joined.disable = tuple(dict.fromkeys(disabled))
    joined.on_turn_end, joined.ci = tuple(on_turn_end), tuple(ci)
    joined.protected_branch = protected[0] if protected else None
    joined.pr_sections = sections[1] if sections else ()
    return joined, issues


def _twice(source: str, key: str, other: str) -> ConfigIssue:
    return ConfigIssue(source, key, f"already set in {other}; set it in one file only")
