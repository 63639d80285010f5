"""A shell command line split into simple commands and their words, read as data, never run.

A small scanner finds where each word and operator begins and ends the way a POSIX shell reads
them: quotes, backslashes, `$(...)` and backticks with everything they hold, comments, and
here-document bodies (which are data, not commands). `expand` then does what the shell does to a
word without running anything: quote removal (with bash's `$'...'` escapes), and variables whose
values the caller knows, split into fields as the shell splits them. Anything the shell would
compute (`$(...)`, backticks, an unknown variable, `<(...)`) makes the word's value unknown;
`substitutions` hands back the command lines inside it, which run too. Each simple command
carries its subshell depth, so a `cd` inside `( ... )` is known not to outlive it.
"""

from __future__ import annotations

import re
import shlex

from cagr_core.values import value

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

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
    """One simple command: its words, how many `( ... )` subshells it is inside, and the
    targets of its output redirections (`> FILE`, `>> FILE`, `&> FILE`: files it writes)."""

    __slots__ = ("depth", "redirects", "words")

    def __init__(self, depth: int) -> None:
        self.depth = depth
        self.words: list[Word] = []
        self.redirects: list[Word] = []


class Word:
    """One word: as written (`raw`) and its value (`text`) when it needs no variable.

    `text` is None when the shell would compute the value (a variable, a substitution), except
    for the one form that is plain data: a quoted here-document fed to `cat` inside `"$(...)"`.
    """

    __slots__ = ("raw", "text")

    def __init__(self, raw: str) -> None:
        self.raw = raw
        heredoc = _QUOTED_HEREDOC.match(raw)
        if heredoc:
            self.text = _heredoc_text(heredoc)
        else:
            fields = expand(raw, {})
            self.text = fields[0] if fields is not None and len(fields) == 1 else None

    @classmethod
    def literal(cls, text: str) -> Word:
        """A word whose value is `text` (for words a wrapper makes, such as `env -S`'s)."""
        return cls(shlex.quote(text))

    def __repr__(self) -> str:
        return f"Word({self.raw!r})"


@value
class Arg:
    """One field of a simple command: as written (`raw`) and its value (None: computed)."""

    raw: str
    text: str | None


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
    if "\x01" in text or "\x7f" in text:
        return None  # bash's own quoting bytes (CTLESC, CTLNUL): it rewrites them in "$(...)"
    return text.rstrip("\n")  # as `$(...)` drops trailing newlines


class _Unknown(Exception):
    """The shell would compute this part of a word: its value cannot be known here."""


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_BRACED = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_BLANKS = re.compile(r"([ \t\n]+)")
_ANSI = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r",
         "t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}  # fmt: skip
_ANSI_NUMBER = re.compile(r"[0-7]{1,3}|x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}")


class _Fields:
    """The fields of one word as the shell builds them: quoted parts always make a field."""

    def __init__(self) -> None:
        self.done: list[str] = []
        self.current: list[str] = []
        self.open = False  # a field has begun (it may be empty: `''`)

    def add(self, text: str, quoted: bool) -> None:
        self.current.append(text)
        self.open = self.open or quoted or bool(text)

    def split_in(self, value: str) -> None:
        """An unquoted expansion: blanks in its value end fields."""
        for part in _BLANKS.split(value):
            if part[:1] in (" ", "\t", "\n"):
                self.end()
            elif part:
                self.add(part, quoted=False)

    def end(self) -> list[str]:
        if self.open:
            self.done.append("".join(self.current))
        self.current, self.open = [], False
        return self.done


