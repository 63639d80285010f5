"""cagr_code: code rules' searches, by ast-grep, read into the core's `CodeMatch` values.

`read_change` searches each side of one collected change with every code rule that selects its
path, and puts what each rule matched on the side (or why it could not search it: a side that
is not UTF-8 text, is larger than cagr reads, or does not parse in the rule's language, and
ast-grep itself missing) as a `CodeProblem`, never an empty result. The core then decides what
is new against the baseline. ast-grep (`ast-grep-py`, cagr's `code` extra) is imported only here,
and only when a code rule selects a changed path.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from cagr_core.changes import Change, ChangeSet, Side
from cagr_core.code import MAX_CODE_BYTES, CodeMatch, CodeProblem, CodeRead
from cagr_core.ruleset import CompiledRule, RuleSet
from cagr_core.values import replace

__all__ = ["MISSING", "read_change", "read_changes", "rule_problem"]

TYPE_CHECKING = False  # not typing's
if TYPE_CHECKING:
    from typing import Any

MISSING = (
    "ast-grep is not installed here, so no code rule was checked: install cagr with its code"
    " extra (`pip install 'cagr[code]'`, or `pip install ast-grep-py`)."
)
_configs: dict[str, dict[str, Any]] = {}


def _ast_grep() -> Any:
    """The ast-grep module, or None when it is not installed."""
    try:
        import ast_grep_py  # noqa: PLC0415  # only a check that searches code pays for it
    except ImportError:
        return None
    return ast_grep_py


def rule_problem(language: str, config: dict[str, Any]) -> str | None:
    """What ast-grep says is wrong with a rule object (and constraints) in `language`, None when
    it takes it, or when ast-grep is not installed (the rule is then unchecked wherever it runs)."""
    ast_grep = _ast_grep()
    if ast_grep is None:
        return None
    try:
        ast_grep.SgRoot("", language).root().find_all(config)
    except BaseException as error:  # ast-grep's panics derive from BaseException
        if isinstance(error, KeyboardInterrupt | SystemExit):
            raise
        return " ".join(str(error).split())
    return None


def _config(compiled: CompiledRule) -> dict[str, Any]:
    assert compiled.code_rule is not None
    config = _configs.get(compiled.code_rule)
    if config is None:
        config = _configs[compiled.code_rule] = json.loads(compiled.code_rule)
    return config


def _search(side: Side | None, rules: tuple[CompiledRule, ...]) -> Side | None:
    """The side with what each rule found in it (unchanged when it holds no code to search)."""
    if side is None or not side.kind.is_file or side.content is None:
        return side  # the evaluator says why a side it needs was not searched
    return replace(side, code=tuple(_read(side.content, rules)))


def _read(content: bytes, rules: tuple[CompiledRule, ...]) -> Iterable[tuple[str, CodeRead]]:
    ast_grep = _ast_grep()
    if ast_grep is None:
        yield from ((c.id, CodeProblem(MISSING, everywhere=True)) for c in rules)
        return
    if len(content) > MAX_CODE_BYTES:
        problem = CodeProblem(f"is larger than the {MAX_CODE_BYTES} bytes cagr searches.")
        yield from ((c.id, problem) for c in rules)
        return
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError as error:
        problem = CodeProblem(f"is not UTF-8 text ({error.reason} at byte {error.start}).")
        yield from ((c.id, problem) for c in rules)
        return
    roots: dict[str, Any] = {}
    for compiled in rules:
        language = compiled.language or ""
        root = roots.get(language)
        if root is None:
            root = roots[language] = _parse(ast_grep, text, language)
        if isinstance(root, CodeProblem):
            yield compiled.id, root
            continue
        try:
            found = root.find_all(_config(compiled))
        except BaseException as error:  # ast-grep's panics
            if isinstance(error, KeyboardInterrupt | SystemExit):
                raise
            said = " ".join(str(error).split())
            yield compiled.id, CodeProblem(f"could not be searched: ast-grep said {said}.")
            continue
        yield compiled.id, tuple(_match(node) for node in found)


def _parse(ast_grep: Any, text: str, language: str) -> Any:
    """The parsed file's root node, or why it does not parse: a file with a syntax error may
    hide a match in the part the parser could not read, so it is never searched as if whole."""
    try:
        root = ast_grep.SgRoot(text, language).root()
    except BaseException as error:  # an unknown language panics in ast-grep
        if isinstance(error, KeyboardInterrupt | SystemExit):
            raise
        return CodeProblem(f"cannot be parsed as {language} ({' '.join(str(error).split())}).")
    # tree-sitter reads past a syntax error: an ERROR node, or a token it supposes missing
    # (a node of no text; no grammar ast-grep ships has one in code that parses)
    broken = root.find(kind="ERROR") or (root.find(regex="^$") if text else None)
    if broken is not None:
        start = broken.range().start
        return CodeProblem(
            f"does not parse as {language} (a syntax error at line {start.line + 1}, column"
            f" {start.column + 1}), so it was not searched."
        )
    return root


def _match(node: Any) -> CodeMatch:
    start = node.range().start
    return CodeMatch(node.text(), start.line + 1, start.column + 1)


def read_change(rules: RuleSet, change: Change) -> Change:
    """The change with each loaded side searched by every code rule that selects its path."""
    selecting = rules.code_rules(change.path)
    if not selecting:
        return change
    return Change(change.path, _search(change.old, selecting), _search(change.new, selecting))


def read_changes(rules: RuleSet, changes: ChangeSet) -> ChangeSet:
    """`read_change` of every change in the set."""
    return replace(changes, changes=tuple(read_change(rules, c) for c in changes.changes))
