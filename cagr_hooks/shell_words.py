"""A shell command line split into simple commands and their words, read as data, never run.

A small scanner finds where each word and operator begins and ends the way a POSIX shell reads
them: quotes, backslashes, `$(...)` and backticks with everything they hold, comments, and
here-document bodies (which are data, not commands). `shlex` then removes each word's quotes.
Words whose value the shell would compute (`$x`, `$(...)`, backticks, `<(...)`) are marked
dynamic. Each simple command carries its subshell depth, so a `cd` inside `( ... )` is known
not to outlive it.
"""

from __future__ import annotations

import re
import shlex

_REDIRECTION = re.compile(r"\d*(?:<<<|<<-|<<|<>|>&|<&|>\||>>|[<>])|&>>?")
_OPERATOR = re.compile(r"&&|\|\||;;|\|&|[;|&()\n]")
_DELIMITER = re.compile(r"[ \t]*(['\"]?)([^\s'\"<>|&;()]+)\1")
_QUOTED_HEREDOC = re.compile(
    r"\A\"\$\(cat <<(?P<dash>-?)[ \t]*(?P<q>['\"]?)(?P<delim>\w+)(?P=q)\n"
    r"(?P<text>.*?)\n\t*(?P=delim)\n\s*\)\"\Z",
    re.DOTALL,
)


class Unbalanced(ValueError):
    """A quote, `$(` or backtick that is never closed: the shell would refuse the line too."""


class Command:
    """One simple command: its words and how many `( ... )` subshells it is inside."""

    __slots__ = ("depth", "words")

    def __init__(self, depth: int) -> None:
        self.depth = depth
        self.words: list[Word] = []


class Word:
    """One word: as written (`raw`) and with its quotes removed (`text`).

    `text` is None when the shell would compute the value (a variable, a substitution), except
    for the one form that is plain data: a quoted here-document fed to `cat` inside `"$(...)"`.
    """

    __slots__ = ("raw", "text")

    def __init__(self, raw: str) -> None:
        self.raw = raw
        self.text = _value(raw)

    def __repr__(self) -> str:
        return f"Word({self.raw!r})"


def _value(raw: str) -> str | None:
    heredoc = _QUOTED_HEREDOC.match(raw)
    if heredoc:
        return _heredoc_text(heredoc)
    if _expands(raw):
        return None
    try:
        parts = shlex.split(raw.replace("\\\n", ""), comments=False, posix=True)
    except ValueError:
        return None
    return parts[0] if len(parts) == 1 else "" if raw in ("''", '""') else None


def _heredoc_text(heredoc: re.Match[str]) -> str | None:
    """A here-document's text as `cat` prints it, or None when the shell would change it."""
    delimiter, strip_tabs = heredoc.group("delim"), heredoc.group("dash") == "-"
    lines = heredoc.group("text").split("\n")
    if strip_tabs:
        lines = [line.lstrip("\t") for line in lines]
    if delimiter in lines:
        return None  # the here-document ends earlier than it seems: the rest is shell code
    text = "\n".join(lines)
    if not heredoc.group("q") and any(c in text for c in "$`\\"):
        return None  # an unquoted delimiter: the shell expands the text
    return text.rstrip("\n")  # as `$(...)` drops trailing newlines


def _expands(raw: str) -> bool:
    """Whether the shell would compute part of this word: `$`, a backtick or `<(`/`>(` outside
    single quotes (inside them everything is literal)."""
    index, quote = 0, ""
    while index < len(raw):
        char = raw[index]
        if quote == "'":
            quote = "" if char == "'" else quote
        elif char == "\\":
            index += 1  # the next character is literal (inside double quotes too, near enough)
        elif char in "'\"" and (not quote or quote == char):
            quote = "" if quote else char
        elif char in "$`" or (not quote and raw.startswith(("<(", ">("), index)):
            return True
        index += 1
    return False


def _end_of_single(line: str, index: int) -> int:
    end = line.find("'", index + 1)
    if end == -1:
        raise Unbalanced("an unclosed '")
    return end + 1


def _end_of_double(line: str, index: int) -> int:
    index += 1
    while index < len(line):
        char = line[index]
        if char == "\\":
            index += 2
        elif char == '"':
            return index + 1
        elif line.startswith("$(", index):
            index = _end_of_substitution(line, index + 1)
        elif char == "`":
            index = _end_of_backticks(line, index)
        else:
            index += 1
    raise Unbalanced('an unclosed "')


def _end_of_backticks(line: str, index: int) -> int:
    index += 1
    while index < len(line):
        if line[index] == "\\":
            index += 2
        elif line[index] == "`":
            return index + 1
        else:
            index += 1
    raise Unbalanced("an unclosed `")


