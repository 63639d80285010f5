"""Shared hypothesis strategies: repo paths, names, patterns, markdown sections, change sets."""

from __future__ import annotations

import hashlib

from hypothesis import strategies as st

from cagr_core import Change, Side
from cagr_core.sections import is_placeholder

# Path components as git allows them: any characters but NUL and '/', never '.' or '..'.
# Glob characters, spaces, tabs, newlines, quotes and lone surrogates (undecodable bytes) included.
_ODD = " \t\n'\"*?[]{}!\\#~-.,:;\udcff"
component = st.text(
    alphabet=st.one_of(st.sampled_from("abcxyz019_"), st.sampled_from(_ODD)),
    min_size=1,
    max_size=8,
).filter(lambda name: name not in (".", ".."))
plain_component = st.text(alphabet="abcdefghij0123456789_-", min_size=1, max_size=6)
folder = st.lists(component, max_size=3).map("/".join)
repo_path = st.lists(component, min_size=1, max_size=4).map("/".join)
plain_path = st.lists(plain_component, min_size=1, max_size=4).map("/".join)

MODES = (0o100644, 0o100755, 0o120000, 0o160000)


@st.composite
def sides(draw: st.DrawFn, contents: tuple[str, ...] = ("a", "b", "c")) -> Side:
    content = draw(st.sampled_from(contents))
    mode = draw(st.sampled_from(MODES))
    return Side(mode, hashlib.sha1(content.encode()).hexdigest(), content.encode())


@st.composite
def changes(
    draw: st.DrawFn,
    paths: st.SearchStrategy[str] = plain_path,
    side: st.SearchStrategy[Side] | None = None,
) -> list[Change]:
    side = sides() if side is None else side
    chosen = draw(st.lists(paths, unique=True, max_size=12))
    out = []
    for path in chosen:
        old = draw(st.none() | side)
        new = draw(st.none() | side)
        if old is None and new is None:
            new = draw(side)
        if old is not None and new is not None and (old.mode, old.oid) == (new.mode, new.oid):
            continue
        out.append(Change(path, old, new))
    return out


substantive_line = st.text(alphabet="abcdefghijklmnopqrstuvwxyz ", min_size=1, max_size=30).filter(
    lambda text: not is_placeholder(text)
)
heading_name = st.text(alphabet="ABCDEFGHIJ", min_size=1, max_size=6)
