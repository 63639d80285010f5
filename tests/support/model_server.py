"""A scripted model on 127.0.0.1 that speaks enough of three vendors' streaming APIs to drive
Claude Code, Codex and Gemini CLI through a session, and logs what reached the model.

The wire formats, as each agent's own code reads them:
- Anthropic Messages (`POST /v1/messages`, Claude Code): server-sent events `message_start`,
  `content_block_start` (a `text` block, or `tool_use` with id and name), `content_block_delta`
  (`text_delta`, `input_json_delta` with the input as JSON text), `content_block_stop`,
  `message_delta` (`stop_reason` `tool_use` or `end_turn`) and `message_stop`.
- OpenAI Responses (`POST /v1/responses`, Codex: codex-api's sse/responses.rs):
  `response.created`, `response.output_item.done` with a `function_call` item (`name`,
  `arguments` as JSON text, `call_id`) or an assistant `message`, then `response.completed`
  with the response id; a stream that ends without it is an error.
- Gemini (`POST /v1beta/models/M:streamGenerateContent?alt=sse`): `data:` lines, each a
  GenerateContentResponse whose candidate holds `functionCall` or `text` parts. Calls without
  tools (Gemini's model router, its next-speaker check: `generateContent`) are side calls
  and get a small JSON text.

The script is one list of steps for the whole session. Which step a request gets is the number
of model turns already in the history it sends (the agents send the whole conversation), so a
retried request gets the same step again and a resumed session goes on where it stopped. Each
main request is logged with the text that is new in it since the model last spoke: tool results,
hook feedback, the person's prompt.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

_IDS = itertools.count(1)  # every message and tool call its own id: agents merge equal ones


class Step:
    """One model turn: a shell command, a file written with the agent's own tool, or text
    that ends the turn."""

    def __init__(self, kind: str, text: str, path: str | None = None) -> None:
        self.kind = kind  # "shell" | "write" | "say"
        self.text = text
        self.path = path

    def __repr__(self) -> str:
        return f"Step({self.kind!r}, {self.text[:40]!r})"


def shell(command: str) -> Step:
    return Step("shell", command)


def write(path: str, text: str) -> Step:
    """`path` relative to the project folder (the agents' write tools want it absolute)."""
    return Step("write", text, path)


def say(text: str) -> Step:
    return Step("say", text)


class Request:
    """One main request: which step it was given, and the text new to the model in it."""

    def __init__(self, index: int, step: Step | None, new_text: str, body: dict[str, Any]) -> None:
        self.index = index
        self.step = step
        self.new_text = new_text
        self.body = body

    def __repr__(self) -> str:
        return f"Request({self.index}, {self.step!r}, {self.new_text[:80]!r})"


class ModelServer:
    """The scripted model; `with ModelServer(steps, root, log) as server:` serves it."""

    def __init__(self, steps: list[Step], project: Path, log: Path) -> None:
        self.steps = steps
        self.project = project
        self.log = log
        self.requests: list[Request] = []
        self.side_calls = 0
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> ModelServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def seen(self) -> str:
        """Every text that reached the model in the session's main requests, in order."""
        return "\n".join(request.new_text for request in self.requests)

    def after(self, step_index: int) -> str:
        """The text new to the model in the request that came after step `step_index` was
        given (a tool's result with any hook's words, or a hook's stop feedback)."""
        later = [r for r in self.requests if r.index == step_index + 1]
        return later[-1].new_text if later else ""

    def served(self) -> list[int]:
        return sorted({r.index for r in self.requests})

    def _record(self, vendor: str, index: int, new_text: str, body: dict[str, Any]) -> Step | None:
        step = self.steps[index] if index < len(self.steps) else None
        with self._lock:
            self.requests.append(Request(index, step, new_text, body))
            with self.log.open("a", encoding="utf-8") as handle:
                entry = {"vendor": vendor, "index": index, "step": repr(step), "new": new_text}
                handle.write(json.dumps(entry) + "\n")
        return step


def _handler(server: ModelServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *_: object) -> None:
            return

        def do_GET(self) -> None:
            self._json(200, {"data": [], "models": [], "object": "list"})

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except ValueError:
                body = {}
            path = self.path.split("?")[0]
            if path.endswith(("/count_tokens", ":countTokens")):
                self._json(200, {"input_tokens": 10, "totalTokens": 10})
            elif path.endswith("/v1/messages"):
                self._anthropic(body)
            elif path.endswith("/responses"):
                self._openai(body)
            elif ":streamGenerateContent" in path or ":generateContent" in path:
                self._gemini(body, streaming=":streamGenerateContent" in path)
            else:
                self._json(404, {"error": {"message": f"no such endpoint {path}"}})

        def _json(self, status: int, data: object) -> None:
            raw = json.dumps(data).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def _events(self, events: Iterator[tuple[str | None, dict[str, Any]]]) -> None:
            chunks = []
            for name, data in events:
                head = f"event: {name}\n" if name else ""
                chunks.append(f"{head}data: {json.dumps(data)}\n\n")
            raw = "".join(chunks).encode()
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.send_header("content-length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def _anthropic(self, body: dict[str, Any]) -> None:
            tools = {tool.get("name") for tool in body.get("tools") or []}
            messages = body.get("messages") or []
            if "Bash" not in tools:  # a side call: a title, a summary
                server.side_calls += 1
                self._events(_anthropic_events([("text", "ok")], "end_turn"))
                return
            turns = sum(1 for m in messages if m.get("role") == "assistant")
            step = server._record("anthropic", turns, _anthropic_new(messages), body)
            self._events(_anthropic_events(_anthropic_blocks(step, server.project), None))

        def _openai(self, body: dict[str, Any]) -> None:
            items = body.get("input") or []
            if not body.get("tools"):
                server.side_calls += 1
                self._events(_openai_events(_say_item("ok")))
                return
            turns = sum(1 for item in items if _is_openai_turn(item))
            step = server._record("openai", turns, _openai_new(items), body)
            self._events(_openai_events(_openai_item(step, turns)))

        def _gemini(self, body: dict[str, Any], streaming: bool) -> None:
            contents = body.get("contents") or []
            if not body.get("tools"):
                server.side_calls += 1
                # One text for every side call: the router wants a score, the next-speaker
                # check whose turn it is (the person's: the turn ends).
                side = {
                    "complexity_reasoning": "scripted",
                    "complexity_score": 10,
                    "reasoning": "scripted",
                    "next_speaker": "user",
                }
                answer = _gemini_response([{"text": json.dumps(side)}])
            else:
                turns = sum(1 for c in contents if c.get("role") == "model")
                step = server._record("gemini", turns, _gemini_new(contents), body)
                answer = _gemini_response(_gemini_parts(step, server.project))
            if streaming:
                self._events(iter([(None, answer)]))
            else:
                self._json(200, answer)

    return Handler


# Anthropic Messages


def _anthropic_blocks(step: Step | None, project: Path) -> list[tuple[str, Any]]:
    if step is None or step.kind == "say":
        return [("text", step.text if step else "(the script has ended)")]
    if step.kind == "shell":
        return [("tool_use", ("Bash", {"command": step.text, "description": "scripted"}))]
    assert step.path is not None
    path = str(project / step.path)
    return [("tool_use", ("Write", {"file_path": path, "content": step.text}))]


def _anthropic_events(
    blocks: list[tuple[str, Any]], stop: str | None
) -> Iterator[tuple[str | None, dict[str, Any]]]:
    usage = {"input_tokens": 10, "output_tokens": 1}
    message = {
        "id": f"msg_{next(_IDS)}",
        "type": "message",
        "role": "assistant",
        "model": "claude-scripted",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage,
    }
    yield "message_start", {"type": "message_start", "message": message}
    tool = False
    for index, (kind, data) in enumerate(blocks):
        if kind == "text":
            start = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": data}
        else:
            tool = True
            name, arguments = data
            start = {"type": "tool_use", "id": f"toolu_{next(_IDS)}", "name": name}
            start["input"] = {}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(arguments)}
        yield (
            "content_block_start",
            {"type": "content_block_start", "index": index, "content_block": start},
        )
        yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    reason = stop or ("tool_use" if tool else "end_turn")
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": reason, "stop_sequence": None},
            "usage": {"output_tokens": 5},
        },
    )
    yield "message_stop", {"type": "message_stop"}


