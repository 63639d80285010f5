"""Whether each agent will run this checkout's hooks: its trust and settings, read as it reads
them (for `cagr doctor` and `cagr init --hooks`).

An installed hook that the agent will not run is worse than none: everything looks set up and
nothing is checked. Each agent keeps that decision in its own files:
- Codex (codex-rs/hooks discovery, codex-rs/git-utils): project config, hooks included, is read
  only for a project trusted in `$CODEX_HOME/config.toml` (`[projects."<root>"] trust_level =
  "trusted"`; for a linked worktree both the trust and the hooks file are the main checkout's:
  Codex runs `<main>/.codex/hooks.json`, not the worktree's), and each project hook runs only
  once reviewed: `[hooks.state."<abs path>/.codex/hooks.json:<event>:<group>:<handler>"]`
  `trusted_hash` equal to the hash of the hook as configured now. `codex exec` skips the others
  without a word; `[features] hooks = false` and managed `allow_managed_hooks_only` turn them off.
- Gemini CLI (packages/core utils/trust.js, hooks registry): project settings, hooks included,
  load only in a trusted folder: `~/.gemini/trustedFolders.json`, longest matching path wins
  (`TRUST_FOLDER`, `TRUST_PARENT`, `DO_NOT_TRUST`), or `GEMINI_CLI_TRUST_WORKSPACE=true` in the
  environment it starts with. `--skip-trust` sets that variable only after the settings were
  read: in a folder not trusted otherwise the session runs with project hooks off (in a trusted
  one it changes nothing). `hooksConfig.enabled = false` and a command
  listed in `hooksConfig.disabled` turn them off.
- Claude Code (its settings loader): `disableAllHooks` in the user, project or local settings
  (the last one set wins), or in managed settings, turns hooks off; managed
  `allowManagedHooksOnly` ignores the project's. Interactive sessions also ask to trust the
  folder first (`claude -p` does not).
- Cursor keeps workspace trust in its own application state: cagr cannot tell.

`will_run` is True, False or None (cannot tell), with why and, when False, the fix.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cagr_core.values import value

from .install import OURS
from .settings_text import SettingsSyntax, parse


@value
class WillRun:
    """Whether the agent will run cagr's hooks here (None: cannot tell), why, and the fix."""

    will_run: bool | None
    why: str
    fix: str | None = None


class _Unreadable(Exception):
    """A file the decision depends on exists but cannot be read."""


def will_run(
    root: Path,
    agent: str,
    hooks: Mapping[str, Any],
    env: Mapping[str, str] | None = None,
    system: Path = Path("/"),
) -> WillRun:
    """For cagr's hooks in `hooks` (the settings file's `hooks` object) of `agent` at `root`.
    `env` is the environment the agent starts with (this one by default); `system` is where
    machine-wide files are looked for (`/etc/...`)."""
    env = os.environ if env is None else env
    home = Path(env.get("HOME") or os.path.expanduser("~"))
    try:
        if agent == "codex":
            return _codex(root, hooks, env, home, system)
        if agent == "gemini":
            return _gemini(root, hooks, env, home, system)
        if agent == "claude":
            return _claude(root, env, home, system)
    except _Unreadable as error:
        return WillRun(None, f"cagr cannot tell: {error}")
    return WillRun(
        None,
        "Cursor keeps workspace trust and its hook settings in its own application state,"
        " which cagr cannot read; Cursor's Settings, Hooks, shows whether each hook ran",
    )


