"""git's configuration for one repository, read as git reads it, by a parser that cannot write.

Files in git's order, a later value winning: the system file, the global ones (XDG, then
`~/.gitconfig`), the repository's `config`, the worktree's `config.worktree` (when
`extensions.worktreeConfig` is on), then the environment's `GIT_CONFIG_COUNT` pairs and `git -c`
settings (`GIT_CONFIG_PARAMETERS`). `include.path` and `includeIf` (`gitdir:`, `gitdir/i:`,
`onbranch:`, `hasconfig:remote.*.url:`) are followed in place; as git does, the remote URLs a
`hasconfig:` condition tests are those of a first reading in which every such include is taken
and may set no remote URL itself. Every file is opened without blocking and read only when it
is a regular file, so a FIFO or device named in a config cannot hang cagr. A file git would
refuse (a bad line, an include loop) raises GitConfigError naming the file and line.

Standard library only: no third-party parser is imported on a check's path.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable, Mapping

from cagr_core.errors import CagrError

from .files import read_regular
from .patterns import PatternTooDeep, wildmatch

MAX_CONFIG_BYTES = 16 * 1024 * 1024
MAX_INCLUDE_DEPTH = 10  # git's own limit
_SPACE = " \t\n\r"  # git's isspace(): ASCII only
_ESCAPES = {"\\": "\\", '"': '"', "n": "\n", "t": "\t", "b": "\b"}
_TRUE = frozenset(("true", "yes", "on"))
_FALSE = frozenset(("false", "no", "off", ""))
_HASCONFIG_URL = "hasconfig:remote.*.url:"

# A setting's key as git compares it: (section lower-cased, subsection as written or None,
# name lower-cased); its value None for a bare `name` (true as a boolean).
Key = tuple[str, str | None, str]
Setting = tuple[Key, str | None]


class GitConfigError(CagrError):
    """A configuration file git itself would refuse to read; the message names it."""


class GitConfig:
    """The settings in force, each key's last value winning, as `git config --get` reads them;
    `settings` holds every value in order, as `--get-all` reads a multi-valued key."""

    def __init__(self, settings: list[Setting]) -> None:
        self.settings = settings
        self.values: dict[Key, str | None] = {}
        for key, value in settings:
            self.values[key] = value

    def get(self, section: str, name: str, subsection: str | None = None) -> str | None:
        """The value (a bare `name` reads as "true"); None when it is not set."""
        key = (section.lower(), subsection, name.lower())
        if key not in self.values:
            return None
        value = self.values[key]
        return "true" if value is None else value

    def has(self, section: str, name: str, subsection: str | None = None) -> bool:
        return (section.lower(), subsection, name.lower()) in self.values

    def boolean(self, section: str, name: str, default: bool) -> bool:
        """A boolean as git reads one (true/yes/on/1, false/no/off/0/empty); GitConfigError for
        a value git would refuse."""
        key = (section.lower(), None, name.lower())
        if key not in self.values:
            return default
        value = self.values[key]
        parsed = parse_boolean(value)
        if parsed is None:
            raise GitConfigError(f"bad boolean config value {value!r} for '{section}.{name}'")
        return parsed


def parse_boolean(value: str | None) -> bool | None:
    """git's reading of a boolean: None for text that is no boolean."""
    if value is None:
        return True
    text = value.lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    try:
        return int(text, 0) != 0
    except ValueError:
        return None


def parse_config(
    data: bytes, origin: str, include: Callable[[str, str, str], list[Setting]] | None = None
) -> list[Setting]:
    """The settings of one config file's bytes, in order; `include(kind, path, origin)` (or
    nothing, without one) gives those of each `include.path` / `includeIf.*.path` in place."""
    text = data.decode("utf-8", "surrogateescape")
    if text.startswith("\ufeff"):
        text = text[1:]
    parser = _Parser(text, origin)
    settings: list[Setting] = []
    for key, value in parser.settings():
        settings.append((key, value))
        if include is None or key[2] != "path" or value is None:
            continue
        if key[0] == "include" and key[1] is None:
            settings.extend(include("", value, origin))
        elif key[0] == "includeif" and key[1] is not None:
            settings.extend(include(key[1], value, origin))
    return settings


