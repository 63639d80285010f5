"""Each agent's hook protocol: its JSON in, one decision out, rendered in that agent's shapes.

Claude Code and Codex share one protocol; Cursor and Gemini CLI name the same three moments
differently and answer in their own fields. Everything cagr decides is one `Decision`; only the
rendering differs. cagr never answers "allow": that would skip the person's permission prompt.
Standard library only: this runs on every shell command an agent makes.
"""

from __future__ import annotations

import shlex

from cagr_core.safe_text import terminal_safe

AGENTS = ("claude", "codex", "cursor", "gemini")

# The moments cagr acts on.
TURN_END = "turn_end"
COMMAND = "command"
SESSION_START = "session_start"
PROMPT = "prompt"

_MOMENTS = {
    "claude": {
        "Stop": TURN_END,
        "PreToolUse": COMMAND,
        "SessionStart": SESSION_START,
        "UserPromptSubmit": PROMPT,
    },
    "cursor": {
        "stop": TURN_END,
        "beforeShellExecution": COMMAND,
        "sessionStart": SESSION_START,
        "beforeSubmitPrompt": PROMPT,
    },
    "gemini": {
        "AfterAgent": TURN_END,
        "BeforeTool": COMMAND,
        "SessionStart": SESSION_START,
        "BeforeAgent": PROMPT,
    },
}
_MOMENTS["codex"] = _MOMENTS["claude"]
_GEMINI_ONLY = frozenset({"AfterAgent", "BeforeTool", "BeforeAgent"})
NOTICE_LIMIT = 10_000  # agents cap systemMessage and additionalContext at 10,000 characters


class HookInput:
    """One hook call, normalized: the agent, the moment, and what cagr reads from the payload."""

    __slots__ = ("agent", "command", "cwd", "event", "moment", "prompt", "session", "stopped")

    def __init__(self, agent: str, payload: dict[str, object]) -> None:
        event = payload.get("hook_event_name")
        self.agent = agent
        self.event = event if isinstance(event, str) else ""
        self.moment = _MOMENTS[agent].get(self.event)
        self.session = _text(payload.get("conversation_id" if agent == "cursor" else "session_id"))
        self.prompt = _text(payload.get("prompt"))
        self.cwd = _cwd(agent, payload)
        self.command = _command(payload) if _runs_a_shell(payload) else None
        # Cursor says how the turn ended: a person's abort (or an error) is not a turn to extend.
        self.stopped = payload.get("status") in ("aborted", "error")


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _cwd(agent: str, payload: dict[str, object]) -> str | None:
    cwd = _text(payload.get("cwd"))
    if cwd is None and agent == "cursor":
        roots = payload.get("workspace_roots")
        if isinstance(roots, list) and roots and isinstance(roots[0], str):
            cwd = roots[0]
    return cwd


_SHELL_TOOLS = frozenset({"Bash", "bash", "shell", "run_shell_command", "local_shell"})


def _runs_a_shell(payload: dict[str, object]) -> bool:
    """Whether the tool call runs a shell command (not an edit or a patch that mentions one)."""
    tool = payload.get("tool_name")
    return tool is None or tool in _SHELL_TOOLS


def _command(payload: dict[str, object]) -> str | None:
    tool_input = payload.get("tool_input")
    command = tool_input.get("command") if isinstance(tool_input, dict) else payload.get("command")
    if isinstance(command, list) and all(isinstance(word, str) for word in command):
        # An argv list (Codex's shell tool): `bash -lc SCRIPT` runs SCRIPT; else join it.
        if len(command) == 3 and command[1] in ("-c", "-lc") and command[0].endswith("sh"):
            return _text(command[2])
        return _text(shlex.join(command))
    return _text(command)


def detect_agent(payload: dict[str, object]) -> str:
    """The agent that sent this payload, from its own field and event names."""
    event = payload.get("hook_event_name")
    if "conversation_id" in payload or "workspace_roots" in payload:
        return "cursor"
    if (isinstance(event, str) and event in _GEMINI_ONLY) or "prompt_response" in payload:
        return "gemini"
    if "turn_id" in payload:
        return "codex"
    return "claude"


def cap(text: str, limit: int = NOTICE_LIMIT) -> str:
    """At most `limit` characters, cut at a line end (callers keep fixes above the cut)."""
    if len(text) <= limit:
        return text
    marker = "\n(cut to fit the agent's limit; run `cagr rules check` for everything)"
    cut = text.rfind("\n", 0, limit - len(marker))
    return text[: cut if cut > 0 else limit - len(marker)] + marker


class Decision:
    """What cagr says at one moment.

    kind: "none" (say nothing), "block" (turn end: keep working), "deny" (command: do not run),
    "notice" (let it through, and tell the person and the agent why nothing was decided or
    what is still owed), "context" (session start: text for the agent).
    """

    __slots__ = ("kind", "text")

    def __init__(self, kind: str, text: str = "") -> None:
        self.kind = kind
        self.text = cap(terminal_safe(text))  # file names and command output never drive a terminal

    def __repr__(self) -> str:
        return f"Decision({self.kind!r}, {self.text[:60]!r})"


NONE = Decision("none")


def render(hook: HookInput, decision: Decision) -> dict[str, object] | None:
    """The JSON object to print for `decision`, in this agent's shapes (None: print nothing)."""
    agent, moment, kind, text = hook.agent, hook.moment, decision.kind, decision.text
    if moment == TURN_END:
        if kind == "block":
            if agent == "cursor":
                return {"followup_message": text}
            return {"decision": "deny" if agent == "gemini" else "block", "reason": text}
        if kind == "notice" and agent != "cursor":
            return {"systemMessage": text}
        return {}  # Codex and Gemini read JSON after every turn end: an empty object allows
    if moment == COMMAND:
        if kind == "deny":
            if agent == "cursor":
                return {"permission": "deny", "user_message": text, "agent_message": text}
            if agent == "gemini":
                return {"decision": "deny", "reason": text}
            return {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": text,
                }
            }
        if kind == "notice":
            if agent == "claude":
                return {
                    "systemMessage": text,
                    "hookSpecificOutput": {
                        "hookEventName": "PreToolUse",
                        "additionalContext": text,
                    },
                }
            if agent in ("codex", "gemini"):
                return {"systemMessage": text}
        return None  # Cursor has no notice without a decision: cagr says it on stderr
    if moment == SESSION_START and kind == "context":
        if agent == "cursor":
            return {"additional_context": text}
        return {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}}
    if moment == PROMPT and agent == "cursor":
        return {"continue": True}
    return {} if agent == "gemini" else None  # Gemini wants pure JSON on stdout
