"""The house's floors: core is pure, dependencies point one way, hook paths start light.

cagr_cli is the top floor. cagr_hooks and cagr_ci sit beside it, over cagr_repo (the checkout as
cagr's input, the check service), over cagr_config (the configuration, compiled), over cagr_git
(git's formats in, plain values out), over cagr_core; nothing below imports anything above, and
no module imports itself through others.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = (
    "cagr", "cagr_core", "cagr_git", "cagr_manifests", "cagr_markdown", "cagr_code", "cagr_config",
    "cagr_repo",
    "cagr_cli", "cagr_hooks", "cagr_ci",
)  # fmt: skip
# What each package may import of ours. cli -> (hooks, ci) -> repo -> config -> (the readers of
# manifests and Markdown, git) -> core.
_READERS = {"cagr_core", "cagr_git", "cagr_manifests", "cagr_markdown", "cagr_code"}
_BELOW_REPO = {*_READERS, "cagr_config"}
ALLOWED_OURS = {
    "cagr_core": {"cagr_core"},
    "cagr_git": {"cagr_core", "cagr_git"},
    "cagr_manifests": {"cagr_core", "cagr_manifests"},
    "cagr_markdown": {"cagr_core", "cagr_markdown"},
    "cagr_code": {"cagr_core", "cagr_code"},
    "cagr_config": {*_READERS, "cagr_config"},
    "cagr_repo": {*_BELOW_REPO, "cagr_repo"},
    "cagr_hooks": {*_BELOW_REPO, "cagr_repo", "cagr_hooks"},
    "cagr_ci": {*_BELOW_REPO, "cagr_repo", "cagr_ci"},
    "cagr_cli": {*_BELOW_REPO, "cagr_repo", "cagr_hooks", "cagr_ci", "cagr_cli"},
    "cagr": {*_BELOW_REPO, "cagr_repo"},  # the library's front door
}
# Of the core, git reading may use value types and errors: never config, rules or evaluation.
GIT_MAY_USE_OF_CORE = {"cagr_core.errors", "cagr_core.changes", "cagr_core.values"}
# Modules on the `gh pr create` gate's path: the standard library only (plus each other).
GATE_PATH = (
    "cagr_repo.gate_record",
    "cagr_git.discover",
    "cagr_git.refs",
    "cagr_git.remotes",
    "cagr_repo.state",
    "cagr_repo.config_files",
    "cagr_core.version",
    "cagr_markdown",  # a body's sections: the scanner, mistune only where it is not sure
)
HEAVY = (
    "dulwich", "attrs", "cattrs", "wcmatch", "bracex", "mistune", "tomlkit", "argparse",
    "importlib.metadata", "typing", "dataclasses", "pathlib", "subprocess",
)  # fmt: skip
# The core's whole outside world: pure standard-library modules, nothing else.
CORE_ALLOWED = {
    "__future__", "collections", "enum", "itertools", "operator", "posixpath", "re", "typing",
    "unicodedata",
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
            found.add(path.relative_to(ROOT).parts[0])  # a relative import stays in its package
    return found


def _modules(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


@pytest.mark.parametrize("package", PACKAGES)
def test_dependencies_point_one_way(package: str) -> None:
    for module in _modules(package):
        ours = {name for name in _imports(module) if name.startswith("cagr")}
        assert ours <= ALLOWED_OURS[package], f"{module.relative_to(ROOT)} imports {ours}"


def _module_name(path: Path) -> str:
    name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    return name.removesuffix(".__init__")


def _our_imports(path: Path, modules: set[str]) -> set[str]:
    """The modules of ours `path` imports anywhere in it (deferred and type-only ones too)."""
    package = _module_name(path) if path.name == "__init__.py" else path.parent.name
    if path.parent.parent != ROOT:
        package = _module_name(path.parent)
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{parent}.{node.module}" if node.module else parent
            found.update(
                name
                for name in [base, *(f"{base}.{a.name}" for a in node.names)]
                if name in modules
            )
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in modules)
    return found - {_module_name(path)}


def test_no_module_imports_itself_through_others() -> None:
    paths = {_module_name(p): p for package in PACKAGES for p in _modules(package)}
    graph = {name: _our_imports(path, set(paths)) for name, path in paths.items()}
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(name: str, trail: list[str]) -> None:
        state[name] = 1
        for other in sorted(graph[name]):
            assert state.get(other) != 1, " -> ".join([*trail, name, other])
            if other not in state:
                visit(other, [*trail, name])
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [])


def test_git_reading_knows_nothing_of_rules() -> None:
    modules = {_module_name(p) for package in PACKAGES for p in _modules(package)}
    for module in _modules("cagr_git"):
        core = {name for name in _our_imports(module, modules) if name.startswith("cagr_core")}
        assert core <= GIT_MAY_USE_OF_CORE, f"{module.relative_to(ROOT)} imports {core}"


def test_core_imports_only_pure_modules() -> None:
    for module in _modules("cagr_core"):
        allowed = CORE_ALLOWED
        outside = {n for n in _imports(module) if n != "cagr_core"} - allowed
        assert not outside, f"{module.relative_to(ROOT)} imports {sorted(outside)}"


def test_core_calls_no_io_builtins() -> None:
    for module in _modules("cagr_core"):
        tree = ast.parse(module.read_text(), str(module))
        names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        attributes = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
        # values.py writes each value class's __init__ as source and runs it, as attrs does.
        forbidden = CORE_FORBIDDEN_NAMES - ({"exec"} if module.name == "values.py" else set())
        assert not names & forbidden, f"{module.name}: {names & forbidden}"
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


def _configured(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "cagr.toml").write_text("")
    return root


def _bash(root: Path, event: str, command: str) -> str:
    payload = {
        "session_id": "s",
        "cwd": str(root),
        "hook_event_name": event,
        "tool_name": "Bash",
        "tool_input": {"command": command},
    }
    return json.dumps(payload)


@pytest.mark.parametrize("command", ["gh pr create --fill", "gh pr create -R a/b -H a:c --fill"])
def test_the_pr_gate_without_a_body_loads_only_the_standard_library(
    tmp_path: Path, command: str
) -> None:
    root = _configured(tmp_path)
    assert _loaded_by_hook(_bash(root, "PreToolUse", command), root) == []


def test_the_call_after_a_shell_command_that_moved_nothing_loads_only_the_standard_library(
    tmp_path: Path,
) -> None:
    root = _configured(tmp_path)
    payload = _bash(root, "PostToolUse", "npm test")
    _loaded_by_hook(payload, root)  # the first call notes where HEAD is
    assert (root / ".git" / "cagr" / "refreshed.json").exists()
    assert _loaded_by_hook(payload, root) == []


# The one check: who may judge. Every entry point goes through cagr_repo.check; the PR gate
# judges a prepared record's obligations with the core's own functions; the examples and the
# library's facade evaluate change sets that have no checkout.
JUDGES = {
    "evaluate": {"cagr_repo.check", "cagr_config.example_runner", "cagr"},
    "check_pr_sections": {"cagr_repo.check", "cagr_hooks.gate"},
    "judge_obligations": {"cagr_hooks.gate"},
    "waive": {"cagr_repo.check", "cagr_ci.run"},  # cagr_ci.run: a merge queue's PR labels
}


def test_only_the_check_service_judges() -> None:
    for package in PACKAGES:
        if package == "cagr_core":
            continue
        for path in _modules(package):
            tree = ast.parse(path.read_text(), str(path))
            imported = {
                alias.name
                for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("cagr_core")
                for alias in node.names
            }
            for name, allowed in JUDGES.items():
                if name in imported:
                    assert _module_name(path) in allowed, f"{path.relative_to(ROOT)} uses {name}"


def test_tests_share_helpers_only_through_tests_support() -> None:
    """A test module imports no other test module and no conftest: what tests share lives in
    tests/support (fixtures stay in conftest.py files, which pytest provides by name)."""
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.module:
                last = node.module.rpartition(".")[2]
                shared = not last.startswith("test_") and last != "conftest"
                assert shared, f"{path.relative_to(ROOT)} imports {node.module}"
