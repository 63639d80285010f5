"""The house's floors: core is pure, dependencies point one way, hook paths start light.

cagr_cli is the top floor. cagr_hooks and cagr_ci sit beside it, over cagr_repo, which sits over
cagr_core; nothing below imports anything above.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("cagr", "cagr_core", "cagr_repo", "cagr_cli", "cagr_hooks", "cagr_ci")
# What each package may import of ours. cli -> (hooks, ci) -> repo -> core.
ALLOWED_OURS = {
    "cagr_core": {"cagr_core"},
    "cagr_repo": {"cagr_core", "cagr_repo"},
    "cagr_hooks": {"cagr_core", "cagr_repo", "cagr_hooks"},
    "cagr_ci": {"cagr_core", "cagr_repo", "cagr_ci"},
    "cagr_cli": {"cagr_core", "cagr_repo", "cagr_hooks", "cagr_ci", "cagr_cli"},
    "cagr": {"cagr_core", "cagr_repo"},  # the library's front door; nothing imports it
}
# Modules on the `gh pr create` gate's path: the standard library only (plus each other).
GATE_PATH = (
    "cagr_repo.gate_record",
    "cagr_repo.gitdir",
    "cagr_repo.state",
    "cagr_repo.config_files",
    "cagr_core.version",
)
HEAVY = (
    "dulwich", "attrs", "cattrs", "wcmatch", "bracex", "mistune", "tomlkit", "argparse",
    "importlib.metadata", "typing", "dataclasses", "pathlib", "subprocess",
)  # fmt: skip
# The core's whole outside world: pure standard-library modules and four libraries (bracex is
# wcmatch's own brace expander).
CORE_ALLOWED = {
    "__future__", "collections", "enum", "hashlib", "html", "itertools", "json", "posixpath",
    "re", "types", "typing", "attrs", "cattrs", "wcmatch", "bracex", "mistune",
}  # fmt: skip
CORE_FORBIDDEN_NAMES = {"open", "exec", "eval", "__import__", "input", "print"}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and node.level > 0:
            found.add(path.parent.name)
    return found


def _modules(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


@pytest.mark.parametrize("package", PACKAGES)
def test_dependencies_point_one_way(package: str) -> None:
    for module in _modules(package):
        ours = {name for name in _imports(module) if name.startswith("cagr")}
        assert ours <= ALLOWED_OURS[package], f"{module.relative_to(ROOT)} imports {ours}"


def test_core_imports_only_pure_modules() -> None:
    for module in _modules("cagr_core"):
        allowed = CORE_ALLOWED | ({"importlib"} if module.name == "__init__.py" else set())
        outside = {n for n in _imports(module) if n != "cagr_core"} - allowed
        assert not outside, f"{module.relative_to(ROOT)} imports {sorted(outside)}"


def test_core_calls_no_io_builtins() -> None:
    for module in _modules("cagr_core"):
        tree = ast.parse(module.read_text(), str(module))
        names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        attributes = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
        assert not names & CORE_FORBIDDEN_NAMES, f"{module.name}: {names & CORE_FORBIDDEN_NAMES}"
        assert "environ" not in attributes, f"{module.name} reads the environment"


def test_importing_core_does_not_load_mistune_or_io_libraries() -> None:
    code = (
        "import sys, cagr_core; "
        "heavy = ('mistune', 'dulwich', 'tomlkit', 'subprocess'); "
        "print(sorted(m for m in heavy if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert result.stdout.strip() == "[]"


def test_importing_a_submodule_first_does_not_hide_a_facade_name() -> None:
    code = (
        "import cagr_core.evaluator, cagr_core.render; "
        "from cagr_core import evaluate, render_text; "
        "print(callable(evaluate), callable(render_text))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert result.stdout.strip() == "True True"


def _loaded_by(module: str) -> list[str]:
    """Which HEAVY modules importing `module` loads, in a fresh interpreter without site."""
    code = (
        "import sys; before = set(sys.modules); "
        f"import {module}; "
        f"heavy = {HEAVY!r}; "
        "print(sorted(m for m in heavy if m in sys.modules and m not in before))"
    )
    env = {"PYTHONPATH": str(ROOT)}
    result = subprocess.run(
        [sys.executable, "-S", "-c", code], capture_output=True, text=True, check=True, env=env
    )
    return [name.strip("' ") for name in result.stdout.strip()[1:-1].split(",") if name]


@pytest.mark.parametrize("module", GATE_PATH)
def test_gate_path_modules_load_only_the_standard_library(module: str) -> None:
    assert _loaded_by(module) == []


def _loaded_by_hook(stdin: str, cwd: Path) -> list[str]:
    """Which HEAVY modules one `cagr hook` call loads (beyond what interpreter start-up loaded),
    the console script's way in."""
    code = (
        "import sys; before = set(sys.modules); from cagr_cli.main import main; main(['hook']); "
        f"heavy = {HEAVY!r}; "
        "print(sorted(m for m in heavy if m in sys.modules and m not in before), file=sys.stderr)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        input=stdin,
        capture_output=True,
        text=True,
        check=True,
        cwd=cwd,
    )
    return [n.strip("' ") for n in result.stderr.strip().splitlines()[-1][1:-1].split(",") if n]


def test_the_hook_entry_module_loads_only_the_standard_library() -> None:
    assert _loaded_by("cagr_hooks.entry") == []


def test_a_non_pr_shell_command_loads_only_the_standard_library(tmp_path: Path) -> None:
    payload = {
        "session_id": "s",
        "cwd": str(tmp_path),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "npm test && git push"},
    }
    assert _loaded_by_hook(json.dumps(payload), tmp_path) == []


def test_the_pr_gate_without_a_body_loads_only_the_standard_library(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "cagr.toml").write_text("")
    payload = {
        "session_id": "s",
        "cwd": str(root),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "gh pr create --fill"},
    }
    assert _loaded_by_hook(json.dumps(payload), root) == []


def test_the_call_after_a_shell_command_that_moved_nothing_loads_only_the_standard_library(
    tmp_path: Path,
) -> None:
    root = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "cagr.toml").write_text("")
    payload = {
        "session_id": "s",
        "cwd": str(root),
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "npm test"},
    }
    _loaded_by_hook(json.dumps(payload), root)  # the first call notes where HEAD is
    assert (root / ".git" / "cagr" / "refreshed.json").exists()
    assert _loaded_by_hook(json.dumps(payload), root) == []
