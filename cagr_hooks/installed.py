"""Which agents have cagr's hooks, whether each agent will run them and the command it runs
resolves, and how long the hooks took lately (for `cagr doctor`)."""

from __future__ import annotations

import copy
import os
import shlex
import shutil
import statistics
import subprocess
from pathlib import Path

from cagr_core.values import value

from .agent_trust import WillRun, will_run
from .install import (
    DEFAULT_COMMAND,
    SETTINGS_FILES,
    entries,
    installed_command,
    machine_path,
    merge_entry,
    program,
)
from .settings_text import SettingsSyntax, parse
from .shell_words import expand
from .timings import recent

# Agents that run hook commands in a login shell (Codex: `$SHELL -lc`), where the profile may set
# PATH anew; doctor asks that shell where the program is, within this many seconds.
LOGIN_SHELL_AGENTS = frozenset({"codex"})
LOGIN_SHELL_SECONDS = 10

# The variables each agent sets for its hook commands, naming the project's folder.
PROJECT_VARIABLES = {
    "claude": ("CLAUDE_PROJECT_DIR",),
    "codex": (),
    "cursor": ("CURSOR_PROJECT_DIR",),
    "gemini": ("GEMINI_PROJECT_DIR", "CLAUDE_PROJECT_DIR"),
}

BUDGETS_MS = {"turn_end": 60_000.0, "command": 50.0}  # the hook's deadline; the gate's target


@value
class AgentStatus:
    """One agent's settings file: absent, or cagr's events installed, missing or outdated."""

    agent: str
    path: str
    exists: bool
    installed: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    outdated: tuple[str, ...] = ()
    problem: str | None = None
    command: str | None = None  # how the file runs cagr's hook (`cagr hook`)
    resolves_to: str | None = None  # the program that command starts, found from here
    not_resolved: str | None = None  # why it is not found: the agent then runs without cagr
    machine_path: str | None = None  # a path of this machine in a file teams commit
    runs: WillRun | None = None  # whether the agent will run the hooks here (None: not set up)

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
        data = parse(path.read_text(encoding="utf-8")).value
        hooks = data.get("hooks", {}) if isinstance(data, dict) else None
        if not isinstance(hooks, dict):
            raise ValueError("no `hooks` object")
    except (OSError, UnicodeDecodeError, ValueError, SettingsSyntax) as error:
        return AgentStatus(agent, relative, exists=True, problem=str(error))
    used = installed_command(hooks)
    command = used or DEFAULT_COMMAND
    found: dict[str | None, list[str]] = {"added": [], "updated": [], None: []}
    for event, wanted in entries(agent, command).items():
        listed = hooks.get(event, [])
        change = merge_entry(copy.deepcopy(listed), wanted) if isinstance(listed, list) else "added"
        found[change].append(event)
    installed, missing, outdated = found[None], found["added"], found["updated"]
    resolved, why = resolve(root, agent, command) if used else (None, None)
    runs = will_run(root, agent, hooks) if installed or outdated else None
    return AgentStatus(
        agent,
        relative,
        True,
        tuple(installed),
        tuple(missing),
        tuple(outdated),
        command=used,
        resolves_to=resolved,
        not_resolved=why,
        machine_path=machine_path(used) if used else None,
        runs=runs,
    )


def resolve(root: Path, agent: str, command: str) -> tuple[str | None, str | None]:
    """The program `command` starts when `agent` runs it in this project, or why it cannot be
    found (then the hook fails open and the agent works without cagr). The agent's own PATH may
    differ from this shell's: an IDE started from the desktop often lacks a virtualenv's."""
    folder = str(root)
    known: dict[str, str | None] = dict.fromkeys(PROJECT_VARIABLES[agent], folder)
    known["HOME"] = os.path.expanduser("~")
    fields = expand(program(command), known)
    if fields is None or len(fields) != 1:
        return None, f"`{program(command)}` names a variable {agent} does not set for hooks"
    start = os.path.expanduser(fields[0])
    if "/" in start:
        found = os.path.join(folder, start)  # relative: from the project folder
        if not os.access(found, os.X_OK) or os.path.isdir(found):
            return None, f"`{start}` is not an executable file here"
    elif agent in LOGIN_SHELL_AGENTS:
        login, why = _on_login_path(start, folder, agent)
        if login is None:
            return None, why
        found = login
    else:
        which = shutil.which(start)
        if which is None:
            return None, f"`{start}` is not on this shell's PATH"
        found = which
    broken = _missing_interpreter(found)
    if broken:
        return None, f"{found} starts with `#!{broken}`, which does not exist (a moved venv?)"
    return found, None


def _on_login_path(name: str, folder: str, agent: str) -> tuple[str | None, str | None]:
    """Where `$SHELL -lc` finds `name`, as the agent runs its hooks. A login shell reads the
    profile, and a profile that sets PATH anew (Debian's /etc/profile does) drops an activated
    virtualenv: this shell's PATH would say the command resolves while the agent's hook quietly
    lets everything through."""
    shell = os.environ.get("SHELL") or "/bin/sh"
    try:
        done = subprocess.run(
            [shell, "-lc", f"command -v {shlex.quote(name)}"],
            cwd=folder,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=LOGIN_SHELL_SECONDS,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        asked = f"{agent}'s login shell (`{shell} -lc`)"
        return None, f"{asked} could not be asked where `{name}` is: {error}"
    lines = done.stdout.decode("utf-8", "replace").strip().splitlines()
    found = lines[-1].strip() if lines else ""  # a profile may print before it
    if done.returncode == 0 and found.startswith("/"):
        return found, None
    return None, (
        f"`{name}` is not on the PATH of the login shell {agent} runs hooks in (`{shell} -lc`), "
        "though it may be on this shell's: a profile sets PATH anew. Give the command a path "
        f"from the project folder (`cagr init --hooks {agent} --hook-command"
        " '.venv/bin/cagr hook'`) or add cagr's folder to PATH in ~/.profile"
    )


def _missing_interpreter(path: str) -> str | None:
    """A script's `#!` interpreter when it does not exist (a virtualenv that moved)."""
    try:
        with open(path, "rb") as handle:
            first = handle.readline(4096)
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    interpreter = first[2:].strip().split(b" ")[0].decode("utf-8", "replace")
    return interpreter if interpreter and not os.path.exists(interpreter) else None


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
