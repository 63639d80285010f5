"""Suggested `requires` rules from what changed together in recent history: counted, said, and
only where history shows the habit."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from cagr_cli.main import main
from cagr_repo.suggest import suggest
from cagr_repo.suggest_history import Commit, History, lock_members
from tests.support.configs import uncomment
from tests.support.git import commit, git, write

Capture = pytest.CaptureFixture[str]


def history(*commits: Commit) -> History:
    return History(commits)


def found(paths: list[str], past: History) -> dict[str, dict]:
    return {s.rule["id"]: s.rule for s in suggest(paths, past) if s.rule["kind"] == "requires"}


def adds(*manifests: str, also: tuple[str, ...] = ()) -> Commit:
    """A commit that added a dependency to `manifests` and changed `also`."""
    return Commit(frozenset((*manifests, *also)), dependencies=frozenset(manifests))


class TestLockfiles:
    WORKSPACE = (
        "package.json",
        "pnpm-lock.yaml",
        "packages/a/package.json",
        "packages/b/package.json",
    )

    def test_a_workspace_lockfile_with_its_manifests(self) -> None:
        past = history(
            adds("packages/a/package.json", also=("pnpm-lock.yaml",)),
            adds("package.json", also=("pnpm-lock.yaml",)),
            Commit(frozenset(["package.json"])),  # a version bump: changes no lockfile
            adds("packages/b/package.json", also=("pnpm-lock.yaml",)),
        )
        (suggestion,) = suggest(list(self.WORKSPACE), past)[1:]  # after dependency-reason
        assert suggestion.why == (
            "pnpm-lock.yaml changed in 3 of the 3 recent commits that added a dependency to"
            " one of the 3 package.json files it locks (of the last 4 first-parent commits)"
        )
        assert suggestion.rule["paths"] == ["package.json"]
        assert suggestion.rule["when"] == "dependency_added"
        assert suggestion.rule["require"] == ["/pnpm-lock.yaml"]
        assert (
            suggestion.rule["reason"]
            == "Run `pnpm install` and include pnpm-lock.yaml in this change."
        )

    def test_too_little_history_suggests_nothing(self) -> None:
        past = history(
            adds("package.json", also=("pnpm-lock.yaml",)),
            adds("package.json", also=("pnpm-lock.yaml",)),
        )
        assert found(list(self.WORKSPACE), past) == {}

    def test_a_lockfile_that_mostly_did_not_change_is_not_suggested(self) -> None:
        past = history(
            adds("package.json", also=("pnpm-lock.yaml",)),
            adds("package.json"),
            adds("package.json"),
            adds("package.json"),
        )
        assert found(list(self.WORKSPACE), past) == {}

    def test_only_commits_since_the_lockfile_was_added_count(self) -> None:
        """umami moved from yarn.lock to pnpm-lock.yaml: older commits could not change it."""
        before = [adds("package.json", also=("yarn.lock",)) for _ in range(10)]
        past = history(
            *[adds("package.json", also=("pnpm-lock.yaml",)) for _ in range(3)],
            Commit(frozenset(["pnpm-lock.yaml", "yarn.lock"]), added=frozenset(["pnpm-lock.yaml"])),
            *before,
        )
        (rule,) = found(["package.json", "pnpm-lock.yaml"], past).values()
        (why,) = [
            s.why
            for s in suggest(["package.json", "pnpm-lock.yaml"], past)
            if s.rule is rule or s.rule == rule
        ]
        assert why.endswith("(of the 4 first-parent commits since pnpm-lock.yaml was added)")

    def test_nested_lockfiles_and_manifests_locked_elsewhere(self) -> None:
        """ripgrep: crates/*/Cargo.toml share the root Cargo.lock; fuzz/ has its own."""
        paths = [
            "Cargo.toml",
            "Cargo.lock",
            "crates/a/Cargo.toml",
            "crates/b/Cargo.toml",
            "fuzz/Cargo.toml",
            "fuzz/Cargo.lock",
            "tools/Cargo.toml",
        ]
        past = history(
            *[adds("crates/a/Cargo.toml", also=("Cargo.lock",)) for _ in range(3)],
            adds("tools/Cargo.toml"),  # locked elsewhere, evidently
            *[adds("fuzz/Cargo.toml", also=("fuzz/Cargo.lock",)) for _ in range(3)],
        )
        rules = found(paths, past)
        assert rules["lockfile-Cargo.lock"]["paths"] == ["Cargo.toml"]
        assert rules["lockfile-Cargo.lock"]["ignores"] == ["/fuzz/**", "/tools/Cargo.toml"]
        assert rules["lockfile-fuzz-Cargo.lock"]["paths"] == ["/fuzz/Cargo.toml"]
        assert rules["lockfile-fuzz-Cargo.lock"]["reason"].startswith(
            "Run `cargo update --workspace`"
        )

    def test_another_ecosystems_lockfile_folder_is_not_ignored(self) -> None:
        """A Rust crate with its own Cargo.lock inside a pnpm workspace keeps its package.json
        under the workspace's lockfile."""
        paths = ["package.json", "pnpm-lock.yaml", "native/package.json"]
        paths += ["native/Cargo.toml", "native/Cargo.lock"]
        past = history(*[adds("native/package.json", also=("pnpm-lock.yaml",)) for _ in range(3)])
        rule = found(paths, past)["lockfile-pnpm-lock.yaml"]
        assert (rule["paths"], rule.get("ignores")) == (["package.json"], None)

    @pytest.mark.parametrize(
        ("manifest", "lock", "command"),
        [
            ("pyproject.toml", "uv.lock", "uv lock"),
            ("pyproject.toml", "poetry.lock", "poetry lock"),
            ("go.mod", "go.sum", "go mod tidy"),
            ("package.json", "yarn.lock", "yarn install"),
            ("package.json", "package-lock.json", "npm install"),
        ],
    )
    def test_each_family(self, manifest: str, lock: str, command: str) -> None:
        past = history(*[adds(manifest, also=(lock,)) for _ in range(3)])
        (rule,) = found([manifest, lock], past).values()
        assert (rule["paths"], rule["require"]) == ([f"/{manifest}"], [f"/{lock}"])
        assert rule["reason"] == f"Run `{command}` and include {lock} in this change."


class TestWhatALockfileLocks:
    """A workspace lockfile names its projects; manifests it does not name (examples, fixtures)
    are no business of it, however near they sit."""

    PNPM = (
        "lockfileVersion: '9.0'\n\nsettings:\n  autoInstallPeers: true\n\nimporters:\n\n"
        "  .:\n    dependencies:\n      react:\n        specifier: ^18\n\n"
        "  _internal: {}\n\n  mutation:\n    devDependencies: {}\n\n  'test/e2e/site':\n    dependencies: {}\n\n"
        "packages:\n\n  react@18.2.0:\n    resolution: {integrity: sha512-x}\n"
    )

    def test_pnpm_importers(self) -> None:
        assert lock_members("pnpm-lock.yaml", self.PNPM.encode()) == {
            "",
            "_internal",
            "mutation",
            "test/e2e/site",
        }
        assert lock_members("a/pnpm-lock.yaml", b"lockfileVersion: 5.4\n") == {""}

    def test_package_lock_packages(self) -> None:
        lock = {
            "lockfileVersion": 3,
            "packages": {
                "": {},
                "packages/a": {},
                "node_modules/a": {"link": True, "resolved": "packages/a"},
                "packages/a/node_modules/x": {},
            },
        }
        assert lock_members("package-lock.json", json.dumps(lock).encode()) == {"", "packages/a"}
        assert lock_members("package-lock.json", b'{"lockfileVersion": 1}') == {""}

    def test_yarn_berry_workspaces_and_formats_that_do_not_say(self) -> None:
        berry = (
            b'__metadata:\n  version: 8\n\n"swr@workspace:.":\n  version: 0.0.0-use.local\n\n'
            b'"site@workspace:test/e2e/site":\n  version: 0.0.0-use.local\n'
        )
        assert lock_members("yarn.lock", berry) == {"", "test/e2e/site"}
        assert lock_members("yarn.lock", b"# yarn lockfile v1\n") is None
        assert lock_members("Cargo.lock", b"version = 3\n") is None
        assert lock_members("package-lock.json", b"{not json") is None

    def test_examples_beside_a_workspace_are_ignored(self) -> None:
        paths = [
            "package.json",
            "pnpm-lock.yaml",
            "_internal/package.json",
            "examples/basic/package.json",
            "examples/ssr/package.json",
            "test/e2e/site/package.json",
            "test/fixtures/app/package.json",
        ]
        past = History(
            (
                adds("package.json", also=("pnpm-lock.yaml",)),
                adds("_internal/package.json", also=("pnpm-lock.yaml",)),
                adds("package.json", also=("pnpm-lock.yaml",)),
            ),
            {"pnpm-lock.yaml": frozenset({"", "_internal", "test/e2e/site"})},
        )
        suggestion = next(s for s in suggest(paths, past) if s.rule["id"].startswith("lockfile"))
        assert "one of the 3 package.json files it locks" in suggestion.why
        assert suggestion.rule["paths"] == ["package.json"]
        assert suggestion.rule["ignores"] == ["/examples/**", "/test/fixtures/**"]


class TestBuildOutputs:
    PATHS = (
        "static/src/a.ts",
        "static/styles/a.scss",
        "static/img/logo.svg",
        "static/dist/a.js",
        "static/package.json",
    )

    def test_the_sources_that_changed_with_the_output(self) -> None:
        past = history(
            *[Commit(frozenset(["static/src/a.ts", "static/dist/a.js"])) for _ in range(3)],
            *[Commit(frozenset(["static/styles/a.scss", "static/dist/a.js"])) for _ in range(4)],
            *[Commit(frozenset(["static/img/logo.svg"])) for _ in range(3)],  # no output change
        )
        (rule,) = found(list(self.PATHS), past).values()
        assert rule["paths"] == ["/static/src/**", "/static/styles/**"]
        assert rule["require"] == ["/static/dist/**"]
        (why,) = [s.why for s in suggest(list(self.PATHS), past) if s.rule["id"] == rule["id"]]
        assert why.startswith(
            "static/dist/ changed with static/src/ in 3 of 3, static/styles/ in 4 of 4"
        )

    def test_an_output_that_sources_rarely_change_is_not_suggested(self) -> None:
        past = history(*[Commit(frozenset(["static/src/a.ts"])) for _ in range(5)])
        assert found(list(self.PATHS), past) == {}

    def test_nested_outputs_each_with_their_own_sources(self) -> None:
        paths = ["src/a.ts", "dist/a.js", "web/src/b.ts", "web/dist/b.js", "web/README"]
        past = history(
            *[Commit(frozenset(["src/a.ts", "dist/a.js"])) for _ in range(3)],
            *[Commit(frozenset(["web/src/b.ts", "web/dist/b.js"])) for _ in range(3)],
        )
        rules = found(paths, past)
        assert rules["build-output-dist"]["paths"] == ["/src/**"]  # web/ changed no dist/
        assert rules["build-output-web-dist"]["paths"] == ["/web/src/**"]


class TestDjangoMigrations:
    PATHS = (
        "shop/models.py",
        "shop/migrations/__init__.py",
        "shop/migrations/0001_initial.py",
        "blog/models/post.py",
        "blog/migrations/0001_initial.py",
    )

    def test_a_model_edit_needs_an_added_migration_as_a_warning(self) -> None:
        past = history(
            *[
                Commit(
                    frozenset(["shop/models.py", f"shop/migrations/000{i}_x.py"]),
                    added=frozenset([f"shop/migrations/000{i}_x.py"]),
                )
                for i in range(2, 6)
            ],
            Commit(frozenset(["shop/models.py"])),  # 4 of 5: a habit
            # blog: migrations edited, never added: no evidence of the habit
            *[
                Commit(frozenset(["blog/models/post.py", "blog/migrations/0001_initial.py"]))
                for _ in range(3)
            ],
        )
        (rule,) = found(list(self.PATHS), past).values()
        assert rule["id"] == "migration-for-shop-models"
        assert rule["require"] == [{"path": "/shop/migrations/*.py", "status": "added"}]
        assert rule["severity"] == "warn"

    def test_half_the_model_edits_are_no_evidence(self) -> None:
        """saleor: 3 of 6 product-model edits added a migration; the others changed no field."""
        past = history(
            *[
                Commit(
                    frozenset(["shop/models.py", f"shop/migrations/000{i}_x.py"]),
                    added=frozenset([f"shop/migrations/000{i}_x.py"]),
                )
                for i in range(2, 5)
            ],
            *[Commit(frozenset(["shop/models.py"])) for _ in range(3)],
        )
        assert found(list(self.PATHS), past) == {}


def test_no_history_suggests_none_of_these() -> None:
    assert found(["package.json", "pnpm-lock.yaml", "a/dist/x.js", "a/src/x.ts"], History()) == {}


class TestInitWithRealHistory:
    """`cagr init` in a real repository: the history is read with cagr's own git reader."""

    def test_lockfile_suggested_counted_and_enforced(self, repo: Path, capsys: Capture) -> None:
        write(repo, "package.json", "{}")
        write(repo, "pnpm-lock.yaml", "lockfileVersion: 9\n")
        commit(repo, "root")
        write(repo, "package.json", "{}\n")
        commit(repo, "a change, no dependency")
        for index, name in enumerate(["a", "b", "c"]):
            deps = dict.fromkeys(["a", "b", "c"][: index + 1], "1")
            write(repo, "package.json", json.dumps({"dependencies": deps}))
            write(repo, "pnpm-lock.yaml", f"lockfileVersion: 9\n# {name}\n")
            commit(repo, f"add {name}")
        write(repo, "package.json", json.dumps({"version": "2", "dependencies": deps}))
        commit(repo, "bump")
        assert main(["--repo", str(repo), "init"]) == 0
        out = capsys.readouterr().out
        assert (
            "lockfile-pnpm-lock.yaml (requires): pnpm-lock.yaml changed in 3 of the 3 recent commits"
            " that added a dependency to package.json (of the last 5 first-parent commits)"
        ) in out
        text = (repo / ".cagr" / "changes.toml").read_text()
        assert tomllib.loads(text) == {}
        (repo / ".cagr" / "changes.toml").write_text(uncomment(text))
        assert main(["--repo", str(repo), "rules", "test"]) == 0
        commit(repo, "rules")
        git(repo, "checkout", "-q", "-b", "work")
        write(repo, "package.json", json.dumps({"dependencies": {**deps, "d": "1"}}))
        capsys.readouterr()
        # A suggestion starts as a warning: it is reported, and fails nothing.
        assert main(["--repo", str(repo), "rules", "check", "--base", "main"]) == 0
        assert "lockfile-pnpm-lock.yaml" in capsys.readouterr().out

    def test_a_lockfile_read_at_head_says_which_manifests_it_locks(
        self, repo: Path, capsys: Capture
    ) -> None:
        lock = "lockfileVersion: '9.0'\nimporters:\n  .:\n    dependencies: {}\n"
        write(repo, "package.json", "{}")
        write(repo, "examples/demo/package.json", "{}")
        write(repo, "pnpm-lock.yaml", lock)
        commit(repo, "root")
        for index, name in enumerate(["a", "b", "c"]):
            deps = dict.fromkeys(["a", "b", "c"][: index + 1], "1")
            write(repo, "package.json", json.dumps({"dependencies": deps}))
            write(repo, "pnpm-lock.yaml", f"{lock}# {name}\n")
            commit(repo, f"add {name}")
        assert main(["--repo", str(repo), "init"]) == 0
        assert "that added a dependency to package.json (" in capsys.readouterr().out
        text = uncomment((repo / ".cagr" / "changes.toml").read_text())
        rule = next(
            r for r in tomllib.loads(text)["changes"]["rules"] if r["id"].startswith("lock")
        )
        assert rule["paths"] == ["/package.json"]  # the example's manifest is not locked here

    def test_merges_count_as_the_change_they_bring(self, repo: Path, capsys: Capture) -> None:
        write(repo, "web/src/a.ts", "1")
        write(repo, "web/dist/a.js", "1")
        commit(repo, "root")
        for index in range(3):
            git(repo, "checkout", "-q", "-b", f"f{index}")
            write(repo, "web/src/a.ts", f"src {index}")
            commit(repo, "source")
            write(repo, "web/dist/a.js", f"out {index}")
            commit(repo, "build")
            git(repo, "checkout", "-q", "main")
            git(repo, "merge", "-q", "--no-ff", "-m", f"merge {index}", f"f{index}")
        assert main(["--repo", str(repo), "init"]) == 0
        assert "build-output-web-dist (requires): web/dist/ changed with web/src/ in 3 of 3" in (
            capsys.readouterr().out
        )

    def test_a_shallow_clone_reads_what_it_has(
        self, repo: Path, tmp_path: Path, capsys: Capture
    ) -> None:
        write(repo, "go.mod", "module m\n")
        write(repo, "go.sum", "")
        commit(repo, "root")
        for index in range(4):
            write(
                repo,
                "go.mod",
                "module m\n\nrequire (\n"
                + "".join(f"\texample.com/m{i} v1.0.0\n" for i in range(index + 1))
                + ")\n",
            )
            write(repo, "go.sum", f"{index}\n")
            commit(repo, f"dep {index}")
        clone = tmp_path / "shallow"
        git(tmp_path, "clone", "-q", "--depth", "3", f"file://{repo}", str(clone))
        assert main(["--repo", str(clone), "init"]) == 0
        out = capsys.readouterr().out
        assert "lockfile-go.sum" not in out  # two commits past the boundary are too few
        assert main(["--repo", str(repo), "init"]) == 0
        assert "lockfile-go.sum (requires): go.sum changed in 4 of the 4 recent commits" in (
            capsys.readouterr().out
        )
