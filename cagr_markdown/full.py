"""A pull request's description parsed by mistune into the core's Document: the reference
semantics, and the fallback wherever cagr_markdown.scanner is not sure.

mistune (CommonMark, with GitHub's tables, strikethrough and task lists) parses the text; each
top-level block becomes a Heading (its level and visible text) or Content (its visible lines:
comments, tags and the inside of <script> and <style> dropped, entities decoded, code kept).
Headings are the ones GitHub renders: ATX (`## Risk`), setext (`Risk` over `----`) and the
HTML elements `<h1>` to `<h6>` of a top-level HTML block. The core finds sections in that
Document and judges them.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import mistune

from cagr_core.sections import Content, Document, Heading

__all__ = ["parse"]

_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
# Elements whose content no reader sees: a browser never shows it, and GitHub drops scripts.
_UNSEEN = re.compile(r"<(script|style)\b.*?(?:</\1\s*>|\Z)", re.DOTALL | re.IGNORECASE)
_UNSEEN_OPEN = re.compile(r"<(script|style)\b", re.IGNORECASE)
_SPACES = re.compile(r"\s+")
_TAG = re.compile(r"</?[A-Za-z][^>]*>")
_HTML_HEADING = re.compile(
    r"<h([1-6])(?:\s[^>]*)?>(.*?)(?:</h\1\s*>|\Z)", re.DOTALL | re.IGNORECASE
)


def parse(text: str) -> Document:
    """The description's top-level blocks, in order (line breaks already `\\n`)."""
    markdown = mistune.create_markdown(
        renderer=None, plugins=["strikethrough", "table", "task_lists"]
    )
    tokens = markdown(text)
    assert isinstance(tokens, list)  # the AST renderer (renderer=None) returns block tokens
    return tuple(block for token in tokens for block in _blocks(token))


def _blocks(token: Mapping[str, Any]) -> Iterator[Heading | Content]:
    """One top-level token as blocks: an HTML block split at the headings it holds."""
    if token["type"] != "block_html":
        yield _block(token)
        return
    raw = _UNSEEN.sub("", _COMMENT.sub("", token["raw"]))
    last = 0
    for heading in _HTML_HEADING.finditer(raw):
        yield Content(tuple(_html_lines(raw[last : heading.start()])))
        text = " ".join(_html_lines(heading.group(2)))
        yield Heading(int(heading.group(1)), _SPACES.sub(" ", text).strip(), atx=False)
        last = heading.end()
    yield Content(tuple(_html_lines(raw[last:])))


def _html_lines(raw: str) -> list[str]:
    """The visible lines of HTML without comments or unseen elements: tags dropped, entities
    decoded."""
    return html.unescape(_TAG.sub(" ", raw)).splitlines()


def _block(token: Mapping[str, Any]) -> Heading | Content:
    if token["type"] == "heading":
        text = _inline_text(token.get("children", ()))
        return Heading(token["attrs"]["level"], text, atx=token.get("style") == "atx")
    return Content(tuple(_block_lines(token)), _tasks(token))


def _tasks(token: Mapping[str, Any]) -> int:
    """The task-list items (checkboxes) in one block token, nested ones included: the items
    mistune's task_lists plugin marks (a list item whose first paragraph starts with `[ ]`,
    `[x]` or `[X]` and white space, a line break included)."""
    own = 1 if token["type"] == "task_list_item" else 0
    return own + sum(_tasks(child) for child in token.get("children", ()))


def _inline_text(tokens: Iterable[Mapping[str, Any]]) -> str:
    out: list[str] = []
    unseen = ""  # inside an inline <script> or <style>: its closing tag
    for token in tokens:
        kind = token["type"]
        if kind == "inline_html":  # tags and comments are not visible
            raw = token["raw"]
            if unseen:
                unseen = "" if re.fullmatch(unseen, raw, re.IGNORECASE) else unseen
            elif opening := _UNSEEN_OPEN.match(raw):
                unseen = rf"</{opening.group(1)}\s*>"
        elif unseen:
            continue
        elif kind in ("text", "codespan"):
            out.append(html.unescape(token["raw"]) if kind == "text" else token["raw"])
        elif kind in ("softbreak", "linebreak"):
            out.append("\n")
        elif "children" in token:
            out.append(_inline_text(token["children"]))
        elif "raw" in token:
            out.append(token["raw"])
    return "".join(out)


def _block_lines(token: Mapping[str, Any]) -> Iterator[str]:
    """The visible lines of one block token (headings excluded: they are structure)."""
    kind = token["type"]
    if kind in ("blank_line", "thematic_break", "heading"):
        return
    if kind == "block_html":
        yield from _html_lines(_UNSEEN.sub("", _COMMENT.sub("", token["raw"])))
    elif kind == "block_code":
        yield from token["raw"].splitlines()
    elif kind in ("paragraph", "block_text", "table_cell"):
        yield from _inline_text(token.get("children", ())).splitlines()
    else:  # lists, items, quotes, tables: containers of blocks
        for child in token.get("children", ()):
            yield from _block_lines(child)
