"""`cagr init --hooks AGENT`: merge cagr's hook entries into an agent's project settings file.

Entries that are not cagr's are never touched; cagr's own (recognised by their command) are
added when missing and updated when outdated, so running it twice leaves the file as it was. A
settings file that is not a JSON object is refused, not overwritten.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from attrs import frozen

from cagr_core.errors import CagrError
from cagr_repo.files import UnsafeOutput, output_path, write_atomically

SETTINGS_FILES = {
    "claude": ".claude/settings.json",
    "codex": ".codex/hooks.json",
    "cursor": ".cursor/hooks.json",
    "gemini": ".gemini/settings.json",
}
DEFAULT_COMMAND = "cagr hook"
TURN_END_TIMEOUT = 90  # seconds: above the hook's own 60 s deadline, so cagr always answers
OTHER_TIMEOUT = 30
OURS = re.compile(r"(?:^|[\s/\\\"'])cagr\"?\s+hook(?:\s|$)")  # `cagr hook`, `.venv/bin/cagr hook`
NOTES = {
    "claude": "Claude Code reads .claude/settings.json at session start; commit it to share.",
    "codex": "Codex runs project hooks only in trusted projects and asks you to review a new"
    " or changed hook command once; versions before hooks were on by default need"
    " `[features] hooks = true` in config.toml.",
    "cursor": "Cursor runs project hooks in trusted workspaces.",
    "gemini": "Gemini CLI runs project hooks in trusted folders (timeouts are milliseconds).",
}


class InstallError(CagrError):
    """The settings file cannot be merged safely (it is left as it was)."""


@frozen
class Installed:
    """What `install` did to one settings file: the changes, in words, and whether it wrote."""

    path: Path
    changes: tuple[str, ...]
    written: bool
    command: str


def _command_hook(command: str, timeout: int) -> dict[str, Any]:
    return {"type": "command", "command": command, "timeout": timeout}


def entries(agent: str, command: str) -> dict[str, dict[str, Any]]:
    """cagr's entry for each event of `agent`, as that agent's settings file spells it."""
    run = f"{command} --agent {agent}"
    if agent == "cursor":
        return {
            "stop": {"command": run, "timeout": TURN_END_TIMEOUT},
            "beforeShellExecution": {"command": run, "timeout": OTHER_TIMEOUT},
            "sessionStart": {"command": run, "timeout": OTHER_TIMEOUT},
            "beforeSubmitPrompt": {"command": run, "timeout": OTHER_TIMEOUT},
        }
    if agent == "gemini":  # Gemini CLI's timeouts are in milliseconds
        return {
            "AfterAgent": {"matcher": "", "hooks": [_command_hook(run, TURN_END_TIMEOUT * 1000)]},
            "BeforeTool": {
                "matcher": "run_shell_command",
                "hooks": [_command_hook(run, OTHER_TIMEOUT * 1000)],
            },
            "SessionStart": {"matcher": "", "hooks": [_command_hook(run, OTHER_TIMEOUT * 1000)]},
            "BeforeAgent": {"matcher": "", "hooks": [_command_hook(run, OTHER_TIMEOUT * 1000)]},
        }
    return {  # Claude Code and Codex both call their shell tool `Bash`
        "Stop": {"hooks": [_command_hook(run, TURN_END_TIMEOUT)]},
        "PreToolUse": {"matcher": "Bash", "hooks": [_command_hook(run, OTHER_TIMEOUT)]},
        "SessionStart": {
            "matcher": "startup|resume|clear|compact",
            "hooks": [_command_hook(run, OTHER_TIMEOUT)],
        },
        "UserPromptSubmit": {"hooks": [_command_hook(run, OTHER_TIMEOUT)]},
    }


def _is_ours(hook: object) -> bool:
    """One hook command object that runs cagr's hook."""
    return isinstance(hook, dict) and bool(OURS.search(str(hook.get("command", ""))))


def merge_entry(listed: list[Any], wanted: dict[str, Any]) -> str | None:
    """Put `wanted` into one event's list; what changed, or None.

    An entry is a flat command (Cursor) or a group with a matcher and a `hooks` list. A group
    that holds only cagr's hook is cagr's to replace; in a group shared with other hooks only
    cagr's own hook object is updated (the person's matcher stays). Extra copies are removed.
    """
    places = [
        (entry_index, hook_index)
        for entry_index, entry in enumerate(listed)
        for hook_index, hook in enumerate(
            entry.get("hooks", []) if isinstance(entry, dict) and "hooks" in entry else [entry]
        )
        if _is_ours(hook)
    ]
    if not places:
        listed.append(wanted)
        return "added"
    before = json.dumps(listed, sort_keys=True)
    for entry_index, hook_index in reversed(places[1:]):  # duplicates of cagr's hook
        entry = listed[entry_index]
        if "hooks" in wanted and len(entry.get("hooks", [])) > 1:
            del entry["hooks"][hook_index]
        else:
            del listed[entry_index]
    entry_index, hook_index = places[0]
    entry = listed[entry_index]
    if "hooks" in wanted and isinstance(entry.get("hooks"), list) and len(entry["hooks"]) > 1:
        entry["hooks"][hook_index] = wanted["hooks"][0]  # shared group: only cagr's hook
    else:
        listed[entry_index] = wanted
    return "updated" if json.dumps(listed, sort_keys=True) != before else None


def _load(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise InstallError(
            f"{path} cannot be read as JSON ({error}); it was left as it was"
        ) from error
    if not isinstance(data, dict):
        raise InstallError(f"{path} is not a JSON object; it was left as it was")
    return data


def installed_command(hooks: dict[str, object]) -> str | None:
    """How a settings file runs cagr's hook (`cagr hook`, `.venv/bin/cagr hook`), if it does."""
    for listed in hooks.values():
        for entry in listed if isinstance(listed, list) else []:
            inner = entry.get("hooks", [entry]) if isinstance(entry, dict) else []
            for hook in inner if isinstance(inner, list) else []:
                command = hook.get("command") if isinstance(hook, dict) else None
                if isinstance(command, str) and OURS.search(command):
                    return command.split(" --agent")[0]
    return None


def install(root: Path, agent: str, command: str | None = None) -> Installed:
    """Merge cagr's entries for `agent` into its settings file under `root`.

    `command` runs cagr's hook; by default the one the file already uses, else `cagr hook`. A
    settings file that is a symlink is written where it points when that is inside the
    repository; one that leads outside it (the person's global settings, say) is refused.
    """
    try:
        path = Path(output_path(str(root / SETTINGS_FILES[agent]), str(root), confined=True))
    except UnsafeOutput as error:
        raise InstallError(f"{error}; it was left as it was") from error
    data = _load(path)
    if agent == "cursor":
        data.setdefault("version", 1)
    hooks = data.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise InstallError(f"{path}: `hooks` is not a JSON object; it was left as it was")
    command = command or installed_command(hooks) or DEFAULT_COMMAND
    changes = []
    for event, wanted in entries(agent, command).items():
        listed = hooks.setdefault(event, [])
        if not isinstance(listed, list):
            raise InstallError(f"{path}: `hooks.{event}` is not a list; it was left as it was")
        change = merge_entry(listed, wanted)
        if change is not None:
            changes.append(f"{change} {event}")
    if changes:
        text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        write_atomically(str(path), text.encode("utf-8"))
    return Installed(path, tuple(changes), bool(changes), command)
