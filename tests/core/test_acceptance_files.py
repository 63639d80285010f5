"""Acceptance rows for file rules (Co-change, Siblings, Add only), on the evaluator.

Snapshot-level cases (an identical rewrite of a companion producing no change at all, so the
rule fails as for a missing companion) are proven against git in tests/repo/test_snapshot.py.
"""

from cagr_config.rules import RequiresRule, SiblingRule
from cagr_core.changes import Change, Side
from tests.support.build import EXECUTABLE, GITLINK, SYMLINK, added, check, deleted, modified
from tests.support.rules import GUARDS, MIGRATIONS, SCHEMA


class TestCoChange:
    def test_schema_source_only_fails(self) -> None:
        report = check(SCHEMA, modified("src/config/schema.ts"))
        assert report.status == "fail"
        (finding,) = report.findings
        assert finding.message == (
            "src/config/schema.ts changed; schema/cagr.schema.json did not change."
        )
        assert finding.fix == SCHEMA.reason
        # paths are real repository paths; the requirement, as written, has its own field
        assert finding.paths == ("src/config/schema.ts",)
        assert finding.requires == ("schema/cagr.schema.json",)

    def test_source_plus_generated_edit_passes(self) -> None:
        report = check(
            SCHEMA, modified("src/config/schema.ts"), modified("schema/cagr.schema.json")
        )
        assert report.status == "pass"

    def test_added_generated_file_passes(self) -> None:
        report = check(SCHEMA, modified("src/config/schema.ts"), added("schema/cagr.schema.json"))
        assert report.status == "pass"

    def test_missing_companion_fails(self) -> None:
        assert check(SCHEMA, modified("src/config/schema.ts")).status == "fail"

    def test_deleted_companion_fails(self) -> None:
        report = check(SCHEMA, modified("src/config/schema.ts"), deleted("schema/cagr.schema.json"))
        (finding,) = report.findings
        assert "schema/cagr.schema.json was deleted, which does not count" in finding.message
        assert finding.paths == ("src/config/schema.ts", "schema/cagr.schema.json")

    def test_a_glob_requirement_is_listed_not_mixed_into_paths(self) -> None:
        rule = RequiresRule(
            id="gen", paths=["api/**"], require=["gen/**", "/docs/api.md"], reason="Regenerate."
        )
        (finding,) = check(rule, modified("api/a.proto"), modified("docs/api.md")).findings
        assert (finding.paths, finding.requires) == (("api/a.proto",), ("gen/**",))
        (finding,) = check(rule, modified("api/a.proto")).findings
        assert finding.requires == ("gen/**", "/docs/api.md")

    def test_a_renamed_companion_says_where_its_content_went(self) -> None:
        report = check(
            SCHEMA,
            modified("src/config/schema.ts"),
            deleted("schema/cagr.schema.json", "{}"),
            added("schema/renamed.json", "{}"),
        )
        assert report.findings[0].message == (
            "src/config/schema.ts changed; schema/cagr.schema.json was deleted (its content was"
            " added as schema/renamed.json), which does not count."
        )

    def test_symlink_or_submodule_companion_does_not_count(self) -> None:
        for mode in (SYMLINK, GITLINK):
            report = check(
                SCHEMA,
                modified("src/config/schema.ts"),
                added("schema/cagr.schema.json", mode=mode),
            )
            assert report.status == "fail"
            assert "not a regular file" in report.findings[0].message

    def test_executable_companion_counts(self) -> None:
        report = check(
            SCHEMA,
            modified("src/config/schema.ts"),
            added("schema/cagr.schema.json", mode=EXECUTABLE),
        )
        assert report.status == "pass"

    def test_two_require_entries_each_need_a_match(self) -> None:
        rule = RequiresRule(
            id="two",
            paths=["src/config/schema.ts"],
            require=["schema/cagr.schema.json", "docs/config.md"],
            reason="Regenerate the schema and update docs/config.md.",
        )
        report = check(rule, modified("src/config/schema.ts"), modified("schema/cagr.schema.json"))
        (finding,) = report.findings
        assert finding.message == "src/config/schema.ts changed; docs/config.md did not change."
        both = check(
            rule,
            modified("src/config/schema.ts"),
            modified("schema/cagr.schema.json"),
            modified("docs/config.md"),
        )
        assert both.status == "pass"
        neither = check(rule, modified("src/config/schema.ts"))
        assert neither.findings[0].message == (
            "src/config/schema.ts changed; schema/cagr.schema.json did not change;"
            " docs/config.md did not change."
        )

    def test_unrelated_docs_edit_does_not_satisfy(self) -> None:
        report = check(SCHEMA, modified("src/config/schema.ts"), modified("docs/schema.md"))
        assert report.status == "fail"

    def test_deleted_trigger_fires(self) -> None:
        report = check(SCHEMA, deleted("src/config/schema.ts"))
        assert report.findings[0].message.startswith("src/config/schema.ts was deleted;")

    def test_untouched_trigger_does_not_fire(self) -> None:
        assert check(SCHEMA, modified("README.md")).status == "pass"

    def test_glob_requirement_names_the_pattern(self) -> None:
        rule = RequiresRule(
            id="glob", paths=["*.proto"], require=["gen/**"], reason="Run make gen."
        )
        report = check(rule, added("api/v1/a.proto"), added("api/v1/b.proto"))
        assert report.findings[0].message == (
            "api/v1/a.proto was added (and 1 more selected path: api/v1/b.proto); nothing matching"
            " gen/** changed."
        )
        assert check(rule, added("api/v1/a.proto"), added("gen/a/pb.go")).status == "pass"

    def test_ignores_never_remove_companions(self) -> None:
        rule = RequiresRule(
            id="ignore",
            paths=["src/**"],
            ignores=["**/*.json"],
            require=["src/generated.json"],
            reason="Regenerate src/generated.json.",
        )
        assert check(rule, modified("src/a.py"), modified("src/generated.json")).status == "pass"


