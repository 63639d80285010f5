"""go.mod: the module paths of `require` lines and `require ( ... )` blocks.

A small line parser after the go command's own lexer: `//` comments, `"..."` and `` `...` ``
strings, the punctuation `( ) [ ] { } ,` as tokens of their own, a block opened by `verb (` at
the end of a line and closed by `)` alone on its line. Direct and `// indirect` requirements
both count: an indirect one is in the module graph already. Other directives (`module`, `go`,
`replace`, `exclude`, `tool`, ...) declare no requirement and are skipped. Module paths are
compared exactly, as Go does.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from cagr_core.dependencies import Declared, DependencySection, shown

from ._reading import Malformed

SECTION = "require"
_PUNCTUATION = "()[]{},"


def _tokens(line: str, number: int) -> list[str]:
    """The tokens of one line, comment dropped; strings unquoted."""
    tokens: list[str] = []
    position = 0
    while position < len(line):
        char = line[position]
        if char in " \t\r":
            position += 1
        elif line.startswith("//", position):
            break
        elif line.startswith("/*", position):
            raise Malformed(f"has a /* comment at line {number}; go.mod allows // comments only")
        elif char in _PUNCTUATION:
            tokens.append(char)
            position += 1
        elif char in '"`':
            end = line.find(char, position + 1)
            while char == '"' and end != -1 and _escaped(line, end):
                end = line.find(char, end + 1)
            if end == -1:
                raise Malformed(f"has an unterminated string at line {number}")
            tokens.append(_unquote(line[position : end + 1], number))
            position = end + 1
        elif char.isprintable():
            start = position
            while (
                position < len(line)
                and not line[position].isspace()
                and line[position] not in _PUNCTUATION
                and line[position].isprintable()
                and not line.startswith(("//", "/*"), position)
            ):
                position += 1
            tokens.append(line[start:position])
        else:
            raise Malformed(f"has an unexpected character {char!r} at line {number}")
    return tokens


def _escaped(line: str, quote: int) -> bool:
    """Whether the quote at `quote` is escaped (an odd run of backslashes before it)."""
    backslashes = 0
    while line[quote - 1 - backslashes] == "\\":
        backslashes += 1
    return backslashes % 2 == 1


def _unquote(token: str, number: int) -> str:
    if token.startswith("`"):
        return token[1:-1]
    try:
        value = json.loads(token)  # JSON's escapes are a subset of Go's; the rest stay unread
    except ValueError as error:
        raise Malformed(
            f"has a quoted string at line {number} cagr cannot read: {shown(token)}"
        ) from error
    assert isinstance(value, str)
    return value


def _statements(text: str) -> Iterator[tuple[int, str, list[str]]]:
    """(line, verb, arguments) of each statement; a block's lines each under the block's verb."""
    block: tuple[int, str] | None = None
    for number, line in enumerate(text.split("\n"), start=1):
        tokens = _tokens(line, number)
        if block is not None:
            if tokens == [")"]:
                block = None
            elif tokens:
                yield number, block[1], tokens
            continue
        if not tokens:
            continue
        if tokens[0] in _PUNCTUATION:
            raise Malformed(f"has a line that starts with {tokens[0]} at line {number}")
        if len(tokens) >= 2 and tokens[-1] == "(":
            if len(tokens) > 2:
                raise Malformed(f"has a block that opens after more than a verb at line {number}")
            block = (number, tokens[0])
        elif tokens[1:] == ["(", ")"]:
            continue  # an empty block
        else:
            yield number, tokens[0], tokens[1:]
    if block is not None:
        raise Malformed(f"has a block opened at line {block[0]} that is never closed")


def read(text: str) -> Declared:
    """The modules one go.mod side requires; Malformed when a line is not go.mod syntax."""
    names: dict[str, str] = {}
    versions: dict[str, str] = {}
    replaced: dict[str, list[str]] = {}
    for number, verb, arguments in _statements(text):
        if verb == "replace" and "=>" in arguments:
            # A replacement changes where a required module comes from: part of its requirement.
            replaced.setdefault(arguments[0], []).append(" ".join(arguments[1:]))
        if verb != "require":
            continue
        if len(arguments) != 2 or any(a in _PUNCTUATION for a in arguments) or not arguments[0]:
            raise Malformed(
                f"has a require at line {number} that is not `module/path v1.2.3`:"
                f" {shown(' '.join(arguments))}"
            )
        names.setdefault(arguments[0], arguments[0])
        versions[arguments[0]] = arguments[1]
    specs = {
        module: " ".join([version, *sorted(f"replace {r}" for r in replaced.get(module, ()))])
        for module, version in versions.items()
    }
    return Declared((DependencySection(SECTION, SECTION, names, specs),))
