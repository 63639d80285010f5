"""git's view of the working tree, exactly: attributes and line endings, `core.symlinks=false`,
submodules cagr cannot open, ignore files, sparse checkouts and the empty tree.

Each starts from the common setup (`src/schema.ts` edited, which requires `schema/out.json`): a
companion that git does not see as changed must not satisfy the rule, and what git does see as
changed must count. git's own answer is the oracle throughout.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.adversarial import RULE, Outcome
from tests.support.git import collect, commit, git, oracle, rows, write

Cagr = Callable[..., Outcome]
CRLF_JSON = b"{}\r\n"  # schema/out.json's committed content ("{}\n") with a CRLF line end


def _agrees_with_git(root: Path) -> list[tuple[str, str]]:
    base = git(root, "merge-base", "main", "HEAD").decode().strip()
    changes = collect(root)
    assert changes.unchecked == ()
    assert rows(changes) == oracle(root, base)
    return [(row[1], row[0]) for row in rows(changes)]


def _paths(cagr: Cagr, root: Path) -> list[str]:
    outcome = cagr(root, "changes", "--format", "json")
    return [c["path"] for c in json.loads(outcome.out)["changes"]]


def _require(root: Path, pattern: str) -> None:
    """Let any path matching `pattern` satisfy the rule, committed on main's side."""
    text = (root / "cagr.toml").read_text()
    text = text.replace('require = ["schema/out.json"]', f'require = ["{pattern}"]')
    (root / "cagr.toml").write_text(text)


# --- attributes and line endings -------------------------------------------------------------


_SOURCES = {
    "text-auto": (".gitattributes", "* text=auto\n"),
    "text": (".gitattributes", "*.json text\n"),
    "macro": (".gitattributes", "[attr]gen text eol=lf\n*.json gen\n"),
    "quoted": (".gitattributes", '"schema/out.json" text\n'),
    "last-line-wins": (".gitattributes", "*.json -text\n*.json text\n"),
    "nested": ("schema/.gitattributes", "out.json text\n"),
    "info": (".git/info/attributes", "*.json text\n"),
}


@pytest.mark.parametrize(
    ("where", "content", "tracked"),
    [
        (*source, tracked)
        for source in _SOURCES.values()
        for tracked in (True, False)
        if not (tracked and source[0].startswith(".git/"))  # info/attributes is never tracked
    ],
    ids=[
        f"{'committed' if tracked else 'untracked'}-{name}"
        for name, source in _SOURCES.items()
        for tracked in (True, False)
        if not (tracked and source[0].startswith(".git/"))
    ],
)
def test_a_crlf_only_rewrite_that_git_normalises_is_no_change(
    feature: Path, cagr: Cagr, where: str, content: str, tracked: bool
) -> None:
    write(feature, where, content)
    if tracked:
        git(feature, "add", where)
        git(feature, "commit", "-qm", "attributes")
    write(feature, "schema/out.json", CRLF_JSON)
    assert "schema/out.json" not in _paths(cagr, feature)
    _agrees_with_git(feature)
    assert cagr(feature, "rules", "check").code == 1


@pytest.mark.parametrize(
    "settings",
    [
        {
            "GIT_CONFIG_COUNT": "1",
            "GIT_CONFIG_KEY_0": "core.autocrlf",
            "GIT_CONFIG_VALUE_0": "true",
        },
        {"GIT_CONFIG_PARAMETERS": "'core.autocrlf'='input'"},
    ],
    ids=["config-count", "config-parameters"],
)
def test_autocrlf_from_the_environment_normalises_too(
    feature: Path, cagr: Cagr, monkeypatch: pytest.MonkeyPatch, settings: dict[str, str]
) -> None:
    for key, value in settings.items():
        monkeypatch.setenv(key, value)
    write(feature, "schema/out.json", CRLF_JSON)
    assert "schema/out.json" not in _paths(cagr, feature)
    _agrees_with_git(feature)
    assert cagr(feature, "rules", "check").code == 1


