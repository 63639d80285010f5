"""Which globs can select a manifest the dependency selector reads (config validation)."""

from __future__ import annotations

from collections.abc import Iterator

from cagr_core.dependencies import MANIFEST_NAMES, format_of
from cagr_core.globs import GLOB_CHARS, brace_groups

from .globs import compile_matcher, expand

_PROBES = (
    *MANIFEST_NAMES,
    "requirements.txt",
    "requirements.in",
    "requirements-dev.txt",
    "dev-requirements.txt",
    "requirements_dev.txt",
    "requirements.dev.txt",
)


def could_be_read(pattern: str) -> bool:
    """Whether a (valid) glob can match a path whose name says it is a manifest: tried on
    manifest names and on the pattern's own names with its wildcards filled in."""
    matcher = compile_matcher([pattern], "bind")
    return any(
        matcher.matches(path) and format_of(path) is not None for path in _candidates(pattern)
    )


def _candidates(pattern: str) -> Iterator[str]:
    for expanded in expand(pattern.removeprefix("/")):
        alternative = expanded
        for start, end, _ in reversed(brace_groups(expanded)):
            alternative = alternative[:start] + "p" + alternative[end:]  # a part matches one
        *folders, last = alternative.split("/")
        # A wildcard folder may be a requirements/ folder; a literal one is what it says.
        wild = any(GLOB_CHARS.intersection(folder) for folder in folders)
        for star in ("", "requirements"):
            base = [name for name in (_instance(f, star) for f in folders if f != "**") if name]
            names = [*_PROBES, _instance(last, star)] if last != "**" else list(_PROBES)
            for name in filter(None, names):
                yield "/".join([*base, name])
                if wild:
                    yield "/".join([*base, "requirements", name])


def _instance(name: str, star: str) -> str:
    """One name a glob component matches (escapes undone, `*` as `star`), or near enough: the
    matcher decides."""
    out = []
    index = 0
    while index < len(name):
        char = name[index]
        close = name.find("]", index + 2) if char == "[" else -1
        if char == "\\" and index + 1 < len(name):
            out.append(name[index + 1])
            index += 2
            continue
        if close != -1:
            choices = name[index + 1 : close]
            negated = choices[0] in "!^"
            out.append(
                next((c for c in "xq_0" if c not in choices), "x") if negated else choices[0]
            )
            index = close + 1
            continue
        out.append({"*": star, "?": "r"}.get(char, char))
        index += 1
    return "".join(out)
