"""The real agent CLIs (Claude Code, Codex, Gemini CLI), run headless in a real repository set
up with `cagr init --hooks AGENT`, against the scripted model of `model_server`.

The pinned versions are in tests/agents/pins.txt; tests/agents/install.sh installs them into the
cache folder this module looks in (`$CAGR_AGENTS_CACHE`, else ~/.cache/cagr-agents). A missing
or different agent is a skip that says how to install it.

Each project has its own HOME, with a login profile that keeps the PATH (Codex runs commands and
hooks in `bash -lc`, and Debian's /etc/profile resets PATH), a fake `gh` that records what it was
asked and prints a PR URL, and a `cagr` ahead of the real one on the PATH that passes every
`cagr hook` call through unchanged while keeping what went in, what came out and how long it
took. With `CAGR_AGENTS_BREAK=allow` (or `malformed`) in the test run's environment that `cagr`
breaks the answers instead (a deny or block turned into an allow, or JSON cut short): the suite
must then fail, which shows it tests the answers and not only that the agents run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.configs import SCHEMA_COMPANION
from tests.support.git import GIT_ENV
from tests.support.model_server import ModelServer, say
from tests.support.tools import ROOT

PINS = ROOT / "tests" / "agents" / "pins.txt"
INSTALL = "tests/agents/install.sh"
RUN_SECONDS = 240  # one headless session; the scripted ones here take 2-20 s
PROMPT = "Add field a to the schema and open a pull request."
BREAKS = ("allow", "malformed")


def pins() -> dict[str, tuple[str, str]]:
    """agent -> (npm package, version), from tests/agents/pins.txt."""
    found = {}
    for line in PINS.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            agent, package, version = line.split()
            found[agent] = (package, version)
    return found


def cache() -> Path:
    default = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "cagr-agents"
    return Path(os.environ.get("CAGR_AGENTS_CACHE") or default)


_PROGRAMS = {"claude": "claude", "codex": "codex", "gemini": "gemini"}


def program(agent: str) -> Path:
    """The pinned agent's program, or a skip that says why it cannot run here."""
    package, version = pins()[agent]
    folder = cache()
    manifest = folder / "node_modules" / package / "package.json"
    install = f"`{INSTALL} {folder}` installs it"
    if shutil.which("node") is None:
        pytest.skip(f"{agent}: Node.js is not on PATH (the agent CLIs need Node.js 20 or later)")
    if not manifest.is_file():
        pytest.skip(f"{agent}: {package}@{version} is not installed in {folder}; {install}")
    installed = json.loads(manifest.read_text()).get("version")
    if installed != version:
        pytest.skip(f"{agent}: {folder} has {package}@{installed}, pinned {version}; {install}")
    return folder / "node_modules" / ".bin" / _PROGRAMS[agent]


RULES = (
    SCHEMA_COMPANION
    + r"""
[[changes.rules]]
id = "testing-note"
kind = "pr_body"
paths = ["src/**"]
section = "Testing"
reason = "Say in the PR description's Testing section how the change was tested."
examples.invalid = [{ changes = [{ path = "src/a.py", status = "A" }], pr_body = "## Summary\nx" }]
examples.valid = [{ changes = [{ path = "src/a.py", status = "A" }], pr_body = "## Testing\nRan it." }]
"""
)

_WRAPPER = """#!/bin/bash
# cagr, passed through: each `cagr hook` call is kept (what went in and out, how long it took).
real={real}
if [ "$1" != hook ]; then exec "$real" "$@"; fi
call="{log}/$(date +%s%N)-$$"
mkdir -p "$call"
cat >"$call/in"
start=$(date +%s%N)
"$real" "$@" <"$call/in" >"$call/out" 2>"$call/err"
code=$?
end=$(date +%s%N)
echo "$(( (end - start) / 1000 )) $code" >"$call/time"
case "{broken}" in
  allow) sed -e 's/"permissionDecision": "deny"/"permissionDecision": "allow"/' \\
    -e 's/"decision": "deny"/"decision": "allow"/' -e 's/"decision": "block"/"decision": "approve"/' \\
    "$call/out" ;;
  malformed) [ -s "$call/out" ] && head -c 24 "$call/out" ;;
  *) cat "$call/out" ;;
esac
cat "$call/err" >&2
exit "$code"
"""

_GH = """#!/bin/sh
# A fake gh: records its folder and arguments (NUL-separated, one record per call).
{{ printf '%s\\0' "$PWD" "$@"; printf '\\036'; }} >>{log}
if [ "$1 $2" = "pr create" ]; then echo https://github.com/example/project/pull/1; exit 0; fi
echo "gh (fake): only pr create is known here" >&2
exit 1
"""