def test_core_eol_alone_converts_nothing_on_the_way_in(feature: Path, cagr: Cagr) -> None:
    git(feature, "config", "core.eol", "crlf")
    write(feature, "schema/out.json", CRLF_JSON)
    assert _agrees_with_git(feature) == [("M", "schema/out.json"), ("M", "src/schema.ts")]
    assert cagr(feature, "rules", "check").code == 0


@pytest.mark.parametrize("source", ["attributesFile", "xdg"])
def test_the_users_attributes_file_counts(
    feature: Path, cagr: Cagr, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str
) -> None:
    if source == "xdg":
        monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
        write(tmp_path, "xdg/git/attributes", "*.json text\n")
    else:
        write(tmp_path, "attrs", "*.json text\n")
        git(feature, "config", "core.attributesFile", str(tmp_path / "attrs"))
    write(feature, "schema/out.json", CRLF_JSON)
    assert "schema/out.json" not in _paths(cagr, feature)
    assert cagr(feature, "rules", "check").code == 1


def test_ignorecase_folds_attribute_patterns(feature: Path, cagr: Cagr) -> None:
    git(feature, "config", "core.ignoreCase", "true")
    write(feature, ".gitattributes", "*.JSON text\n")
    write(feature, "schema/out.json", CRLF_JSON)
    assert "schema/out.json" not in _paths(cagr, feature)
    _agrees_with_git(feature)


def test_a_linked_worktree_reads_the_common_info_attributes(
    feature: Path, cagr: Cagr, tmp_path: Path
) -> None:
    git(feature, "commit", "-qam", "edit")
    linked = tmp_path / "linked"
    git(feature, "worktree", "add", "-q", "-b", "other", str(linked))
    write(feature, ".git/info/attributes", "*.json text\n")
    write(linked, "src/schema.ts", "three\n")
    write(linked, "schema/out.json", CRLF_JSON)
    assert "schema/out.json" not in _paths(cagr, linked)
    assert cagr(linked, "rules", "check").code == 1


def test_crlf_already_in_the_index_is_kept_as_it_is(feature: Path, cagr: Cagr) -> None:
    # Committed with CRLF before any attribute: under text=auto git keeps converting nothing
    # for that path ("safe" autocrlf), so an edit is stored with its CRLF line endings.
    write(feature, "schema/out.json", b"{\r\n}\r\n")
    git(feature, "add", "schema/out.json")
    write(feature, ".gitattributes", "* text=auto\n")
    git(feature, "add", ".gitattributes")
    write(feature, "schema/out.json", b'{\r\n  "a": 1\r\n}\r\n')
    (change,) = [c for c in collect(feature).changes if c.path == "schema/out.json"]
    assert change.new is not None
    raw = git(feature, "hash-object", "--no-filters", "schema/out.json").decode().strip()
    assert change.new.oid == raw
    _agrees_with_git(feature)


@pytest.mark.parametrize(
    ("attributes", "why"),
    [
        ("*.json filter=lfs\n", "git runs its `lfs` filter on it; cagr runs no filters"),
        ("*.json working-tree-encoding=UTF-16\n", "git re-encodes it from UTF-16"),
    ],
    ids=["filter", "encoding"],
)
def test_content_cagr_cannot_reproduce_is_unchecked_by_name(
    feature: Path, cagr: Cagr, attributes: str, why: str
) -> None:
    git(feature, "config", "filter.lfs.clean", "git-lfs clean -- %f")
    write(feature, ".gitattributes", attributes)
    write(feature, "schema/out.json", '{"id": "$Id$"}\n')
    outcome = cagr(feature, "rules", "check")
    assert outcome.code == 3, outcome
    assert "schema/out.json" in outcome.out
    assert why in outcome.out.replace("\n", " ")