def expand(
    raw: str, variables: Mapping[str, str | None], *, split: bool = True
) -> list[str] | None:
    """The fields the shell makes of one word, or None when part of it is computed.

    Quotes are removed (single, double, backslash, bash's `$'...'` with its escapes); `$NAME`
    and `${NAME}` take their value from `variables` (None or absent: computed, so unknown), and
    outside double quotes that value is split into fields at blanks (not with `split=False`, as
    in an assignment's value). Tildes, globs and brace patterns are left as written
    (`has_pattern` says where they could change a word)."""
    fields = _Fields()
    index = 0
    try:
        while index < len(raw):
            char = raw[index]
            if raw.startswith("\\\n", index):
                index += 2
            elif char == "\\":
                fields.add(raw[index + 1 : index + 2], quoted=True)
                index += 2
            elif char == "'":
                end = raw.find("'", index + 1)
                if end < 0:
                    return None
                fields.add(raw[index + 1 : end], quoted=True)
                index = end + 1
            elif char == '"' or raw.startswith('$"', index):  # `$"..."`: translated, as is
                text, index = _double_quoted(raw, index + (1 if char == '"' else 2), variables)
                fields.add(text, quoted=True)
            elif raw.startswith("$'", index):
                text, index = _ansi_c(raw, index + 2)
                fields.add(text, quoted=True)
            elif char == "$":
                value, index = _parameter(raw, index, variables)
                if value is None:
                    fields.add("$", quoted=False)  # a `$` that starts nothing is itself
                elif split:
                    fields.split_in(value)
                else:
                    fields.add(value, quoted=True)
            elif char == "`" or raw.startswith(("<(", ">("), index):
                return None
            else:
                fields.add(char, quoted=False)
                index += 1
    except _Unknown:
        return None
    return fields.end()


def _double_quoted(raw: str, index: int, variables: Mapping[str, str | None]) -> tuple[str, int]:
    """The text of a double-quoted part starting at `index`, and the index after its quote."""
    text: list[str] = []
    while index < len(raw):
        char = raw[index]
        if char == '"':
            return "".join(text), index + 1
        if char == "\\":
            following = raw[index + 1 : index + 2]
            if following == "\n":
                index += 2
                continue
            text.append(following if following and following in '$`"\\' else "\\" + following)
            index += 2
        elif char == "`":
            raise _Unknown
        elif char == "$":
            value, index = _parameter(raw, index, variables)
            text.append("$" if value is None else value)
        else:
            text.append(char)
            index += 1
    raise _Unknown  # an unclosed quote: the splitter refuses such lines first


def _parameter(raw: str, index: int, variables: Mapping[str, str | None]) -> tuple[str | None, int]:
    """At a `$`: a known variable's value and the index after it; (None, index + 1) for a `$`
    that starts nothing; _Unknown for anything the shell computes."""
    name = _NAME.match(raw, index + 1)
    braced = _BRACED.match(raw, index + 1)
    match = name or braced
    if match is not None:
        value = variables.get(match.group(1) if braced else match.group())
        if value is None:
            raise _Unknown
        return value, match.end()
    following = raw[index + 1 : index + 2]
    if following and following in "({[@*#?-$!0123456789":
        raise _Unknown
    return None, index + 1


def _ansi_c(raw: str, index: int) -> tuple[str, int]:
    """The text of bash's `$'...'` from `index` (after the opening quote), and the index after
    its closing quote. `\\c` (a control character) is left unknown."""
    text: list[str] = []
    while index < len(raw):
        char = raw[index]
        if char == "'":
            return "".join(text), index + 1
        if char != "\\":
            text.append(char)
            index += 1
            continue
        following = raw[index + 1 : index + 2]
        number = _ANSI_NUMBER.match(raw, index + 1)
        if following in _ANSI:
            text.append(_ANSI[following])
            index += 2
        elif number is not None:
            digits = number.group()
            if digits[0] in "01234567":
                text.append(chr(int(digits, 8) & 0xFF))
            else:
                text.append(chr(min(int(digits[1:], 16), 0x10FFFF)))
            index = number.end()
        elif following == "c":
            raise _Unknown
        else:
            text.append("\\" + following)
            index += 2
    raise _Unknown