def _text(path: Path) -> str | None:
    """A file's text; None when absent."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as error:
        raise _Unreadable(f"{path} cannot be read ({error})") from error


def _json(path: Path) -> dict[str, Any] | None:
    """A settings file (JSON with comments) as a dict; None when absent."""
    text = _text(path)
    if text is None or not text.strip():
        return None if text is None else {}
    try:
        data = parse(text).value
    except SettingsSyntax as error:
        raise _Unreadable(f"{path} is not JSON ({error})") from error
    return data if isinstance(data, dict) else {}


def _toml(path: Path) -> dict[str, Any] | None:
    text = _text(path)
    try:
        return tomllib.loads(text) if text is not None else None
    except tomllib.TOMLDecodeError as error:
        raise _Unreadable(f"{path} is not TOML ({error})") from error


def _get(data: Mapping[str, Any] | None, *keys: str) -> Any:
    for key in keys:
        if not isinstance(data, Mapping):
            return None
        data = data.get(key)
    return data


def _same_path(a: str, b: str) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)


def _shown(path: Path, home: Path) -> str:
    """A path as the person knows it: `~/...` under their home."""
    text = str(path)
    prefix = str(home).rstrip("/") + "/"
    return "~/" + text[len(prefix) :] if text.startswith(prefix) else text


# Codex


# Events whose matcher Codex drops before it hashes a hook (they take none).
_CODEX_NO_MATCHER = frozenset({"UserPromptSubmit", "Stop", "StopFailure", "Interrupt"})
_CODEX_REVIEW = (
    "open `codex` in this folder and accept its review of the hooks (or review them with"
    " `/hooks`); for one headless run, `codex exec --dangerously-bypass-hook-trust` runs them"
    " unreviewed"
)


def _event_label(event: str) -> str:
    """`PreToolUse` -> `pre_tool_use`, as Codex names events in hook keys and hashes."""
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in event).lstrip("_")


def codex_hook_hash(event: str, matcher: object, handler: Mapping[str, Any]) -> str:
    """The hash Codex trusts a command hook by: SHA-256 of the hook's normalized identity
    (event, matcher, the one handler with Codex's defaults filled in) as key-sorted compact
    JSON."""
    timeout = handler.get("timeout", handler.get("timeoutSec"))
    hook: dict[str, Any] = {
        "type": "command",
        "command": handler.get("command"),
        "timeout": max(1, timeout) if isinstance(timeout, int) else 600,
        "async": handler.get("async") is True,
    }
    if isinstance(handler.get("statusMessage"), str):
        hook["statusMessage"] = handler["statusMessage"]
    identity: dict[str, Any] = {"event_name": _event_label(event), "hooks": [hook]}
    if isinstance(matcher, str) and event not in _CODEX_NO_MATCHER:
        identity["matcher"] = matcher
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


_Handler = tuple[str, int, int, object, Mapping[str, Any]]


def _ours(hooks: Mapping[str, Any]) -> list[_Handler]:
    """cagr's hook handlers: event, group index, handler index, the group's matcher, handler."""
    found: list[_Handler] = []
    for event, groups in hooks.items():
        for group_index, group in enumerate(groups if isinstance(groups, list) else []):
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for handler_index, handler in enumerate(handlers if isinstance(handlers, list) else []):
                if isinstance(handler, dict) and OURS.search(str(handler.get("command", ""))):
                    found.append((event, group_index, handler_index, group.get("matcher"), handler))
    return found


def _codex_trust_root(root: Path) -> Path:
    """The folder Codex looks up project trust for: the checkout's root, or for a linked
    worktree the main checkout's (its `.git` file names `<main>/.git/worktrees/<name>`)."""
    dot_git = root / ".git"
    if dot_git.is_file():
        try:
            line = dot_git.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            return root
        if line.startswith("gitdir:"):
            gitdir = (root / line.removeprefix("gitdir:").strip()).resolve()
            if gitdir.parent.name == "worktrees":
                return gitdir.parent.parent.parent
    return root


def _codex(
    root: Path, hooks: Mapping[str, Any], env: Mapping[str, str], home: Path, system: Path
) -> WillRun:
    codex_home = Path(env.get("CODEX_HOME") or home / ".codex")
    config_path = codex_home / "config.toml"
    shown = _shown(config_path, home)
    config = _toml(config_path) or {}
    for key in ("hooks", "codex_hooks"):
        if _get(config, "features", key) is False:
            return WillRun(
                False,
                f"{shown} turns hooks off (`[features] {key} = false`)",
                f"remove `{key} = false` from `[features]` in {shown}",
            )
    requirements = _toml(system / "etc" / "codex" / "requirements.toml") or {}
    if _get(requirements, "allow_managed_hooks_only") is True:
        return WillRun(
            False,
            "the managed requirements (/etc/codex/requirements.toml) allow only managed hooks",
            "ask whoever manages this machine's Codex requirements to allow project hooks",
        )
    trust_root = _codex_trust_root(root)
    projects = _get(config, "projects")
    level = next(
        (
            _get(settings, "trust_level")
            for folder, settings in (projects.items() if isinstance(projects, dict) else [])
            if _same_path(folder, str(trust_root))
        ),
        None,
    )
    if level != "trusted":
        state = "marks this project untrusted" if level == "untrusted" else "has not trusted it"
        return WillRun(
            False,
            f"Codex reads a project's own configuration, hooks included, only in a trusted"
            f" project, and {shown} {state} ({trust_root})",
            "trust the project: open `codex` in this folder and accept, or run"
            " `codex exec --trust` once; then review the hooks",
        )
    if trust_root != root:
        return _codex_linked(trust_root, hooks, config, shown)
    return _codex_reviewed(root, hooks, config, shown)


def _codex_linked(
    main: Path, hooks: Mapping[str, Any], config: Mapping[str, Any], shown: str
) -> WillRun:
    """A linked worktree: Codex 0.171 reads the project's hooks, and keys their review, from
    the main checkout's `.codex/hooks.json`, not the worktree's own (tests/agents/test_trust.py
    has it run them so)."""
    path = main / ".codex" / "hooks.json"
    data = _json(path)
    main_hooks = data.get("hooks") if isinstance(data, dict) else None
    where = (
        f"in a linked worktree Codex runs the hooks of the main checkout's {path}, not this"
        " worktree's"
    )
    if not isinstance(main_hooks, dict) or not _ours(main_hooks):
        return WillRun(
            False,
            f"{where}, and that file has no cagr hooks",
            f"install them in the main checkout too (`cagr init --hooks codex` in {main})",
        )
    found = _codex_reviewed(main, main_hooks, config, shown)
    if found.will_run and _ours(main_hooks) != _ours(hooks):
        return WillRun(
            True,
            f"{where}, and those cagr hooks, reviewed as they are, differ from this worktree's",
        )
    return WillRun(found.will_run, f"{where}; {found.why}", found.fix)


def _codex_reviewed(
    root: Path, hooks: Mapping[str, Any], config: Mapping[str, Any], shown: str
) -> WillRun:
    states = _get(config, "hooks", "state")
    states = states if isinstance(states, dict) else {}
    unreviewed, changed, disabled = [], [], []
    files = {str(root / ".codex" / "hooks.json"), os.path.realpath(root / ".codex" / "hooks.json")}
    for event, group, handler_index, matcher, handler in _ours(hooks):
        keys = [f"{path}:{_event_label(event)}:{group}:{handler_index}" for path in files]
        state: dict[str, Any] = next(
            (states[key] for key in keys if isinstance(states.get(key), dict)), {}
        )
        if state.get("enabled") is False:
            disabled.append(event)
        elif "trusted_hash" not in state:
            unreviewed.append(event)
        elif state["trusted_hash"] != codex_hook_hash(event, matcher, handler):
            changed.append(event)
    if disabled:
        return WillRun(
            False,
            f"{shown} disables cagr's {', '.join(disabled)} hook(s) (`enabled = false`)",
            f"enable them again in Codex's `/hooks`, or remove `enabled = false` in {shown}",
        )
    if unreviewed or changed:
        parts = []
        if unreviewed:
            parts.append(f"not reviewed: {', '.join(unreviewed)}")
        if changed:
            parts.append(f"changed since they were reviewed: {', '.join(changed)}")
        return WillRun(
            False,
            "Codex runs a project hook only once a person has reviewed its command, and cagr's"
            f" hooks are {'; '.join(parts)}; `codex exec` skips them without a word",
            _CODEX_REVIEW,
        )
    return WillRun(
        True, f"the project is trusted and cagr's hooks are reviewed as they are now ({shown})"
    )


# Gemini CLI


_GEMINI_LEVELS = ("TRUST_FOLDER", "TRUST_PARENT", "DO_NOT_TRUST")
_GEMINI_HEADLESS = (
    "for headless runs, start Gemini CLI with GEMINI_CLI_TRUST_WORKSPACE=true (not `--skip-trust`)"
)


def _gemini(
    root: Path, hooks: Mapping[str, Any], env: Mapping[str, str], home: Path, system: Path
) -> WillRun:
    gemini_home = Path(env.get("GEMINI_CLI_HOME") or home) / ".gemini"
    user_path = gemini_home / "settings.json"
    system_path = Path(
        env.get("GEMINI_CLI_SYSTEM_SETTINGS_PATH")
        or system / "etc" / "gemini-cli" / "settings.json"
    )
    layers = [(user_path, _json(user_path)), (system_path, _json(system_path))]
    project_path = root / ".gemini" / "settings.json"
    # Gemini names a hook by its `name`, else its command (`hooksConfig.disabled` lists names).
    names = {str(handler.get("name") or handler.get("command")) for *_, handler in _ours(hooks)}
    for path, settings in [*layers, (project_path, _json(project_path))]:
        shown = _shown(path, home)
        if _get(settings, "hooksConfig", "enabled") is False:
            return WillRun(
                False,
                f"{shown} turns hooks off (`hooksConfig.enabled` is false)",
                f"set `hooksConfig.enabled` to true in {shown}, or remove it",
            )
        listed = _get(settings, "hooksConfig", "disabled")
        if isinstance(listed, list) and names & {str(item) for item in listed}:
            return WillRun(
                False,
                f"{shown} lists cagr's hook in `hooksConfig.disabled`",
                f"remove it from `hooksConfig.disabled` in {shown}",
            )
    if env.get("GEMINI_RESTRICTED_MODE") == "true" or env.get("GEMINI_CLI_TRUST_WORKSPACE") == (
        "false"
    ):
        return WillRun(
            False,
            "this environment makes Gemini CLI distrust every folder (GEMINI_RESTRICTED_MODE or"
            " GEMINI_CLI_TRUST_WORKSPACE=false)",
            "unset that variable where Gemini CLI starts",
        )
    if env.get("GEMINI_CLI_TRUST_WORKSPACE") == "true":
        return WillRun(
            True,
            "GEMINI_CLI_TRUST_WORKSPACE=true in this environment trusts the folder for a Gemini"
            " CLI started from it, with or without `--skip-trust`",
        )
    enabled = [_get(settings, "security", "folderTrust", "enabled") for _, settings in layers]
    if next((v for v in reversed(enabled) if isinstance(v, bool)), True) is False:
        return WillRun(True, "folder trust is off in Gemini CLI's settings: every folder loads")
    return _gemini_folder(root, env, gemini_home, home)


def _gemini_folder(root: Path, env: Mapping[str, str], gemini_home: Path, home: Path) -> WillRun:
    path = Path(env.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH") or gemini_home / "trustedFolders.json")
    shown = _shown(path, home)
    rules = _json(path) or {}
    where = _normalized(str(root))
    best, level = -1, None
    for rule, trust in rules.items():
        folder = os.path.dirname(rule) if trust == "TRUST_PARENT" else rule
        inside = where == _normalized(folder) or where.startswith(
            _normalized(folder).rstrip(os.sep) + os.sep
        )
        if (
            inside
            and len(rule) > best
            and trust in ("TRUST_FOLDER", "TRUST_PARENT", "DO_NOT_TRUST")
        ):
            best, level = len(rule), trust
    if level == "DO_NOT_TRUST":
        return WillRun(
            False,
            f"{shown} marks this folder not to be trusted (DO_NOT_TRUST): project settings,"
            " hooks included, are not loaded",
            f"trust it in Gemini CLI (`/permissions`) or change its entry in {shown};"
            f" {_GEMINI_HEADLESS}",
        )
    if level is None:
        return WillRun(
            False,
            f"the folder is not trusted yet ({shown} has no entry for it): `gemini -p` stops"
            " (exit 55), an interactive session asks first, and `--skip-trust` runs the session"
            " with project hooks off",
            f"trust it when Gemini CLI asks (interactive), or add it to {shown} as"
            f" TRUST_FOLDER; {_GEMINI_HEADLESS}",
        )
    return WillRun(
        True,
        f"the folder is trusted in {shown}, so a run with `--skip-trust` loads them too",
    )


def _normalized(path: str) -> str:
    real = os.path.realpath(os.path.abspath(path))
    return real.lower() if sys.platform in ("darwin", "win32") else real


# Claude Code


def _claude_managed_dir(system: Path) -> Path:
    if sys.platform == "darwin":
        return system / "Library" / "Application Support" / "ClaudeCode"
    return system / "etc" / "claude-code"


def _claude_managed(folder: Path) -> dict[str, Any]:
    """Managed settings: managed-settings.json, then managed-settings.d/*.json in order."""
    merged = dict(_json(folder / "managed-settings.json") or {})
    drop_ins = folder / "managed-settings.d"
    try:
        names = sorted(p.name for p in drop_ins.iterdir() if p.name.endswith(".json"))
    except FileNotFoundError:
        names = []
    except OSError as error:
        raise _Unreadable(f"{drop_ins} cannot be read ({error})") from error
    for name in names:
        if not name.startswith("."):
            merged.update(_json(drop_ins / name) or {})
    return merged


def _claude(root: Path, env: Mapping[str, str], home: Path, system: Path) -> WillRun:
    managed_dir = _claude_managed_dir(system)
    managed = _claude_managed(managed_dir)
    shown_managed = str(managed_dir / "managed-settings.json")
    if managed.get("disableAllHooks") is True:
        return WillRun(
            False,
            f"the managed settings ({shown_managed}) turn every hook off (`disableAllHooks`)",
            "ask whoever manages this machine's Claude Code settings",
        )
    if managed.get("allowManagedHooksOnly") is True:
        return WillRun(
            False,
            f"the managed settings ({shown_managed}) allow only managed hooks"
            " (`allowManagedHooksOnly`): the project's are ignored",
            "ask whoever manages this machine's Claude Code settings to allow project hooks",
        )
    config_dir = Path(env.get("CLAUDE_CONFIG_DIR") or home / ".claude")
    sources = [
        config_dir / "settings.json",
        root / ".claude" / "settings.json",
        root / ".claude" / "settings.local.json",
    ]
    deciding = None
    for path in sources:  # the last source that sets it wins
        setting = _get(_json(path), "disableAllHooks")
        if isinstance(setting, bool):
            deciding = (path, setting)
    if deciding is not None and deciding[1]:
        shown = _shown(deciding[0], home)
        return WillRun(
            False,
            f"{shown} turns every hook off (`disableAllHooks` is true)",
            f'remove `"disableAllHooks": true` from {shown}',
        )
    return WillRun(True, "no Claude Code setting turns hooks off" + _claude_trust(root, env, home))


def _claude_trust(root: Path, env: Mapping[str, str], home: Path) -> str:
    """A note when interactive sessions will first ask to trust the folder."""
    folder = env.get("CLAUDE_CONFIG_DIR")
    state = Path(folder) / ".claude.json" if folder else home / ".claude.json"
    try:
        projects = _get(_json(state), "projects")
    except _Unreadable:
        return ""
    for path, settings in projects.items() if isinstance(projects, dict) else []:
        if _same_path(path, str(root)) and _get(settings, "hasTrustDialogAccepted") is True:
            return ""
    return (
        "; an interactive session first asks to trust this folder and runs them once you"
        " accept (`claude -p` does not ask)"
    )
