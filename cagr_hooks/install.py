"""`cagr init --hooks AGENT`: merge cagr's hook entries into an agent's project settings file.

Entries that are not cagr's are never touched; cagr's own (recognised by their command) are
added when missing and updated when outdated, so running it twice leaves the file as it was. The
file is edited in place: comments (Gemini CLI accepts them), order and layout outside cagr's
entries stay as they were. A file that cannot be read as JSON is refused with the exact block to
paste, never rewritten.

The command written fails open under every agent's exit-code rules: it runs cagr's hook only
when the program is found, and otherwise exits 0 (Gemini CLI turns any exit but 0 or 1 into a
deny, so a missing `cagr` must never exit 127), with a note on stderr at session start only: on
every command, prompt or stop it would only repeat. It holds no path of this machine: teams
commit these files.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

from cagr_core.errors import CagrError
from cagr_core.values import value
from cagr_repo.files import UnsafeOutput, output_path, write_atomically

from .settings_text import Edits, Node, SettingsSyntax, parse
from .shell_words import Unbalanced, split_commands

SETTINGS_FILES = {
    "claude": ".claude/settings.json",
    "codex": ".codex/hooks.json",
    "cursor": ".cursor/hooks.json",
    "gemini": ".gemini/settings.json",
}
AGENT_NAMES = {
    "claude": "Claude Code",
    "codex": "Codex",
    "cursor": "Cursor",
    "gemini": "Gemini CLI",
}
DEFAULT_COMMAND = "cagr hook"
TURN_END_TIMEOUT = 90  # seconds: above the hook's own 60 s deadline, so cagr always answers
OTHER_TIMEOUT = 30
OURS = re.compile(r"(?:^|[\s/\\\"'])cagr\"?\s+hook(?:\s|$)")  # `cagr hook`, `.venv/bin/cagr hook`
MISSING = (
    "cagr: hook not run (cagr not found, or it failed to start); rules unchecked. See cagr doctor."
)
_WRAPPED = re.compile(r"\Acommand -v .+? >/dev/null 2>&1 && (?P<inner>.+?) --agent [a-z]+ \|\| ")
NOTES = {
    "claude": "Claude Code reads .claude/settings.json at session start; commit it to share.",
    "codex": "Codex runs project hooks only in trusted projects and asks you to review a new"
    " or changed hook command once; versions before hooks were on by default need"
    " `[features] hooks = true` (formerly `codex_hooks`) in config.toml.",
    "cursor": "Cursor runs project hooks in trusted workspaces; its Hooks tab in Settings shows"
    " whether each one ran.",
    "gemini": "Gemini CLI runs project hooks in trusted folders (timeouts are milliseconds).",
}


class InstallError(CagrError):
    """The settings file cannot be merged safely (it is left as it was)."""


@value
class Installed:
    """What `install` did to one settings file: the changes, in words, and whether it wrote."""

    path: Path
    changes: tuple[str, ...]
    written: bool
    command: str


def program(command: str) -> str:
    """The program a hook command starts, as written (`cagr`, `"$CLAUDE_PROJECT_DIR"/.venv/...`)."""
    try:
        words = split_commands(command)[0].words
    except (Unbalanced, IndexError):
        return command.split(maxsplit=1)[0] if command.split() else command
    return words[0].raw if words else command


def machine_path(command: str) -> str | None:
    """The program's path when it names a place on this machine (`/home/me/.venv/bin/cagr`),
    which a committed settings file must not: teammates' machines differ."""
    start = program(command)
    plain = start.strip("'\"")
    if plain.startswith(("/", "~")) or re.match(r"[A-Za-z]:[\\/]", plain):
        return plain
    return None


def hook_command(command: str, agent: str, *, note: bool) -> str:
    """The settings' command: cagr's hook when its program is found, else exit 0 (with a note
    on stderr when `note`: at session start, once, not on every command, prompt or stop)."""
    otherwise = f"echo '{MISSING}' >&2" if note else "true"
    return (
        f"command -v {program(command)} >/dev/null 2>&1 && {command} --agent {agent} || {otherwise}"
    )


def _command_hook(command: str, timeout: int) -> dict[str, Any]:
    return {"type": "command", "command": command, "timeout": timeout}