def _end_of_substitution(line: str, index: int) -> int:
    """`index` at the `(` of `$(`: the index after its matching `)`."""
    depth = 0
    pending: list[tuple[str, bool]] = []
    while index < len(line):
        char = line[index]
        if char in "\\'\"`" or line.startswith("$(", index):
            index = _end_of_part(line, index)
            continue
        if line.startswith("<<", index) and not line.startswith("<<<", index):
            index = _heredoc_start(line, index, pending)
            continue
        if char == "\n" and pending:
            index = _skip_heredoc_bodies(line, index + 1, pending)
            continue
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return index + 1
        index += 1
    raise Unbalanced("an unclosed $(")


def _heredoc_start(line: str, index: int, pending: list[tuple[str, bool]]) -> int:
    """`index` at `<<`: note the here-document's delimiter; the index after it."""
    strip_tabs = line.startswith("<<-", index)
    after = index + (3 if strip_tabs else 2)
    match = _DELIMITER.match(line, after)
    if match is None:
        return after
    pending.append((match.group(2), strip_tabs))
    return match.end()


def _skip_heredoc_bodies(line: str, index: int, pending: list[tuple[str, bool]]) -> int:
    """`index` at the start of the line after a `<<`: past every pending body (emptied)."""
    for delimiter, strip_tabs in pending:
        while index < len(line):
            end = line.find("\n", index)
            end = len(line) if end == -1 else end
            text = line[index:end]
            index = end + 1
            if (text.lstrip("\t") if strip_tabs else text) == delimiter:
                break
    pending.clear()
    return min(index, len(line))


def _end_of_part(line: str, index: int) -> int:
    """The index after one piece of a word: an escaped character, a quoted string, a
    substitution, or a plain character."""
    char = line[index]
    if char == "\\":
        return index + 2
    if char == "'":
        return _end_of_single(line, index)
    if char == '"':
        return _end_of_double(line, index)
    if char == "`":
        return _end_of_backticks(line, index)
    if line.startswith(("$(", "<(", ">("), index):  # a substitution, or a process substitution
        return _end_of_substitution(line, index + 1)
    return index + 1


class _Splitter:
    """One pass over a line, collecting simple commands."""

    def __init__(self, line: str) -> None:
        self.line = line
        self.depth = 0  # subshells open here
        self.commands: list[Command] = [Command(0)]
        self.pending: list[tuple[str, bool]] = []  # here-documents whose bodies come next
        self.start: int | None = None  # where the current word began
        self.skip_target = False  # the next word is a redirection's target, not an argument

    def end_word(self, at: int) -> None:
        if self.start is not None:
            if self.skip_target:
                self.skip_target = False
            else:
                self.commands[-1].words.append(Word(self.line[self.start : at]))
            self.start = None

    def operator(self, index: int) -> int | None:
        """The index after an operator or redirection at `index`; None when there is none."""
        line, char = self.line, self.line[index]
        if line.startswith(("<(", ">("), index):
            return None  # a process substitution is a word, not a redirection
        # A redirection starts a new word (`a>b` is `a` and `>b`); `2>&1` starts with digits.
        redirection = (
            _REDIRECTION.match(line, index) if self.start is None or char in "<>" else None
        )
        if redirection:
            self.end_word(index)
            operator_text = redirection.group().lstrip("0123456789")
            if operator_text in ("<<", "<<-"):  # a here-document: the delimiter is no argument
                return _heredoc_start(line, redirection.end() - len(operator_text), self.pending)
            self.skip_target = True
            return redirection.end()
        operator = _OPERATOR.match(line, index)
        if operator is None:
            return None
        self.end_word(index)
        self.skip_target = False
        self.depth += {"(": 1, ")": -1}.get(operator.group(), 0)
        self.commands.append(Command(max(self.depth, 0)))
        if operator.group() == "\n" and self.pending:
            return _skip_heredoc_bodies(line, operator.end(), self.pending)
        return operator.end()

    def run(self) -> list[Command]:
        line, index = self.line, 0
        while index < len(line):
            char = line[index]
            if self.start is None and line.startswith("\\\n", index):  # a line continuation
                index += 2
            elif char in " \t\r":
                self.end_word(index)
                index += 1
            elif self.start is None and char == "#":  # a comment, up to the line's end
                end = line.find("\n", index)
                index = len(line) if end == -1 else end
            elif (after := self.operator(index)) is not None:
                index = after
            else:
                if self.start is None:
                    self.start = index
                index = _end_of_part(line, index)
        self.end_word(len(line))
        return [command for command in self.commands if command.words]


def split_commands(line: str) -> list[Command]:
    """The simple commands of `line`: their words, without operators, redirections (and their
    targets), comments or here-document bodies. Unbalanced for a line the shell would refuse."""
    return _Splitter(line).run()