def test_ident_keywords_are_collapsed_as_git_collapses_them(feature: Path) -> None:
    write(feature, ".gitattributes", "*.json ident\n")
    write(feature, "schema/out.json", '{"id": "$Id: 0123 $"}\n')
    git(feature, "add", ".gitattributes", "schema/out.json")
    git(feature, "commit", "-qm", "ident")
    write(feature, "schema/out.json", '{"id": "$Id: 4567 $"}\n')  # only the expanded keyword
    changes = collect(feature, base="HEAD")
    assert "schema/out.json" not in [c.path for c in changes.changes]
    assert rows(changes) == oracle(feature, "HEAD")
    write(feature, "schema/out.json", '{"id": "$Id$", "a": 1}\n')
    changes = collect(feature, base="HEAD")
    assert "schema/out.json" in [c.path for c in changes.changes]
    assert rows(changes) == oracle(feature, "HEAD")


def test_a_gitattributes_folder_hides_the_index_version_as_from_git(feature: Path) -> None:
    # Committed: `*.json text`. A folder of that name: git reads nothing (and not the index's).
    write(feature, ".gitattributes", "*.json text\n")
    git(feature, "add", ".gitattributes")
    git(feature, "commit", "-qm", "attributes")
    (feature / ".gitattributes").unlink()
    (feature / ".gitattributes").mkdir()
    write(feature, "schema/out.json", CRLF_JSON)
    changes = collect(feature, base="HEAD")
    assert changes.unchecked == ()
    assert rows(changes) == oracle(feature, "HEAD")
    assert "schema/out.json" in [c.path for c in changes.changes]


def _names(root: Path, *args: str) -> set[str]:
    return {
        name.decode() for name in git(root, "diff", "--name-only", "-z", *args).split(b"\0") if name
    }


@pytest.mark.parametrize("kind", ["deleted", "symlink"])
def test_a_tracked_gitattributes_gone_from_the_work_tree_leaves_what_git_disagrees_on_unchecked(
    feature: Path, tmp_path: Path, kind: str
) -> None:
    # Committed: `*.json text`. Deleted (or a symlink, which git does not follow): `git diff`
    # still applies the index's version, so a file rewritten with CRLF is unchanged for it, while
    # `git add -A` stages the deletion first and then the CRLF (libgit2: 21 entries against 11).
    write(feature, ".gitattributes", "*.json text\n")
    write(feature, "schema/same.json", "{}\n")
    git(feature, "add", ".gitattributes", "schema/same.json")
    git(feature, "commit", "-qm", "attributes")
    (feature / ".gitattributes").unlink()
    if kind == "symlink":
        write(feature, "elsewhere", "*.json -text\n")
        os.symlink("elsewhere", feature / ".gitattributes")
    write(feature, "schema/out.json", CRLF_JSON)
    write(feature, "schema/same.json", "{}\n")  # rewritten as it was: both views agree
    assert "schema/out.json" not in _names(feature, "HEAD")  # git diff's view
    added = tmp_path / "added"
    shutil.copytree(feature, added, symlinks=True)
    git(added, "add", "-A")
    assert "schema/out.json" in _names(added, "--cached", "HEAD")  # git add -A's view
    changes = collect(feature, base="HEAD")
    assert [u.path for u in changes.unchecked] == ["schema/out.json"]
    assert "git add -A` does not" in changes.unchecked[0].message
    assert "schema/out.json" not in [c.path for c in changes.changes]
    assert "schema/same.json" not in [c.path for c in changes.changes]
    git(feature, "add", "-A", "--", ".gitattributes")  # staged: every view drops it
    changes = collect(feature, base="HEAD")
    assert changes.unchecked == ()
    assert rows(changes) == oracle(feature, "HEAD")
    assert "schema/out.json" in [c.path for c in changes.changes]


def test_autocrlf_leaves_binary_content_and_lone_carriage_returns_alone(feature: Path) -> None:
    git(feature, "config", "core.autocrlf", "true")
    write(feature, "schema/out.json", b"{}\r\n\0")  # binary: stored as it is
    write(feature, "src/lone.txt", b"a\rb\r\n")  # a lone CR: binary too
    write(feature, "src/text.txt", b"a\r\nb\r\n")  # text: stored with LF
    _agrees_with_git(feature)


# --- core.symlinks=false -----------------------------------------------------------------------