class TestSiblings:
    def test_new_guard_alone_fails(self) -> None:
        report = check(GUARDS, added("src/guards/no-push.ts"))
        (finding,) = report.findings
        assert finding.message == (
            "Added src/guards/no-push.ts; src/guards/no-push.test.ts needs to be added or changed"
            " in this change."
        )
        assert finding.paths == ("src/guards/no-push.ts",)
        assert finding.target == "src/guards/no-push.test.ts"

    def test_matching_added_test_passes(self) -> None:
        report = check(GUARDS, added("src/guards/no-push.ts"), added("src/guards/no-push.test.ts"))
        assert report.status == "pass"

    def test_matching_modified_test_passes(self) -> None:
        report = check(
            GUARDS, added("src/guards/no-push.ts"), modified("src/guards/no-push.test.ts")
        )
        assert report.status == "pass"

    def test_unchanged_existing_test_fails(self) -> None:
        # The test exists at both ends, unchanged: there is no change entry for it.
        assert check(GUARDS, added("src/guards/no-push.ts")).status == "fail"

    def test_deleted_test_fails(self) -> None:
        report = check(
            GUARDS, added("src/guards/no-push.ts"), deleted("src/guards/no-push.test.ts")
        )
        assert report.findings[0].message.endswith(
            "needs to be added or changed in this change (it was deleted)."
        )
        assert report.findings[0].paths == ("src/guards/no-push.ts", "src/guards/no-push.test.ts")

    def test_symlinked_test_does_not_count(self) -> None:
        report = check(
            GUARDS,
            added("src/guards/no-push.ts"),
            added("src/guards/no-push.test.ts", mode=SYMLINK),
        )
        assert report.status == "fail"

    def test_existing_guard_edit_creates_no_obligation(self) -> None:
        assert check(GUARDS, modified("src/guards/old.ts")).status == "pass"

    def test_test_additions_are_excluded(self) -> None:
        assert check(GUARDS, added("src/guards/new.test.ts")).status == "pass"

    def test_multiple_guards_each_need_a_test(self) -> None:
        report = check(
            GUARDS,
            added("src/guards/a.ts"),
            added("src/guards/nested/b.ts"),
            added("src/guards/a.test.ts"),
        )
        (finding,) = report.findings
        assert finding.paths == ("src/guards/nested/b.ts",)
        assert finding.target == "src/guards/nested/b.test.ts"

    def test_rename_creates_a_new_obligation(self) -> None:
        report = check(
            GUARDS,
            deleted("src/guards/old-name.ts"),
            added("src/guards/new-name.ts"),
            deleted("src/guards/old-name.test.ts"),
        )
        assert [f.target for f in report.findings] == ["src/guards/new-name.test.ts"]

    def test_a_moved_test_says_where_its_content_went(self) -> None:
        report = check(
            GUARDS,
            added("src/guards/a.ts"),
            deleted("src/guards/a.test.ts", "test"),
            added("src/guards/old/a.test.ts", "test"),
        )
        assert report.findings[0].message.endswith(
            "(it was deleted; its content was added as src/guards/old/a.test.ts)."
        )

    def test_root_file_drops_the_joining_slash(self) -> None:
        rule = SiblingRule(
            id="root",
            paths=["/*.py"],
            ignores=["test_*"],  # no implicit test exclusions: without this the test needs a test
            target="{dir}/test_{name}.{ext}",
            reason="Add a test.",
        )
        report = check(rule, added("tool.py"))
        assert (report.findings[0].paths, report.findings[0].target) == (
            ("tool.py",),
            "test_tool.py",
        )
        assert check(rule, added("tool.py"), added("test_tool.py")).status == "pass"

    def test_path_without_extension_is_unchecked(self) -> None:
        rule = SiblingRule(id="ext", paths=["bin/*"], target="{dir}/{name}.test.{ext}", reason="x")
        report = check(rule, added("bin/tool"))
        assert report.status == "unchecked"
        assert "bin/tool has no extension" in report.unchecked[0].message


