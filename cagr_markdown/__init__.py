"""cagr_markdown: a pull request's description, parsed into the core's Document.

mistune (`full`: CommonMark, with GitHub's tables, strikethrough and task lists) defines what a
description holds: each top-level block becomes a Heading (its level and visible text) or
Content (its visible lines). Most descriptions are headings, paragraphs, lists, comments and
code, which `scan` reads with the standard library alone; wherever it is not sure of reading
a text as mistune does, the text goes to mistune, imported only then. Both give the Document
in one normal form (below), and the property tests hold them to the same one.
"""

from __future__ import annotations

from cagr_core.pull_request import MAX_BODY_BYTES, PrBody
from cagr_core.sections import Content, Document, Heading
from cagr_core.values import replace

from .scanner import scan

__all__ = ["normal", "parse", "parsed"]


def parse(text: str) -> Document:
    """The description's top-level blocks, in order, in normal form."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    scanned = scan(text)
    if scanned is not None:
        return normal(scanned)
    from . import full  # noqa: PLC0415  # mistune, only for what the scanner is not sure of

    return normal(full.parse(text))


def parsed(body: PrBody) -> PrBody:
    """The body with its Document, when it has a text cagr reads (within MAX_BODY_BYTES)."""
    text = body.text
    if text is None or body.document is not None:
        return body
    if len(text.encode("utf-8", "replace")) > MAX_BODY_BYTES:
        return body  # the core says it is too large, whatever it holds
    return replace(body, document=parse(text))


def normal(document: Document) -> Document:
    """The Document as sections read it: headings' text and every line stripped of the
    whitespace around it, blank lines dropped, consecutive Content merged, their task-list
    items added up (a section reads the stripped, non-empty lines of the Content under its
    heading and counts its task items, so none of this changes a verdict)."""
    blocks: list[Heading | Content] = []
    lines: list[str] = []
    tasks = 0
    for block in document:
        if isinstance(block, Content):
            lines.extend(line.strip() for line in block.lines if line.strip())
            tasks += block.tasks
            continue
        if lines or tasks:
            blocks.append(Content(tuple(lines), tasks))
            lines, tasks = [], 0
        blocks.append(Heading(block.level, block.text.strip(), atx=block.atx))
    if lines or tasks:
        blocks.append(Content(tuple(lines), tasks))
    return tuple(blocks)
