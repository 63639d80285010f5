"""The ignore rules of a work tree, read and decided as git's dir.c does.

Each folder's `.gitignore` (never through a symlink; a skip-worktree one is read from the index),
then the repository's `info/exclude` (in the common git directory, shared by linked worktrees),
then the user's excludes file (`core.excludesFile`, else `$XDG_CONFIG_HOME/git/ignore`). A deeper
file decides before a shallower one, and in one file the last matching line decides. A folder
that is ignored hides everything beneath it: no rule below can bring a path back.

Lines are read as git reads them: a UTF-8 byte order mark at the start is skipped, a CR before
the LF is dropped, unescaped trailing spaces are trimmed, `#` starts a comment, `!` negates,
`\\` escapes. Patterns are matched by cagr_git.patterns (git's wildmatch), honouring
`core.ignoreCase`. Standard library only.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Mapping

from cagr_core.errors import CagrError

from .gitconfig import GitConfig
from .patterns import ENDS_WITH, MUST_BE_DIR, NO_DIR, Pattern, PatternTooDeep, loose_regex

MAX_IGNORE_BYTES = 64 * 1024 * 1024
_BOM = b"\xef\xbb\xbf"
IndexBlob = Callable[[bytes], bytes | None]  # a skip-worktree file's content from the index


class IgnoreFileProblem(CagrError):
    """An ignore file git would hang on or refuse, or a pattern cagr cannot follow."""


def user_file(
    value: str | None, xdg_name: str, environ: Mapping[str, str], root: str
) -> str | None:
    """A file of the user's that git reads: the configured path (`~/` and `~user/` expanded,
    relative to the top of the work tree, where git runs), else `$XDG_CONFIG_HOME/git/NAME`
    (`~/.config/git/NAME`); None when there is none."""
    home = environ.get("HOME")
    if value == "":
        return None
    if value is None:
        xdg = environ.get("XDG_CONFIG_HOME") or (os.path.join(home, ".config") if home else None)
        return os.path.join(xdg, "git", xdg_name) if xdg else None
    if value.startswith("~"):
        user, _, rest = value[1:].partition("/")
        if not user:
            return os.path.join(home, rest) if home else None
        try:
            import pwd  # noqa: PLC0415  # POSIX only, and only for `~user/`

            return os.path.join(pwd.getpwnam(user).pw_dir, rest)
        except (ImportError, KeyError):
            return None
    return os.path.join(root, value)


def excludes_file(config: GitConfig, environ: Mapping[str, str], root: str) -> str | None:
    """The user's excludes file (`core.excludesFile`, else the XDG `git/ignore`)."""
    return user_file(config.get("core", "excludesFile"), "ignore", environ, root)


def _trim_trailing_spaces(line: bytes) -> bytes:
    """git's trim_trailing_spaces(): spaces at the end go unless the first is escaped."""
    if not line.endswith(b" "):
        return line
    last_space = None
    index = 0
    while index < len(line):
        byte = line[index]
        if byte == 32:
            if last_space is None:
                last_space = index
        else:
            if byte == 92:  # a backslash escapes the next byte
                index += 1
                if index == len(line):
                    return line
            last_space = None
        index += 1
    return line if last_space is None else line[:last_space]


def parse_ignore(data: bytes, base: bytes) -> list[Pattern]:
    """The patterns of one ignore file's bytes, in order (`base`: its folder, b"" at the top)."""
    if data.startswith(_BOM):
        data = data[3:]
    patterns = []
    for raw in data.split(b"\n")[: -1 if data.endswith(b"\n") else None]:
        if not raw or raw.startswith(b"#"):
            continue
        line = raw[:-1] if raw.endswith(b"\r") else raw
        line = _trim_trailing_spaces(line.partition(b"\0")[0])
        pattern = Pattern(line, base)
        if pattern.text:  # an empty pattern never matches a path
            patterns.append(pattern)
    return patterns