class TestAddOnly:
    def test_old_migration_edit_fails(self) -> None:
        report = check(MIGRATIONS, modified("migrations/001.sql"))
        (finding,) = report.findings
        assert finding.message == "migrations/001.sql existed at the baseline and was edited."

    def test_deletion_fails(self) -> None:
        report = check(MIGRATIONS, deleted("migrations/001.sql"))
        assert report.findings[0].message == (
            "migrations/001.sql existed at the baseline and was deleted."
        )

    def test_mode_change_fails(self) -> None:
        report = check(
            MIGRATIONS, modified("migrations/001.sql", "same", "same", new_mode=EXECUTABLE)
        )
        assert report.findings[0].message.endswith("changed mode from 100644 to 100755.")

    def test_type_change_fails(self) -> None:
        report = check(MIGRATIONS, modified("migrations/001.sql", "x", "y", new_mode=SYMLINK))
        assert report.findings[0].message.endswith("changed from a regular file to a symlink.")

    def test_rename_fails(self) -> None:
        report = check(
            MIGRATIONS, deleted("migrations/001.sql", "a"), added("migrations/001_init.sql", "a")
        )
        assert [f.paths for f in report.findings] == [("migrations/001.sql",)]
        # a rename is a deletion plus an addition, but the message lets a person see it
        assert report.findings[0].message == (
            "migrations/001.sql existed at the baseline and was deleted (its content was added"
            " as migrations/001_init.sql)."
        )

    def test_empty_files_are_not_taken_for_renames(self) -> None:
        empty = Side(0o100644, "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391")  # git's empty blob
        report = check(
            MIGRATIONS,
            Change("migrations/001.sql", empty, None),
            Change("migrations/002.sql", None, empty),
        )
        assert report.findings[0].message.endswith("and was deleted.")

    def test_new_migration_passes(self) -> None:
        assert check(MIGRATIONS, added("migrations/002.sql")).status == "pass"

    def test_further_edits_to_a_branch_new_migration_pass(self) -> None:
        # Against the merge base, a branch-new file is an addition however often it was edited.
        assert check(MIGRATIONS, added("migrations/002.sql", "v3")).status == "pass"

    def test_new_then_removed_is_no_change(self) -> None:
        assert check(MIGRATIONS).status == "pass"

    def test_now_merged_migration_is_immutable_after_rebase(self) -> None:
        # Before the rebase 002 was an addition; after it the baseline has 002, so an edit is M.
        assert check(MIGRATIONS, added("migrations/002.sql", "v2")).status == "pass"
        assert check(MIGRATIONS, modified("migrations/002.sql", "v1", "v2")).status == "fail"

    def test_each_violating_path_is_its_own_finding(self) -> None:
        report = check(MIGRATIONS, modified("migrations/001.sql"), deleted("migrations/003.sql"))
        assert [f.paths for f in report.findings] == [
            ("migrations/001.sql",),
            ("migrations/003.sql",),
        ]
