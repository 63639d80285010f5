"""The attributes git gives a work tree's paths, read and resolved as git's attr.c does when
content goes in (`git add`, `git diff`).

Sources, strongest first: `$GIT_COMMON_DIR/info/attributes`, the `.gitattributes` of the path's
folder, of each folder above it up to the top, then the user's file (`core.attributesFile`, else
`$XDG_CONFIG_HOME/git/attributes`), the system file (`/etc/gitattributes`, unless
`GIT_ATTR_NOSYSTEM`), and git's built-in `[attr]binary -diff -merge -text`. A folder's
`.gitattributes` is the work tree's file, tracked or not (never through a symlink), else the
index's version. In one file the last matching line decides; an attribute decided by a
stronger source stays decided. Macros (`[attr]name ...`, allowed only at the top, in the user's
and system files and `info/attributes`) expand where a line sets them. Quoted patterns are
unquoted as git unquotes them; `core.ignoreCase` folds ASCII case.

Where git's own commands read a folder's file differently, it is *uncertain*, and the caller
decides both ways: in a cone-mode sparse checkout git may skip the index's version of a
`.gitattributes` outside the cone; and a tracked `.gitattributes` the work tree no longer holds
as a file (deleted or a symlink; neither skip-worktree nor assume-unchanged) is still read from
the index by `git diff` and `git status`, while `git add -A` stages what replaced it first and
hashes the files after it without it. Standard library only.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Mapping

from cagr_core.errors import CagrError
from cagr_core.values import value

from .gitconfig import GitConfig, parse_boolean
from .ignore import user_file
from .patterns import NEGATIVE, Pattern, PatternTooDeep

Value = bool | bytes | None  # set, unset (`-a`), a value (`a=v`); None: unspecified (`!a`)
State = tuple[bytes, Value]
IndexBlob = Callable[[bytes], bytes | None]  # a tracked file's content from the index
KeptWhenMissing = Callable[[bytes], bool]  # whether git keeps a tracked file missing from disk

MAX_LINE_BYTES = 2048  # git ignores longer lines
MAX_FILE_BYTES = 100 * 1024 * 1024  # and larger files
_BLANK = b" \t\r\n"
_BOM = b"\xef\xbb\xbf"
_MACRO = b"[attr]"
_NAME_BYTES = frozenset(b"-._0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_ESCAPES = {ord("a"): 7, ord("b"): 8, ord("f"): 12, ord("n"): 10, ord("r"): 13, ord("t"): 9}
_ESCAPES.update({ord("v"): 11, ord("\\"): ord("\\"), ord('"'): ord('"')})
_BUILTIN = [b"[attr]binary -diff -merge -text"]


class AttributeFileProblem(CagrError):
    """An attributes file git would hang on, or a pattern cagr cannot follow."""


@value
class Line:
    """One attributes line: a pattern (or a macro's name) and the states it sets, in order."""

    pattern: Pattern | None
    macro: bytes | None
    states: list[State]


def _span(data: bytes, start: int, chars: bytes, inside: bool) -> int:
    """The index of the first byte from `start` that is (not `inside`: is not) in `chars`."""
    index = start
    while index < len(data) and (data[index] in chars) == inside:
        index += 1
    return index


def valid_name(name: bytes) -> bool:
    """git's attr_name_valid(): letters, digits, `-`, `.`, `_`, not starting with `-`."""
    return bool(name) and not name.startswith(b"-") and all(b in _NAME_BYTES for b in name)


def unquote(text: bytes) -> tuple[bytes, int] | None:
    """git's unquote_c_style() of `text` (which starts with `"`): the bytes and the index after
    the closing quote, or None when it is no well-formed C-style string."""
    out = bytearray()
    index = 1
    while index < len(text):
        byte = text[index]
        index += 1
        if byte == ord('"'):
            return bytes(out), index
        if byte != ord("\\"):
            out.append(byte)
            continue
        if index >= len(text):
            return None
        byte = text[index]
        index += 1
        if byte in _ESCAPES:
            out.append(_ESCAPES[byte])
        elif ord("0") <= byte <= ord("3"):
            digits = text[index : index + 2]
            if len(digits) < 2 or not all(ord("0") <= d <= ord("7") for d in digits):
                return None
            out.append(((byte - 48) << 6) | ((digits[0] - 48) << 3) | (digits[1] - 48))
            index += 2
        else:
            return None
    return None


def _states(text: bytes) -> list[State] | None:
    """The states after a pattern (`a`, `-a`, `!a`, `a=v`), or None when one has no valid name."""
    states: list[State] = []
    index = _span(text, 0, _BLANK, True)
    while index < len(text):
        end = _span(text, index, _BLANK, False)
        equals = text.find(b"=", index)
        if equals == -1 or equals > end:
            equals = -1
        name = text[index : equals if equals != -1 else end]
        value: Value = True
        if name[:1] in (b"-", b"!"):
            value = False if name[:1] == b"-" else None
            name = name[1:]
        elif equals != -1:
            value = text[equals + 1 : end]
        if not valid_name(name):
            return None
        states.append((name, value))
        index = _span(text, end, _BLANK, True)
    return states


def parse_line(line: bytes, base: bytes, macro_ok: bool) -> Line | None:
    """One line as git's parse_attr_line() reads it (`base`: the file's folder), or None for a
    blank line, a comment, or a line git rejects (too long, a bad name, a negative pattern, a
    macro outside the files that may define one)."""
    line = line.partition(b"\0")[0]
    start = _span(line, 0, _BLANK, True)
    if start == len(line) or line[start] == ord("#"):
        return None
    if len(line) >= MAX_LINE_BYTES:
        return None
    quoted = unquote(line[start:]) if line[start] == ord('"') else None
    if quoted is not None:
        name, after = quoted[0], start + quoted[1]
    else:
        after = _span(line, start, _BLANK, False)
        name = line[start:after]
    macro = None
    if len(name) > len(_MACRO) and name.startswith(_MACRO):
        if not macro_ok:
            return None
        rest = name[len(_MACRO) :]
        rest = rest[_span(rest, 0, _BLANK, True) :]
        macro = rest[: _span(rest, 0, _BLANK, False)]
        if not valid_name(macro):
            return None
    states = _states(line[after:])
    if states is None:
        return None
    if macro is not None:
        return Line(None, macro, states)
    pattern = Pattern(name.partition(b"\0")[0], base)
    if pattern.flags & NEGATIVE:
        return None  # git warns: negative patterns are ignored in attributes
    return Line(pattern, None, states)


def parse_attributes(data: bytes, base: bytes, macro_ok: bool, from_index: bool) -> list[Line]:
    """The lines of one attributes file: read from disk (lines end at LF, a CR before it
    dropped, a byte order mark skipped) or from the index (the blob ends at its first NUL)."""
    if from_index:
        texts = data.partition(b"\0")[0].split(b"\n")
    else:
        if data.startswith(_BOM):
            data = data[3:]
        texts = data.split(b"\n")
        if texts[-1] == b"":
            texts.pop()
        texts = [t[:-1] if t.endswith(b"\r") else t for t in texts]
    lines = []
    for text in texts:
        line = parse_line(text, base, macro_ok)
        if line is not None:
            lines.append(line)
    return lines


def _read_file(path: bytes, follow: bool) -> bytes | None:
    """An attributes file's bytes as git's read_attr_from_file() gets them: None when git reads
    none (cannot open it, a symlink not followed, too large); b"" for a folder, which git opens
    but reads nothing from. AttributeFileProblem where git would wait forever (a FIFO, a
    device that never ends)."""
    flags = os.O_RDONLY | os.O_NONBLOCK | (0 if follow else getattr(os, "O_NOFOLLOW", 0))
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    name = path.decode("utf-8", "surrogateescape")
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            return b""
        if stat.S_ISFIFO(st.st_mode):
            raise AttributeFileProblem(f"{name} is a FIFO, which git would wait on forever")
        if st.st_size >= MAX_FILE_BYTES:
            return None
        chunks = []
        size = 0
        while chunk := os.read(fd, 1 << 20):  # a device such as /dev/null ends at once
            chunks.append(chunk)
            size += len(chunk)
            if size >= MAX_FILE_BYTES:
                raise AttributeFileProblem(f"{name} does not end")
        return b"".join(chunks)
    except OSError as error:
        raise AttributeFileProblem(f"{name} cannot be read ({error.strerror})") from None
    finally:
        os.close(fd)


@value
class Frame:
    """The lines of one source, and the folder its patterns are relative to (b"": the top);
    `uncertain`: why git's commands may or may not read it (None: they all do)."""

    base: bytes
    lines: list[Line]
    uncertain: str | None = None


class AttributeRules:
    """The attributes of one work tree's paths; folders' files are read when first needed."""

    def __init__(  # noqa: PLR0913  # where the sources are, and how to read the index's
        self,
        root: str,
        commondir: str,
        config: GitConfig,
        environ: Mapping[str, str],
        *,
        index_blob: IndexBlob,
        sparse_cone: bool,
        kept_when_missing: KeptWhenMissing = lambda _: True,
    ) -> None:
        self.root = os.fsencode(root)
        self.fold = config.boolean("core", "ignoreCase", False)
        # Newer gits can read attributes from a tree instead (`GIT_ATTR_SOURCE`, `attr.tree`).
        source = environ.get("GIT_ATTR_SOURCE") or config.get("attr", "tree")
        self.elsewhere = f"a tree (`{source}`)" if source else None
        self.index_blob = index_blob
        self.sparse_cone = sparse_cone
        self.kept_when_missing = kept_when_missing
        self.folders: dict[bytes, Frame] = {}
        top = [Frame(b"", parse_attributes(b"\n".join(_BUILTIN), b"", True, True))]
        if parse_boolean(environ.get("GIT_ATTR_NOSYSTEM", "false")) is not True:
            top.append(self._shared(b"/etc/gitattributes"))
        user = _user_file(config, environ, root)
        if user is not None:
            top.append(self._shared(os.fsencode(user)))
        self.bottom = [frame for frame in reversed(top) if frame.lines]  # strongest first
        self.info = self._shared(os.fsencode(os.path.join(commondir, "info", "attributes")))
        self.top = self._folder(b"")
        self.macros = self._macros(skip_uncertain=False)
        self.certain_macros = self._macros(skip_uncertain=True)

    def _macros(self, skip_uncertain: bool) -> dict[bytes, list[State]]:
        macros: dict[bytes, list[State]] = {}
        for frame in (self.info, self.top, *self.bottom):  # the first definition found wins
            if skip_uncertain and frame.uncertain:
                continue
            for line in reversed(frame.lines):
                if line.macro is not None and line.macro not in macros:
                    macros[line.macro] = line.states
        return macros

    def _shared(self, path: bytes) -> Frame:
        data = _read_file(path, follow=True)
        return Frame(b"", parse_attributes(data or b"", b"", True, False))

    def _folder(self, folder: bytes) -> Frame:
        """A folder's `.gitattributes`: the work tree's, else the index's."""
        frame = self.folders.get(folder)
        if frame is not None:
            return frame
        relative = folder + b"/.gitattributes" if folder else b".gitattributes"
        macro_ok = not folder
        data = _read_file(self.root + b"/" + relative, follow=False)
        if data is not None:
            frame = Frame(folder, parse_attributes(data, folder, macro_ok, False))
        else:
            blob = self.index_blob(relative)
            if blob is None or len(blob) >= MAX_FILE_BYTES:
                frame = Frame(folder, [])
            else:
                lines = parse_attributes(blob, folder, macro_ok, True)
                frame = Frame(folder, lines, uncertain=self._why_uncertain(relative))
        self.folders[folder] = frame
        return frame

    def _why_uncertain(self, relative: bytes) -> str | None:
        """Why git's commands may or may not read the index's version of `relative` (a
        `.gitattributes` the work tree holds no file of that git reads), or None when they all
        read it."""
        name = relative.decode("utf-8", "surrogateescape")
        if not self.kept_when_missing(relative):
            return (
                f"its attributes come from the index's {name}, which the work tree no longer"
                " holds as a file (deleted, or a symlink): `git diff` and `git status` still"
                f" apply it, `git add -A` does not. Restore it (`git checkout -- {name}`) or"
                f" stage what replaced it (`git add -A -- {name}`)"
            )
        if self.sparse_cone and b"/" in relative:
            return (
                f"its attributes come from {name}, outside the sparse checkout, which git may or"
                " may not read"
            )
        return None

    def frames(self, path: bytes) -> list[Frame]:
        """The sources that speak for `path`, strongest first."""
        folder = path.rpartition(b"/")[0]
        chain = []
        while folder:
            chain.append(self._folder(folder))
            folder = folder.rpartition(b"/")[0]
        return [self.info, *chain, self.top, *self.bottom]

    def attributes(self, path: bytes, skip_uncertain: bool = False) -> dict[bytes, Value]:
        """Every attribute git decides for `path` (a file), by name. AttributeFileProblem when
        a source cannot be read as git would or a pattern cannot be followed."""
        if self.elsewhere is not None:
            raise AttributeFileProblem(
                f"git may read its attributes from {self.elsewhere}, which cagr does not read"
            )
        basename = path.rpartition(b"/")[2]
        values: dict[bytes, Value] = {}
        fold = self.fold
        macros = self.certain_macros if skip_uncertain else self.macros
        try:
            for frame in self.frames(path):
                if skip_uncertain and frame.uncertain:
                    continue
                for line in reversed(frame.lines):
                    pattern = line.pattern
                    if pattern is not None and pattern.matches(path, basename, False, fold):
                        _fill(values, line.states, macros)
        except PatternTooDeep as error:
            raise AttributeFileProblem(
                f"an attributes pattern nests too many `*` ({error})"
            ) from None
        return values

    def uncertain(self, path: bytes) -> str | None:
        """Why a source that speaks for `path` may or may not be read by git (None: none)."""
        return next((frame.uncertain for frame in self.frames(path) if frame.uncertain), None)


def _fill(
    values: dict[bytes, Value], states: list[State], macros: dict[bytes, list[State]]
) -> None:
    """git's fill_one(): the line's states from the last, each only if still undecided; a macro
    set to true expands in place."""
    for name, state in reversed(states):
        if name not in values:
            values[name] = state
            if state is True and name in macros:
                _fill(values, macros[name], macros)


def _user_file(config: GitConfig, environ: Mapping[str, str], root: str) -> str | None:
    return user_file(config.get("core", "attributesFile"), "attributes", environ, root)