class _Rules:
    """One file's patterns, indexed so that deciding a path costs little more than a lookup:
    last match wins, so only the highest-numbered matching pattern counts. Literal names are
    looked up, `*literal` names compared by their end; the other patterns are first ruled out
    together by one loose regular expression (for last components, one for whole paths), and
    only when it matches decided one by one, by wildmatch."""

    __slots__ = ("by_name", "ends", "names", "others", "paths", "patterns", "suffixes")

    def __init__(self, patterns: list[Pattern], fold: bool) -> None:
        self.patterns = patterns
        self.names: dict[bytes, list[int]] = {}  # literal last-component patterns
        self.ends: list[tuple[int, bytes]] = []  # `*literal` last-component patterns
        self.others: list[tuple[int, bool]] = []  # (number, matched by last component)
        loose: dict[bool, list[bytes]] = {True: [], False: []}
        for number, pattern in enumerate(patterns):
            flags = pattern.flags
            if flags & NO_DIR and pattern.literal == len(pattern.text):
                key = pattern.text.lower() if fold else pattern.text
                self.names.setdefault(key, []).append(number)
            elif flags & NO_DIR and flags & ENDS_WITH:
                self.ends.append((number, pattern.text[1:].lower() if fold else pattern.text[1:]))
            elif flags & NO_DIR:
                self.others.append((number, True))
                loose[True].append(loose_regex(pattern.text, pathname=False))
            else:
                self.others.append((number, False))
                text = pattern.text[1:] if pattern.text.startswith(b"/") else pattern.text
                base = re.escape(pattern.base + b"/") if pattern.base else b""
                loose[False].append(base + loose_regex(text, pathname=True))
        self.others.reverse()
        self.suffixes = tuple(suffix for _, suffix in self.ends)
        options = re.DOTALL | (re.IGNORECASE if fold else 0)
        self.by_name, self.paths = (
            re.compile(b"|".join(b"(?:%s)" % r for r in loose[kind]), options)
            if loose[kind]
            else None
            for kind in (True, False)
        )

    def last_match(
        self, path: bytes, name: bytes, key: bytes, is_dir: bool, fold: bool
    ) -> Pattern | None:
        """The last pattern matching `path` (last component `name`, `key` as compared)."""
        patterns = self.patterns
        best = -1
        for number in self.names.get(key, ()):
            if number > best and (is_dir or not patterns[number].flags & MUST_BE_DIR):
                best = number
        if self.suffixes and key.endswith(self.suffixes):
            for number, suffix in self.ends:
                fits = is_dir or not patterns[number].flags & MUST_BE_DIR
                if number > best and fits and key.endswith(suffix):
                    best = number
        by_name = self.by_name is not None and self.by_name.fullmatch(name) is not None
        by_path = self.paths is not None and self.paths.fullmatch(path) is not None
        if by_name or by_path:
            for number, of_name in self.others:
                if number < best:
                    break
                if (by_name if of_name else by_path) and patterns[number].matches(
                    path, name, is_dir, fold
                ):
                    best = number
                    break
        return patterns[best] if best >= 0 else None


