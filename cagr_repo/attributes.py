"""Which working-tree files git would not hash byte for byte (content filters and line endings).

cagr hashes working-tree files itself and runs no filter programs (an LFS clean filter, for one,
writes into `.git`). So for a file whose content had to be read, it asks: would git transform it
on the way in? If so, and the bytes are such that the transform could change them, that path is
unchecked rather than guessed.
"""

from __future__ import annotations

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

    def problem(self, path: bytes, has_crlf: bool) -> str | None:
        """Why git's hash of this file's content may differ from its raw hash; None if it cannot."""
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
        converts = self.autocrlf and state.get(b"text") is not False
        converts = converts or any(state.get(n) not in (None, False) for n in _EOL_ATTRIBUTES)
        if converts and has_crlf:
            return "it has CRLF line endings that git's line-ending conversion may change"
        return None
