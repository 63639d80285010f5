"""The compiled configuration kept in `<gitdir>/cagr/config/`: used only while it is exactly what
compiling the same files with the same cagr gives; anything else is compiled afresh."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cagr_repo import config as config_module
from cagr_repo import config_cache
from cagr_repo.config import ConfigErrors, RepoConfig, load_config
from cagr_repo.state import state_path
from tests.support.configs import rule
from tests.support.git import write

STACK = """
[git]
protected_branch = "develop"
[review]
pr_sections = ["Summary"]
[stack]
on_turn_end = [{ run = "make lint", paths = ["src/**"] }]
ci = [{ run = "make test" }]
"""


def gitdir(repo: Path) -> str:
    return str(repo / ".git")


def kept(repo: Path) -> list[Path]:
    folder = Path(state_path(gitdir(repo), config_cache.FOLDER))
    return sorted(folder.iterdir()) if folder.is_dir() else []


def load(repo: Path) -> RepoConfig:
    return load_config(repo, gitdir(repo))


def refuse_to_compile(monkeypatch: pytest.MonkeyPatch) -> None:
    def compile_(*_: object) -> RepoConfig:
        raise AssertionError("compiled afresh")

    monkeypatch.setattr(config_module, "config_from", compile_)


@pytest.fixture
def configured(repo: Path) -> Path:
    write(repo, "cagr.toml", rule() + STACK)
    write(repo, ".cagr/more.toml", rule("more"))
    return repo


class TestKept:
    def test_a_second_load_reads_what_the_first_kept(
        self, configured: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        first = load(configured)
        assert len(kept(configured)) == 1
        refuse_to_compile(monkeypatch)
        second = load(configured)
        assert second == first
        assert second.settings.on_turn_end[0].paths == ("src/**",)
        assert [c.id for c in second.rules.rules] == ["more", "schema"]

    def test_what_is_read_back_equals_a_fresh_compile(self, configured: Path) -> None:
        load(configured)
        warm = load(configured)
        cold = load_config(configured)
        assert warm == cold
        assert warm.rules.rules == cold.rules.rules
        assert warm.settings == cold.settings
        assert warm.loaded.config == cold.loaded.config  # the model is read again on demand

    def test_the_model_is_not_loaded_to_read_it_back(self, configured: Path) -> None:
        load(configured)
        code = (
            "import sys; from pathlib import Path; from cagr_repo.config import load_config; "
            f"load_config(Path({str(configured)!r}), {gitdir(configured)!r}); "
            "heavy = ('attrs', 'cattrs', 'wcmatch', 'bracex', 'tomllib', 'cagr_core.config',"
            " 'cagr_core.rules', 'cagr_core.validate', 'cagr_core.glob_compile'); "
            "print(sorted(m for m in heavy if m in sys.modules))"
        )
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        )
        assert done.stdout.strip() == "[]"

    def test_an_invalid_configuration_is_never_kept(self, repo: Path) -> None:
        write(repo, "cagr.toml", "[[changes.rules]]\nid = 1\n")
        for _ in range(2):
            with pytest.raises(ConfigErrors):
                load(repo)
        assert kept(repo) == []

    def test_only_the_newest_are_kept(self, repo: Path) -> None:
        for number in range(config_cache.KEPT + 3):
            write(repo, "cagr.toml", rule(f"r{number}"))
            load(repo)
        assert len(kept(repo)) == config_cache.KEPT
        assert [c.id for c in load(repo).rules.rules] == [f"r{config_cache.KEPT + 2}"]


class TestMisses:
    """Any edit, and any change of the code that compiled it, is compiled afresh."""

    @pytest.mark.parametrize(
        ("name", "text"),
        [
            ("cagr.toml", rule("renamed") + STACK),
            ("cagr.toml", rule() + STACK + "# only a comment\n"),
            (".cagr/more.toml", rule("more").replace("schema.json", "other.json")),
            (".cagr/new/extra.toml", rule("extra")),
            ("pyproject.toml", rule("from-pyproject", prefix="tool.cagr.")),
            # a quoted key may spell cagr with escapes: such a file is a source
            ("pyproject.toml", rule("escaped", prefix='tool."\\u0063agr".')),
        ],
    )
    def test_an_edit_of_any_source(self, configured: Path, name: str, text: str) -> None:
        load(configured)
        write(configured, name, text)
        assert load(configured) == load_config(configured)
        assert len(kept(configured)) == 2

    def test_a_pyproject_that_cannot_hold_cagr_is_no_source(self, configured: Path) -> None:
        load(configured)
        for text in ('[project]\nname = "x"\n', "[project\nbroken = "):  # a project's own edits
            write(configured, "pyproject.toml", text)
            assert load(configured) == load_config(configured)
            assert len(kept(configured)) == 1

    def test_a_removed_fragment(self, configured: Path) -> None:
        load(configured)
        os.unlink(configured / ".cagr" / "more.toml")
        assert [c.id for c in load(configured).rules.rules] == ["schema"]

    def test_another_cagr_version(self, configured: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        load(configured)
        monkeypatch.setattr(config_cache, "VERSION", "99.0.0")
        assert load(configured) == load_config(configured)
        assert len(kept(configured)) == 2

    def test_another_install_of_the_same_version(
        self, configured: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Two installs of one version (a git build in a venv, another under pipx) may hold
        different code: neither reads what the other kept."""
        load(configured)
        monkeypatch.setattr(config_cache, "__file__", "/elsewhere/cagr_repo/config_cache.py")
        refused = []
        real = config_module.config_from
        monkeypatch.setattr(config_module, "config_from", lambda *a: refused.append(1) or real(*a))
        warm = load(configured)
        assert refused == [1]
        assert warm == load_config(configured)
        assert len(kept(configured)) == 2

    def test_changed_code(
        self, configured: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        module = tmp_path / "compiler.py"
        module.write_text("x = 1\n")
        listed = [[str(module), *config_cache._stat(str(module))]]
        monkeypatch.setattr(config_cache, "_loaded_code", lambda: listed)
        load(configured)
        module.write_text("x = 22\n")  # an upgrade or an edit of a module that took part
        calls = []
        real = config_module.config_from
        monkeypatch.setattr(config_module, "config_from", lambda *a: calls.append(1) or real(*a))
        warm = load(configured)
        assert calls == [1]
        assert warm == load_config(configured)


def _damage(path: Path, how: str) -> None:
    data = path.read_bytes()
    head, digest, payload = data.split(b"\n", 2)
    if how == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif how == "flipped":
        middle = len(data) // 2
        path.write_bytes(data[:middle] + bytes([data[middle] ^ 0x20]) + data[middle + 1 :])
    elif how == "garbage":
        path.write_bytes(b"\x00\xff not a kept configuration")
    elif how == "empty":
        path.write_bytes(b"")
    elif how == "retyped":  # consistent digest, wrong types: never trusted either
        document = json.loads(payload)
        document["rules"][0]["paths"]["regexes"] = "src/.*"
        body = json.dumps(document).encode()
        path.write_bytes(b"\n".join([head, hashlib.sha256(body).hexdigest().encode(), body]))
    elif how == "another key":
        path.write_bytes(b"0" * 64 + b"\n" + digest + b"\n" + payload)


class TestDamage:
    @pytest.mark.parametrize(
        "how", ["truncated", "flipped", "garbage", "empty", "retyped", "another key"]
    )
    def test_a_damaged_file_is_compiled_afresh_and_replaced(
        self, configured: Path, how: str
    ) -> None:
        load(configured)
        (path,) = kept(configured)
        _damage(path, how)
        assert load(configured) == load_config(configured)
        assert kept(configured) == [path]
        assert load(configured) == load_config(configured)  # the rewritten file reads back

    def test_a_linked_state_folder_is_neither_read_nor_written(
        self, configured: Path, tmp_path: Path
    ) -> None:
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir()
        (configured / ".git" / "cagr").mkdir(exist_ok=True)
        os.symlink(elsewhere, configured / ".git" / "cagr" / config_cache.FOLDER)
        assert load(configured) == load_config(configured)
        assert list(elsewhere.iterdir()) == []
