"""Layout rules `cagr init` suggests where the repository's own names show a convention.

For each language's source extension with at least `MIN_FILES` tracked files, a `name` rule is
suggested when every one of those files' stems follows one convention (the core's own, judged
by `cagr_core.layout`) and at least `MIN_SHOWN` of them have more than one word in it: a
repository of one-word names (`app.py`, `views.py`) follows snake_case, kebab-case and camelCase
at once and shows none of them, so it gets no suggestion. Names Python fixes (`__init__`,
`__main__`) are left out, and ignored by the rule, and so are script modules' mocks
(`__mocks__/`, `mocks/` of `.js`, `.jsx`, `.ts`, `.tsx`): a mock takes the name of the module it
stands in for (jest finds `__mocks__/lodash.debounce.js` by it; paperless-ngx's
`src/test/mocks/pdfjs-web-pdf_viewer.ts` mocks `pdfjs-dist/web/pdf_viewer`), which no team
chose. A single name that breaks the convention means the repository has no such rule, so none
is suggested: the rule starts at zero findings in `cagr check --all` as in a change check.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Sequence

from cagr_core.layout import CONVENTIONS, follows, stem

from .suggestion import Suggestion, example

MIN_FILES = 10
MIN_SHOWN = 3
_LANGUAGES = {
    ".py": "python-module",
    ".rb": "ruby-file",
    ".rs": "rust-module",
    ".go": "go-file",
    ".js": "js-file",
    ".jsx": "jsx-file",
    ".ts": "ts-file",
    ".tsx": "tsx-file",
    ".java": "java-class",
    ".kt": "kotlin-file",
    ".swift": "swift-file",
}
_FIXED = {".py": ("__init__", "__main__")}  # names the language gives, not the team
_MOCKS = ("__mocks__", "mocks")  # folders of files named after the modules they stand in for
_MOCKED = frozenset((".js", ".jsx", ".ts", ".tsx"))  # script modules, which jest mocks by name
# Each convention, a stem that shows it (more than one word) and one that breaks it.
_SHOWN: dict[str, tuple[Callable[[str], bool], str, str]] = {
    "snake_case": (lambda s: "_" in s, "new_module", "NewModule"),
    "kebab-case": (lambda s: "-" in s, "new-module", "newModule"),
    "camelCase": (lambda s: s[1:] != s[1:].lower(), "newModule", "new_module"),
    "PascalCase": (lambda s: sum(c.isupper() for c in s) > 1, "NewModule", "new_module"),
}


def _by_extension(paths: Sequence[str]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in paths:
        extension = posixpath.splitext(path)[1]
        mock = extension in _MOCKED and any(part in _MOCKS for part in path.split("/")[:-1])
        if extension in _LANGUAGES and not mock and stem(path) not in _FIXED.get(extension, ()):
            found.setdefault(extension, []).append(path)
    return found


def _suggestion(extension: str, files: list[str], convention: str, shown: list[str]) -> Suggestion:
    _, good, bad = _SHOWN[convention]
    folder = posixpath.dirname(files[0])
    where = f"{folder}/" if folder else ""
    fixed = _FIXED.get(extension, ())
    rule: dict[str, object] = {
        "id": f"{_LANGUAGES[extension]}-names",
        "paths": [f"**/*{extension}"],
    }
    ignores = [
        *(f"**/{name}{extension}" for name in fixed),
        *(f"**/{folder}/**" for folder in _MOCKS if extension in _MOCKED),
    ]
    if ignores:
        rule["ignores"] = ignores
    rule |= {
        "name": convention,
        "reason": f"Name the new file in {convention}, as every *{extension} file here is named.",
        "examples": {
            "invalid": [example({"path": f"{where}{bad}{extension}", "status": "A"})],
            "valid": [example({"path": f"{where}{good}{extension}", "status": "A"})],
        },
    }
    samples = ", ".join(posixpath.basename(path) for path in shown[:3])
    return Suggestion(
        f"all {len(files)} tracked *{extension} files are named in {convention}"
        f" ({len(shown)} with more than one word: {samples}, ...)",
        rule,
        table="layout",
    )


def suggest_names(paths: Sequence[str]) -> list[Suggestion]:
    """One layout rule per extension whose tracked files all show one name convention."""
    found = []
    for extension, files in sorted(_by_extension(paths).items()):
        if len(files) < MIN_FILES:
            continue
        for convention, (shows, _, _) in _SHOWN.items():
            regex = CONVENTIONS[convention]
            if not all(follows(regex, path) for path in files):
                continue
            shown = [path for path in files if shows(stem(path))]
            if len(shown) >= MIN_SHOWN:
                found.append(_suggestion(extension, files, convention, shown))
            break  # the names that follow two conventions show at most the one tried first
    return found