def test_a_symlink_checked_out_as_a_file_and_edited_is_still_a_symlink(
    repo: Path, cagr: Cagr
) -> None:
    write(repo, "cagr.toml", RULE)
    write(repo, "src/schema.ts", "one\n")
    os.makedirs(repo / "schema")
    os.symlink("generated.json", repo / "schema" / "out.json")
    commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "feature")
    git(repo, "config", "core.symlinks", "false")
    (repo / "schema" / "out.json").unlink()
    git(repo, "checkout", "-q", "--", "schema/out.json")  # a plain file holding the target
    assert (repo / "schema" / "out.json").read_text() == "generated.json"
    write(repo, "src/schema.ts", "two\n")
    write(repo, "schema/out.json", "{}\n")  # edited as if it were the file
    assert _agrees_with_git(repo) == [("M", "schema/out.json"), ("M", "src/schema.ts")]
    (change,) = [c for c in collect(repo).changes if c.path == "schema/out.json"]
    assert change.new is not None
    assert change.new.mode == 0o120000
    outcome = cagr(repo, "rules", "check")
    assert outcome.code == 1, outcome
    assert "symlink" in outcome.out


# --- submodules cagr cannot open ---------------------------------------------------------------


def _with_submodule(repo: Path, tmp_path: Path) -> Path:
    """`vendor/lib` a submodule on main, with a rule on it; on branch `feature` the submodule's
    checked-out commit moved (the control run exits 1). Returns the submodule's git dir."""
    upstream = tmp_path / "upstream"
    upstream.mkdir()
    git(upstream, "init", "-q", "-b", "main")
    write(upstream, "lib.py", "1")
    commit(upstream, "lib")
    write(repo, "cagr.toml", RULE.replace('"src/schema.ts"]', '"vendor/lib"]', 1))
    write(repo, "schema/out.json", "{}\n")
    args = ["-c", "protocol.file.allow=always", "submodule", "add", "-q", str(upstream)]
    git(repo, *args, "vendor/lib")
    commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo / "vendor" / "lib", "lib.py", "2")
    commit(repo / "vendor" / "lib", "moved")
    return repo / ".git" / "modules" / "vendor" / "lib"


def _set(config: Path, key: str, value: str) -> None:
    """Write a setting into a config file without running git inside that repository."""
    git(config.parent.parent, "config", "-f", str(config), key, value)


@pytest.mark.parametrize(
    "damage",
    ["reftable", "unknown-extension", "garbage-head", "broken-gitfile"],
)
def test_a_moved_submodule_cagr_cannot_open_is_unchecked_never_unchanged(
    repo: Path, tmp_path: Path, cagr: Cagr, damage: str
) -> None:
    gitdir = _with_submodule(repo, tmp_path)
    assert cagr(repo, "rules", "check").code == 1  # the control: it moved
    if damage in ("reftable", "unknown-extension"):
        name = "extensions.refStorage" if damage == "reftable" else "extensions.somethingNew"
        _set(gitdir / "config", name, "reftable")
        _set(gitdir / "config", "core.repositoryFormatVersion", "1")
    elif damage == "garbage-head":
        (gitdir / "HEAD").write_text("ref: refs/heads/gone\n")
    else:
        (repo / "vendor" / "lib" / ".git").write_text("gitdir: ../../nowhere\n")
    outcome = cagr(repo, "rules", "check")
    assert outcome.code == 3, outcome
    assert "vendor/lib" in outcome.out


def test_a_submodule_with_format_0_extensions_is_read(
    repo: Path, tmp_path: Path, cagr: Cagr
) -> None:
    gitdir = _with_submodule(repo, tmp_path)
    _set(gitdir / "config", "extensions.preciousObjects", "true")
    _set(gitdir / "config", "extensions.partialClone", "origin")
    assert cagr(repo, "rules", "check").code == 1
    assert _agrees_with_git(repo) == [("M", "vendor/lib")]


def test_an_unpopulated_submodule_is_unchanged(repo: Path, tmp_path: Path, cagr: Cagr) -> None:
    _with_submodule(repo, tmp_path)
    git(repo, "submodule", "deinit", "-q", "-f", "vendor/lib")
    assert (repo / "vendor" / "lib").is_dir()
    assert _agrees_with_git(repo) == []
    assert cagr(repo, "rules", "check").code == 0


