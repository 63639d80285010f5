"""pip requirements files: one PEP 508 requirement per logical line, as pip reads them.

A line ending in `\\` continues on the next; `#` starts a comment at the start of a line or
after whitespace; blank lines and options (`-r`, `-c`, `--index-url`, `--hash` ...) declare no
package, and included files are not followed (they are paths of their own). A requirement's own
options (`pkg==1 --hash=...`) are dropped. An editable (`-e X`) or a path or URL requirement is
named by its `#egg=` fragment or a `name @ URL` form; one that names no package is recorded as
unnamed, with its line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from cagr_core.dependencies import Declared, DependencySection

from ._python import normalise, parse_requirement
from ._reading import Malformed

_COMMENT = re.compile(r"(^|\s+)#.*$")
_EDITABLE = re.compile(r"(?:-e|--editable)(?:\s*=\s*|\s+|(?=[^-\s]))(?P<value>.*)\Z", re.DOTALL)
_EGG = re.compile(r"#(?:.*&)?egg=(?P<name>[^&\[\s]+)")
_NAME = re.compile(r"[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?\Z")
_ARCHIVES = (".whl", ".zip", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".tar")
SECTION = ""  # a requirements file has one unnamed section


def _logical_lines(text: str) -> Iterator[tuple[int, str]]:
    """(first line number, text) of each logical line: pip joins a line ending in a backslash
    with the next, unless the line is a comment."""
    joined: list[str] = []
    first = 0
    for number, line in enumerate(text.splitlines(), start=1):
        if line.endswith("\\") and not _COMMENT.match(line):
            if not joined:
                first = number
            joined.append(line[:-1])
            continue
        if joined:
            joined.append(" " + line if _COMMENT.match(line) else line)
            yield first, "".join(joined)
            joined = []
        else:
            yield number, line
    if joined:
        yield first, "".join(joined)


def _without_options(line: str) -> str:
    """The requirement before its own options: pip stops at the first word starting with `-`."""
    words = []
    for word in line.split(" "):
        if word.startswith("-"):
            break
        words.append(word)
    return " ".join(words).strip()


def _is_path_or_url(entry: str) -> bool:
    head = entry.split(";", 1)[0].strip()
    return (
        "/" in head
        or "\\" in head
        or head.startswith((".", "~"))
        or re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", head) is not None
        or head.endswith(_ARCHIVES)
    )


def _name(entry: str, number: int) -> tuple[str, str] | None:
    """The project a requirement names and its requirement (an editable or a path or URL: the
    entry itself), or None for a path or URL that names none."""
    egg = _EGG.search(entry)
    if egg is not None and _NAME.match(egg.group("name")):
        return egg.group("name"), " ".join(entry.split())
    if "@" not in entry and entry.split(";", 1)[0].strip().endswith(_ARCHIVES):
        return None  # a file pip installs from, though its name reads as a project name
    try:
        return parse_requirement(entry, f"line {number}")
    except Malformed:
        if _is_path_or_url(entry):
            return None
        raise


def read(text: str) -> Declared:
    """The names one requirements file declares, and its entries that name no package."""
    names: dict[str, str] = {}
    specs: dict[str, list[str]] = {}
    unnamed: dict[str, int] = {}
    for number, raw in _logical_lines(text):
        line = _COMMENT.sub("", raw).strip()
        if not line:
            continue
        if line.startswith("-"):
            editable = _EDITABLE.match(line)
            if editable is None:
                continue  # an option: -r, -c, --index-url, --hash, ...
            entry = _without_options(editable.group("value"))
        else:
            entry = _without_options(line)
        if not entry:
            raise Malformed(f"has an option with no value at line {number}")
        named = _name(entry, number)
        if named is None:
            unnamed.setdefault(" ".join(entry.split()), number)
        else:
            names.setdefault(normalise(named[0]), named[0])
            specs.setdefault(normalise(named[0]), []).append(named[1])
    joined = {name: "\n".join(sorted(texts)) for name, texts in specs.items()}
    return Declared((DependencySection(SECTION, None, names, joined),), unnamed)
