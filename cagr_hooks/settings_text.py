"""A settings file's JSON text, edited in place: comments, order and layout outside an edit stay.

Agents' settings files are the person's: Gemini CLI accepts `//` and `/* */` comments in its
`settings.json`, and teams keep their own order and indentation. `parse` reads JSON with
comments into nodes that know where they are in the text; `Edits` collects replacements,
insertions and deletions at those places and applies them at once, rendering new values in the
file's own indentation. What is not edited is not touched.
"""

from __future__ import annotations

import json
import re
from typing import Any

_SPACE = re.compile(r"(?:\s+|//[^\n]*|/\*.*?\*/)*", re.DOTALL)
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_STRING = re.compile(r'"(?:[^"\\\x00-\x1f]|\\.)*"', re.DOTALL)
_WORDS = {"true": True, "false": False, "null": None}


class SettingsSyntax(ValueError):
    """The text is not JSON (with comments): what and where."""

    def __init__(self, message: str, text: str, at: int) -> None:
        line = text.count("\n", 0, at) + 1
        column = at - (text.rfind("\n", 0, at) + 1) + 1
        super().__init__(f"{message} at line {line}, column {column}")


class Node:
    """One JSON value at `start`..`end` of the text: its Python value, and for an object its
    members (key -> node) or for an array its items."""

    __slots__ = ("end", "items", "members", "start", "value")

    def __init__(self, start: int) -> None:
        self.start = start
        self.end = start
        self.value: Any = None
        self.members: dict[str, Node] = {}
        self.items: list[Node] = []


def parse(text: str) -> Node:
    """The text's one value, comments allowed around and between tokens."""
    at = _skip(text, 0)
    try:
        node, at = _value(text, at)
    except RecursionError:
        raise SettingsSyntax("values nested too deeply", text, at) from None
    if _skip(text, at) != len(text):
        raise SettingsSyntax("more text after the JSON value", text, _skip(text, at))
    return node


def _skip(text: str, at: int) -> int:
    match = _SPACE.match(text, at)
    end = match.end() if match else at
    if text.startswith("/*", end):
        raise SettingsSyntax("an unclosed /* comment", text, end)
    return end


def _value(text: str, at: int) -> tuple[Node, int]:  # one branch per JSON kind
    node = Node(at)
    char = text[at : at + 1]
    if char == "{":
        node.value = {}
        at = _skip(text, at + 1)
        while not text.startswith("}", at):
            key_match = _STRING.match(text, at)
            if key_match is None:
                raise SettingsSyntax("expected a key in double quotes", text, at)
            key = json.loads(key_match.group())
            at = _skip(text, key_match.end())
            if not text.startswith(":", at):
                raise SettingsSyntax("expected ':'", text, at)
            member, at = _value(text, _skip(text, at + 1))
            node.members[key], node.value[key] = member, member.value
            at = _after_element(text, _skip(text, at), "}")
        node.end = at + 1
    elif char == "[":
        node.value = []
        at = _skip(text, at + 1)
        while not text.startswith("]", at):
            item, at = _value(text, at)
            node.items.append(item)
            node.value.append(item.value)
            at = _after_element(text, _skip(text, at), "]")
        node.end = at + 1
    elif char == '"':
        match = _STRING.match(text, at)
        if match is None:
            raise SettingsSyntax("an unclosed string", text, at)
        node.value, node.end = json.loads(match.group()), match.end()
    else:
        word = re.match(r"[a-z]+", text[at:])
        number = _NUMBER.match(text, at)
        if word is not None and word.group() in _WORDS:
            node.value, node.end = _WORDS[word.group()], at + len(word.group())
        elif number is not None:
            node.value, node.end = json.loads(number.group()), number.end()
        else:
            raise SettingsSyntax("expected a JSON value", text, at)
    return node, node.end


def _after_element(text: str, at: int, closing: str) -> int:
    if text.startswith(",", at):
        after = _skip(text, at + 1)
        if text.startswith(closing, after):
            raise SettingsSyntax("a comma before the closing bracket", text, at)
        return after
    if not text.startswith(closing, at):
        raise SettingsSyntax(f"expected ',' or '{closing}'", text, at)
    return at


class Edits:
    """Changes to one text, applied together from the end so earlier places stay valid."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.unit = _indent_unit(text)
        self._changes: list[tuple[int, int, int, str]] = []  # start, order, end, new text

    def _change(self, start: int, end: int, replacement: str) -> None:
        self._changes.append((start, len(self._changes), end, replacement))

    def replace(self, node: Node, value: object) -> None:
        self._change(node.start, node.end, self._render(value, self._indent(node.start)))

    def append(self, array: Node, value: object) -> None:
        """Add `value` as the array's last item, indented like the items before it."""
        if not array.items:
            self.replace(array, [value])
            return
        last = array.items[-1]
        indent = self._indent(array.items[0].start)
        self._change(last.end, last.end, f",\n{indent}{self._render(value, indent)}")

    def add_members(self, obj: Node, members: dict[str, object]) -> None:
        """Add members after the object's last one, in order, indented like its others."""
        if not members:
            return
        if not obj.members:
            self.replace(obj, members)
            return
        last = list(obj.members.values())[-1]
        indent = self._indent(self._member_start(last))
        rendered = "".join(
            f",\n{indent}{json.dumps(key, ensure_ascii=False)}: {self._render(value, indent)}"
            for key, value in members.items()
        )
        self._change(last.end, last.end, rendered)

    def apply(self) -> str:
        """The text with every change made (later places first, so earlier ones stay valid;
        insertions at one place keep the order they were asked in)."""
        text = self.text
        for start, _, end, replacement in sorted(self._changes, reverse=True):
            text = text[:start] + replacement + text[end:]
        return text

    def _member_start(self, value: Node) -> int:
        """Where the member whose value is `value` begins: its key, before the colon."""
        colon = self.text.rfind(":", 0, value.start)
        return self.text.rfind('"', 0, self.text.rfind('"', 0, colon))

    def _indent(self, at: int) -> str:
        line_start = self.text.rfind("\n", 0, at) + 1
        line = self.text[line_start:at]
        return line[: len(line) - len(line.lstrip())]

    def _render(self, value: object, indent: str) -> str:
        return json.dumps(value, indent=self.unit, ensure_ascii=False).replace("\n", "\n" + indent)


def _indent_unit(text: str) -> str:
    """The file's indentation step: the first indented line's whitespace (two spaces if none)."""
    match = re.search(r"\n([ \t]+)\S", text)
    return match.group(1) if match else "  "
