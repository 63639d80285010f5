"""One configuration source's cagr table, read from its bytes: TOML parsed (tomllib), the
`[tool.cagr]` table of pyproject.toml taken, and `[git] protected_branch` checked as a name git
can resolve. Standard library and the readers only, no config model: both ways of compiling
(`load`, the model's, and `quick`) and CI's rule locations read sources through here.
"""

from __future__ import annotations

import re
import tomllib
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