class Project:
    """A repository on branch `work` (base commit on `main`, pushed to a bare `origin`) with
    cagr's rules and `agent`'s hooks committed, and the HOME and tools its agent runs with."""

    def __init__(self, base: Path, agent: str) -> None:
        self.agent = agent
        self.base = base
        self.root = base / "project"
        self.home = base / "home"
        self.tools = base / "tools"
        self.calls = base / "hook-calls"
        for folder in (self.root, self.home, self.tools, self.calls):
            folder.mkdir(parents=True)
        real = shutil.which("cagr", path=str(Path(sys.executable).parent))
        assert real is not None, "cagr is not installed beside this Python"
        node = shutil.which("node")
        path = [str(self.tools), str(Path(real).parent)]
        path += [str(Path(node).parent)] if node else []
        self._set_path([*path, "/usr/local/bin", "/usr/bin", "/bin"])
        broken = os.environ.get("CAGR_AGENTS_BREAK", "")
        self._tool("cagr", _WRAPPER.format(real=real, log=self.calls, broken=broken))
        self._tool("gh", _GH.format(log=base / "gh.log"))
        self.env = {
            **GIT_ENV,
            "PATH": self.path,
            "HOME": str(self.home),
            "SHELL": "/bin/bash",
            "LANG": "C.UTF-8",
            "TERM": "dumb",
            "NO_COLOR": "1",
            "TMPDIR": str(base),
        }
        origin = base / "origin.git"
        self.git("init", "-q", "--bare", "-b", "main", str(origin), cwd=base)
        self.git("init", "-q", "-b", "main")
        (self.root / "cagr.toml").write_text(RULES)
        (self.root / "schema.json").write_text("{}\n")
        (self.root / "README.md").write_text("A project.\n")
        self.git("remote", "add", "origin", str(origin))
        self.init_output = self.cagr("init", "--hooks", agent)
        self.git("add", "-A")
        self.git("commit", "-qm", "base: rules and hooks")
        self.git("push", "-q", "origin", "main")
        self.git("checkout", "-qb", "work")

    def _set_path(self, folders: list[str]) -> None:
        self.path = os.pathsep.join(folders)
        for profile in (".bash_profile", ".profile"):
            (self.home / profile).write_text(f'PATH="{self.path}"\nexport PATH\n')

    def drop_cagr(self) -> None:
        """Take cagr off the agent's PATH (and its login shell's): the hooks' own fallback runs."""
        (self.tools / "cagr").unlink()
        real = shutil.which("cagr", path=str(Path(sys.executable).parent))
        venv = str(Path(str(real)).parent)
        self._set_path([folder for folder in self.path.split(os.pathsep) if folder != venv])
        self.env["PATH"] = self.path
        assert shutil.which("cagr", path=self.path) is None, self.path

    def _tool(self, name: str, text: str) -> None:
        (self.tools / name).write_text(text)
        (self.tools / name).chmod(0o755)

    def git(self, *args: str, cwd: Path | None = None) -> str:
        done = subprocess.run(
            ["git", *args],
            cwd=cwd or self.root,
            env=self.env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, f"git {args}: {done.stderr}"
        return done.stdout

    def cagr(self, *args: str, check: bool = True) -> str:
        done = subprocess.run(
            ["cagr", *args],
            cwd=self.root,
            env=self.env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert not check or done.returncode in (0, 3), f"cagr {args}: {done.stderr}"
        return done.stdout + done.stderr

    def doctor(self) -> dict[str, Any]:
        done = subprocess.run(
            ["cagr", "doctor", "--format", "json"],
            cwd=self.root,
            env=self.env,
            capture_output=True,
            text=True,
            check=False,
        )
        return json.loads(done.stdout)  # type: ignore[no-any-return]

    def hook_calls(self) -> list[HookCall]:
        return [HookCall(folder) for folder in sorted(self.calls.iterdir())]

    def pr_commands(self) -> list[list[str]]:
        """The `gh pr create` calls that ran: each one's arguments after `pr create`."""
        log = self.base / "gh.log"
        records = log.read_bytes().split(b"\x1e") if log.exists() else []
        calls = [record.decode().split("\0")[:-1] for record in records if record]
        return [call[3:] for call in calls if call[1:3] == ["pr", "create"]]

    def timings(self) -> list[dict[str, Any]]:
        """cagr's own hook timings (`<gitdir>/cagr/hook-timings.jsonl`)."""
        path = self.root / ".git" / "cagr" / "hook-timings.jsonl"
        lines = path.read_text().splitlines() if path.exists() else []
        return [json.loads(line) for line in lines]


class HookCall:
    """One `cagr hook` call as the agent made it: the payload, the answer, the wall time."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder  # `in`, `out`, `err`, `time`: what went in and out, and how long
        self.payload: dict[str, Any] = json.loads((folder / "in").read_text() or "{}")
        out = (folder / "out").read_text().strip()
        self.answer: dict[str, Any] | None = json.loads(out) if out else None
        self.stderr = (folder / "err").read_text()
        micros, code = (folder / "time").read_text().split()
        self.ms = int(micros) / 1000
        self.code = int(code)
        self.event = str(self.payload.get("hook_event_name"))

    def __repr__(self) -> str:
        return f"HookCall({self.event}, {str(self.answer)[:60]})"


class Run:
    """One headless agent run: exit code, what it printed, how long it took."""

    def __init__(self, done: subprocess.CompletedProcess[str], seconds: float) -> None:
        self.code = done.returncode
        self.stdout = done.stdout
        self.stderr = done.stderr
        self.seconds = seconds

    def __repr__(self) -> str:
        return f"Run(exit {self.code}, {self.seconds:.1f} s)"


def configure(project: Project, url: str) -> dict[str, str]:
    """The agent's settings in the project's HOME for the scripted model at `url`; the
    environment to run it with."""
    env = dict(project.env)
    if project.agent == "claude":
        env |= {
            "ANTHROPIC_BASE_URL": url,
            "ANTHROPIC_API_KEY": "sk-scripted",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
        }
        if os.geteuid() == 0:  # `--dangerously-skip-permissions` as root wants a sandbox's word
            env["IS_SANDBOX"] = "1"
    elif project.agent == "codex":  # the model is given on the command line: `codex_model`
        home = project.home / ".codex"
        home.mkdir(exist_ok=True)
        env |= {"CODEX_HOME": str(home), "CAGR_SCRIPTED_KEY": "scripted"}
    else:
        home = project.home / ".gemini"
        home.mkdir(exist_ok=True)
        settings = home / "settings.json"
        data = json.loads(settings.read_text()) if settings.exists() else {}
        data.setdefault("security", {})["auth"] = {"selectedType": "gemini-api-key"}
        data["privacy"] = {"usageStatisticsEnabled": False}
        settings.write_text(json.dumps(data, indent=2))
        env |= {"GOOGLE_GEMINI_BASE_URL": url, "GEMINI_API_KEY": "scripted"}
    return env


def codex_model(url: str) -> list[str]:
    """Codex's `-c` overrides for the scripted model: its config.toml keeps only what Codex
    and the person write there (trust)."""
    provider = (
        f'{{ name = "scripted", base_url = "{url}/v1", wire_api = "responses",'
        ' env_key = "CAGR_SCRIPTED_KEY", request_max_retries = 0, stream_max_retries = 0 }'
    )
    return ["-c", 'model="gpt-scripted"', "-c", 'model_provider="scripted"', "-c",
            f"model_providers.scripted={provider}"]  # fmt: skip


def trust_codex_project(project: Project) -> None:
    """Codex trusts the project folder: `codex exec --trust` writes `[projects."<folder>"]
    trust_level = "trusted"` to `$CODEX_HOME/config.toml` (one scripted turn). The hooks are
    reviewed apart from it: `review_codex_hooks`."""
    with ModelServer([say("Trusted.")], project.root, project.base / "trust-model.jsonl") as model:
        done = run_agent(project, model.url, "--trust", prompt="Trust this folder.")
    assert done.code == 0, done.stderr


class _AppServer:
    """`codex app-server` on stdio (JSON-RPC lines), as Codex's TUI and IDE clients drive it."""

    def __init__(self, project: Project) -> None:
        self.process = subprocess.Popen(
            [str(program("codex")), "app-server"],
            cwd=project.root,
            env=configure(project, "http://127.0.0.1:9"),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self.calls = 0
        self.call("initialize", {"clientInfo": {"name": "cagr-tests", "version": "1"}})

    def call(self, method: str, params: object) -> Any:
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None
        assert stdout is not None
        self.calls += 1
        request = {"jsonrpc": "2.0", "id": self.calls, "method": method, "params": params}
        stdin.write(json.dumps(request) + "\n")
        stdin.flush()
        while True:
            line = stdout.readline()
            assert line, f"codex app-server ended before answering {method}"
            message = json.loads(line)
            if message.get("id") == self.calls:
                assert "error" not in message, message
                return message["result"]

    def hooks(self, root: Path) -> list[dict[str, Any]]:
        listed = self.call("hooks/list", {"cwds": [str(root)]})
        return [hook for hook in listed["data"][0]["hooks"] if hook["source"] == "project"]

    def __enter__(self) -> _AppServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.process.terminate()
        self.process.communicate(timeout=30)  # closes the pipes too


def codex_hooks(project: Project) -> list[dict[str, Any]]:
    """What Codex's `hooks/list` says of this checkout's hooks: key, current hash, trust."""
    with _AppServer(project) as server:
        return server.hooks(project.root)


def review_codex_hooks(project: Project) -> None:
    """Trust this checkout's hooks as Codex's TUI does when the person accepts its review:
    `hooks/list`, then `config/batchWrite` of each hook's current hash under `hooks.state`.
    Codex itself writes `$CODEX_HOME/config.toml`."""
    with _AppServer(project) as server:
        edits = [
            {
                "keyPath": "hooks.state",
                "value": {hook["key"]: {"trusted_hash": hook["currentHash"]}},
                "mergeStrategy": "upsert",
            }
            for hook in server.hooks(project.root)
        ]
        server.call("config/batchWrite", {"edits": edits})


def disable_codex_hook(project: Project, event: str) -> None:
    """Turn one of this checkout's hooks off as Codex's `/hooks` does: `config/batchWrite` of
    `enabled = false` under its `hooks.state` key (`event` as Codex names it: `stop`)."""
    with _AppServer(project) as server:
        key = next(
            h["key"] for h in server.hooks(project.root) if h["key"].endswith(f":{event}:0:0")
        )
        edit = {"keyPath": "hooks.state", "value": {key: {"enabled": False}}}
        server.call("config/batchWrite", {"edits": [edit | {"mergeStrategy": "upsert"}]})


_GEMINI_TRUST: dict[str, str] = {}  # what Gemini wrote, the trusted folder as _ROOT
_ROOT = "@@ROOT@@"


def trust_gemini_folder(project: Project, *, by_gemini: bool = False) -> None:
    """Trust the project folder with Gemini CLI's own code: `gemini extensions install` of a
    local folder asks whether to trust it and, on yes, writes ~/.gemini/trustedFolders.json
    (the install then fails: the folder is no extension), as the trust dialog writes it.
    Gemini starts slowly, so once it has written the file in a test run, later calls write
    what it wrote for their own folder; `by_gemini` has Gemini write it every time."""
    path = project.home / ".gemini" / "trustedFolders.json"
    root = json.dumps(str(project.root))[1:-1]  # as JSON holds the folder
    if _GEMINI_TRUST and not by_gemini:
        path.parent.mkdir(exist_ok=True)
        path.write_text(_GEMINI_TRUST["written"].replace(_ROOT, root))
        return
    env = configure(project, "http://127.0.0.1:9")
    subprocess.run(
        [str(program("gemini")), "extensions", "install", str(project.root)],
        cwd=project.root,
        env=env,
        input="y\n",
        capture_output=True,
        text=True,
        timeout=RUN_SECONDS,
        check=False,
    )
    written = path.read_text()
    assert root in written, written
    _GEMINI_TRUST["written"] = written.replace(root, _ROOT)


def run_agent(
    project: Project, url: str, *args: str, prompt: str = PROMPT, resume: bool = False
) -> Run:
    """The agent, headless, in the project folder, talking to the model at `url`."""
    env = configure(project, url)
    command = str(program(project.agent))
    if project.agent == "claude":
        argv = [command, "-p", prompt, "--dangerously-skip-permissions"]
        argv += ["--continue"] if resume else []
    elif project.agent == "codex":
        argv = [command, "exec", *codex_model(url), "--dangerously-bypass-approvals-and-sandbox"]
        argv += ["resume", "--last"] if resume else []
        argv += [prompt]
    else:
        argv = [command, "-p", prompt, "--yolo", *(["--resume", "latest"] if resume else [])]
    started = time.monotonic()
    done = subprocess.run(
        [*argv[:1], *args, *argv[1:]] if project.agent != "codex" else [*argv, *args],
        cwd=project.root,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=RUN_SECONDS,
        check=False,
    )
    return Run(done, time.monotonic() - started)


def bare_python_ms(runs: int = 7) -> list[float]:
    """Wall times of `python -c pass` in cagr's environment: the floor every hook call pays."""
    times = []
    for _ in range(runs):
        started = time.monotonic()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        times.append((time.monotonic() - started) * 1000)
    return times
