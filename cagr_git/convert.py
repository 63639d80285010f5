"""How git converts a work-tree file's content on its way in (`git add`, `git diff`), as its
convert.c does: a clean filter, then `working-tree-encoding`, then line endings, then `ident`.

Line endings are reproduced exactly: `text`/`eol` (or the older `crlf`) and `core.autocrlf`
decide between never, always (CRLF becomes LF), and automatic (not for what git calls binary,
nor when the index's version of the path already has CRLF line endings). `core.eol` and
`core.safecrlf` change nothing on the way in. `ident` is reproduced too (`$Id: ... $` becomes
`$Id$`). A filter that runs (`filter.NAME.clean` or `.process`, or a `required` one git would die
on) and a `working-tree-encoding` other than UTF-8 are not: such content is *unconvertible* and
the caller leaves the path unchecked, naming why.
"""

from __future__ import annotations

from collections.abc import Callable

from cagr_core.errors import CagrError
from cagr_core.values import value

from .attributes import AttributeRules, Value
from .gitconfig import GitConfig, parse_boolean

NEVER, ALWAYS, AUTO = 0, 1, 2  # when CRLF becomes LF
_NONPRINTABLE = bytes([*range(1, 8), 11, *range(14, 27), *range(28, 32), 127])


class Unconvertible(CagrError):
    """Content whose way into git cagr does not reproduce; the message says why."""


@value
class Conversion:
    """What git does to one path's content on the way in."""

    eol: int = NEVER
    ident: bool = False
    unreproduced: str | None = None  # a filter or encoding cagr does not run

    @property
    def plain(self) -> bool:
        """Whether git takes the bytes as they are, whatever they are."""
        return self.eol == NEVER and not self.ident and self.unreproduced is None


PLAIN = Conversion()


def _text(value: Value) -> str | None:
    """git_path_check_crlf(): "text", "binary", "input", "auto" or None (undecided)."""
    if value is True:
        return "text"
    if value is False:
        return "binary"
    if value == b"input":
        return "input"
    if value == b"auto":
        return "auto"
    return None


def _same_encoding(name: bytes) -> bool:
    """Whether git's same_encoding() calls `name` UTF-8 (no re-encoding)."""
    lowered = name.lower()
    if lowered.startswith(b"utf"):
        return lowered[3:].removeprefix(b"-") == b"8"
    return lowered == b"utf-8"


class Checkin:
    """The conversions of one work tree's paths: its attributes with its configuration."""

    def __init__(self, attributes: AttributeRules, config: GitConfig) -> None:
        self.attributes = attributes
        value = config.get("core", "autocrlf")
        if value is not None and value.lower() == "input":
            self.autocrlf: str | None = "input"
        else:
            self.autocrlf = "true" if config.boolean("core", "autocrlf", False) else None
        self.filters = _filters(config)

    def conversion(self, path: bytes) -> Conversion:
        """What git does to `path`'s content on the way in. AttributeFileProblem when its
        attributes cannot be read as git would; Unconvertible when git itself would refuse
        them."""
        return self._decide(self.attributes.attributes(path))

    def alternative(self, path: bytes, conversion: Conversion) -> tuple[Conversion, str] | None:
        """Another conversion one of git's commands applies to `path` (a `.gitattributes` that
        some read and others do not), and why; None when they all apply `conversion`."""
        why = self.attributes.uncertain(path)
        if why is None:
            return None
        other = self._decide(self.attributes.attributes(path, skip_uncertain=True))
        return None if other == conversion else (other, why)

    def _decide(self, attributes: dict[bytes, Value]) -> Conversion:
        """convert.c's convert_attrs(), for the way in."""
        action = _text(attributes.get(b"text"))
        if action is None:
            action = _text(attributes.get(b"crlf"))
        eol = attributes.get(b"eol")
        if action != "binary" and eol in (b"lf", b"crlf"):
            action = "auto" if action == "auto" else "text"
        if action is None and self.autocrlf is not None:
            action = "auto"
        mode = {"text": ALWAYS, "input": ALWAYS, "auto": AUTO}.get(action or "", NEVER)
        return Conversion(mode, attributes.get(b"ident") is True, self._unreproduced(attributes))

    def _unreproduced(self, attributes: dict[bytes, Value]) -> str | None:
        name = attributes.get(b"filter")
        if isinstance(name, bytes):
            driver = self.filters.get(name)
            if driver is not None:
                text = name.decode("utf-8", "surrogateescape")
                clean, process, required = driver
                if process or (clean and process is None):
                    return f"git runs its `{text}` filter on it; cagr runs no filters"
                if required:
                    return (
                        f"its `{text}` filter is required but has no clean command; git refuses it"
                    )
        encoding = attributes.get(b"working-tree-encoding")
        if encoding is True or encoding is False:
            return "its `working-tree-encoding` is not an encoding; git refuses it"
        if isinstance(encoding, bytes) and encoding and not _same_encoding(encoding):
            text = encoding.decode("utf-8", "surrogateescape")
            return f"git re-encodes it from {text} (`working-tree-encoding`); cagr does not"
        return None


