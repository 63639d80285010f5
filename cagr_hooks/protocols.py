"""Each agent's hook protocol: its JSON in, one decision out, rendered in that agent's shapes.

Claude Code and Codex share one protocol; Cursor and Gemini CLI name the same three moments
differently and answer in their own fields. Everything cagr decides is one `Decision`; only the
rendering differs. cagr never answers "allow": that would skip the person's permission prompt.
Standard library only: this runs on every shell command an agent makes.
"""

from __future__ import annotations

import os

AGENTS = ("claude", "codex", "cursor", "gemini")

# The moments cagr acts on.
TURN_END = "turn_end"
COMMAND = "command"
AFTER_COMMAND = "after_command"  # a shell command has run: HEAD may have moved
SESSION_START = "session_start"
PROMPT = "prompt"

_MOMENTS = {
    "claude": {
        "Stop": TURN_END,
        "PreToolUse": COMMAND,
        "PostToolUse": AFTER_COMMAND,
        "SessionStart": SESSION_START,
        "UserPromptSubmit": PROMPT,
    },
    "cursor": {
        "stop": TURN_END,
        "beforeShellExecution": COMMAND,
        "afterShellExecution": AFTER_COMMAND,
        "sessionStart": SESSION_START,
        "beforeSubmitPrompt": PROMPT,
    },
    "gemini": {
        "AfterAgent": TURN_END,
        "BeforeTool": COMMAND,
        "AfterTool": AFTER_COMMAND,
        "SessionStart": SESSION_START,
        "BeforeAgent": PROMPT,
    },
}
_MOMENTS["codex"] = _MOMENTS["claude"]
_GEMINI_ONLY = frozenset({"AfterAgent", "BeforeTool", "AfterTool", "BeforeAgent"})
_SHELL_MOMENTS = frozenset({COMMAND, AFTER_COMMAND})
NOTICE_LIMIT = 10_000  # agents cap systemMessage and additionalContext at 10,000 characters


class HookInput:
    """One hook call, normalized: the agent, the moment, and what cagr reads from the payload.

    `command_cwd` is the folder a shell command runs in: the tool's own folder when the agent
    sends one (Gemini's `dir_path`, Codex's `workdir`, relative to `cwd`), else `cwd`.
    """

    __slots__ = (
        "agent",
        "command",
        "command_cwd",
        "cwd",
        "event",
        "moment",
        "prompt",
        "session",
        "stopped",
    )

    def __init__(self, agent: str, payload: dict[str, object]) -> None:
        event = payload.get("hook_event_name")
        self.agent = agent
        self.event = event if isinstance(event, str) else ""
        self.moment = _MOMENTS[agent].get(self.event)
        self.session = _text(payload.get("conversation_id" if agent == "cursor" else "session_id"))
        self.prompt = _text(payload.get("prompt"))
        self.cwd = _cwd(agent, payload)
        shell = self.moment in _SHELL_MOMENTS and _runs_a_shell(payload)
        self.command = _command(payload) if shell else None
        self.command_cwd = _tool_folder(payload, self.cwd) if shell else self.cwd
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


_SHELL_TOOLS = frozenset(
    {"Bash", "bash", "shell", "shell_command", "run_shell_command", "local_shell", "exec_command"}
)


def _tool_folder(payload: dict[str, object], cwd: str | None) -> str | None:
    """The folder the tool runs its command in: `dir_path` (Gemini) or `workdir` (Codex)."""
    tool_input = payload.get("tool_input")
    folder = None
    if isinstance(tool_input, dict):
        folder = _text(tool_input.get("dir_path")) or _text(tool_input.get("workdir"))
    if folder is None or (cwd is None and not os.path.isabs(folder)):
        return cwd
    return os.path.normpath(os.path.join(cwd or "", os.path.expanduser(folder)))


def _runs_a_shell(payload: dict[str, object]) -> bool:
    """Whether the tool call runs a shell command (not an edit or a patch that mentions one)."""
    tool = payload.get("tool_name")
    return tool is None or tool in _SHELL_TOOLS


def _command(payload: dict[str, object]) -> str | None:
    tool_input = payload.get("tool_input")
    command = tool_input.get("command") if isinstance(tool_input, dict) else payload.get("command")
    if isinstance(command, list) and all(isinstance(word, str) for word in command):
        import shlex  # noqa: PLC0415  # an argv list is rare; the shell reader reads the join

        return _text(shlex.join(command))
    return _text(command)


_UNQUOTE = str.maketrans("", "", "'\"\\")
_PR_VERBS = ("create", "new", "ready", "edit")


def might_run_pr_command(command: str) -> bool:
    """A cheap test that lets nearly every other shell command through at once.

    It looks past quotes and backslashes (`g""h pr cre\\ate`) and lets anything with `$` or
    backticks near `pr` and a verb go on to the shell reader, which follows variables and
    substitutions; bash's `$'...'` can spell any word, so it always goes on."""
    if "$'" in command:
        return True
    plain = command.replace("\\\n", "").translate(_UNQUOTE)
    if "pr" not in plain or not any(verb in plain for verb in _PR_VERBS):
        return False
    # A program name the shell computes: a variable, a substitution, a glob or a brace list.
    return "gh" in plain or any(mark in plain for mark in "$`[{*?")


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
        if text:  # safe_text imports re: the fast paths decide nothing
            from cagr_core.safe_text import terminal_safe  # noqa: PLC0415

            text = terminal_safe(text)  # file names and command output never drive a terminal
        # The agents cap notices (systemMessage, additionalContext), not a turn end's block
        # reason; cut, a block would lose its first finding's `Instead:` line (a long reason).
        self.text = text if kind == "block" else cap(text)

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
        return _command_answer(agent, kind, text)
    if moment == SESSION_START and kind == "context":
        if agent == "cursor":
            return {"additional_context": text}
        return {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}}
    if moment == PROMPT and agent == "cursor":
        return {"continue": True}
    return {} if agent == "gemini" else None  # Gemini wants pure JSON on stdout


def _command_answer(agent: str, kind: str, text: str) -> dict[str, object] | None:
    """Before a shell command: a deny, or a notice through the field each agent shows.

    Cursor has no notice without a decision and shows nothing from stderr, so a notice asks the
    person (`ask`, with the text): never `allow`, which would skip their approval."""
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
        if agent == "cursor":
            return {"permission": "ask", "user_message": text, "agent_message": text}
        if agent == "gemini":
            return {"systemMessage": text}  # BeforeTool has no field for the model
        return {  # Claude Code and Codex: the person sees one, the model reads the other
            "systemMessage": text,
            "hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": text},
        }
    return None
