"""Which agents have cagr's hooks, and how long the hooks took lately (for `cagr doctor`)."""

from __future__ import annotations

import copy
import json
import statistics
from pathlib import Path

from attrs import frozen

from .install import DEFAULT_COMMAND, SETTINGS_FILES, entries, installed_command, merge_entry
from .timings import recent

BUDGETS_MS = {"turn_end": 60_000.0, "command": 50.0}  # the hook's deadline; the gate's target


@frozen
class AgentStatus:
    """One agent's settings file: absent, or cagr's events installed, missing or outdated."""

    agent: str
    path: str
    exists: bool
    installed: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    outdated: tuple[str, ...] = ()
    problem: str | None = None

    @property
    def state(self) -> str:
        if self.problem:
            return "unreadable"
        if not self.exists or (not self.installed and not self.outdated):
            return "not set up"
        if self.missing or self.outdated:
            return "incomplete" if self.missing else "outdated"
        return "installed"


def agent_status(root: Path, agent: str) -> AgentStatus:
    relative = SETTINGS_FILES[agent]
    path = root / relative
    if not path.exists():
        return AgentStatus(agent, relative, exists=False)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        hooks = data.get("hooks", {}) if isinstance(data, dict) else None
        if not isinstance(hooks, dict):
            raise ValueError("no `hooks` object")
    except (OSError, UnicodeDecodeError, ValueError) as error:
        return AgentStatus(agent, relative, exists=True, problem=str(error))
    command = installed_command(hooks) or DEFAULT_COMMAND
    found: dict[str | None, list[str]] = {"added": [], "updated": [], None: []}
    for event, wanted in entries(agent, command).items():
        listed = hooks.get(event, [])
        change = merge_entry(copy.deepcopy(listed), wanted) if isinstance(listed, list) else "added"
        found[change].append(event)
    installed, missing, outdated = found[None], found["added"], found["updated"]
    return AgentStatus(agent, relative, True, tuple(installed), tuple(missing), tuple(outdated))


def timing_summary(gitdir: str) -> dict[str, dict[str, float]]:
    """Per moment: how many recent calls, their median and slowest time, and the budget."""
    by_moment: dict[str, list[float]] = {}
    for item in recent(gitdir):
        by_moment.setdefault(str(item["moment"]), []).append(float(item["ms"]))  # type: ignore[arg-type]
    return {
        moment: {
            "calls": len(times),
            "median_ms": round(statistics.median(times), 1),
            "max_ms": round(max(times), 1),
            **({"budget_ms": BUDGETS_MS[moment]} if moment in BUDGETS_MS else {}),
        }
        for moment, times in sorted(by_moment.items())
    }
