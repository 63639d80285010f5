"""Acceptance rows for Dependencies and PR text, on the evaluator."""

import json

import pytest

from cagr_config.compile import compile_rules
from cagr_config.rules import PrBodyRule, RequiresRule
from cagr_core.changes import Change, ChangeSet, Side
from cagr_core.pull_request import Phase, PrBody
from tests.support.build import RANGE, SYMLINK, added, check, deleted, modified, side
from tests.support.evaluation import judge
from tests.support.rules import DEPENDENCY_REASON, GOOD_BODY, bump, manifest


class TestDependencies:
    @pytest.mark.parametrize(
        "section", ["dependencies", "devDependencies", "optionalDependencies", "peerDependencies"]
    )
    def test_addition_in_each_section_triggers(self, section: str) -> None:
        change = bump(manifest(), manifest(**{section: {"x": "1"}}))
        report = check(DEPENDENCY_REASON, change, body="## Risk\nNone")
        (finding,) = report.findings
        assert finding.message == (
            f"Added {section}.x in package.json; Risk lacks `Dependency reason:`."
        )

    def test_the_documented_example(self) -> None:
        change = bump("{}", '{"dependencies":{"x":"1"}}')
        assert check(DEPENDENCY_REASON, change, body="## Risk\nNone").status == "fail"
        assert check(DEPENDENCY_REASON, change, body=GOOD_BODY).status == "pass"

    def test_workspace_manifests_match(self) -> None:
        change = bump(manifest(), manifest(dependencies={"x": "1"}), "packages/a/package.json")
        assert check(DEPENDENCY_REASON, change, body="").status == "fail"

    def test_anchored_pattern_is_the_root_manifest_only(self) -> None:
        rule = RequiresRule(
            id="lock",
            paths=["/package.json"],
            when=DEPENDENCY_REASON.when,
            require=["package-lock.json"],
            reason="Run npm install and commit package-lock.json.",
        )
        workspace = bump(manifest(), manifest(dependencies={"x": "1"}), "packages/a/package.json")
        assert check(rule, workspace).status == "pass"
        root = bump(manifest(), manifest(dependencies={"x": "1"}))
        (finding,) = check(rule, root).findings
        assert finding.message == (
            "Added dependencies.x in package.json; package-lock.json did not change."
        )

    def test_version_edit_does_not_trigger(self) -> None:
        change = bump(manifest(dependencies={"x": "1"}), manifest(dependencies={"x": "2"}))
        assert check(DEPENDENCY_REASON, change, body="").status == "pass"

    def test_removal_does_not_trigger(self) -> None:
        change = bump(
            manifest(dependencies={"x": "1", "y": "1"}), manifest(dependencies={"x": "1"})
        )
        assert check(DEPENDENCY_REASON, change, body="").status == "pass"

    def test_section_move_triggers(self) -> None:
        change = bump(manifest(dependencies={"x": "1"}), manifest(devDependencies={"x": "1"}))
        (finding,) = check(DEPENDENCY_REASON, change, body="").findings
        assert finding.message.startswith("Added devDependencies.x in package.json;")

    def test_new_manifest_triggers(self) -> None:
        change = added("package.json", manifest(peerDependencies={"react": "*"}))
        assert check(DEPENDENCY_REASON, change, body="").status == "fail"

    def test_deleted_manifest_does_not_trigger(self) -> None:
        change = deleted("package.json", manifest(dependencies={"x": "1"}))
        assert check(DEPENDENCY_REASON, change, body="").status == "pass"

    def test_other_edits_do_not_trigger(self) -> None:
        change = bump(manifest(), json.dumps({"scripts": {"build": "tsc"}}))
        assert check(DEPENDENCY_REASON, change, body="").status == "pass"

    @pytest.mark.parametrize(
        ("before", "after", "said"),
        [
            ("{}", '{"dependencies": {', "not valid JSON"),
            ("{", '{"dependencies": {"x": "1"}}', "old side is not valid JSON"),
            ("{}", "[]", "not an object"),
            (
                "{}",
                '{"dependencies": ["x"]}',
                "the new side has dependencies as an array, not an object",
            ),
            ("{}", '{"devDependencies": null}', "devDependencies as null, not an object"),
            ("{}", b"\xff\xfe{}", "not UTF-8"),
        ],
    )
    def test_malformed_json_is_unchecked(self, before: str, after: str | bytes, said: str) -> None:
        data = after if isinstance(after, bytes) else after.encode()
        change = Change("package.json", side(before), Side(0o100644, "f" * 40, data))
        report = check(DEPENDENCY_REASON, change, body="")
        assert report.status == "unchecked"
        assert said in report.unchecked[0].message

    def test_a_broken_base_side_says_the_base_cannot_be_fixed(self) -> None:
        report = check(DEPENDENCY_REASON, bump("{", manifest(dependencies={"x": "1"})), body="")
        (item,) = report.unchecked
        assert item.message.startswith(
            "cannot read dependencies from package.json: the old side is not valid JSON"
        )
        assert "The old side is the merge base's copy, already on the target branch" in (
            item.message
        )
        assert "rebase onto it" in item.message
        assert "fix it, then check again" not in item.message

    def test_a_broken_new_side_asks_for_a_fix(self) -> None:
        report = check(DEPENDENCY_REASON, bump("{}", "{"), body="")
        assert report.unchecked[0].message.endswith(
            "cagr reads it as a package.json, and the merge base's copy was valid: correct this"
            " change's version and check again (if it is not one, add it to the rule's ignores)."
        )

    def test_broken_on_both_sides_is_not_the_changes_to_fix(self) -> None:
        """The change edited a manifest that was already broken: it did not break it."""
        (item,) = check(DEPENDENCY_REASON, bump("{", "{ "), body="").unchecked
        assert "The old side is the merge base's copy" in item.message
        assert "correct" not in item.message

    def test_oversized_content_is_unchecked(self) -> None:
        huge = manifest(dependencies={f"p{i}": "1" for i in range(80_000)})
        assert len(huge) > 1024 * 1024
        report = check(DEPENDENCY_REASON, bump(manifest(), huge), body="")
        assert report.status == "unchecked"
        assert "larger than the 1048576 bytes" in report.unchecked[0].message
        assert "correct" not in report.unchecked[0].message  # nothing is wrong with the file
        assert "a person has to review" in report.unchecked[0].message

    def test_symlink_input_is_unchecked(self) -> None:
        change = added("package.json", "../elsewhere/package.json", mode=SYMLINK)
        report = check(DEPENDENCY_REASON, change, body="")
        assert report.status == "unchecked"
        assert "symlink" in report.unchecked[0].message
        assert "correct" not in report.unchecked[0].message

    def test_content_not_loaded_is_unchecked(self) -> None:
        change = Change("package.json", None, Side(0o100644, "e" * 40))
        assert check(DEPENDENCY_REASON, change, body="").status == "unchecked"

    def test_unreadable_manifest_does_not_matter_when_the_body_satisfies(self) -> None:
        change = bump("{", manifest(dependencies={"x": "1"}))
        assert check(DEPENDENCY_REASON, change, body=GOOD_BODY).status == "pass"

    def test_one_unreadable_manifest_does_not_hide_another_finding(self) -> None:
        broken = bump("{", "{}", "a/package.json")
        real = bump(manifest(), manifest(dependencies={"x": "1"}))
        report = check(DEPENDENCY_REASON, broken, real, body="")
        assert report.status == "fail"
        assert len(report.unchecked) == 1


