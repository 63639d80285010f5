"""A branch cannot loosen the rules that judge it in CI: `cagr ci` applies every rule of the
configuration at the target commit as well as every rule of the head's. A rule the branch
removes or changes still judges as the target has it; the branch may add rules; the report
names both sources and what differs. Local checks keep the branch's own rules and say so."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.support.ci import GOOD_BODY, Project, cagr_ci, github_env, merge_group, pull_request
from tests.support.configs import TWO_RULES as RULES
from tests.support.git import GIT_ENV, commit, git, write

_, SCHEMA_RULE, WITHOUT_SCHEMA_RULE = (
    "[[changes.rules]]" + part for part in RULES.split("[[changes.rules]]")
)
EDIT_SCHEMA = {"src/schema.py": "v2"}
SECTIONS = '\n[review]\npr_sections = ["Summary"]\n'


def data(result: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    return json.loads(result.stdout)


def ci_json(project: Project, head: str, *args: str) -> tuple[int, dict[str, Any]]:
    result = cagr_ci(project.clone(head), None, "--base", "main", "--format", "json", *args)
    assert result.returncode in (0, 1, 3), result.stdout + result.stderr
    return result.returncode, data(result)


def local(checkout: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cagr_cli", "rules", "check", *args],
        cwd=checkout,
        env={**GIT_ENV, "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=False,
    )


class TestTheTargetsRulesJudge:
    def test_a_rule_the_branch_deletes_still_judges(self, project: Project) -> None:
        head = project.work({**EDIT_SCHEMA, "cagr.toml": WITHOUT_SCHEMA_RULE})
        code, report = ci_json(project, head)
        assert code == 1  # before: 0, judged by the branch's own rules only
        (finding,) = report["findings"]
        assert (finding["rule"], finding["config_source"]) == ("schema-companion", "target")
        assert report["config_sources"] == ["target", "head"]
        target = report["target_config"]
        assert target["rules_only_at_target"] == ["schema-companion"]
        assert (target["judged"], target["commit"]) == (True, project.base)

    def test_the_text_report_says_which_form_failed_and_lists_both_sources(
        self, project: Project
    ) -> None:
        head = project.work({**EDIT_SCHEMA, "cagr.toml": WITHOUT_SCHEMA_RULE})
        result = cagr_ci(project.clone(head), None, "--base", "main")
        assert result.returncode == 1
        assert (
            "Change rule schema-companion as the target's configuration has it failed"
        ) in result.stdout
        assert (
            f"Judged by the target's configuration (at {project.base[:7]}) and by this"
            " branch's own (rules only the target has: schema-companion)"
        ) in result.stdout

    def test_a_rule_set_to_warn_still_fails_once(self, project: Project) -> None:
        warned = RULES.replace(
            'id = "schema-companion"', 'id = "schema-companion"\nseverity = "warn"'
        )
        head = project.work({**EDIT_SCHEMA, "cagr.toml": warned})
        code, report = ci_json(project, head)
        assert code == 1
        # One violation, one finding: the target's error covers the branch's warning.
        (finding,) = report["findings"]
        assert (finding["severity"], finding["config_source"]) == ("error", "target")
        assert report["target_config"]["rules_changed"] == ["schema-companion"]

    def test_narrowed_paths_still_judge_as_the_target_has_them(self, project: Project) -> None:
        narrowed = RULES.replace('paths = ["src/schema.py"]', 'paths = ["src/nothing.py"]')
        head = project.work({**EDIT_SCHEMA, "cagr.toml": narrowed})
        code, report = ci_json(project, head)
        assert code == 1
        assert [(f["rule"], f["config_source"]) for f in report["findings"]] == [
            ("schema-companion", "target")
        ]

    def test_a_waive_label_the_branch_adds_does_not_waive_the_targets_form(
        self, project: Project
    ) -> None:
        waivable = RULES.replace(
            'id = "schema-companion"', 'id = "schema-companion"\nwaive_label = "ok"'
        )
        head = project.work({**EDIT_SCHEMA, "cagr.toml": waivable})
        env = github_env(
            project.tmp, "pull_request", pull_request("labeled", head, GOOD_BODY, labels=("ok",))
        )
        result = cagr_ci(project.clone(head), env, "--format", "json")
        assert result.returncode == 1, result.stdout + result.stderr
        report = data(result)
        (finding,) = report["findings"]
        assert (finding["config_source"], finding["waive_label"]) == ("target", None)
        assert report["waived"] == []  # the target's unwaivable finding stands for the violation

    def test_a_widened_rule_that_finds_the_same_says_it_once(self, project: Project) -> None:
        widened = RULES.replace('paths = ["src/schema.py"]', 'paths = ["src/*.py"]')
        head = project.work({**EDIT_SCHEMA, "cagr.toml": widened})
        code, report = ci_json(project, head)
        assert code == 1
        (finding,) = report["findings"]
        assert (finding["rule"], finding["config_source"]) == ("schema-companion", "both")

    def test_two_forms_that_fail_differently_each_say_whose_they_are(
        self, project: Project
    ) -> None:
        moved = RULES.replace('require = ["schema.json"]', 'require = ["schema/out.json"]')
        head = project.work({**EDIT_SCHEMA, "cagr.toml": moved})
        code, report = ci_json(project, head)
        assert code == 1
        found = sorted((f["config_source"], f["requires"]) for f in report["findings"])
        assert found == [("head", ["schema/out.json"]), ("target", ["schema.json"])]

    def test_rules_both_hold_alike_are_one_source(self, project: Project) -> None:
        head = project.work(EDIT_SCHEMA)
        code, report = ci_json(project, head)
        assert code == 1
        assert [f["config_source"] for f in report["findings"]] == ["both"]
        assert (report["config_sources"], report["target_config"]) == (["target", "head"], None)

    def test_a_rule_the_branch_adds_judges_too(self, project: Project) -> None:
        added = RULES + SCHEMA_RULE.replace(
            'id = "schema-companion"', 'id = "schema-docs"'
        ).replace('require = ["schema.json"]', 'require = ["docs/schema.md"]')
        head = project.work({**EDIT_SCHEMA, "schema.json": "{1}", "cagr.toml": added})
        code, report = ci_json(project, head)
        assert code == 1
        assert [(f["rule"], f["config_source"]) for f in report["findings"]] == [
            ("schema-docs", "head")
        ]
        assert report["target_config"]["rules_only_at_head"] == ["schema-docs"]

    def test_pr_sections_the_branch_drops_are_still_required(self, project: Project) -> None:
        project.baseline({"cagr.toml": RULES + SECTIONS})
        head = project.work({"cagr.toml": RULES, "notes.txt": "x"})
        env = github_env(project.tmp, "pull_request", pull_request("opened", head, "No heading."))
        result = cagr_ci(project.clone(head), env, "--format", "json")
        assert result.returncode == 1, result.stdout  # before: 0
        assert [f["rule"] for f in data(result)["findings"]] == ["review.pr_sections"]

    def test_a_stack_command_the_branch_drops_still_runs(self, project: Project) -> None:
        stack = "\n[stack]\nci = [{ run = \"sh -c 'echo target-check; exit 4'\" }]\n"
        project.baseline({"cagr.toml": RULES + stack})
        head = project.work({"cagr.toml": RULES, "notes.txt": "x"})
        result = cagr_ci(project.clone(head), None, "--base", "main", "--format", "json")
        assert result.returncode == 1, result.stdout + result.stderr  # before: 0
        report = data(result)
        assert [(s["status"], s["exit_code"]) for s in report["stack"]] == [("failed", 4)]

    def test_a_merge_queue_group_is_judged_by_its_base_commits_rules(
        self, project: Project
    ) -> None:
        head = project.work({**EDIT_SCHEMA, "cagr.toml": WITHOUT_SCHEMA_RULE})
        base = project.main({"queued-before.txt": "another PR ahead in the queue"})
        checkout = project.clone(base)
        git(checkout, "merge", "-q", "--no-ff", "--no-edit", head)
        group = git(checkout, "rev-parse", "HEAD").decode().strip()
        env = github_env(project.tmp, "merge_group", merge_group(group, base))
        result = cagr_ci(checkout, env, "--format", "json")
        assert result.returncode == 1, result.stdout + result.stderr
        report = data(result)
        assert [(f["rule"], f["config_source"]) for f in report["findings"]] == [
            ("schema-companion", "target")
        ]
        assert report["target_config"]["commit"] == base


class TestAnInvalidTargetConfiguration:
    def break_target(self, project: Project) -> None:
        project.baseline({"cagr.toml": RULES + "\nbogus = 1\n"})

    def test_a_change_beside_it_waits_for_the_repair(self, project: Project) -> None:
        head = project.work({"notes.txt": "x"})
        project.main({"cagr.toml": RULES + "\nbogus = 1\n"})
        code, report = ci_json(project, head)
        assert code == 3  # the target's rules are unknown: never a pass
        (item,) = report["unchecked"]
        assert item["stage"] == "config"
        assert "cannot judge" in item["message"]
        assert "Repair the target's configuration first" in item["message"]
        assert report["config_sources"] == ["head"]

    def test_the_repair_itself_is_judged_by_its_own_rules(self, project: Project) -> None:
        self.break_target(project)
        head = project.work({"cagr.toml": RULES, **EDIT_SCHEMA, "schema.json": "{2}"})
        code, report = ci_json(project, head)
        assert code == 0, report
        assert report["unchecked"] == []
        assert report["target_config"]["judged"] is False
        assert "only this branch's rules judged" in report["target_config"]["message"]


class TestLocalChecksKeepTheBranchsRules:
    def test_a_committed_check_passes_by_its_own_rules_and_says_ci_will_not(
        self, repo: Path
    ) -> None:
        write(repo, "cagr.toml", RULES)
        write(repo, "src/schema.py", "v1")
        write(repo, "schema.json", "{}")
        commit(repo, "base")
        git(repo, "checkout", "-q", "-b", "work")
        write(repo, "cagr.toml", WITHOUT_SCHEMA_RULE)
        write(repo, "src/schema.py", "v2")
        commit(repo, "work")
        result = local(repo, "--committed", "--base", "main", "--format", "json")
        assert result.returncode == 0, result.stdout + result.stderr
        report = data(result)
        assert report["config_sources"] == ["head"]
        assert report["target_config"]["judged"] is False
        assert report["target_config"]["rules_only_at_target"] == ["schema-companion"]
        text = local(repo, "--committed", "--base", "main").stdout
        assert "`cagr ci` judges by both" in text
        working = local(repo, "--base", "main", "--format", "json")
        assert data(working)["target_config"]["rules_only_at_target"] == ["schema-companion"]


class TestTheBranchCannotChooseItsOwnTarget:
    """Without a target from the event or --base (any CI, a schedule, a dispatch), `cagr ci`
    takes the target from `[git] protected_branch`, which the branch being judged could set to
    itself and so compare its change with its own commits."""

    def test_a_branch_that_names_itself_is_judged_against_the_default_branch(
        self, project: Project
    ) -> None:
        config = '[git]\nprotected_branch = "work"\n' + RULES
        head = project.work({**EDIT_SCHEMA, "cagr.toml": config})
        result = cagr_ci(project.clone(head), None, "--format", "json")
        assert result.returncode == 1, result.stdout  # before: 0, an empty change passed
        report = data(result)
        (finding,) = report["findings"]
        assert finding["rule"] == "schema-companion"
        assert report["range"]["target_ref"] == "refs/remotes/origin/main"
        assert any("cannot choose the target that judges it" in n for n in report["notes"])

    def test_the_default_branchs_own_setting_stands(self, project: Project) -> None:
        project.baseline({"cagr.toml": '[git]\nprotected_branch = "main"\n' + RULES})
        config = '[git]\nprotected_branch = "work"\n' + RULES
        head = project.work({**EDIT_SCHEMA, "cagr.toml": config})
        result = cagr_ci(project.clone(head), None, "--format", "json")
        assert result.returncode == 1, result.stdout
        report = data(result)
        assert report["range"]["chosen_by"] == "[git] protected_branch at main"

    def test_a_setting_the_default_branch_shares_chooses_the_target(self, project: Project) -> None:
        git(project.origin, "branch", "release", "main")
        project.baseline({"cagr.toml": '[git]\nprotected_branch = "release"\n' + RULES})
        git(project.origin, "branch", "-f", "release", "main")
        head = project.work(EDIT_SCHEMA)
        result = cagr_ci(project.clone(head), None, "--format", "json")
        assert result.returncode == 1, result.stdout
        report = data(result)
        assert report["range"]["target_ref"] == "refs/remotes/origin/release"
        assert report["range"]["chosen_by"] == "[git] protected_branch"
        assert not any("cannot choose" in n for n in report["notes"])

    def test_its_own_name_is_no_target_where_the_default_branch_is_itself(
        self, project: Project, tmp_path: Path
    ) -> None:
        """A clone made while its source was on the branch: origin/HEAD names it too."""
        config = '[git]\nprotected_branch = "work"\n' + RULES
        head = project.work({**EDIT_SCHEMA, "cagr.toml": config})
        git(project.origin, "checkout", "-q", "work")
        clone = tmp_path / "sandbox"
        git(tmp_path, "clone", "-q", str(project.origin), str(clone))
        assert git(clone, "rev-parse", "HEAD").decode().strip() == head
        result = cagr_ci(clone, None, "--format", "json")
        assert result.returncode == 3, result.stdout  # before: 0
        (item,) = data(result)["unchecked"]
        assert "the branch being checked itself" in item["message"]

    def test_head_itself_is_a_config_error(self, project: Project) -> None:
        for name in ("HEAD", "@", "HEAD~0", "HEAD^"):
            head = project.work(
                {**EDIT_SCHEMA, "cagr.toml": f'[git]\nprotected_branch = "{name}"\n' + RULES}
            )
            result = cagr_ci(project.clone(head), None)
            assert result.returncode == 2, (name, result.stdout)  # before: 0
            assert "is this checkout's own HEAD" in result.stdout + result.stderr


def test_a_target_whose_files_the_clone_lacks_is_no_repair_to_pass(
    project: Project, tmp_path: Path
) -> None:
    """A blob-less partial clone (actions/checkout's `filter: blob:none`) has the head's files
    but not the target's cagr.toml. That is no invalid configuration a branch could repair:
    before, a branch that narrowed the rule and broke it passed, judged by its own rules."""
    narrowed = RULES.replace('paths = ["src/schema.py"]', 'paths = ["nothing/**"]')
    assert narrowed != RULES
    head = project.work({**EDIT_SCHEMA, "cagr.toml": narrowed})
    git(project.origin, "config", "uploadpack.allowFilter", "true")
    clone = tmp_path / "partial"
    git(tmp_path, "clone", "-q", "--filter=blob:none", "--no-checkout",
        f"file://{project.origin}", str(clone))  # fmt: skip
    git(clone, "checkout", "-q", "--detach", head)
    target_config = git(clone, "rev-parse", "origin/main:cagr.toml").decode().strip()
    missing = git(clone, "rev-list", "--objects", "--missing=print", "origin/main").decode()
    assert f"?{target_config}" in missing.split()  # git's own word: the clone lacks it
    result = cagr_ci(clone, None, "--base", "main", "--format", "json")
    assert result.returncode == 3, result.stdout  # before: 0
    (item,) = data(result)["unchecked"]
    assert "cannot be read from this clone" in item["message"]
    assert "whatever this change edits" in item["message"]