# --- ignored files counted as added ------------------------------------------------------------


def test_a_gitignore_that_starts_with_a_byte_order_mark(feature: Path, cagr: Cagr) -> None:
    _require(feature, "schema/*.json")
    git(feature, "commit", "-qam", "any schema file")
    write(feature, "src/schema.ts", "three\n")
    write(feature, ".gitignore", b"\xef\xbb\xbfschema/extra.json\n")
    write(feature, "schema/extra.json", "{}\n")
    assert "schema/extra.json" not in _paths(cagr, feature)
    _agrees_with_git(feature)
    assert cagr(feature, "rules", "check").code == 1


def test_a_linked_worktree_reads_the_shared_info_exclude(
    feature: Path, cagr: Cagr, tmp_path: Path
) -> None:
    _require(feature, "schema/*.json")
    git(feature, "commit", "-qam", "any schema file")
    linked = tmp_path / "linked"
    git(feature, "worktree", "add", "-q", "-b", "other", str(linked))
    write(feature, ".git/info/exclude", "schema/extra.json\n")
    write(linked, "src/schema.ts", "three\n")
    write(linked, "schema/extra.json", "{}\n")
    assert "schema/extra.json" not in _paths(cagr, linked)
    assert cagr(linked, "rules", "check").code == 1


def test_an_ignored_tracked_folder_hides_its_untracked_files(feature: Path, cagr: Cagr) -> None:
    # `schema/` is tracked, but ignored: git lists nothing new inside it.
    _require(feature, "schema/*.json")
    git(feature, "commit", "-qam", "any schema file")
    write(feature, "src/schema.ts", "three\n")
    write(feature, ".gitignore", "schema/\n")
    write(feature, "schema/extra.json", "{}\n")
    assert "schema/extra.json" not in _paths(cagr, feature)
    _agrees_with_git(feature)
    assert cagr(feature, "rules", "check").code == 1


def test_a_link_beneath_an_ignored_tracked_folder_still_removes_what_is_beneath(
    repo: Path,
) -> None:
    write(repo, "d/e/0", "one\n")
    commit(repo, "base")
    (repo / "d" / "e").rename(repo / "d" / "e2")
    os.symlink("e2", repo / "d" / "e")
    write(repo, ".gitignore", "*\n")  # `d` is ignored: git lists nothing in it, yet d/e/0 is gone
    changes = collect(repo, base="HEAD")
    assert changes.unchecked == ()
    assert rows(changes) == oracle(repo, "HEAD")
    assert [(c.status.value, c.path) for c in changes.changes] == [("D", "d/e/0")]


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"a/.gitignore": "**/\n", "a/x": "x", "a/b/y": "y"}, {"a/.gitignore", "a/x"}),
        ({".gitignore": "a/***\n!*/\n", "a/x": "x", "a/b/y": "y", "c": "c"}, {".gitignore", "c"}),
        ({".gitignore": "*.log \n", "a.log": "x", "b.log ": "y"}, {".gitignore", "b.log "}),
        (
            {".gitignore": "\\#keep\n\\!bang\n", "#keep": "x", "!bang": "y", "z": "z"},
            {".gitignore", "z"},
        ),
        # git matches the literal `foo` first, so `**/` then spans folders: both are ignored.
        ({".gitignore": "foo**/bar\n", "foo/x/bar": "x", "foox/bar": "y"}, {".gitignore"}),
        ({".gitignore": "d/*\n!d/keep\n", "d/keep": "k", "d/other": "o"}, {".gitignore", "d/keep"}),
    ],
    ids=[
        "nested-globstar-dir",
        "triple-star",
        "trailing-space",
        "escapes",
        "prefix-stars",
        "reinclude",
    ],
)
def test_ignore_rules_read_as_git_reads_them(
    repo: Path, files: dict[str, str], expected: set[str]
) -> None:
    write(repo, "base", "b")
    commit(repo, "base")
    for path, content in files.items():
        write(repo, path, content)
    listed = git(repo, "ls-files", "-o", "--exclude-standard", "-z").decode().split("\0")
    assert {p for p in listed if p} == expected  # git's own answer, as the case states it
    assert {c.path for c in collect(repo).changes} == expected