def body_check(body: str | None, phase: Phase = Phase.CI) -> str:
    change = bump(manifest(), manifest(dependencies={"x": "1"}))
    report = check(DEPENDENCY_REASON, change, body=body, phase=phase)
    return report.status


class TestPrText:
    @pytest.mark.parametrize(
        "body",
        [
            pytest.param("## Summary\nAdds x.", id="missing heading"),
            pytest.param("", id="blank body"),
            pytest.param("   \n\n", id="whitespace body"),
            pytest.param("## Risk\n", id="empty section"),
            pytest.param("## Risk\nDependency reason: TODO", id="placeholder after marker"),
            pytest.param("## Risk\nDependency reason:\n\n- N/A\n- None.\n- TBD", id="placeholders"),
            pytest.param("## Risk\nDependency reason:", id="marker alone"),
            pytest.param(
                "## Risk\nDependency reason: Dependency reason:", id="marker repeated alone"
            ),
            pytest.param("## Risk\nA real explanation without the marker.", id="no marker"),
            pytest.param(
                "## Summary\nDependency reason: x is needed.\n## Risk\nLow.",
                id="marker in another section",
            ),
            pytest.param(
                "## Risk\nLow.\n## Notes\nDependency reason: x is needed.",
                id="marker after the section ended",
            ),
            pytest.param(
                "# Title\n## Risk\nLow.\n# Appendix\nDependency reason: x is needed.",
                id="level 1 heading ends the section",
            ),
            pytest.param("```\n## Risk\nDependency reason: x is needed.\n```", id="fenced heading"),
            pytest.param(
                "## Risk\n<!-- Dependency reason: explain here -->", id="marker in a comment"
            ),
            pytest.param(
                "## Risk\nDependency reason: <!-- explain why x is needed -->",
                id="explanation only in a comment",
            ),
            pytest.param(
                "## Risk\nDependency reason:\n### Details\n", id="only a subheading after marker"
            ),
            pytest.param(
                "Risk\n----\nDependency reason: x is needed.", id="setext heading is not ATX"
            ),
            pytest.param("> ## Risk\n> Dependency reason: x is needed.", id="heading in a quote"),
            pytest.param("## Risk\ndependency reason: x is needed.", id="marker is case-sensitive"),
            pytest.param(
                "## Risk\nDependency reason: x is needed.\n\n## risk\nmore", id="duplicate Risk"
            ),
        ],
    )
    def test_fails(self, body: str) -> None:
        assert body_check(body) == "fail"

    @pytest.mark.parametrize(
        "body",
        [
            pytest.param(GOOD_BODY, id="explanation after marker"),
            pytest.param(
                "## Summary\nAdds x.\n\n## **RISK**\n\n- Dependency reason: parses the wire format",
                id="emphasis and case in heading, list item",
            ),
            pytest.param(
                "## Risk\r\nDependency reason:\r\nx reads the wire format.\r\n",
                id="CRLF, next line",
            ),
            pytest.param(
                "## Risk\n### Dependencies\nDependency reason: x is needed.",
                id="subheading inside the section",
            ),
            pytest.param("## Risk ##\nDependency reason: **x** is needed.", id="closing hashes"),
        ],
    )
    def test_passes(self, body: str) -> None:
        assert body_check(body) == "pass"

    def test_messages_name_the_problem(self) -> None:
        change = bump(manifest(), manifest(dependencies={"x": "1"}))
        cases = {
            "": "the PR body is empty",
            "## Summary\nx": "the PR body has no `## Risk` section",
            "## Risk\na\n## Risk\nb": "the PR body has more than one `## Risk` section",
            "## Risk\nDependency reason: TODO": (
                "Risk has `Dependency reason:` with no explanation after it"
            ),
        }
        for body, said in cases.items():
            (finding,) = check(DEPENDENCY_REASON, change, body=body).findings
            assert finding.message == f"Added dependencies.x in package.json; {said}."

    def test_unavailable_body_is_unchecked(self) -> None:
        assert body_check(None) == "unchecked"

    def test_unavailable_body_without_trigger_passes(self) -> None:
        change = bump(manifest(dependencies={"x": "1"}), manifest(dependencies={"x": "2"}))
        assert check(DEPENDENCY_REASON, change, body=None).status == "pass"

    def test_oversized_body_is_unchecked(self) -> None:
        assert body_check(GOOD_BODY + "\n" + "x" * 300_000) == "unchecked"

    def test_turn_end_defers_instead_of_failing(self) -> None:
        change = bump(manifest(), manifest(dependencies={"x": "1"}))
        report = check(DEPENDENCY_REASON, change, body=None, phase=Phase.TURN)
        assert report.status == "pass"
        (deferred,) = report.deferred
        assert (deferred.rule, deferred.section, deferred.contains) == (
            "dependency-reason",
            "Risk",
            "Dependency reason:",
        )
        assert deferred.message == (
            "Added dependencies.x in package.json; the PR body's Risk section will need"
            " `Dependency reason:` and an explanation."
        )

    def test_section_without_contains_needs_any_substance(self) -> None:
        rule = PrBodyRule(
            id="testing", paths=["src/**"], section="Testing", reason="Say how you tested it."
        )
        change = modified("src/a.py")
        assert check(rule, change, body="## Testing\nN/A").status == "fail"
        assert check(rule, change, body="## Testing\nRan the suite.").status == "pass"
        assert check(rule, modified("docs/a.md"), body="").status == "pass"