class _Parser:
    """git's config syntax, read character by character as config.c reads it."""

    def __init__(self, text: str, origin: str) -> None:
        # git reads CR LF as LF, and the end of the file as one more line end.
        self.text = text.replace("\r\n", "\n") + "\n"
        self.at = 0
        self.line = 1
        self.origin = origin

    def _error(self) -> GitConfigError:
        return GitConfigError(f"bad config line {self.line} in file {self.origin}")

    def _next(self) -> str:
        """The next character; "" past the end (after the final line end)."""
        if self.at >= len(self.text):
            return ""
        char = self.text[self.at]
        self.at += 1
        if char == "\n" and self.at < len(self.text):
            self.line += 1
        return char

    def settings(self) -> list[Setting]:
        found: list[Setting] = []
        section: tuple[str, str | None] | None = None
        comment = False
        while True:
            char = self._next()
            if not char:
                return found
            if char == "\n":
                comment = False
                continue
            if comment or char in _SPACE:
                continue
            if char in "#;":
                comment = True
                continue
            if char == "[":
                section = self._section()
                continue
            if not (char.isascii() and char.isalpha()):
                raise self._error()
            name, value = self._setting(char)
            # Before any section git reads a setting with no section (`z = v` is `z`), which
            # nothing can look up: kept as section "", never an error.
            where = section if section is not None else ("", None)
            found.append(_as_c_strings((where[0], where[1], name), value))

    def _section(self) -> tuple[str, str | None]:
        name: list[str] = []
        while True:
            char = self._next()
            if not char:
                raise self._error()
            if char == "]":
                if not name:
                    raise self._error()
                head, dot, sub = "".join(name).partition(".")
                return head, sub if dot else None  # `[section.sub]`: both lower-cased
            if char in _SPACE:
                return self._extended_section("".join(name), char)
            if not (_keychar(char) or char == "."):
                raise self._error()
            name.append(char.lower())

    def _extended_section(self, name: str, char: str) -> tuple[str, str | None]:
        while char and char in _SPACE:
            if char == "\n":
                raise self._error()
            char = self._next()
        if char != '"' or not name:
            raise self._error()
        sub: list[str] = []
        while True:
            char = self._next()
            if char in ("\n", ""):
                raise self._error()
            if char == '"':
                break
            if char == "\\":
                char = self._next()
                if char in ("\n", ""):
                    raise self._error()
            sub.append(char)
        if self._next() != "]":
            raise self._error()
        if "." in name:  # `[a.b "c"]`: git keeps it as section "a", subsection "b.c"...
            head, _, rest = name.partition(".")
            return head, rest + "." + "".join(sub)
        return name, "".join(sub)

    def _setting(self, first: str) -> tuple[str, str | None]:
        name = [first.lower()]
        char = self._next()
        while char and _keychar(char):
            name.append(char.lower())
            char = self._next()
        while char in (" ", "\t"):
            char = self._next()
        if char in ("\n", ""):
            return "".join(name), None  # a bare name: true
        if char != "=":
            raise self._error()
        return "".join(name), self._value()

    def _value(self) -> str:
        out: list[str] = []
        quoted = comment = False
        space = 0  # unquoted white space inside the value, kept as that many spaces
        while True:
            char = self._next()
            if char in ("\n", ""):
                if quoted:
                    raise self._error()
                return "".join(out)
            if comment:
                continue
            if char in _SPACE and not quoted:
                space += 1 if out else 0
                continue
            if not quoted and char in "#;":
                comment = True
                continue
            if space:
                out.append(" " * space)
                space = 0
            if char == "\\":
                char = self._next()
                if char == "\n":
                    continue  # a continuation line
                if char not in _ESCAPES:
                    raise self._error()
                out.append(_ESCAPES[char])
            elif char == '"':
                quoted = not quoted
            else:
                out.append(char)


def _as_c_strings(key: Key, value: str | None) -> Setting:
    """A setting as git uses it: its key (`section.sub.name`) and value are C strings, so each
    ends at a NUL byte in the file (a subsection holding one leaves a shorter key)."""
    if value is not None and "\0" in value:
        value = value.partition("\0")[0]
    section, sub, name = key
    if sub is not None and "\0" in sub:
        whole = f"{section}.{sub}.{name}".partition("\0")[0]
        head, _, rest = whole.partition(".")
        middle, dot, last = rest.rpartition(".")
        key = (head, middle if dot else None, last)
    return key, value


def _keychar(char: str) -> bool:
    return char.isascii() and (char.isalnum() or char == "-")


