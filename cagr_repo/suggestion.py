"""One rule `cagr init` suggests, as TOML-ready data, with the evidence that made it suggest it;
and the pieces of the examples every suggested rule carries."""

from __future__ import annotations

from typing import Any

from cagr_core.dependencies import Format, format_of
from cagr_core.values import value

# One manifest of each format before and after adding a dependency, for the examples.
_ADDED_DEPENDENCY = {
    Format.PACKAGE_JSON: ("{}", '{"dependencies": {"left-pad": "1.3.0"}}'),
    Format.PYPROJECT: (
        "[project]\ndependencies = []\n",
        '[project]\ndependencies = ["left-pad"]\n',
    ),
    Format.REQUIREMENTS: ("", "left-pad==1.3.0\n"),
    Format.CARGO: ("[dependencies]\n", '[dependencies]\nleft-pad = "1.3"\n'),
    Format.GO_MOD: ("module m\n", "module m\n\nrequire example.com/left-pad v1.3.0\n"),
}

# Folders of tests and their fixtures: what a project's own code is not (test apps' migrations,
# fixture manifests, modules that are tests themselves).
_TEST_FOLDERS = frozenset(
    ("tests", "test", "testing", "__tests__", "__mocks__", "__fixtures__", "fixtures", "e2e")
)


def test_root(folder: str) -> str | None:
    """The outermost test folder on a folder's path (`tests` for `tests/_site/apps`), if any."""
    parts = folder.split("/")
    for index, part in enumerate(parts):
        if part in _TEST_FOLDERS or part.startswith("test_"):
            return "/".join(parts[: index + 1])
    return None


def in_test_folder(folder: str) -> bool:
    """Whether a folder is, or is inside, a folder of tests or test fixtures."""
    return test_root(folder) is not None


@value
class Suggestion:
    """One suggested rule (as plain TOML-ready data), why cagr suggests it, and the table of
    rules it belongs to (`changes`, or `layout` for a name rule). `withheld`: why the evidence
    speaks against it after all (None: it is suggested); a withheld rule is named, not written."""

    why: str
    rule: dict[str, Any]
    table: str = "changes"
    withheld: str | None = None


def example(*changes: dict[str, str], pr_body: str | None = None) -> dict[str, Any]:
    """One example of a rule: its changes, and a PR body when it has one."""
    found: dict[str, Any] = {"changes": list(changes)}
    if pr_body is not None:
        found["pr_body"] = pr_body
    return found


def examples(invalid: dict[str, Any], valid: dict[str, Any]) -> dict[str, Any]:
    return {"invalid": [invalid], "valid": [valid]}


def manifest_change(path: str) -> dict[str, str]:
    """An edit of the manifest at `path` that adds one dependency."""
    manifest = format_of(path)
    assert manifest is not None
    before, after = _ADDED_DEPENDENCY[manifest]
    return {"path": path, "status": "M", "before": before, "after": after}


def slug(path: str) -> str:
    """A path as part of a rule id (letters, digits, `.`, `_`, `-`)."""
    text = "".join(c if c.isalnum() or c in "._-" else "-" for c in path.replace("/", "-"))
    return text.strip("-_.") or "root"