def cut_check(body: str) -> tuple[str, list[str]]:
    """A fired dependency-reason rule against a cut copy of the description."""
    change = bump(manifest(), manifest(dependencies={"x": "1"}))
    ruleset = compile_rules([DEPENDENCY_REASON])
    report = judge(ruleset, ChangeSet((change,), RANGE), PrBody(body, truncated=True), Phase.CI)
    return report.status, [item.message for item in report.unchecked]


class TestCutDescription:
    """A CI system that passes only the start of a description (GitLab keeps 2,700 characters):
    a verdict holds only where the required section ends at a next heading inside the kept text.
    """

    def test_a_section_that_ends_inside_the_text_decides(self) -> None:
        assert cut_check(GOOD_BODY + "\n## Testing\nran it\n")[0] == "pass"
        assert cut_check("## Risk\nNone\n## Testing\nran it\n")[0] == "fail"

    def test_a_section_running_to_the_cut_is_unknown(self) -> None:
        status, messages = cut_check(GOOD_BODY + "\nmore text that was cut")
        assert status == "unchecked"
        assert "the Risk section does not end inside it" in messages[0]
        assert "--body-file" in messages[0]

    def test_a_section_not_in_the_kept_text_is_unknown_not_missing(self) -> None:
        status, messages = cut_check("## Summary\nlong text\n## Testing\n")
        assert status == "unchecked"
        assert "the Risk section is not in it" in messages[0]

    def test_a_duplicate_inside_the_kept_text_still_fails(self) -> None:
        assert cut_check("## Risk\nDependency reason: a\n## Risk\nDependency reason: b")[0] == (
            "fail"
        )

    def test_a_whole_description_needs_no_next_heading(self) -> None:
        assert body_check(GOOD_BODY) == "pass"