class IgnoreRules:
    """Whether git ignores a path of this work tree; folders' `.gitignore` files are read the
    first time a path beneath them is asked about."""

    def __init__(
        self, root: str, shared: list[list[Pattern]], fold: bool, index_blob: IndexBlob
    ) -> None:
        self.root = os.fsencode(root)
        self.fold = fold
        self.index_blob = index_blob
        self.shared = [_Rules(patterns, fold) for patterns in shared if patterns]
        # Per folder: the files that decide beneath it, deepest first; None: it is ignored.
        self.stacks: dict[bytes, list[_Rules] | None] = {}

    def excluded(self, folder: bytes, name: bytes, is_dir: bool) -> bool:
        """Whether git ignores `name` in `folder` (b"": the top). IgnoreFileProblem when git
        would hang on an ignore file on the way, or a pattern is too deep to follow."""
        stack = self._stack(folder)
        if stack is None:
            return True
        path = folder + b"/" + name if folder else name
        return self._decide(stack, path, name, is_dir)

    def _decide(self, stack: list[_Rules], path: bytes, name: bytes, is_dir: bool) -> bool:
        key = name.lower() if self.fold else name
        try:
            for rules in stack:
                pattern = rules.last_match(path, name, key, is_dir, self.fold)
                if pattern is not None:
                    return not pattern.negative
        except PatternTooDeep as error:
            raise IgnoreFileProblem(f"an ignore pattern nests too many `*` ({error})") from None
        return False

    def _stack(self, folder: bytes) -> list[_Rules] | None:
        """The rules that decide inside `folder`, as git's prep_exclude() gathers them."""
        stacks = self.stacks
        if folder in stacks:
            return stacks[folder]
        missing = [folder]  # the folder and its ancestors not yet known, deepest first
        while missing[-1]:
            parent = missing[-1].rpartition(b"/")[0]
            if parent in stacks:
                break
            missing.append(parent)
        for current in reversed(missing):
            if not current:
                own = self._read(b"")
                stacks[current] = ([own] if own else []) + self.shared
                continue
            parent, _, name = current.rpartition(b"/")
            above = stacks[parent]
            if above is None or self._decide(above, current, name, True):
                stacks[current] = None  # an ignored folder: nothing beneath is looked at
                continue
            own = self._read(current)
            stacks[current] = [own, *above] if own else above
        return stacks[folder]

    def _read(self, folder: bytes) -> _Rules | None:
        """A folder's `.gitignore`, as git's add_patterns() reads it: never through a symlink,
        from the index when it is skip-worktree and not on disk; None when it has no patterns."""
        relative = folder + b"/.gitignore" if folder else b".gitignore"
        flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)
        try:
            fd = os.open(self.root + b"/" + relative, flags)
        except OSError:
            data = self.index_blob(relative)
        else:
            try:
                data = _read_open(fd, relative)
            finally:
                os.close(fd)
        if not data:
            return None
        patterns = parse_ignore(data, folder)
        return _Rules(patterns, self.fold) if patterns else None


def _read_open(fd: int, relative: bytes) -> bytes | None:
    """An opened per-folder ignore file's bytes as git reads them (None: git reads nothing)."""
    st = os.fstat(fd)
    if stat.S_ISFIFO(st.st_mode):
        name = relative.decode("utf-8", "surrogateescape")
        raise IgnoreFileProblem(f"{name} is a FIFO, which git would wait on forever")
    if not stat.S_ISREG(st.st_mode) or st.st_size == 0:
        return None  # git reads nothing from a folder or an empty device
    if st.st_size > MAX_IGNORE_BYTES:
        name = relative.decode("utf-8", "surrogateescape")
        raise IgnoreFileProblem(f"{name} is larger than {MAX_IGNORE_BYTES} bytes")
    data = os.read(fd, st.st_size)
    while len(data) < st.st_size:
        more = os.read(fd, st.st_size - len(data))
        if not more:
            return None  # shorter than it said: git ignores the whole file
        data += more
    return data


def _read_shared(path: str) -> bytes:
    """`info/exclude` or the user's excludes file: git skips one it cannot access and refuses
    (dies on) one it cannot read."""
    if not os.access(path, os.R_OK):
        return b""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as error:
        raise IgnoreFileProblem(
            f"git cannot use {path} as an exclude file ({error.strerror})"
        ) from None
    try:
        st = os.fstat(fd)
        if stat.S_ISFIFO(st.st_mode):
            raise IgnoreFileProblem(f"{path} is a FIFO, which git would wait on forever")
        if st.st_size == 0:
            return b""
        if not stat.S_ISREG(st.st_mode):
            raise IgnoreFileProblem(f"git cannot use {path} as an exclude file (not a file)")
        return _read_open(fd, os.fsencode(path)) or b""
    finally:
        os.close(fd)


def ignore_rules(
    root: str,
    commondir: str,
    config: GitConfig,
    environ: Mapping[str, str],
    index_blob: IndexBlob,
) -> IgnoreRules:
    """The work tree's ignore rules (core.ignoreCase as configured). IgnoreFileProblem when
    git would hang on or refuse `info/exclude` or the user's excludes file."""
    fold = config.boolean("core", "ignoreCase", False)
    shared = []
    for path in (os.path.join(commondir, "info", "exclude"), excludes_file(config, environ, root)):
        if path:
            shared.append(parse_ignore(_read_shared(path), b""))
    return IgnoreRules(root, shared, fold, index_blob)
