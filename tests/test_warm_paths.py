"""What each warm path imports: a check whose configuration did not change reads the compiled form
cagr kept, so neither the config model nor the pattern compiler may load again; nothing parses
Markdown but a check that has a body, and mistune only for a body the standard-library scanner
is not sure of; hooks never load argparse.

Each path runs once to warm (the kept configuration, the gate record), then again to be
looked at, as a fresh process the console script's way (`from cagr_cli.main import main`).
The sets are what is tested, never times: benchmarks/floor.py measures those.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

# What compiling a configuration needs: a warm check never loads it.
COMPILING = (
    "attr", "attrs", "cattrs", "wcmatch", "bracex", "tomllib", "tomlkit", "packaging",
    "cagr_config.document", "cagr_config.rules", "cagr_config.validate", "cagr_config.examples",
    "cagr_config.example_runner", "cagr_config.globs", "cagr_config.schema", "cagr_config.load",
    "cagr_config.compile", "cagr_config.field_docs", "cagr_repo.suggest", "cagr_hooks.install",
)  # fmt: skip
MARKDOWN = ("mistune",)  # only a body the scanner is not sure of needs it
READING = ("cagr_markdown",)  # only a body to read needs the scanner
HOOK_ONLY_NEVER = ("argparse", "subprocess", "importlib.metadata")
TYPING = ("typing",)  # its import costs about 2.5 ms: annotations are never evaluated
SUGGESTING = ("difflib",)  # "did you mean": only a name that was not found needs it
# Third-party packages a warm check may load, besides cagr's own: none.
THIRD_PARTY: set[str] = set()
CAGR = (
    "cagr",
    "cagr_core",
    "cagr_manifests",
    "cagr_markdown",
    "cagr_config",
    "cagr_git",
    "cagr_repo",
    "cagr_hooks",
    "cagr_ci",
    "cagr_cli",
)

CONFIG = """
[[changes.rules]]
id = "changelog"
kind = "requires"
paths = ["src/**"]
require = ["CHANGES.md"]
reason = "Say what changed."
examples.invalid = [{ changes = [{ path = "src/a.py", status = "M" }] }]
examples.valid = [{ changes = [{ path = "src/a.py", status = "M" }, { path = "CHANGES.md", status = "M" }] }]

[[changes.rules]]
id = "migrations"
kind = "add_only"
paths = ["migrations/**"]
reason = "Add a new migration."
examples.invalid = [{ changes = [{ path = "migrations/1.sql", status = "M" }] }]
examples.valid = [{ changes = [{ path = "migrations/2.sql", status = "A" }] }]

[[changes.rules]]
id = "tests"
kind = "sibling"
paths = ["src/*.py"]
target = "tests/test_{name}.py"
reason = "Add its test."
examples.invalid = [{ changes = [{ path = "src/n.py", status = "A" }] }]
examples.valid = [{ changes = [{ path = "src/n.py", status = "A" }, { path = "tests/test_n.py", status = "A" }] }]

[[changes.rules]]
id = "risk"
kind = "pr_body"
paths = ["src/**"]
section = "Risk"
reason = "Say what could break."
examples.invalid = [{ pr_body = "", changes = [{ path = "src/a.py", status = "M" }] }]
examples.valid = [{ pr_body = "## Risk\\nLow.", changes = [{ path = "src/a.py", status = "M" }] }]
"""


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def _work_branch(root: Path, files: dict[str, str]) -> Path:
    """A repository at `root` whose `main` holds `files`, on a branch `work` made from it."""
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "base")
    _git(root, "checkout", "-q", "-b", "work")
    return root


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A branch whose change passes and owes the PR a Risk section, its record written."""
    files = {"cagr.toml": CONFIG, "src/a.py": "a\n", "CHANGES.md": "x\n"}
    root = _work_branch(tmp_path_factory.mktemp("warm") / "repo", files)
    (root / "src" / "a.py").write_text("b\n")
    (root / "CHANGES.md").write_text("y\n")
    _git(root, "commit", "-qam", "change")
    (root / "src" / "a.py").write_text("c\n")  # and one edit not committed yet
    return root


def _hook(root: Path, event: str, **extra: object) -> tuple[list[str], str]:
    payload = {"session_id": "s", "cwd": str(root), "hook_event_name": event, **extra}
    return ["hook"], json.dumps(payload)


