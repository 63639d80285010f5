"""Shared hypothesis strategies: repo paths, names, patterns, markdown sections, change sets,
manifests."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from hypothesis import strategies as st

from cagr_core.changes import Change, Side
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


# Manifests: a model (section id -> normalised names) and a renderer per format that writes it
# with its own choice of order, spelling, versions and entry forms, so that two renderings of one
# model differ in everything but what they declare.

Model = dict[str, set[str]]
MANIFEST_SECTIONS = {
    "package.json": ("dependencies", "devDependencies", "optionalDependencies", "peerDependencies"),
    "pyproject.toml": (
        "project.dependencies",
        "project.optional-dependencies.extra",
        "dependency-groups.dev",
        "dependency-groups.lint",
        "tool.poetry.group.docs.dependencies",
    ),
    "requirements": ("",),
    "Cargo.toml": (
        "dependencies",
        "dev-dependencies",
        "build-dependencies",
        "target.'cfg(unix)'.dependencies",
        "workspace.dependencies",
    ),
    "go.mod": ("require",),
}
_SIMPLE_NAME = st.from_regex(r"[a-z][a-z0-9]{0,5}(-[a-z0-9]{1,4})?", fullmatch=True)
MANIFEST_NAMES = {
    "package.json": st.one_of(_SIMPLE_NAME, _SIMPLE_NAME.map(lambda n: f"@scope/{n}")),
    "pyproject.toml": _SIMPLE_NAME.filter(lambda n: n != "python"),
    "requirements": _SIMPLE_NAME,
    "Cargo.toml": _SIMPLE_NAME,
    "go.mod": st.one_of(
        _SIMPLE_NAME.map(lambda n: f"example.com/{n}"),
        _SIMPLE_NAME.map(lambda n: f"golang.org/x/{n}/v2"),
    ),
}


def manifest_models(manifest: str, min_size: int = 0) -> st.SearchStrategy[Model]:
    """Section ids of the format (at least `min_size`), each with a few distinct names."""
    return st.dictionaries(
        st.sampled_from(MANIFEST_SECTIONS[manifest]),
        st.sets(MANIFEST_NAMES[manifest], max_size=4),
        min_size=min_size,
        max_size=len(MANIFEST_SECTIONS[manifest]),
    )


def _respell(name: str, rng: Any, separators: str = "-_.") -> str:
    """Another spelling of one Python (or, with separators `-_`, crate) name: its case, and
    its `-` written as another separator."""
    out = "".join(c.upper() if rng.random() < 0.3 else c for c in name)
    return out.replace("-", rng.choice(separators))


def _version(rng: Any) -> str:
    return f"{rng.randint(0, 9)}.{rng.randint(0, 20)}"


def _shuffled(items: list[Any], rng: Any) -> list[Any]:
    out = list(items)
    rng.shuffle(out)
    return out


def render_manifest(manifest: str, model: Model, rng: Any) -> str:
    """The model written as the format, with order, spellings, versions and forms from `rng`."""
    return _RENDERERS[manifest](model, rng)


def _package_json(model: Model, rng: Any) -> str:
    data: dict[str, Any] = {"name": "demo", "version": "1.0.0"}
    for section in _shuffled(list(model), rng):
        data[section] = {n: f"^{_version(rng)}" for n in _shuffled(sorted(model[section]), rng)}
    keys = _shuffled(list(data), rng)
    return json.dumps({key: data[key] for key in keys}, indent=rng.choice([None, 2]))


def _pep508(name: str, rng: Any) -> str:
    spelled = _respell(name, rng)
    extra = rng.choice(["", "[socks]", "[a,b]"])
    spec = rng.choice(["", f">={_version(rng)}", f"=={_version(rng)}", f"~={_version(rng)}"])
    marker = rng.choice(["", "; python_version >= '3.9'", ' ; sys_platform == "linux"'])
    return f"{spelled}{extra}{spec}{marker}"


def _toml_list(items: list[str]) -> str:
    return "[" + ", ".join(items) + "]"


def _pyproject(model: Model, rng: Any) -> str:
    def entries(section: str) -> list[str]:
        return [json.dumps(_pep508(n, rng)) for n in _shuffled(sorted(model.get(section, ())), rng)]

    project = ['[project]\nname = "demo"']
    if "project.dependencies" in model:
        project.append(f"dependencies = {_toml_list(entries('project.dependencies'))}")
    if "project.optional-dependencies.extra" in model:
        extra = _toml_list(entries("project.optional-dependencies.extra"))
        project.append(
            f"[project.optional-dependencies]\n{rng.choice(['extra', 'Extra'])} = {extra}"
        )
    groups = ["[dependency-groups]"]
    for group in _shuffled(["dev", "lint"], rng):
        section = f"dependency-groups.{group}"
        if section in model:
            items = entries(section)
            if rng.random() < 0.5:
                items.insert(rng.randint(0, len(items)), '{include-group = "lint"}')
            groups.append(f"{group} = {_toml_list(items)}")
    poetry = ["[tool.poetry.group.docs.dependencies]"]
    for name in _shuffled(sorted(model.get("tool.poetry.group.docs.dependencies", ())), rng):
        value = rng.choice(
            [f'"^{_version(rng)}"', f'{{ version = "{_version(rng)}", optional = true }}']
        )
        poetry.append(f"{json.dumps(_respell(name, rng))} = {value}")
    blocks = [
        "\n".join(project),
        "\n".join(groups),
        "\n".join(poetry),
        "[tool.ruff]\nline-length = 100",
    ]
    return "\n\n".join(_shuffled(blocks, rng)) + "\n"


def _requirements(model: Model, rng: Any) -> str:
    lines = []
    for name in model.get("", ()):
        line = _pep508(name, rng)
        if rng.random() < 0.3:
            line += " \\\n    --hash=sha256:" + "ab" * 8
        if rng.random() < 0.3:
            line += "  # via something"
        lines.append(line)
    lines += rng.sample(
        ["# pinned", "", "-r base.txt", "--index-url https://example.org/simple", "-c c.txt"],
        k=rng.randint(0, 5),
    )
    return "\n".join(_shuffled(lines, rng)) + rng.choice(["", "\n", "\r\n"])


def _cargo(model: Model, rng: Any) -> str:
    blocks = ['[package]\nname = "demo"\nversion = "0.1.0"']
    for section in _shuffled(list(model), rng):
        header = section.replace("-dependencies", rng.choice(["-dependencies", "_dependencies"]))
        lines = [f"[{header}]"]
        for name in _shuffled(sorted(model[section]), rng):
            spelled = _respell(name, rng, "-_")
            form = rng.randint(0, 2)
            if form == 0:
                lines.append(f'{json.dumps(spelled)} = "{_version(rng)}"')
            elif form == 1:
                lines.append(
                    f'{json.dumps(spelled)} = {{ version = "{_version(rng)}", features = ["x"] }}'
                )
            else:
                alias = json.dumps(f"{name}_renamed")
                lines.append(f'{alias} = {{ package = {json.dumps(spelled)}, version = "1" }}')
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


def _go_mod(model: Model, rng: Any) -> str:
    lines = ["module example.com/demo", "", "go 1.22", ""]
    requires = [
        f"{name} v{_version(rng)}.0" + rng.choice(["", " // indirect"])
        for name in _shuffled(sorted(model.get("require", ())), rng)
    ]
    while requires:
        if rng.random() < 0.5:
            lines.append(f"require {requires.pop()}")
        else:
            size = rng.randint(1, 3)
            taken, requires = requires[:size], requires[size:]
            lines += ["require (", *(f"\t{r}" for r in taken), ")"]
    lines.append(
        rng.choice(["", "replace example.com/demo => ../demo", "// require example.com/no v1.0.0"])
    )
    return "\n".join(lines) + "\n"


_RENDERERS = {
    "package.json": _package_json,
    "pyproject.toml": _pyproject,
    "requirements": _requirements,
    "Cargo.toml": _cargo,
    "go.mod": _go_mod,
}


@st.composite
def damaged(draw: st.DrawFn, data: bytes, protect: int = 0) -> bytes:
    """`data` changed as files get damaged: bits flipped, bytes overwritten with edge values,
    cut short, bytes inserted or dropped, a range repeated; never equal to `data`. The first
    `protect` bytes stay (a header that would only lead to the first refusal)."""
    out = bytearray(data)
    for _ in range(draw(st.integers(1, 4))):
        size = len(out)
        at = draw(st.integers(min(protect, size), max(size - 1, min(protect, size))))
        kind = draw(st.sampled_from(["flip", "set", "cut", "insert", "drop", "repeat"]))
        if kind == "flip" and at < size:
            out[at] ^= 1 << draw(st.integers(0, 7))
        elif kind == "set" and at < size:
            out[at] = draw(st.sampled_from([0x00, 0x01, 0x7F, 0x80, 0xFF, 0x0A, 0x20, 0x5C]))
        elif kind == "cut":
            del out[at:]
        elif kind == "insert":
            out[at:at] = draw(st.binary(min_size=1, max_size=16))
        elif kind == "drop":
            del out[at : at + draw(st.integers(1, 64))]
        elif kind == "repeat":
            out[at:at] = out[at : at + draw(st.integers(1, 64))]
    if bytes(out) == data:
        out.append(draw(st.integers(0, 255)))
    return bytes(out)


# Guards' word patterns and command words: a small alphabet, so patterns and words meet often.
guard_word = st.text(alphabet="ab-/.", min_size=1, max_size=4)
guard_pattern_word = st.text(alphabet="ab-.*", min_size=1, max_size=4).filter(lambda w: w != "")
# Name conventions: words of lowercase letters and digits, starting with a letter.
name_word = st.from_regex(r"[a-z][a-z0-9]{0,5}", fullmatch=True)


# Markdown descriptions built from the lines that decide sections, and their tricky neighbours:
# headings of every form (ATX with closing marks, setext underlines, `<h2>`), fences of both
# characters and several lengths (closed, unclosed, with info), indented code, HTML blocks and
# comments, block quotes, lists (bullets, numbers, nesting, task boxes, lazy lines), tables,
# entities, escapes, emphasis, links and link reference definitions.
_md_word = st.sampled_from(
    ["Risk", "risk", "Summary", "TODO", "low", "a_b", "x", "N/A", "&amp;", "&copy", "&#82;isk",
     "`code`", "``a ` b``", "` x `", "`", "*em*", "**Risk**", "_e_", "__s__", "~~del~~",
     "[link](http://x)", "[ref]", "![img](y)", "<b>", "</b>", "<!-- c -->", "\\#", "\\",
     "http://a.b/c_d", "a|b", "#", "##", "2.", "-", "*", ">", "=", "<h2>Risk</h2>", "é"]
)  # fmt: skip
_md_text = st.lists(_md_word, min_size=1, max_size=5).map(" ".join)
_md_indent = st.sampled_from(["", "", "", " ", "  ", "   ", "    ", "      ", "\t"])
_md_line = st.one_of(
    st.just(""),
    _md_text,
    st.builds("{}{} {}{}".format, _md_indent, st.sampled_from(["#", "##", "###", "#######"]),
              _md_text, st.sampled_from(["", " ##", "#", "  "])),
    st.builds("{}{}".format, _md_indent, st.sampled_from(["---", "===", "--", "***", "- - -", "___"])),
    st.builds("{}{}{}".format, _md_indent, st.sampled_from(["```", "````", "~~~", "~~~~", "``"]),
              st.sampled_from(["", "python", " x`y"])),
    st.builds("{}{} {}".format, _md_indent,
              st.sampled_from(["-", "*", "+", "1.", "2.", "1)", "10.", "- [ ]", "- [x]", "1. [X]",
                               "- -", "-    ", ">", "> -", "* [X]", "+ [ ]", "- []", "- [ ] [x]",
                               "[ ]", "[x]", "> - [ ]", "-  [x]", "- [y]"]), _md_text),
    st.builds("{}{}".format, _md_indent,
              st.sampled_from(["-", "1.", ">", "- [ ]", "- [x]", "* [X] ", "[ ]"])),
    # a box with no space after it is no task: `- [ ]done`
    st.builds("{}{}{}".format, _md_indent, st.sampled_from(["- [ ]", "* [x]", "1. [X]", "- [ ]\t"]),
              _md_text),
    st.builds("{}{}".format, _md_indent,
              st.sampled_from(["<!-- a", "-->", "<!-- one --> after", "<!-->", "<details>",
                               "</details>", "<h2>Risk</h2>", "<h3 class=x>Risk", "<div>",
                               "<script>", "</script>", "[ref]: http://x", "| a | b |",
                               "|---|---|", "&nbsp;", "<!-- x --> <b>y</b>"])),
)  # fmt: skip
markdown_text = st.lists(_md_line, max_size=14).map("\n".join)

# Markdown of the constructs the scanner reads itself (so most examples test its reading, not
# its doubt): words, code spans, emphasis, entities; headings, lists, fences, comments.
_plain_word = st.sampled_from(
    ["Risk", "Summary", "TODO", "low", "a_b", "x", "N/A", "&amp;", "&copy", "&#82;isk", "`code`",
     "``a ` b``", "` x `", "#1", "2.", "-", "=", "+", "é", ":", "(a)", "a.", "1)", "*em*",
     "**Risk**", "_e_", "__s__", "***x***", "*", "**", "_", "a*b", "a_b_c", "*a", "b*", "_a",
     "b_", "**a:**", "(*x*)", "*`c`*", "x*", "*é*", "__init__.py"]
)  # fmt: skip
_plain_text = st.lists(_plain_word, min_size=1, max_size=4).map(" ".join)
_plain_indent = st.sampled_from(["", "", "", " ", "  ", "   ", "    ", "     ", "        "])
_plain_line = st.one_of(
    st.just(""),
    st.builds("{}{}".format, _plain_indent, _plain_text),
    st.builds("{}{} {}{}".format, _plain_indent, st.sampled_from(["#", "##", "###"]),
              _plain_text, st.sampled_from(["", " ##", "#"])),
    st.builds("{}{}".format, _plain_indent, st.sampled_from(["---", "===", "***", "--"])),
    st.builds("{}{}{}".format, _plain_indent, st.sampled_from(["```", "~~~", "````"]),
              st.sampled_from(["", "sh"])),
    st.builds("{}{} {}".format, _plain_indent,
              st.sampled_from(["-", "*", "+", "1.", "2.", "1)", "- [ ]", "- [x]", "3. [X]",
                               "* [X]", "+ [ ]", "1) [x]", "-   [ ]", "- [ ]  "]),
              _plain_text),
    st.builds("{}{}".format, _plain_indent,
              st.sampled_from(["<!-- a", "-->", "<!-- one --> after", "a -->"])),
)  # fmt: skip
scanner_markdown = st.lists(_plain_line, max_size=12).map("\n".join)

# Merged pull requests as `gh pr list --json ...` and `glab mr list --output json` print them
# (tests/property/test_pr_export.py): each entry drawn with the pull request it describes.
commit_id = st.text(alphabet="0123456789abcdefABCDEF", min_size=40, max_size=40)
_login = st.text(alphabet="abcdefghij-0123456789", min_size=1, max_size=8)
_label = st.text(min_size=1, max_size=6)
_body = st.one_of(st.none(), st.text(max_size=40))


@st.composite
def gh_pull_request(draw: st.DrawFn, number: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """One gh entry, and what it maps to: {commit: (number, body, author, labels)}."""
    oid, body = draw(st.one_of(st.none(), commit_id)), draw(_body)
    entry: dict[str, Any] = {"number": number, "title": draw(st.text(max_size=8)), "body": body}
    entry["mergeCommit"] = None if oid is None else {"oid": oid}
    author = labels = None
    if draw(st.booleans()):
        login, bot = draw(_login), draw(st.booleans())
        entry["author"] = {"is_bot": bot, "login": f"app/{login}" if bot else login}
        author = f"{login}[bot]" if bot else login
    if draw(st.booleans()):
        names = draw(st.lists(_label, max_size=3))
        entry["labels"] = [{"name": name, "color": "ededed"} for name in names]
        labels = frozenset(names)
    mapped = {} if oid is None else {oid.lower(): (number, body or "", author, labels)}
    return entry, mapped


@st.composite
def glab_merge_request(draw: st.DrawFn, number: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """One glab entry, and what it maps to (its merge and its squash commit)."""
    merge, squash = (draw(st.one_of(st.none(), st.just(""), commit_id)) for _ in range(2))
    body = draw(_body)
    entry: dict[str, Any] = {"iid": number, "description": body}
    entry |= {"merge_commit_sha": merge, "squash_commit_sha": squash}
    author = labels = None
    if draw(st.booleans()):
        author = draw(_login)
        entry["author"] = {"username": author, "id": number}
    if draw(st.booleans()):
        names = draw(st.lists(_label, max_size=3))
        entry["labels"], labels = names, frozenset(names)
    commits = {sha.lower() for sha in (merge, squash) if sha}
    return entry, dict.fromkeys(commits, (number, body or "", author, labels))


@st.composite
def pr_exports(draw: st.DrawFn) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """An export of distinct pull requests with distinct commits, and the map it describes."""
    numbers = draw(st.lists(st.integers(1, 10**6), unique=True, max_size=6))
    entries: list[dict[str, Any]] = []
    mapped: dict[str, Any] = {}
    for number in numbers:
        make = draw(st.sampled_from([gh_pull_request, glab_merge_request]))
        entry, commits = draw(make(number))
        if commits.keys() & mapped.keys():
            continue  # another pull request's commit: a claim the parser refuses (tested apart)
        entries.append(entry)
        mapped |= commits
    return entries, mapped
