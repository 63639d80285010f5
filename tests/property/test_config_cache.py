"""The kept configuration never changes a verdict: after any sequence of edits to any config
file, fragment or pyproject.toml, upgrades of cagr and damage to what was kept, loading through
the cache gives what a cold load gives, and evaluating with it gives the same report."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from cagr_core.changes import Change, ChangeSet, Range, Side
from cagr_core.pull_request import Phase, PrBody
from cagr_core.values import replace
from cagr_repo import config as config_module
from cagr_repo import config_cache
from cagr_repo.config import ConfigErrors, RepoConfig, load_config
from cagr_repo.config_files import ConfigFiles
from tests.support.evaluation import judge

SOURCES = ("cagr.toml", "pyproject.toml", ".cagr/a.toml", ".cagr/sub/b.toml")
GLOBS = ("src/**", "*.py", "/package.json", "migrations/**", "docs/*.md", "{src,lib}/**/*.ts",
         "**/tests/**", "requirements*.txt", "pkg[0-9]/x", "\\*.lit")  # fmt: skip
EXAMPLES = """examples.invalid = [{ changes = [{ path = "x", status = "M" }] }]
examples.valid = [{ changes = [{ path = "y", status = "A" }] }]
"""
DEPENDENCY_EXAMPLES = """examples.invalid = [{ changes = [{ path = "package.json", status = "A", after = "{}" }] }]
examples.valid = [{ changes = [{ path = "package.json", status = "A", after = "{}" }] }]
"""


def _array(items: list[str]) -> str:
    return "[" + ", ".join('"' + item.replace("\\", "\\\\") + '"' for item in items) + "]"


@st.composite
def rule_text(draw: st.DrawFn, prefix: str, tag: str) -> str:
    """One change rule of any kind, as TOML (valid, or now and then not: a bad or shared id)."""
    kind = draw(st.sampled_from(["requires", "add_only", "sibling", "pr_body"]))
    ids = [f"{tag}1", f"{tag}2", f"{tag}3", f"{tag}4", f"{tag}5", f"{tag}6", "shared", "b d"]
    rule_id = draw(st.sampled_from(ids))
    dependency = kind in ("requires", "pr_body") and draw(st.integers(0, 3)) == 0
    paths = (
        ["package.json"]
        if dependency
        else draw(st.lists(st.sampled_from(GLOBS), min_size=1, max_size=3, unique=True))
    )
    lines = [
        f"[[{prefix}changes.rules]]",
        f'id = "{rule_id}"',
        f'kind = "{kind}"',
        f"paths = {_array(paths)}",
        f'reason = "{draw(st.sampled_from(["Do it.", "Fix it."]))}"',
    ]
    if dependency:
        lines.append('when = "dependency_added"')
    if draw(st.booleans()):
        lines.append('ignores = ["**/generated/**"]')
    if draw(st.booleans()):
        lines.append('severity = "warn"')
    if draw(st.booleans()):
        lines.append('waive_label = "skip-rules"')
    if kind == "requires":
        entry = draw(st.sampled_from(['"CHANGELOG.md"', '{ path = "docs/*.md", status = "added" }',
                                      '"*.lock"']))  # fmt: skip
        lines.append(f"require = [{entry}]")
    elif kind == "sibling":
        target = draw(st.sampled_from(['"tests/test_{name}.py"', '["a/{name}.x", "b/{name}.y"]']))
        lines.append(f"target = {target}")
    elif kind == "add_only" and draw(st.booleans()):
        lines.append('ignore_whitespace = "all-space"')
    elif kind == "pr_body":
        lines.append('section = "Risk"')
        if draw(st.booleans()):
            lines.append('contains = "Reason:"')
    return "\n".join(lines) + "\n" + (DEPENDENCY_EXAMPLES if dependency else EXAMPLES)


@st.composite
def settings_text(draw: st.DrawFn, prefix: str) -> str:
    parts = []
    if draw(st.booleans()):
        parts.append(
            f'[{prefix}git]\nprotected_branch = "{draw(st.sampled_from(["main", "dev"]))}"'
        )
    if draw(st.booleans()):
        parts.append(f'[{prefix}review]\npr_sections = ["Summary"]')
    if draw(st.booleans()):
        parts.append(f'[{prefix}stack]\non_turn_end = [{{ run = "true", paths = ["src/**"] }}]')
    return "\n".join(parts) + "\n"


@st.composite
def source_text(draw: st.DrawFn, name: str) -> str | None:
    """What one source holds next: absent, rules and settings, broken, or reformatted."""
    prefix = "tool.cagr." if name == "pyproject.toml" else ""
    shapes = ["absent", "absent", "rules", "rules", "rules", "rules", "broken", "not cagr's"]
    shape = draw(st.sampled_from(shapes))
    if shape == "absent":
        return None
    if shape == "broken":
        return draw(st.sampled_from(["[[changes.rules]\n", "x = \n", "\ufeffx = 1\n",
                                     "[changes]\nrules = 1\n"]))  # fmt: skip
    if shape == "not cagr's":
        return '[project]\nname = "x"\n' if name == "pyproject.toml" else "# nothing yet\n"
    tag = "abcd"[SOURCES.index(name)]
    rules = draw(st.lists(rule_text(prefix, tag), min_size=1, max_size=3))
    own_settings = name == "cagr.toml" or draw(st.integers(0, 5)) == 0
    text = (draw(settings_text(prefix)) if own_settings else "") + "\n".join(rules)
    return text + draw(st.sampled_from(["", "\n# a comment\n", "\n\n"]))


@st.composite
def step(draw: st.DrawFn) -> tuple[str, object]:
    what = draw(st.sampled_from(["edit", "edit", "edit", "upgrade", "damage", "touch code"]))
    if what == "edit":
        name = draw(st.sampled_from(SOURCES))
        return what, (name, draw(source_text(name)))
    if what == "upgrade":
        return what, draw(st.sampled_from(["0.1.0", "0.2.0", "1.0.0"]))
    if what == "damage":
        return what, (
            draw(st.integers(0, 10**6)),
            draw(st.sampled_from(["cut", "flip", "swap", "reword"])),
        )
    return what, None


def _side(text: str) -> Side:
    return Side(0o100644, hashlib.sha1(text.encode()).hexdigest(), text.encode())


CHANGES = ChangeSet(
    (
        Change("src/app/x.py", None, _side("a")),
        Change("lib/y.ts", _side("a"), _side("b")),
        Change("migrations/1.sql", _side("a"), _side("b")),
        Change("package.json", _side("{}"), _side('{"dependencies": {"left-pad": "1"}}')),
        Change("docs/guide.md", None, _side("c")),
        Change("pkg3/x", _side("a"), None),
        Change("src/generated/tests/z.py", None, _side("d")),
    ),
    Range("refs/heads/main", "a" * 40, "b" * 40, None),
)


def _outcome(config: RepoConfig | ConfigErrors) -> object:
    if isinstance(config, ConfigErrors):
        return ("invalid", [str(issue) for issue in config.issues])
    verdicts = [
        judge(config.rules, CHANGES, body, phase)
        for body, phase in ((PrBody(None), Phase.TURN), (PrBody("## Risk\nReason: x"), Phase.CI))
    ]
    return (config, config.settings, config.rules.rules, verdicts)


def _load(root: Path, gitdir: str | None) -> RepoConfig | ConfigErrors:
    try:
        return load_config(root, gitdir)
    except ConfigErrors as errors:
        return errors


def _apply(root: Path, gitdir: str, what: str, detail: object, code: Path) -> None:
    if what == "edit":
        name, text = detail  # type: ignore[misc]
        path = root / name
        if text is None:
            if path.exists():
                path.unlink()
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    elif what == "upgrade":
        config_cache.VERSION = str(detail)
    elif what == "damage":
        seed, how = detail  # type: ignore[misc]
        folder = Path(gitdir) / "cagr" / config_cache.FOLDER
        files = sorted(folder.iterdir()) if folder.is_dir() else []
        if not files:
            return
        target = files[seed % len(files)]
        data = target.read_bytes()
        if how == "cut":
            target.write_bytes(data[: seed % max(1, len(data))])
        elif how == "flip" and data:
            at = seed % len(data)
            target.write_bytes(data[:at] + bytes([data[at] ^ 1]) + data[at + 1 :])
        elif how == "swap" and len(files) > 1:
            shutil.copyfile(files[(seed + 1) % len(files)], target)
        elif how == "reword":  # still valid JSON of the right shape: only its digest tells
            target.write_bytes(data.replace(b"Do it.", b"Do it!").replace(b"**", b"*"))
    else:  # a module that took part in compiling changes (an edit, an upgrade)
        code.write_text(code.read_text() + "#\n")


@pytest.fixture
def code_listed(monkeypatch: pytest.MonkeyPatch) -> Path:
    """The modules a kept configuration lists: the real ones, and one file this test edits.

    What that file holds, and cagr's version, show in what compiling gives (a new version, or an
    edited compiler, may compile the same files differently), so a kept configuration that
    outlived either would give another outcome than a cold load."""
    folder = Path(tempfile.mkdtemp(prefix="cagr-code-"))
    module = folder / "compiler.py"
    module.write_text("x = 1\n")
    real = config_cache._loaded_code
    monkeypatch.setattr(
        config_cache,
        "_loaded_code",
        lambda: [*real(), [str(module), *config_cache._stat(str(module))]],
    )
    monkeypatch.setattr(config_cache, "VERSION", config_cache.VERSION)
    compile_ = config_module.config_from

    def compiled_by_this_code(root: Path, files: ConfigFiles) -> RepoConfig:
        config = compile_(root, files)
        made_by = f"{config_cache.VERSION}:{len(module.read_text())}"
        compiled = replace(config.compiled, rules_digest=f"{config.rules_digest}:{made_by}")
        return replace(config, compiled=compiled)

    monkeypatch.setattr(config_module, "config_from", compiled_by_this_code)
    return module


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(step(), min_size=1, max_size=12))
def test_the_cache_never_changes_an_outcome(
    code_listed: Path, steps: list[tuple[str, object]]
) -> None:
    root = Path(tempfile.mkdtemp(prefix="cagr-cache-"))
    try:
        subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
        gitdir = str(root / ".git")
        for what, detail in steps:
            _apply(root, gitdir, what, detail, code_listed)
            cold = _outcome(_load(root, None))
            event(f"{what}, then {'invalid' if cold[0] == 'invalid' else 'valid'}")
            assert _outcome(_load(root, gitdir)) == cold  # compiled afresh, or read back
            assert _outcome(_load(root, gitdir)) == cold  # read back
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_the_strategies_reach_valid_and_invalid_configurations() -> None:
    """Guard for the property above: its edits make both kinds of configuration."""
    seen: set[str] = set()

    @settings(max_examples=60, database=None)
    @given(st.sampled_from(SOURCES).flatmap(lambda name: st.tuples(st.just(name),
                                                                   source_text(name))))  # fmt: skip
    def collect(edit: tuple[str, str | None]) -> None:
        root = Path(tempfile.mkdtemp(prefix="cagr-cache-"))
        try:
            name, text = edit
            if text is not None:
                (root / name).parent.mkdir(parents=True, exist_ok=True)
                (root / name).write_text(text)
            outcome = _load(root, None)
            if isinstance(outcome, ConfigErrors):
                seen.add("invalid")
            elif outcome.rules.rules:
                seen.add("rules")
        finally:
            shutil.rmtree(root, ignore_errors=True)

    collect()
    assert seen == {"invalid", "rules"}