def test_ignore_files_with_crlf_escaped_trailing_spaces_and_a_user_file(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    write(tmp_path, "global-ignore", b"\xef\xbb\xbf*.tmp\r\n")
    git(repo, "config", "core.excludesFile", "~/global-ignore")
    write(repo, "base", "b")
    commit(repo, "base")
    write(repo, ".gitignore", b"a\\ \r\n**/deep/**\r\n!keep.tmp\r\n")
    for path in ("a ", "a", "x.tmp", "keep.tmp", "d/deep/e/f", "deep/g", "ok"):
        write(repo, path, "x")
    changes = collect(repo, base="HEAD")
    assert changes.unchecked == ()
    assert rows(changes) == oracle(repo, "HEAD")
    assert {c.path for c in changes.changes} == {".gitignore", "a", "keep.tmp", "ok"}


# --- sparse checkouts ------------------------------------------------------------------------


def _sparse(repo: Path, cagr: Cagr) -> None:
    """On main: `out/b.txt` triggers the rule; on `feature`, a cone-mode sparse checkout of
    `in`, `src` and `schema`, so `out/` is not on disk (the control run exits 0)."""
    write(repo, "cagr.toml", RULE.replace('"src/schema.ts"]', '"out/**"]', 1))
    write(repo, "src/schema.ts", "one\n")
    write(repo, "schema/out.json", "{}\n")
    write(repo, "in/a.txt", "a\n")
    write(repo, "out/b.txt", "b\n")
    commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "feature")
    git(repo, "sparse-checkout", "set", "--cone", "in", "src", "schema")
    assert not (repo / "out").exists()
    assert cagr(repo, "rules", "check").code == 0


def test_a_skip_worktree_file_written_back_in_a_sparse_checkout_counts(
    repo: Path, cagr: Cagr
) -> None:
    _sparse(repo, cagr)
    write(repo, "out/b.txt", "new\n")
    assert _agrees_with_git(repo) == [("M", "out/b.txt")]
    assert cagr(repo, "rules", "check").code == 1


def test_expected_files_outside_the_patterns_keep_the_bit(repo: Path, cagr: Cagr) -> None:
    _sparse(repo, cagr)
    git(repo, "config", "sparse.expectFilesOutsideOfPatterns", "true")
    write(repo, "out/b.txt", "new\n")
    assert _agrees_with_git(repo) == []
    assert cagr(repo, "rules", "check").code == 0


def test_plain_skip_worktree_hides_edits_as_git_does(feature: Path, cagr: Cagr) -> None:
    git(feature, "checkout", "-q", "src/schema.ts")
    git(feature, "update-index", "--skip-worktree", "src/schema.ts")
    write(feature, "src/schema.ts", "two\n")
    assert _agrees_with_git(feature) == []  # git shows no change: no sparse checkout here
    assert cagr(feature, "rules", "check").code == 0


# --- the empty tree ----------------------------------------------------------------------------


def test_the_empty_tree_is_known_without_being_stored(repo: Path, cagr: Cagr) -> None:
    empty = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
    first = git(repo, "commit-tree", empty, "-m", "empty").decode().strip()
    git(repo, "update-ref", "refs/heads/main", first)
    git(repo, "checkout", "-q", "-b", "feature", "main")
    loose = repo / ".git" / "objects" / empty[:2] / empty[2:]
    if loose.exists():
        loose.unlink()
    write(repo, "a.txt", "a\n")
    assert _agrees_with_git(repo) == [("A", "a.txt")]
    assert cagr(repo, "changes").code == 0
    commit(repo, "a")
    loose.unlink(missing_ok=True)
    outcome = cagr(repo, "changes", "--committed", "--format", "json")
    assert outcome.code == 0, outcome
    assert [c["path"] for c in json.loads(outcome.out)["changes"]] == ["a.txt"]
