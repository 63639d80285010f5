"""`cagr init`'s layout rules: suggested only where every tracked file of a language is named in
one convention that its names show, and passing `cagr rules test` and `cagr check --all` once
uncommented."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cagr_cli.main import main
from cagr_core.layout import CONVENTIONS, follows
from cagr_repo.suggest import suggest
from cagr_repo.suggest_names import MIN_FILES, suggest_names
from tests.support.configs import uncomment
from tests.support.git import commit, write

Capture = pytest.CaptureFixture[str]
SNAKE = [f"pkg/part_{i}.py" for i in range(4)] + [f"pkg/m{i}.py" for i in range(6)]


def names(paths: list[str]) -> dict[str, str]:
    return {s.rule["id"]: s.rule["name"] for s in suggest_names(paths)}


def test_a_convention_every_name_shows_is_suggested_once_per_extension() -> None:
    kebab = [f"web/some-part-{i}.ts" for i in range(10)]
    pascal = [f"src/Widget{i}Box.java" for i in range(10)]
    camel = [f"lib/makeThing{i}.js" for i in range(9)] + ["lib/index.js"]
    found = names([*SNAKE, "pkg/__init__.py", "pkg/__main__.py", *kebab, *pascal, *camel])
    assert found == {
        "python-module-names": "snake_case",
        "ts-file-names": "kebab-case",
        "java-class-names": "PascalCase",
        "js-file-names": "camelCase",
    }


def test_a_mock_is_named_after_what_it_mocks(repo: Path, capsys: Capture) -> None:
    """paperless-ngx's Angular sources are all kebab-case, and its v3 beta added
    src/test/mocks/pdfjs-web-pdf_viewer.ts, a mock of `pdfjs-dist/web/pdf_viewer`: the module it
    stands in for names it (jest finds `__mocks__/` files by that name), not the team."""
    kebab = [f"web/some-part-{i}.ts" for i in range(10)]
    assert names([*kebab, "web/__mocks__/lodash_debounce.ts", "test/mocks/pdf_viewer.ts"]) == {
        "ts-file-names": "kebab-case"
    }
    for path in kebab:
        write(repo, path, "export {}\n")
    commit(repo, "sources")
    assert main(["--repo", str(repo), "init"]) == 0
    path = repo / ".cagr" / "changes.toml"
    path.write_text(uncomment(path.read_text()))
    commit(repo, "rules")
    write(repo, "src/test/mocks/pdfjs-web-pdf_viewer.ts", "export {}\n")
    write(repo, "web/__mocks__/lodash_debounce.ts", "export {}\n")
    commit(repo, "mocks")
    capsys.readouterr()
    assert main(["--repo", str(repo), "rules", "check", "--committed", "--base", "HEAD~1"]) == 0
    out = capsys.readouterr().out
    assert "1 rule(s) checked, 2 changed path(s); 0 finding(s)" in out  # the rule ran
    assert "pdf_viewer" not in out
    assert "lodash_debounce" not in out
    write(repo, "web/new_part.ts", "export {}\n")
    commit(repo, "a source")
    capsys.readouterr()
    assert main(["--repo", str(repo), "rules", "check", "--committed", "--base", "HEAD~1"]) == 0
    assert "web/new_part.ts" in capsys.readouterr().out  # a source's name is still judged


def test_no_suggestion_without_evidence() -> None:
    assert names(SNAKE[:-1]) == {}  # fewer than MIN_FILES files
    assert names([f"pkg/m{i}.py" for i in range(12)]) == {}  # one-word names show nothing
    assert names([*SNAKE[2:], *[f"pkg/n{i}.py" for i in range(8)]]) == {}  # two show it
    assert names([*SNAKE, "pkg/OldModule.py"]) == {}  # one name breaks it: no such rule here
    assert names([*SNAKE, "tools/make-docs.py"]) == {}


@given(st.lists(st.from_regex(r"[A-Za-z][A-Za-z0-9_-]{0,12}", fullmatch=True), max_size=30))
def test_a_suggested_convention_holds_for_every_file(stems: list[str]) -> None:
    paths = [f"src/{s}.py" for s in stems]
    for suggestion in suggest_names(paths):
        regex = CONVENTIONS[suggestion.rule["name"]]
        assert len(paths) >= MIN_FILES
        assert all(follows(regex, path) for path in paths)


def test_init_writes_the_layout_rule_and_it_holds_once_uncommented(
    repo: Path, capsys: Capture
) -> None:
    for path in SNAKE:
        write(repo, path, "x = 1\n")
    commit(repo, "modules")
    assert [s.table for s in suggest(SNAKE)] == ["layout"]
    assert main(["--repo", str(repo), "init"]) == 0
    assert "python-module-names (layout): all 10 tracked *.py files" in capsys.readouterr().out
    text = (repo / ".cagr" / "changes.toml").read_text()
    assert tomllib.loads(text) == {}
    (repo / ".cagr" / "changes.toml").write_text(uncomment(text))
    assert tomllib.loads(uncomment(text))["layout"]["rules"][0]["name"] == "snake_case"
    capsys.readouterr()
    assert main(["--repo", str(repo), "rules", "test"]) == 0, capsys.readouterr().out
    assert "layout: 1 rule(s), 2 example(s), all passed" in capsys.readouterr().out
    assert main(["--repo", str(repo), "check", "--all"]) == 0, capsys.readouterr().out
    write(repo, "pkg/NewModule.py", "x = 1\n")
    capsys.readouterr()
    assert main(["--repo", str(repo), "check", "--all"]) == 0  # suggested as a warning
    out = capsys.readouterr().out
    assert "Warning: layout rule python-module-names" in out
    assert "pkg/NewModule.py" in out
