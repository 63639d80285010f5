"""The Markdown most descriptions are written in, read with the standard library: the same
Document as mistune gives (cagr_markdown.full), or None where the scanner is not sure.

It reads, at the top level: ATX headings, setext headings of one line, paragraphs, blank lines,
thematic breaks, fenced code (backticks or tildes, closed or running to the end), indented
code, HTML comments as blocks, and lists (bullets and `1.`/`1)` items, nested by indentation,
task boxes). Inline: plain text, code spans on one line, emphasis (`*` and `_`, by CommonMark's
delimiter rules, within one line), entities. Anything else answers None, so mistune reads the
text: block quotes, other HTML, tables, links and images, strikethrough, backslashes, emphasis
beside text beyond ASCII or open at a line's end, tabs and the rarer line and space characters,
headings, fences or breaks inside list items, a multi-line setext heading, an ordered item that
may continue a paragraph. Saying None is always right; giving a Document mistune would not is
a bug (tests/property/test_markdown_scanner.py holds the two to the same Document).
"""

from __future__ import annotations

import re

from cagr_core.sections import Content, Document, Heading

__all__ = ["scan"]

# Characters whose meaning the scanner does not model: every white space but ` ` and `\n` (line
# separators the adapter splits lines at too, tabs with their columns, Unicode spaces mistune's
# patterns may read as spaces where CommonMark does not), and NUL. A set, not a pattern: it is
# cheaper to make at import.
UNSURE_CHARACTERS = frozenset(
    "\x00\t\x0b\x0c\r\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
# Inline characters that start something but a code span, emphasis or an entity.
_INLINE_UNSURE = re.compile(r"[\\\[\]<~|!]")
_CLOSING_MARKS = re.compile(r" +#+\Z")
_ATX_START = re.compile(r"#{1,6}(?: |\Z)")
_BREAK = re.compile(r"(?:(?:\* *){3,}|(?:- *){3,}|(?:_ *){3,})\Z")
_SETEXT_2 = re.compile(r"-+ *\Z")
_SETEXT_1 = re.compile(r"=+ *\Z")
_UNDERLINE = re.compile(r"[=-]+ *\Z")  # mistune reads `=-` as an underline too
_FENCE = re.compile(r"(`{3,}|~{3,})(.*)\Z")
_ITEM = re.compile(r"(?:([-+*])|([0-9]{1,9})[.)])( +)(?=\S)")
_EMPTY_ITEM = re.compile(r"(?:[-+*]|[0-9]{1,9}[.)]) *\Z")
_TASK = re.compile(r"\[[ xX]\] +(?=\S)")
_BACKTICKS = re.compile(r"`+")
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
# What may start a block inside a list item; the scanner reads items of paragraph text only.
_ITEM_BLOCK = re.compile(r"[#>`~<=|\[]|[-+*_](?: |\Z)|[0-9]{1,9}[.)](?: |\Z)|(?:[-*_] *){3,}\Z")


class _Unsure(Exception):
    """The text is not one the scanner reads as mistune does."""


def scan(text: str) -> Document | None:
    """The Document of `text` (lines broken at `\\n` only), or None where not sure."""
    if not UNSURE_CHARACTERS.isdisjoint(text):
        return None
    try:
        return _Scanner(text.split("\n")).blocks()
    except _Unsure:
        return None


class _Scanner:
    """One pass over the lines, keeping the open list items' content columns."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.at = 0
        self.out: list[Heading | Content] = []
        self.pending: list[str] = []  # content lines since the last heading
        self.tasks = 0  # and the task-list items among them
        self.items: list[int] = []  # content column of each open list item, outermost first
        self.kinds: list[str] = []  # and its list's marker: `-`, `+`, `*`, `.` or `)`
        self.lows: list[int] = []  # and the column one space after its marker
        self.previous = "blank"  # the last line: blank, paragraph, code or other
        self.paragraph: list[str] = []  # a top-level paragraph's source lines (setext)

    def blocks(self) -> Document:
        while self.at < len(self.lines):
            line = self.lines[self.at]
            self.at += 1
            self._line(line)
        self._flush()
        return tuple(self.out)

    def _content(self, line: str) -> None:
        self.pending.append(line)

    def _heading(self, heading: Heading) -> None:
        self._flush()
        self.out.append(heading)

    def _flush(self) -> None:
        if self.pending:
            self.out.append(Content(tuple(self.pending), self.tasks))
            self.pending = []
            self.tasks = 0

    def _line(self, line: str) -> None:
        rest = line.lstrip(" ")
        if not rest:
            self.previous = "blank" if self.previous != "code" else "code"
            self.paragraph = []
            return
        indent = len(line) - len(rest)
        depth = sum(1 for column in self.items if column <= indent)
        base = self.items[depth - 1] if depth else 0
        if depth < len(self.items) and self.lows[depth] <= indent:
            raise _Unsure  # `-   a` then `  # b`: mistune keeps `# b` in the item, CommonMark not
        if indent - base >= 4:
            if self.previous == "paragraph":  # a continuation line, lazy or not
                self._text_line(rest, top=not self.items)
            else:
                self._close_items(depth)
                self.previous = "code"
                self.paragraph = []
                self._content(rest)  # indented code: its text as written
            return
        if self.previous == "code" and indent - base < 4:
            if depth < len(self.items):
                raise _Unsure  # mistune keeps a list item open after its code: CommonMark not
            self.previous = "other"
        self._block_start(rest, indent, depth)

    def _block_start(self, rest: str, indent: int, depth: int) -> None:
        if rest[0].isalpha():  # no block starts with a letter: paragraph text
            self._paragraph_line(rest, depth)
            return
        nested = depth > 0
        if _ATX_START.match(rest):
            if nested:
                raise _Unsure  # a heading inside a list item
            self._close_list()
            self._atx(rest)
            return
        if fence := _FENCE.match(rest):
            if nested:
                raise _Unsure
            self._close_list()
            self._fence(fence.group(1), fence.group(2))
            return
        if rest.startswith("<"):
            if nested or not rest.startswith("<!--"):
                raise _Unsure  # HTML other than a comment
            self._close_list()
            self._comment(rest)
            return
        if rest.startswith(">"):
            raise _Unsure  # a block quote
        if _UNDERLINE.match(rest) and not (_SETEXT_1.match(rest) or _SETEXT_2.match(rest)):
            raise _Unsure  # `=` and `-` mixed: mistune's underline, not CommonMark's
        if self.items and (_BREAK.match(rest) or _SETEXT_1.match(rest) or _SETEXT_2.match(rest)):
            raise _Unsure  # a break or an underline among list items
        if self.previous == "paragraph" and self.paragraph and _SETEXT_2.match(rest):
            self._setext(2)
            return
        if self.previous == "paragraph" and self.paragraph and _SETEXT_1.match(rest):
            self._setext(1)
            return
        if _BREAK.match(rest):
            self.previous = "other"
            self.paragraph = []
            return
        if item := _ITEM.match(rest):
            self._item(rest, indent, depth, item)
            return
        if _EMPTY_ITEM.match(rest):
            raise _Unsure  # an empty list item
        self._paragraph_line(rest, depth)

    def _paragraph_line(self, rest: str, depth: int) -> None:
        """A line of text that starts or continues a paragraph."""
        if self.previous != "paragraph":
            self._close_items(depth)
            if not self.items:
                self.paragraph = []
        self._text_line(rest, top=not self.items)

    def _close_list(self) -> None:
        self._close_items(0)
        self.paragraph = []

    def _close_items(self, depth: int) -> None:
        del self.items[depth:]
        del self.kinds[depth:]
        del self.lows[depth:]

    def _text_line(self, rest: str, *, top: bool) -> None:
        """A line of paragraph text (new or continued)."""
        self._content(_inline(rest))
        self.previous = "paragraph"
        if top:
            self.paragraph.append(rest)
        else:
            self.paragraph = []

    def _atx(self, rest: str) -> None:
        level = len(rest) - len(rest.lstrip("#"))
        text = rest[level:].strip(" ")
        text = "" if not text.strip("#") else _CLOSING_MARKS.sub("", text)
        self._heading(Heading(level, _inline(text), atx=True))
        self.previous = "other"
        self.paragraph = []

    def _setext(self, level: int) -> None:
        if len(self.paragraph) != 1:
            raise _Unsure  # a heading of several lines
        text = self.paragraph[0]
        self.pending.pop()  # the paragraph's line is the heading's text
        self._heading(Heading(level, _inline(text), atx=False))
        self.previous = "other"
        self.paragraph = []

    def _fence(self, marks: str, info: str) -> None:
        if marks[0] == "`" and "`" in info:
            raise _Unsure  # not a fence: inline code
        self.previous = "other"
        self.paragraph = []
        closing = re.compile(rf" {{0,3}}{marks[0]}{{{len(marks)},}} *\Z")
        while self.at < len(self.lines):
            line = self.lines[self.at]
            self.at += 1
            if closing.match(line):
                return
            self._content(line)  # code: its text as written (indentation is stripped later)

    def _comment(self, rest: str) -> None:
        if rest.startswith(("<!-->", "<!--->")):
            raise _Unsure
        block = [rest]
        if "-->" not in rest[4:]:
            while self.at < len(self.lines):
                block.append(self.lines[self.at])
                self.at += 1
                if "-->" in block[-1]:
                    break
        raw = "\n".join(block)
        left = _COMMENT.sub("", raw)
        if "<" in left or "&" in left:
            raise _Unsure  # more HTML, or an entity, after the comment
        self.pending.extend(left.splitlines())
        self.previous = "other"
        self.paragraph = []

    def _item(self, rest: str, indent: int, depth: int, item: re.Match[str]) -> None:
        bullet, number, spaces = item.groups()
        if len(spaces) > 4:
            raise _Unsure  # indented code at the start of an item
        kind = bullet or item.group()[len(number)]
        sibling = len(self.kinds) > depth and self.kinds[depth] == kind
        if self.previous == "paragraph" and bullet is None and int(number) != 1 and not sibling:
            raise _Unsure  # it may continue the paragraph instead
        self._close_items(depth)
        self.items.append(indent + item.end())
        self.kinds.append(kind)
        self.lows.append(indent + item.end() - len(spaces) + 1)
        content = rest[item.end() :]
        if task := _TASK.match(content):
            content = content[task.end() :]
            self.tasks += 1
        if _ITEM_BLOCK.match(content):
            raise _Unsure  # an item that starts with a block other than a paragraph
        self._content(_inline(content))
        self.previous = "paragraph"
        self.paragraph = []


def _inline(text: str) -> str:
    """The visible text of one line of inline Markdown: code spans' content, emphasis marks
    dropped, entities decoded."""
    if not _INLINE_SPECIAL.search(text):
        return text
    if text.count("`") > _MARKS_A_LINE or text.count("*") + text.count("_") > _MARKS_A_LINE:
        raise _Unsure  # matching them is quadratic here: leave such a line to mistune
    spans = _code_spans(text)
    pieces: list[tuple[int, int]] = []  # the text between code spans
    last = 0
    for start, end, _ in spans:
        pieces.append((last, start))
        last = end
    pieces.append((last, len(text)))
    runs: list[_Run] = []
    for start, end in pieces:
        if _INLINE_UNSURE.search(text, start, end):
            raise _Unsure  # `[` may also start a link reference definition
        runs.extend(
            _Run(text, found.start(), found.end())
            for found in _DELIMITERS.finditer(text, start, end)
        )
    _match_emphasis(runs)
    out: list[str] = []
    for index, (start, end) in enumerate(pieces):
        out.append(_text(text, start, end, [run for run in runs if start <= run.start < end]))
        if index < len(spans):
            out.append(spans[index][2])
    return "".join(out)


def _code_spans(text: str) -> list[tuple[int, int, str]]:
    """Each code span of the line: where it starts and ends, and its text."""
    spans: list[tuple[int, int, str]] = []
    at = 0
    while (run := _BACKTICKS.search(text, at)) is not None:
        closing = re.compile(rf"(?<!`){run.group()}(?!`)")
        closed = closing.search(text, run.end())
        if closed is None:
            raise _Unsure  # a code span that goes on past the line, or literal backticks
        code = text[run.end() : closed.start()]
        if code.startswith(" ") and code.endswith(" ") and code.strip(" "):
            code = code[1:-1]
        spans.append((run.start(), closed.end(), code))
        at = closed.end()
    return spans


_DELIMITERS = re.compile(r"\*+|_+")
_INLINE_SPECIAL = re.compile(r"[`*_&\\\[\]<~|!]")  # a line without these is its own text
_MARKS_A_LINE = 200  # backticks, or emphasis marks, one line may have for the scanner
_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


class _Run:
    """A run of `*` or `_` in a line, as CommonMark's emphasis algorithm reads it."""

    __slots__ = ("active", "can_close", "can_open", "char", "count", "length", "start")

    def __init__(self, text: str, start: int, end: int) -> None:
        before = text[start - 1] if start else " "
        after = text[end] if end < len(text) else " "
        if not (before.isascii() and after.isascii()):
            raise _Unsure  # flanking beside a letter, space or mark beyond ASCII
        left = after != " " and (
            after not in _PUNCTUATION or before in _PUNCTUATION or before == " "
        )
        right = before != " " and (
            before not in _PUNCTUATION or after in _PUNCTUATION or after == " "
        )
        self.char = text[start]
        self.start = start
        self.length = self.count = end - start
        self.active = True
        if self.char == "*":
            self.can_open, self.can_close = left, right
        else:  # `_` opens or closes inside a word only beside punctuation
            self.can_open = left and (not right or before in _PUNCTUATION)
            self.can_close = right and (not left or after in _PUNCTUATION)


def _match_emphasis(runs: list[_Run]) -> None:
    """Which marks of each run are emphasis (`count`: those left as text), by CommonMark's
    "process emphasis" over one line; an opener left unmatched could pair with a later line's
    closer, so the scanner is not sure of it."""
    for at, closer in enumerate(runs):
        if not closer.can_close:
            continue
        while closer.count:
            opener = next(
                (
                    (where, run)
                    for where, run in reversed(list(enumerate(runs[:at])))
                    if run.active
                    and run.can_open
                    and run.count
                    and run.char == closer.char
                    and not _third(run, closer)
                ),
                None,
            )
            if opener is None:
                break
            where, run = opener
            used = 2 if run.count >= 2 and closer.count >= 2 else 1
            run.count -= used
            closer.count -= used
            for between in runs[where + 1 : at]:
                between.active = False
        if closer.count and not closer.can_open:
            closer.active = False
    if any(run.active and run.can_open and run.count for run in runs):
        raise _Unsure


def _third(opener: _Run, closer: _Run) -> bool:
    """CommonMark's rule of 3: runs that can both open and close pair only when their lengths'
    sum is not a multiple of 3, unless both lengths are."""
    both = opener.can_close or closer.can_open
    total = opener.length + closer.length
    return both and total % 3 == 0 and not (opener.length % 3 == 0 and closer.length % 3 == 0)


def _text(text: str, start: int, end: int, runs: list[_Run]) -> str:
    """Text outside code spans: emphasis marks dropped, entities decoded."""
    out: list[str] = []
    at = start
    for run in runs:
        out.append(text[at : run.start])
        out.append(run.char * run.count)
        at = run.start + run.length
    out.append(text[at:end])
    visible = "".join(out)
    if "&" not in visible:
        return visible
    if any(run.count != run.length for run in runs):
        raise _Unsure  # an entity beside emphasis: mistune decodes each text piece apart
    import html  # noqa: PLC0415  # its entity table only for a text that has an entity

    return html.unescape(visible)