def entries(agent: str, command: str) -> dict[str, dict[str, Any]]:
    """cagr's entry for each event of `agent`, as that agent's settings file spells it."""
    quiet = hook_command(command, agent, note=False)
    start = hook_command(command, agent, note=True)  # the one place a missing cagr is told
    if agent == "cursor":
        return {
            "stop": {"command": quiet, "timeout": TURN_END_TIMEOUT},
            "beforeShellExecution": {"command": quiet, "timeout": OTHER_TIMEOUT},
            "afterShellExecution": {"command": quiet, "timeout": TURN_END_TIMEOUT},
            "sessionStart": {"command": start, "timeout": OTHER_TIMEOUT},
            "beforeSubmitPrompt": {"command": quiet, "timeout": OTHER_TIMEOUT},
        }
    if agent == "gemini":  # Gemini CLI's timeouts are in milliseconds
        return {
            "AfterAgent": {"matcher": "", "hooks": [_command_hook(quiet, TURN_END_TIMEOUT * 1000)]},
            "BeforeTool": {
                "matcher": "run_shell_command",
                "hooks": [_command_hook(quiet, OTHER_TIMEOUT * 1000)],
            },
            "AfterTool": {
                "matcher": "run_shell_command",
                "hooks": [_command_hook(quiet, TURN_END_TIMEOUT * 1000)],
            },
            "SessionStart": {"matcher": "", "hooks": [_command_hook(start, OTHER_TIMEOUT * 1000)]},
            "BeforeAgent": {"matcher": "", "hooks": [_command_hook(quiet, OTHER_TIMEOUT * 1000)]},
        }
    return {  # Claude Code and Codex both call their shell tool `Bash`
        "Stop": {"hooks": [_command_hook(quiet, TURN_END_TIMEOUT)]},
        "PreToolUse": {"matcher": "Bash", "hooks": [_command_hook(quiet, OTHER_TIMEOUT)]},
        "PostToolUse": {"matcher": "Bash", "hooks": [_command_hook(quiet, TURN_END_TIMEOUT)]},
        "SessionStart": {
            "matcher": "startup|resume|clear|compact",
            "hooks": [_command_hook(start, OTHER_TIMEOUT)],
        },
        "UserPromptSubmit": {"hooks": [_command_hook(quiet, OTHER_TIMEOUT)]},
    }


def _is_ours(hook: object) -> bool:
    """One hook command object that runs cagr's hook."""
    return isinstance(hook, dict) and bool(OURS.search(str(hook.get("command", ""))))


Op = tuple[str, tuple[int, ...], Any]  # ("append" | "set" | "delete", where, value)