def _glob_regex(pattern: str) -> re.Pattern[str]:
    """A wildmatch pattern with `**` across folders, `*`, `?` and `[...]` within one."""
    out = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if pattern.startswith("**/", index):
            out.append("(?:.*/)?")
            index += 3
            continue
        if pattern.startswith("**", index):
            out.append(".*")
            index += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = pattern.find("]", index + 2)
            if end == -1:
                out.append(re.escape(char))
            else:
                body = pattern[index + 1 : end]
                negated = body.startswith(("!", "^"))
                body = body[1:] if negated else body
                out.append(("[^" if negated else "[") + body.replace("\\", "\\\\") + "]")
                index = end
        else:
            out.append(re.escape(char))
        index += 1
    return re.compile("".join(out) + r"\Z", re.DOTALL)


def _matches(pattern: str, value: str, fold: bool = False) -> bool:
    try:
        regex = _glob_regex(pattern.lower() if fold else pattern)
    except re.error:
        return False
    return regex.match(value.lower() if fold else value) is not None


class _Reader:
    """Reads one repository's config files, following includes with git's conditions."""

    def __init__(
        self,
        gitdir: str,
        commondir: str,
        head_branch: str | None,
        environ: Mapping[str, str],
        *,
        first_reading: bool = False,
    ) -> None:
        self.gitdir = gitdir
        self.commondir = commondir
        self.head_branch = head_branch
        self.environ = environ
        # git's first reading for `hasconfig:remote.*.url:`: every such include is taken, and
        # what it includes only checked (it may not set a remote URL), never kept.
        self.first_reading = first_reading
        self._remote_urls: list[bytes] | None = None

    def everything(self) -> list[Setting]:
        """Every source's settings in git's order, lowest precedence first."""
        settings: list[Setting] = []
        for path in global_files(self.environ):
            settings.extend(self.file(path))
        local = self.file(os.path.join(self.commondir, "config"))
        settings.extend(local)
        if GitConfig(local).boolean("extensions", "worktreeConfig", False):
            settings.extend(self.file(os.path.join(self.gitdir, "config.worktree")))
        settings.extend(_environment_settings(self.environ))
        return settings

    def file(self, path: str, depth: int = 0, checked_only: bool = False) -> list[Setting]:
        """One file's settings with its includes; none when it is missing or no regular file.
        `checked_only`: inside a `hasconfig:` include on the first reading."""
        if depth > MAX_INCLUDE_DEPTH:
            raise GitConfigError(f"exceeded maximum include depth ({MAX_INCLUDE_DEPTH}) at {path}")
        data = read_regular(path, MAX_CONFIG_BYTES + 1, follow=True)
        if data is None:
            return []
        if len(data) > MAX_CONFIG_BYTES:
            raise GitConfigError(f"{path} is larger than {MAX_CONFIG_BYTES} bytes")

        def include(condition: str, value: str, origin: str) -> list[Setting]:
            by_url = condition.startswith(_HASCONFIG_URL)
            if condition and not self._condition(condition, origin):
                return []
            target = self._expand(value, origin)
            if target is None:
                return []
            return self.file(target, depth + 1, checked_only or (by_url and self.first_reading))

        settings = parse_config(data, path, include)
        if not checked_only:
            return settings
        if any(
            key[0] == "remote" and key[1] is not None and key[2] == "url" for key, _ in settings
        ):
            raise GitConfigError(
                "remote URLs cannot be configured in file directly or indirectly included by"
                f" includeIf.hasconfig:remote.*.url ({path})"
            )
        return []

    def _expand(self, value: str, origin: str) -> str | None:
        if value.startswith("~/") or value == "~":
            home = self.environ.get("HOME")
            if not home:
                return None
            value = os.path.join(home, value[2:])
        if not os.path.isabs(value):
            value = os.path.join(os.path.dirname(origin), value)
        return value

    def _condition(self, condition: str, origin: str) -> bool:
        kind, _, pattern = condition.partition(":")
        if kind in ("gitdir", "gitdir/i"):
            return self._gitdir(pattern, origin, fold=kind == "gitdir/i")
        if kind == "onbranch":
            if self.head_branch is None or not pattern:
                return False
            if pattern.endswith("/"):
                pattern += "**"
            return _matches(pattern, self.head_branch)
        if condition.startswith(_HASCONFIG_URL):
            return self.first_reading or self._some_remote_url(condition[len(_HASCONFIG_URL) :])
        return False  # conditions git does not know (or newer than cagr's reading) are false

    def _some_remote_url(self, pattern: str) -> bool:
        if self._remote_urls is None:
            first = _Reader(
                self.gitdir, self.commondir, self.head_branch, self.environ, first_reading=True
            )
            self._remote_urls = [
                value.encode("utf-8", "surrogateescape")
                for (section, subsection, name), value in first.everything()
                if section == "remote" and subsection is not None and name == "url" and value
            ]
        wanted = pattern.encode("utf-8", "surrogateescape")
        try:
            return any(wildmatch(wanted, url, pathname=True) for url in self._remote_urls)
        except PatternTooDeep:
            message = f"includeIf pattern too complex to match: {pattern[:80]!r}"
            raise GitConfigError(message) from None

    def _gitdir(self, pattern: str, origin: str, fold: bool) -> bool:
        if pattern.startswith("~/"):
            home = self.environ.get("HOME")
            if not home:
                return False
            pattern = os.path.join(home, pattern[2:])
        elif pattern.startswith("./"):
            pattern = os.path.join(os.path.dirname(origin), pattern[2:])
        elif not os.path.isabs(pattern):
            pattern = "**/" + pattern
        if pattern.endswith("/"):
            pattern += "**"
        candidates = {self.gitdir.rstrip("/"), os.path.realpath(self.gitdir)}
        return any(_matches(pattern, path, fold) for path in candidates)


