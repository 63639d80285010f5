"""Which working-tree files git would not hash byte for byte (content filters and line endings).

cagr hashes working-tree files itself and runs no filter programs (an LFS clean filter, for one,
writes into `.git`). So for a file whose content had to be read, it asks: would git transform it
on the way in? If so, and the bytes are such that the transform could change them, that path is
unchecked rather than guessed.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from dulwich.attrs import Pattern, parse_git_attributes

_EOL_ATTRIBUTES = (b"text", b"eol", b"crlf")
_FILTER_ATTRIBUTES = (b"filter", b"ident", b"working-tree-encoding")
_WANTED = frozenset((*_EOL_ATTRIBUTES, *_FILTER_ATTRIBUTES, b"binary"))


class Attributes:
    """The .gitattributes rules of a work tree that can change content on its way into git."""

    def __init__(
        self, root: Path, attribute_files: list[bytes], info: Path, autocrlf: bool
    ) -> None:
        self.autocrlf = autocrlf
        self.rules: list[tuple[bytes, Pattern, dict[bytes, bytes | bool | None]]] = []
        # Later rules win: shallower .gitattributes first, deeper ones, then info/attributes.
        sources = [
            (name[: -len(b".gitattributes")], root / name.decode("utf-8", "surrogateescape"))
            for name in sorted(attribute_files, key=lambda n: n.count(b"/"))
        ]
        sources.append((b"", info))
        for prefix, path in sources:
            try:
                with path.open("rb") as handle:
                    for pattern, values in parse_git_attributes(handle):
                        wanted = {k: v for k, v in values.items() if k in _WANTED}
                        if wanted:
                            self.rules.append((prefix, Pattern(pattern), wanted))
            except OSError:
                continue

    @property
    def active(self) -> bool:
        return self.autocrlf or bool(self.rules)

    def problem(self, path: bytes, has_crlf: bool, binary: Callable[[], bool]) -> str | None:
        """Why git's hash of this file's content may differ from its raw hash; None if it cannot.

        `binary` is asked only when it decides: whether git would call the content binary.
        """
        state: dict[bytes, bytes | bool | None] = {}
        for prefix, pattern, values in self.rules:
            if path.startswith(prefix) and pattern.match(path[len(prefix) :]):
                if values.get(b"binary"):
                    state[b"text"] = False
                state.update({k: v for k, v in values.items() if k != b"binary"})
        for name in _FILTER_ATTRIBUTES:
            value = state.get(name)
            if isinstance(value, bytes):
                return f"git applies `{name.decode()}={value.decode()}` to it; cagr runs no filters"
            if value is True:
                return f"git applies `{name.decode()}` to it; cagr runs no filters"
        if not has_crlf:
            return None  # line-ending conversion on the way in only ever rewrites CRLF
        conversion = _eol_conversion(state, self.autocrlf)
        if conversion is None or (conversion == "auto" and binary()):
            return None  # automatic conversion leaves what git calls binary as it is
        return "it has CRLF line endings that git's line-ending conversion may change"


def _eol_conversion(state: dict[bytes, bytes | bool | None], autocrlf: bool) -> str | None:
    """How git converts line endings on the way in: "text" (always), "auto" (only what it does
    not call binary) or None (never), from `text` (or the older `crlf`), `eol` and autocrlf."""
    text = state.get(b"text")
    if text is None:
        crlf = state.get(b"crlf")
        text = True if crlf is True or crlf == b"input" else (False if crlf is False else None)
    if text is False:
        return None
    auto = text == b"auto"
    if state.get(b"eol") in (b"lf", b"crlf") or text is True or text == b"input":
        return "auto" if auto else "text"
    if auto or (text is None and autocrlf):
        return "auto"
    return None


_NONPRINTABLE = bytes([*range(1, 8), 11, *range(14, 27), *range(28, 32), 127])


def looks_binary(data: bytes) -> bool:
    """git's own test for automatic line-ending conversion: a NUL, a lone CR, or fewer than 128
    printable bytes per unprintable one make content binary."""
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