def plan_entry(listed: list[Any], wanted: dict[str, Any]) -> list[Op]:
    """How to put `wanted` into one event's list: the edits, by place in the list as it is.

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
        return [("append", (), wanted)]
    grouped = "hooks" in wanted
    left = {i: len(listed[i].get("hooks", [])) if grouped else 1 for i, _ in places}
    ops: list[Op] = []
    for entry_index, hook_index in reversed(places[1:]):  # duplicates of cagr's hook
        if grouped and left[entry_index] > 1:
            ops.append(("delete", (entry_index, hook_index), None))
            left[entry_index] -= 1
        else:
            ops.append(("delete", (entry_index,), None))
    entry_index, hook_index = places[0]
    if grouped and isinstance(listed[entry_index].get("hooks"), list) and left[entry_index] > 1:
        ops.append(("set", (entry_index, hook_index), wanted["hooks"][0]))
    else:
        ops = [op for op in ops if op[1][:1] != (entry_index,)]
        ops.append(("set", (entry_index,), wanted))
    return ops


def _applied(listed: list[Any], ops: list[Op]) -> list[Any]:
    """The list after `ops` (which name places in the list as it was)."""
    result = copy.deepcopy(listed)
    for kind, where, item in ops:
        if kind == "set" and len(where) == 1:
            result[where[0]] = item
        elif kind == "set":
            result[where[0]]["hooks"][where[1]] = item
    for _, where, _ in sorted((op for op in ops if op[0] == "delete"), reverse=True):
        if len(where) == 1:
            del result[where[0]]
        else:
            del result[where[0]]["hooks"][where[1]]
    result.extend(item for kind, _, item in ops if kind == "append")
    return result


def merge_entry(listed: list[Any], wanted: dict[str, Any]) -> str | None:
    """Put `wanted` into one event's list (in place); what changed ("added", "updated"), or
    None."""
    ops = plan_entry(listed, wanted)
    merged = _applied(listed, ops)
    if json.dumps(merged, sort_keys=True) == json.dumps(listed, sort_keys=True):
        return None
    listed[:] = merged
    return "added" if ops[0][0] == "append" else "updated"


def _edit_entry(edits: Edits, array: Node, ops: list[Op]) -> None:
    """The text edits for one event's list: each changed entry where it stands; a list that
    loses entries (copies of cagr's) is written anew."""
    if any(kind == "delete" for kind, _, _ in ops):
        edits.replace(array, _applied(array.value, ops))
        return
    for kind, where, item in ops:
        if kind == "append":
            edits.append(array, item)
        elif len(where) == 1:
            edits.replace(array.items[where[0]], item)
        else:
            edits.replace(array.items[where[0]].members["hooks"].items[where[1]], item)


def installed_command(hooks: dict[str, object]) -> str | None:
    """How a settings file runs cagr's hook (`cagr hook`, `.venv/bin/cagr hook`), if it does."""
    for listed in hooks.values():
        for entry in listed if isinstance(listed, list) else []:
            inner = entry.get("hooks", [entry]) if isinstance(entry, dict) else []
            for hook in inner if isinstance(inner, list) else []:
                command = hook.get("command") if isinstance(hook, dict) else None
                if isinstance(command, str) and OURS.search(command):
                    wrapped = _WRAPPED.match(command)
                    return wrapped.group("inner") if wrapped else command.split(" --agent")[0]
    return None


def behind_others(path: Path) -> list[str]:
    """Events of a Cursor hooks file whose list runs another command before cagr's."""
    try:
        hooks = parse(path.read_text(encoding="utf-8")).value.get("hooks", {})
    except (OSError, UnicodeDecodeError, SettingsSyntax, AttributeError):
        return []
    return [
        event
        for event, listed in (hooks.items() if isinstance(hooks, dict) else [])
        if isinstance(listed, list)
        and any(_is_ours(entry) for entry in listed[1:])
        and not _is_ours(listed[0])
    ]


def paste_block(agent: str, command: str) -> str:
    """cagr's entries as a block to merge by hand into a file cagr will not rewrite."""
    hooks = {event: [entry] for event, entry in entries(agent, command).items()}
    return json.dumps({"hooks": hooks}, indent=2)


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
    text = _read(path)
    if text is None:
        command = command or DEFAULT_COMMAND
        data: dict[str, Any] = {"version": 1} if agent == "cursor" else {}
        data["hooks"] = {event: [entry] for event, entry in entries(agent, command).items()}
        rendered = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        write_atomically(str(path), rendered.encode("utf-8"))
        return Installed(path, tuple(f"added {event}" for event in data["hooks"]), True, command)
    edits, changes, command = _plan(path, text, agent, command)
    if changes:
        write_atomically(str(path), edits.apply().encode("utf-8"))
    return Installed(path, tuple(changes), bool(changes), command)


def _read(path: Path) -> str | None:
    if not path.exists():
        return None
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise InstallError(f"{path} cannot be read ({error}); it was left as it was") from error


def _refuse(path: Path, why: str, agent: str, command: str | None) -> InstallError:
    block = paste_block(agent, command or DEFAULT_COMMAND)
    return InstallError(
        f"{path} {why}; it was left as it was. Merge cagr's entries into it by hand:\n{block}"
    )


def _plan(path: Path, text: str, agent: str, command: str | None) -> tuple[Edits, list[str], str]:
    """The edits that merge cagr's entries into `text`, what they change, and the command."""
    try:
        root = parse(text)
    except SettingsSyntax as error:
        raise _refuse(path, f"is not JSON ({error})", agent, command) from error
    if not isinstance(root.value, dict):
        raise _refuse(path, "is not a JSON object", agent, command)
    hooks_node = root.members.get("hooks")
    if hooks_node is not None and not isinstance(hooks_node.value, dict):
        raise _refuse(path, "has a `hooks` that is not a JSON object", agent, command)
    hooks = hooks_node.value if hooks_node is not None else {}
    command = command or installed_command(hooks) or DEFAULT_COMMAND
    edits = Edits(text)
    changes: list[str] = []
    top: dict[str, object] = {}
    if agent == "cursor" and "version" not in root.members:
        top["version"] = 1
    missing: dict[str, object] = {}
    for event, wanted in entries(agent, command).items():
        listed = hooks.get(event)
        if listed is None:
            missing[event] = [wanted]
            changes.append(f"added {event}")
            continue
        if not isinstance(listed, list):
            raise _refuse(path, f"has a `hooks.{event}` that is not a list", agent, command)
        ops = plan_entry(listed, wanted)
        change = merge_entry(copy.deepcopy(listed), wanted)
        if change is not None:
            assert hooks_node is not None
            _edit_entry(edits, hooks_node.members[event], ops)
            changes.append(f"{change} {event}")
    if hooks_node is None:
        top["hooks"] = missing
    else:
        edits.add_members(hooks_node, missing)
    edits.add_members(root, top)
    return edits, changes, command