def _environment_settings(environ: Mapping[str, str]) -> list[Setting]:
    """`GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n`, then `git -c` settings."""
    settings: list[Setting] = []
    count_text = environ.get("GIT_CONFIG_COUNT", "")
    if count_text:
        try:
            count = int(count_text)
        except ValueError:
            count = -1
        if count < 0:
            raise GitConfigError(f"bogus count in GIT_CONFIG_COUNT: {count_text!r}")
        for index in range(count):
            key = environ.get(f"GIT_CONFIG_KEY_{index}")
            value = environ.get(f"GIT_CONFIG_VALUE_{index}")
            if key is None or value is None:
                raise GitConfigError(f"missing config key or value GIT_CONFIG_*_{index}")
            settings.append((_split_key(key), value))
    parameters = environ.get("GIT_CONFIG_PARAMETERS", "")
    if parameters:
        try:
            words = shlex.split(parameters)
        except ValueError as error:
            raise GitConfigError(f"bogus format in GIT_CONFIG_PARAMETERS ({error})") from None
        for word in words:
            key, equals, value = word.partition("=")
            settings.append((_split_key(key), value if equals else None))
    return settings


def _split_key(key: str) -> Key:
    first, last = key.find("."), key.rfind(".")
    if first <= 0 or last == len(key) - 1:
        raise GitConfigError(f"invalid config key {key!r} in the environment")
    sub = key[first + 1 : last] if first != last else None
    return key[:first].lower(), sub, key[last + 1 :].lower()


def global_files(environ: Mapping[str, str]) -> list[str]:
    """The system and global config files git reads, lowest precedence first."""
    files = []
    if "GIT_CONFIG_SYSTEM" in environ:
        files.append(environ["GIT_CONFIG_SYSTEM"])
    elif parse_boolean(environ.get("GIT_CONFIG_NOSYSTEM", "false")) is not True:
        files.append("/etc/gitconfig")
    if "GIT_CONFIG_GLOBAL" in environ:
        files.append(environ["GIT_CONFIG_GLOBAL"])
    else:
        home = environ.get("HOME")
        xdg = environ.get("XDG_CONFIG_HOME") or (os.path.join(home, ".config") if home else None)
        if xdg:
            files.append(os.path.join(xdg, "git", "config"))
        if home:
            files.append(os.path.join(home, ".gitconfig"))
    return [path for path in files if path]


def read_git_config(
    gitdir: str,
    commondir: str,
    head_branch: str | None,
    environ: Mapping[str, str] | None = None,
) -> GitConfig:
    """The configuration git uses in this repository (`head_branch`: HEAD's branch name, for
    `includeIf "onbranch:..."`); GitConfigError when git would refuse it."""
    environ = os.environ if environ is None else environ
    return GitConfig(_Reader(gitdir, commondir, head_branch, environ).everything())


def repository_settings(commondir: str) -> GitConfig:
    """The repository's own config file alone, without includes: where git reads the
    repository format (`core.repositoryformatversion`, `extensions.*`)."""
    path = os.path.join(commondir, "config")
    data = read_regular(path, MAX_CONFIG_BYTES, follow=True)
    return GitConfig(parse_config(data or b"", path))
