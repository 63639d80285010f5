"""cagr_code's searches: the same matches ast-grep's own CLI finds in the same files (the
oracle: `ast-grep scan --inline-rules`), and a problem, never an empty result, for what cannot
be searched."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import cagr_code
from cagr_core.changes import Change, Side
from cagr_core.code import MAX_CODE_BYTES, CodeMatch, CodeProblem
from cagr_core.ruleset import RuleSet
from tests.support.rules import code_rule

ROOT = Path(__file__).resolve().parents[2]
AST_GREP = shutil.which("ast-grep", path=str(Path(sys.executable).parent)) or shutil.which(
    "ast-grep"
)
RULES = [
    {"pattern": "re.compile($$$A)"},
    {"kind": "function_definition", "has": {"pattern": "return None", "stopBy": "end"}},
    {"pattern": "$X is None", "inside": {"kind": "if_statement", "stopBy": "end"}},
    {"any": [{"pattern": "raise $E"}, {"pattern": "assert $C"}]},
    {"kind": "string", "regex": '^f?"cagr'},
]


def _side(text: str | bytes) -> Side:
    data = text.encode() if isinstance(text, str) else text
    return Side(0o100644, "1" * 40, data)


def _found(
    rule: dict[str, object], path: str, text: str | bytes
) -> tuple[CodeMatch, ...] | CodeProblem:
    compiled = code_rule("r", rule)
    change = cagr_code.read_change(RuleSet((compiled,)), Change(path, None, _side(text)))
    assert change.new is not None
    read = change.new.code_read("r")
    assert read is not None
    return read


@pytest.mark.skipif(AST_GREP is None, reason="ast-grep's CLI (ast-grep-cli) is not installed")
@pytest.mark.parametrize("rule", RULES, ids=[json.dumps(r)[:40] for r in RULES])
def test_the_same_matches_as_ast_greps_own_cli(rule: dict[str, object]) -> None:
    files = sorted((ROOT / "cagr_core").glob("*.py")) + sorted((ROOT / "cagr_hooks").glob("*.py"))
    inline = json.dumps({"id": "r", "language": "python", "severity": "hint", "rule": rule})
    done = subprocess.run(
        [str(AST_GREP), "scan", "--inline-rules", inline, "--json=compact", *map(str, files)],
        capture_output=True,
        text=True,
        check=False,
    )
    expected = {
        (Path(m["file"]).resolve(), m["range"]["start"]["line"] + 1,
         m["range"]["start"]["column"] + 1, m["text"])
        for m in json.loads(done.stdout)
    }  # fmt: skip
    found = set()
    for path in files:
        read = _found(rule, "src/x.py", path.read_text())
        assert isinstance(read, tuple), read
        found.update((path.resolve(), m.line, m.column, m.text) for m in read)
    assert expected, "the oracle found nothing: the comparison would prove nothing"
    assert found == expected


def test_columns_count_characters_and_are_one_based() -> None:
    (match,) = _found({"pattern": "print($A)"}, "a.py", "é = 1; print(x)\n")  # type: ignore[misc]
    assert (match.line, match.column, match.text) == (1, 8, "print(x)")


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ("def f(:\n    print(1)\n", "does not parse as python (a syntax error at line 1"),
        (b"print('\xff')\n", "is not UTF-8 text"),
        ("x = 1\n" * (MAX_CODE_BYTES // 6 + 1), f"larger than the {MAX_CODE_BYTES} bytes"),
    ],
)
def test_what_cannot_be_searched_is_a_problem(content: str | bytes, said: str) -> None:
    read = _found({"pattern": "print($A)"}, "a.py", content)
    assert isinstance(read, CodeProblem)
    assert said in read.message
    assert not read.everywhere


def test_without_ast_grep_every_rule_is_a_problem_everywhere(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(cagr_code, "_ast_grep", lambda: None)
    read = _found({"pattern": "print($A)"}, "a.py", "print(1)\n")
    assert isinstance(read, CodeProblem)
    assert read.everywhere
    assert "pip install 'cagr[code]'" in read.message


def test_a_path_no_code_rule_selects_is_left_alone() -> None:
    compiled = code_rule("r", {"pattern": "print($A)"}, paths=("src/**",))
    change = Change("docs/a.py", None, _side("print(1)\n"))
    assert cagr_code.read_change(RuleSet((compiled,)), change) is change