def _anthropic_new(messages: list[dict[str, Any]]) -> str:
    """The text of the messages after the model's last turn."""
    last = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=-1)
    return "\n".join(_texts([m.get("content") for m in messages[last + 1 :]]))


def _texts(value: Any) -> list[str]:
    """Every text a message part carries: plain text, tool results, a function's response."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [text for item in value for text in _texts(item)]
    if isinstance(value, dict):
        found = []
        for key in ("text", "content", "output", "error", "response", "functionResponse", "parts"):
            if key in value:
                found.extend(_texts(value[key]))
        return found
    return []


# OpenAI Responses


def _is_openai_turn(item: dict[str, Any]) -> bool:
    kind = item.get("type")
    return kind == "function_call" or (kind == "message" and item.get("role") == "assistant")


def _openai_item(step: Step | None, turn: int) -> dict[str, Any]:
    if step is None or step.kind == "say":
        return _say_item(step.text if step else "(the script has ended)")
    command = step.text
    if step.kind == "write":  # Codex edits with its shell (or apply_patch): the shell here
        assert step.path is not None
        command = f"mkdir -p \"$(dirname '{step.path}')\" && cat > '{step.path}' <<'EOF'\n"
        command += f"{step.text}\nEOF"
    return {
        "type": "function_call",
        "id": f"fc_{next(_IDS)}",
        "call_id": f"call_{next(_IDS)}",
        "name": "exec_command",
        "arguments": json.dumps({"cmd": command}),
    }


def _say_item(text: str) -> dict[str, Any]:
    return {
        "type": "message",
        "id": f"msg_{next(_IDS)}",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text}],
    }


def _openai_events(item: dict[str, Any]) -> Iterator[tuple[str | None, dict[str, Any]]]:
    response = {
        "id": f"resp_{next(_IDS)}",
        "object": "response",
        "status": "in_progress",
        "output": [],
    }
    yield "response.created", {"type": "response.created", "response": response}
    yield "response.output_item.added", {"type": "response.output_item.added", "item": item}
    yield "response.output_item.done", {"type": "response.output_item.done", "item": item}
    usage = {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}
    done = {**response, "status": "completed", "output": [item], "usage": usage}
    yield "response.completed", {"type": "response.completed", "response": done}


def _openai_new(items: list[dict[str, Any]]) -> str:
    last = max((i for i, item in enumerate(items) if _is_openai_turn(item)), default=-1)
    return "\n".join(_texts(items[last + 1 :]))


# Gemini


def _gemini_parts(step: Step | None, project: Path) -> list[dict[str, Any]]:
    if step is None or step.kind == "say":
        return [{"text": step.text if step else "(the script has ended)"}]
    if step.kind == "shell":
        call = {"name": "run_shell_command", "args": {"command": step.text}}
    else:
        assert step.path is not None
        call = {
            "name": "write_file",
            "args": {"file_path": str(project / step.path), "content": step.text},
        }
    return [{"functionCall": call}]


def _gemini_response(parts: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "candidates": [
            {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
        "modelVersion": "gemini-scripted",
    }


def _gemini_new(contents: list[dict[str, Any]]) -> str:
    last = max((i for i, c in enumerate(contents) if c.get("role") == "model"), default=-1)
    return "\n".join(_texts(contents[last + 1 :]))