def _filters(config: GitConfig) -> dict[bytes, tuple[str | None, str | None, bool]]:
    """Each configured filter driver: (clean, process, required), as git's config reading
    leaves them (the last value wins)."""
    drivers: dict[bytes, tuple[str | None, str | None, bool]] = {}
    for section, subsection, _ in config.values:
        if section != "filter" or subsection is None:
            continue
        name = subsection.encode("utf-8", "surrogateescape")
        if name in drivers:
            continue
        clean = config.get("filter", "clean", subsection)
        process = config.get("filter", "process", subsection)
        flag = config.get("filter", "required", subsection)
        required = flag is not None and parse_boolean(flag) is not False  # bad: git dies
        drivers[name] = (clean, process, required)
    return drivers


def looks_binary(data: bytes) -> bool:
    """git's convert_is_binary(): a NUL, a lone CR, or fewer than 128 printable bytes per
    unprintable one."""
    if b"\0" in data:
        return True
    crlf = data.count(b"\r\n")
    if data.count(b"\r") > crlf:
        return True
    nonprintable = len(data) - len(data.translate(None, _NONPRINTABLE))
    printable = len(data) - crlf - data.count(b"\n") - nonprintable  # a CRLF is one line end
    if data.endswith(b"\x1a"):
        nonprintable -= 1  # a trailing end-of-file mark does not count
    return (printable >> 7) < nonprintable


def ident_to_git(data: bytes) -> bytes:
    """git's ident_to_git(): every `$Id: ... $` (closed on its line) becomes `$Id$`."""
    out = bytearray()
    start = 0
    while (dollar := data.find(b"$", start)) != -1:
        out += data[start : dollar + 1]
        start = dollar + 1
        if len(data) - start > 3 and data.startswith(b"Id:", start):
            close = data.find(b"$", start + 3)
            if close == -1:
                break
            if data.find(b"\n", start + 3, close) != -1:
                continue  # a line ends before the closing `$`: left as it is
            out += b"Id$"
            start = close + 1
    out += data[start:]
    return bytes(out)


def _converts(conversion: Conversion, data: bytes, index_has_crlf: Callable[[], bool]) -> bool:
    """Whether CRLF in `data` becomes LF: always, or automatically unless git calls the content
    binary or the index's version already has CRLF (git's "safer autocrlf")."""
    return conversion.eol == ALWAYS or not (looks_binary(data) or index_has_crlf())


def to_git(data: bytes, conversion: Conversion, index_has_crlf: Callable[[], bool]) -> bytes:
    """The content git would store for a work-tree file holding `data`. Unconvertible where
    git runs something cagr does not reproduce on it."""
    if not data:
        return data  # nothing converts empty content (a filter aside)
    if conversion.unreproduced is not None:
        raise Unconvertible(conversion.unreproduced)
    if conversion.eol != NEVER and b"\r\n" in data and _converts(conversion, data, index_has_crlf):
        data = data.replace(b"\r\n", b"\n")
    if conversion.ident:
        data = ident_to_git(data)
    return data