def _scan(raw: str) -> tuple[str, list[str]]:
    """A word with what the shell cannot expand blanked out, and the command lines it runs.

    The first is `raw` with quoted text (single, double, bash's `$'...'`), escaped characters
    and substitutions replaced by spaces, so only what the shell reads bare is left; the second
    holds the insides of `$(...)`, backticks and `<(...)` / `>(...)` outside single quotes. An
    unclosed part ends the scan (the splitter refuses such lines first)."""
    bare = list(raw)
    found: list[str] = []
    in_double = False
    index = 0
    try:
        while index < len(raw):
            char, start = raw[index], index
            if char == "\\":
                index += 2
            elif char == "'" and not in_double:
                index = _end_of_single(raw, index)
            elif raw.startswith("$'", index) and not in_double:
                index = _end_of_ansi(raw, index)
            elif char == '"':
                in_double = not in_double
                index += 1
            elif raw.startswith(("$(", "<(", ">("), index):
                index = _end_of_substitution(raw, index + 1)
                found.append(raw[start + 2 : index - 1])
            elif char == "`":
                index = _end_of_backticks(raw, index)
                found.append(re.sub(r"\\([\\`$])", r"\1", raw[start + 1 : index - 1]))
            else:
                index += 1
                if not in_double:
                    continue  # a bare character: kept
            bare[start:index] = " " * (index - start)
    except Unbalanced:
        bare[index:] = " " * (len(raw) - index)
    return "".join(bare), found


def has_pattern(raw: str) -> bool:
    """Whether the shell could turn this word into other words: an unquoted glob (`*`, `?`,
    `[`) or brace pattern (`{a,b}`, `{1..3}`)."""
    bare = _scan(raw)[0]
    return any(char in bare for char in "*?[") or re.search(r"\{[^}]*\}", bare) is not None


def substitutions(raw: str) -> list[str]:
    """The command lines a word runs while it is expanded: the insides of `$(...)`, backticks
    and `<(...)` / `>(...)`, outside single quotes (a quoted here-document fed to `cat` holds
    data, and its `cat` runs nothing)."""
    return _scan(raw)[1]


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
    return _past(line, index + 1, "`", "`")


def _past(line: str, index: int, closing: str, opening: str) -> int:
    """From `index`, past backslash escapes: the index after the first unescaped `closing`."""
    while index < len(line):
        if line[index] == "\\":
            index += 2
        elif line[index] == closing:
            return index + 1
        else:
            index += 1
    raise Unbalanced(f"an unclosed {opening}")


def _end_of_substitution(line: str, index: int) -> int:
    """`index` at the `(` of `$(`: the index after its matching `)`."""
    depth = 0
    pending: list[tuple[str, bool]] = []
    while index < len(line):
        char = line[index]
        if char in "\\'\"`" or line.startswith(("$(", "$'"), index):
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
    if line.startswith("$'", index):
        return _end_of_ansi(line, index)
    if line.startswith(("$(", "<(", ">("), index):  # a substitution, or a process substitution
        return _end_of_substitution(line, index + 1)
    return index + 1


def _end_of_ansi(line: str, index: int) -> int:
    """`index` at the `$` of bash's `$'...'`, where a backslash escapes the quote: the index
    after its closing quote."""
    return _past(line, index + 2, "'", "$'")


class _Splitter:
    """One pass over a line, collecting simple commands."""

    def __init__(self, line: str) -> None:
        self.line = line
        self.depth = 0  # subshells open here
        self.commands: list[Command] = [Command(0)]
        self.pending: list[tuple[str, bool]] = []  # here-documents whose bodies come next
        self.start: int | None = None  # where the current word began
        self.skip_target = False  # the next word is a redirection's target, not an argument
        self.writes_target = False  # that target is a file the command writes

    def end_word(self, at: int) -> None:
        if self.start is not None:
            if self.skip_target:
                self.skip_target = False
                if self.writes_target:
                    self.commands[-1].redirects.append(Word(self.line[self.start : at]))
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
            # `>&2` and `2>&1` duplicate a descriptor; `<` reads: only these write a file
            self.writes_target = operator_text in (">", ">>", ">|", "&>", "&>>", "<>")
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
        return [command for command in self.commands if command.words or command.redirects]


def split_commands(line: str) -> list[Command]:
    """The simple commands of `line`: their words, without operators, redirections (and their
    targets), comments or here-document bodies. Unbalanced for a line the shell would refuse."""
    return _Splitter(line).run()