def _bash(root: Path, command: str) -> tuple[list[str], str]:
    return _hook(root, "PreToolUse", tool_name="Bash", tool_input={"command": command})


def _loaded(root: Path, argv: list[str], stdin: str) -> set[str]:
    """The modules one call loads beyond what the interpreter's start loaded."""
    code = (
        "import sys, io, contextlib; before = set(sys.modules); "
        "from cagr_cli.main import main; out = io.StringIO(); "
        f"contextlib.redirect_stdout(out).__enter__(); main({argv!r}); "
        "print(' '.join(sorted(set(sys.modules) - before)), file=sys.stderr)"
    )
    for _ in range(2):  # the first call warms what is kept between calls
        done = subprocess.run(
            [sys.executable, "-c", code],
            input=stdin,
            cwd=root,
            capture_output=True,
            text=True,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    return set(done.stderr.strip().splitlines()[-1].split())


def _within(loaded: set[str], names: tuple[str, ...]) -> list[str]:
    return sorted(m for m in loaded if any(m == n or m.startswith(n + ".") for n in names))


def _third_party(loaded: set[str]) -> set[str]:
    stdlib = sys.stdlib_module_names
    tops = {name.partition(".")[0] for name in loaded}
    return {top for top in tops if top not in stdlib and top not in CAGR and top != "__main__"}


# What most descriptions hold: headings, paragraphs, a comment, a list with task boxes, code.
ORDINARY_BODY = (
    "<!-- What changed, and why -->\n## Summary\nAdds `x` to the **parser**.\n\n"
    "## Risk\nLow: a comment.\n\n- [x] tests\n- [ ] docs\n"
)
# And one the scanner is not sure of (a block quote): mistune reads it.
UNUSUAL_BODY = "## Risk\n> Low: a comment.\n"


# `cagr ci` has no warm path: it trusts no local state, so it compiles the configuration afresh
# on every run (tests/adversarial/test_local_state.py).
PATHS = {
    "turn end": (lambda root: _hook(root, "Stop", stop_hook_active=False),
                 COMPILING + MARKDOWN + READING + HOOK_ONLY_NEVER + SUGGESTING + TYPING),
    "rules check": (lambda _: (["rules", "check"], ""),
                    COMPILING + MARKDOWN + READING + SUGGESTING + TYPING + ("subprocess",)),
    "rules check --committed": (lambda _: (["rules", "check", "--committed"], ""),
                                COMPILING + MARKDOWN + READING + SUGGESTING + TYPING
                                + ("subprocess",)),
    "changes": (lambda _: (["changes"], ""),
                COMPILING + MARKDOWN + READING + SUGGESTING + ("subprocess",)),
    "the PR gate reading a body": (
        lambda root: _bash(root, f"gh pr create -t T -b '{ORDINARY_BODY}'"),
        (*COMPILING, *MARKDOWN, *HOOK_ONLY_NEVER, *TYPING, "dulwich", "cagr_repo.config",
         "cagr_repo.collect", "html"),
    ),
}  # fmt: skip


@pytest.mark.parametrize("path", PATHS)
def test_a_warm_path_loads_none_of_what_it_does_not_use(checkout: Path, path: str) -> None:
    call, never = PATHS[path]
    argv, stdin = call(checkout)
    loaded = _loaded(checkout, argv, stdin)
    assert _within(loaded, never) == []
    assert _third_party(loaded) <= THIRD_PARTY


def test_reading_a_body_is_what_loads_the_scanner(checkout: Path) -> None:
    loaded = _loaded(checkout, *_bash(checkout, f"gh pr create -t T -b '{ORDINARY_BODY}'"))
    assert _within(loaded, READING) != []  # so the sets above are not empty by accident
    assert _within(loaded, MARKDOWN) == []


def test_a_body_the_scanner_is_not_sure_of_loads_mistune(checkout: Path) -> None:
    loaded = _loaded(checkout, *_bash(checkout, f"gh pr create -t T -b '{UNUSUAL_BODY}'"))
    assert _within(loaded, MARKDOWN) != []
    assert _third_party(loaded) == {"mistune"}


CODE_RULE = """
[[code.rules]]
id = "no-print"
language = "python"
paths = ["src/**/*.py"]
rule = { pattern = "print($$$A)" }
reason = "Log instead."
examples.invalid = [{ path = "src/a.py", after = "print(1)\\n" }]
examples.valid = [{ path = "src/a.py", after = "x = 1\\n" }]
"""


@pytest.mark.parametrize(("edited", "loads"), [("docs/a.md", False), ("src/a.py", True)])
def test_ast_grep_loads_only_for_a_change_a_code_rule_searches(
    tmp_path: Path, edited: str, loads: bool
) -> None:
    files = {"cagr.toml": CODE_RULE, "src/a.py": "x = 1\n", "docs/a.md": "a\n"}
    root = _work_branch(tmp_path / "repo", files)
    (root / edited).write_text("y = 2\n")
    for argv, stdin in (_hook(root, "Stop", stop_hook_active=False), (["rules", "check"], "")):
        loaded = _loaded(root, argv, stdin)
        assert bool(_within(loaded, ("ast_grep_py", "cagr_code"))) is loads
    assert "ast_grep_py" not in _loaded(root, *_bash(root, "npm test"))


# The fast paths, nearly every shell command an agent runs, load neither `json` nor `re` (with
# enum, functools and collections: 4-5 ms, half a bare start): the payload and the small files
# they read go through json's own C scanner (cagr_repo.json_read). A console script that imports
# `re` itself (pip's does; uv's does not) pays for it before cagr runs.
FAST_NEVER = (
    "re", "json", "enum", "shlex", "fnmatch", "typing", "contextlib", "collections", "functools",
)  # fmt: skip


def _loaded_without_site(root: Path, stdin: str) -> set[str]:
    """`_loaded` for a call that prints nothing, in an interpreter started without `site` (an
    editable install's finder imports `re` at start-up) and given this one's `sys.path`."""
    code = (
        f"import sys; sys.path[:0] = {sys.path!r}; before = set(sys.modules); "
        "from cagr_cli.main import main; main(['hook']); "
        "print(' '.join(sorted(set(sys.modules) - before)), file=sys.stderr)"
    )
    for _ in range(2):  # the first call writes the refresh stamp the second one reads
        done = subprocess.run(
            [sys.executable, "-S", "-c", code],
            input=stdin,
            cwd=root,
            capture_output=True,
            text=True,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    return set(done.stderr.strip().splitlines()[-1].split())


@pytest.mark.parametrize("event", ["PreToolUse", "PostToolUse"])
def test_the_fast_paths_load_neither_json_nor_re(checkout: Path, event: str) -> None:
    _argv, stdin = _hook(
        checkout, event, tool_name="Bash", tool_input={"command": "npm test -- --watch=false"}
    )
    loaded = _loaded_without_site(checkout, stdin)
    assert _within(loaded, FAST_NEVER) == []
    assert _within(loaded, ("cagr_hooks",)) != []  # so the set is not empty by accident


# `cagr ci` compiles every time: a configuration the quick compile is sure of loads no config
# model (attrs, cattrs), and plain globs no wcmatch; a problem loads the model, which says it.
MODEL = ("attr", "attrs", "cattrs", "cagr_config.document", "cagr_config.rules",
         "cagr_config.validate", "cagr_config.examples", "cagr_config.load")  # fmt: skip
BRACED = CONFIG.replace('paths = ["migrations/**"]', 'paths = ["migrations/{a,b}/**"]')
BROKEN = CONFIG.replace('reason = "Add its test."', 'reason = ""')


@pytest.mark.parametrize(
    ("config", "not_loaded", "loaded"),
    [
        (CONFIG, (*MODEL, "wcmatch", "bracex"), ()),
        (BRACED, MODEL, ("wcmatch", "bracex")),
        (BROKEN, (), ("attrs", "cattrs", "cagr_config.validate")),
    ],
)
def test_cagr_ci_compiles_without_the_model_what_the_quick_compile_is_sure_of(
    tmp_path: Path, config: str, not_loaded: tuple[str, ...], loaded: tuple[str, ...]
) -> None:
    files = {"cagr.toml": config, "src/a.py": "a\n", "CHANGES.md": "x\n"}
    root = _work_branch(tmp_path / "repo", files)
    (root / "src" / "a.py").write_text("b\n")
    _git(root, "commit", "-qam", "change")
    modules = _loaded(root, ["ci", "--base", "main"], "")
    assert _within(modules, not_loaded) == []
    assert all(_within(modules, (name,)) for name in loaded), sorted(modules)
