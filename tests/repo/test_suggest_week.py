"""Suggestions that survive a project's first week: warnings with the way to make them errors,
in reading order; co-change mined from real history for any pair of globs; `pr_body` rules
from the project's own PR or MR template; nothing on test apps, fixtures or templates."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from cagr_cli.main import main
from cagr_repo.suggest import render, suggest
from cagr_repo.suggest_template import find_template, suggest_from_template, template_sections
from tests.support.configs import uncomment
from tests.support.git import commit, git, write

Capture = pytest.CaptureFixture[str]
BOT = "GitHub Actions <41898282+github-actions[bot]@users.noreply.github.com>"


def init(repo: Path, capsys: Capture) -> dict[str, dict]:
    """Run `cagr init`, uncomment its suggestions as written, and check they pass their own
    examples; the rules by id."""
    assert main(["--repo", str(repo), "init", "--force"]) == 0
    capsys.readouterr()
    path = repo / ".cagr" / "changes.toml"
    path.write_text(uncomment(path.read_text()))
    assert main(["--repo", str(repo), "rules", "test"]) == 0, capsys.readouterr().out
    capsys.readouterr()
    return {r["id"]: r for r in tomllib.loads(path.read_text())["changes"]["rules"]}


class TestRendering:
    def test_every_rule_is_a_warning_with_when_to_make_it_an_error(self) -> None:
        text = render(suggest(["app/migrations/0001_initial.py", "package.json"]))
        severities = [line for line in text.splitlines() if "severity" in line]
        assert len(severities) == 2
        for line in severities:
            assert line.startswith('# severity = "warn"  # make it "error" once `cagr replay')
        rules = tomllib.loads(uncomment(text))["changes"]["rules"]
        assert {r["severity"] for r in rules} == {"warn"}

    def test_keys_are_in_reading_order_with_ignores_beside_paths(self) -> None:
        paths = [f"app{i}/migrations/0001_initial.py" for i in range(5)]
        paths.append("tests/testapp/migrations/0001_initial.py")
        (suggestion,) = suggest(paths)
        keys = [
            line[2:].split(" = ")[0]
            for line in render([suggestion]).splitlines()
            if " = " in line and not line.startswith("#:")
        ]
        assert keys == [
            "id", "kind", "severity", "paths", "ignores", "reason",
            "examples.invalid", "examples.valid",
        ]  # fmt: skip
        assert suggestion.rule["ignores"] == ["/tests/**"]
        assert "the 1 in test, fixture or example folders (tests) are left out" in suggestion.why


class TestManifests:
    def test_only_the_workspaces_manifests_with_the_others_named(self) -> None:
        paths = [
            "package.json",
            *(f"packages/p{i}/package.json" for i in range(7)),
            *(f"packages/p{i}/test/apps/basic/package.json" for i in range(3)),
            "playgrounds/basic/package.json",
            "project_template/requirements.txt",
            "templates/starter/requirements.txt",
        ]
        (suggestion,) = suggest(paths)
        assert suggestion.rule["paths"] == ["package.json"]
        assert suggestion.rule["ignores"] == [
            *(f"/packages/p{i}/test/**" for i in range(3)),
            "/playgrounds/**",
        ]
        assert suggestion.why.startswith(
            "8 dependency manifest(s) of the project, e.g. package.json; 6 in examples,"
            " templates, docs or test fixtures are left out (packages/p0/test,"
        )
        assert "project_template/requirements.txt" not in str(suggestion.rule)

    def test_a_few_manifests_are_named_one_by_one(self, repo: Path, capsys: Capture) -> None:
        write(repo, "pyproject.toml", "")
        write(repo, "docs/requirements.txt", "")
        write(repo, "tests/fixtures/app/package.json", "{}")
        commit(repo)
        rules = init(repo, capsys)
        assert rules["dependency-reason"]["paths"] == ["/pyproject.toml"]


class TestCoChange:
    def test_any_pair_of_globs_with_its_count(self, repo: Path, capsys: Capture) -> None:
        """Django's CHANGELOG.txt with its docs/releases/*.md, mined from real commits; the
        pair is nobody's fixed list."""
        write(repo, "CHANGELOG.txt", "0\n")
        for release in range(3):
            write(repo, f"docs/releases/{release}.md", "0\n")
        write(repo, "src/app.py", "0\n")
        commit(repo, "start")
        for index in range(1, 10):
            write(repo, "CHANGELOG.txt", f"{index}\n")
            write(repo, f"docs/releases/{index % 3}.md", f"{index}\n")  # the release's notes
            write(repo, f".changeset/change-{index}.md", "patch\n")  # a note added afresh
            commit(repo, f"release {index}")
            write(repo, "src/app.py", f"{index}\n")
            commit(repo, f"work {index}")
        assert main(["--repo", str(repo), "init"]) == 0
        out = capsys.readouterr().out
        assert (
            "docs/releases/*.md changed in 9 of the 9 recent commits that changed CHANGELOG.txt"
            " (of the last 18 first-parent commits)"
        ) in out
        rules = init(repo, capsys)
        # .changeset/*.md came with every CHANGELOG.txt edit too, but each commit added its own:
        # whether a change needs a note is the author's call, not a habit history can show.
        (rule,) = [r for r in rules.values() if r["id"].startswith("co-change")]
        assert rule["paths"] == ["/CHANGELOG.txt"]
        assert rule["require"] == ["/docs/releases/*.md"]
        commit(repo, "rules")
        git(repo, "checkout", "-q", "-b", "work")
        write(repo, "CHANGELOG.txt", "new\n")
        commit(repo, "changelog alone")
        assert main(["--repo", str(repo), "rules", "check", "--committed", "--base", "main"]) == 0
        assert f"{rule['id']}" in capsys.readouterr().out  # reported as a warning

    def test_a_habit_of_fewer_commits_or_a_test_only_trigger_is_none(
        self, repo: Path, capsys: Capture
    ) -> None:
        write(repo, "src/a.py", "0\n")
        write(repo, "tests/test_a.py", "0\n")
        write(repo, "NEWS.md", "0\n")
        commit(repo)
        for index in range(1, 10):  # tests always with the source: no rule for tests alone
            write(repo, "tests/test_a.py", f"{index}\n")
            write(repo, "src/a.py", f"{index}\n")
            if index % 2:
                write(repo, "NEWS.md", f"{index}\n")  # 5 of 9: not the project's habit
            commit(repo, f"work {index}")
        assert main(["--repo", str(repo), "init"]) == 0
        out = capsys.readouterr().out
        assert "co-change-tests" not in out
        assert "NEWS.md changed" not in out
        assert "tests/test_a.py changed" not in out  # a test companion is a sibling rule's

    def test_a_docs_edit_is_never_asked_for_a_code_change(
        self, repo: Path, capsys: Capture
    ) -> None:
        """flask's docs/api.rst changed only with src/flask/*.py in its last 300 commits, yet a
        typo fix in the docs needs no code: documentation follows code, not the other way."""
        write(repo, "docs/api.rst", "0\n")
        write(repo, "src/a.py", "0\n")
        write(repo, "src/b.py", "0\n")
        commit(repo)
        for index in range(1, 10):
            write(repo, "docs/api.rst", f"{index}\n")
            write(repo, "src/a.py", f"{index}\n")
            commit(repo, f"api {index}")
            write(repo, "src/b.py", f"{index}\n")
            commit(repo, f"work {index}")
        assert main(["--repo", str(repo), "init"]) == 0
        out = capsys.readouterr().out
        assert "that changed docs/api.rst" not in out
        assert "docs/api.rst changed in 9 of the 9 recent commits that changed src/a.py" in out

    def test_no_tests_or_tool_folders_asked_for(self, repo: Path, capsys: Capture) -> None:
        """saleor's shop mutations changed with their tests in 11 of 11 commits, and the next
        one removed a mutation with its test-free helper: whether a change needs its tests
        changed is a sibling rule's question, not a habit. sveltekit's version.js changed with
        changesets' own .changeset/pre.json, which a release bot keeps: not the author's."""
        write(repo, "src/a.py", "0\n")
        write(repo, "tests/test_a.py", "0\n")
        write(repo, "src/version.js", "0\n")
        write(repo, ".changeset/pre.json", "0\n")
        commit(repo)
        for index in range(1, 10):
            write(repo, "src/a.py", f"{index}\n")
            write(repo, "tests/test_a.py", f"{index}\n")
            commit(repo, f"work {index}")
            write(repo, "src/version.js", f"{index}\n")
            write(repo, ".changeset/pre.json", f"{index}\n")
            commit(repo, f"release {index}")
        assert main(["--repo", str(repo), "init"]) == 0
        out = capsys.readouterr().out
        assert "tests/test_a.py changed" not in out
        assert ".changeset" not in out

    def test_a_bots_commits_are_no_habit(self, repo: Path, capsys: Capture) -> None:
        """TanStack query's changesets bot bumped every package's CHANGELOG.md in each `Version
        Packages` commit, and init asked a README edit in one package for another package's
        CHANGELOG.md: what a bot keeps in step by machine no person is asked to keep."""
        for package in ("a", "b"):
            write(repo, f"packages/{package}/CHANGELOG.md", "0\n")
            write(repo, f"packages/{package}/README.md", "0\n")
        write(repo, "src/app.py", "0\n")
        write(repo, "schema/app.json", "0\n")
        commit(repo)
        for index in range(1, 10):
            for package in ("a", "b"):
                write(repo, f"packages/{package}/CHANGELOG.md", f"{index}\n")
            git(repo, "add", "-A")
            git(repo, "commit", "-q", "-m", "ci: Version Packages", "--author", BOT)
            write(repo, "src/app.py", f"{index}\n")
            write(repo, "schema/app.json", f"{index}\n")  # kept in step by people: a habit
            commit(repo, f"work {index}")
        assert main(["--repo", str(repo), "init"]) == 0
        out = capsys.readouterr().out
        assert "CHANGELOG.md changed" not in out
        assert "that changed packages/" not in out
        assert "co-change-schema-app.json (requires): src/app.py changed in 9 of the 9" in out

    def test_a_bots_commit_can_break_a_habit(self, repo: Path, capsys: Capture) -> None:
        """paperless-ngx's people changed src-ui/messages.xlf with src/paperless/*.py in 8 of 8
        commits, and its translation bot changed messages.xlf alone in dozens: leaving the bot's
        commits out of the count suggested a rule that failed every one of them."""
        write(repo, "ui/messages.xlf", "0\n")
        write(repo, "src/settings.py", "0\n")
        commit(repo)
        for index in range(1, 10):
            write(repo, "ui/messages.xlf", f"{index}\n")
            write(repo, "src/settings.py", f"{index}\n")
            commit(repo, f"work {index}")
            write(repo, "ui/messages.xlf", f"{index} translated\n")
            git(repo, "add", "-A")
            git(repo, "commit", "-q", "-m", "Auto translate strings", "--author", BOT)
        assert main(["--repo", str(repo), "init"]) == 0
        out = capsys.readouterr().out
        assert "that changed ui/messages.xlf" not in out
        assert (
            "ui/messages.xlf changed in 9 of the 9 recent commits that changed src/settings.py"
            in out
        )


SVELTE = """closes #<!-- Add the related issue number here -->

<!-- Explain the goal of the PR -->

---

### Please don't delete this checklist!
- [ ] It's really useful if your PR references an issue.

### Tests
- [ ] Run the tests with `pnpm test`

```md
## Not a heading
```
"""

DJANGO = """#### Trac ticket number
<!-- Replace XXXXX with the ticket number. -->

ticket-XXXXX

### Description
<!-- Describe the change. -->

### AI usage
<!-- Did you use AI tools? Write None if you did not. -->

## Checklist
- [ ] This PR targets the `main` branch.
"""


class TestPullRequestTemplate:
    @pytest.mark.parametrize(
        "path",
        [
            ".github/PULL_REQUEST_TEMPLATE.md",
            ".github/pull_request_template.md",
            "PULL_REQUEST_TEMPLATE.md",
            "docs/pull_request_template.md",
            ".github/PULL_REQUEST_TEMPLATE/feature.md",
            "docs/PULL_REQUEST_TEMPLATE/a.md",
            ".gitlab/merge_request_templates/Default.md",
        ],
    )
    def test_every_place_a_forge_reads(self, path: str) -> None:
        assert find_template(["README.md", path, "src/a.py"]) == path

    def test_none_elsewhere(self) -> None:
        assert find_template(["templates/pull_request_template.md", "README.md"]) is None

    def test_headings_keep_their_levels_and_fences_hide_none(self) -> None:
        assert [h for h, _ in template_sections(SVELTE)] == [
            "### Please don't delete this checklist!",
            "### Tests",
        ]

    def test_only_headings_a_description_reader_sees(self) -> None:
        """A heading inside an HTML block or indented code is none when cagr reads the filled-in
        description: a rule for it would fail every pull request made from the template."""
        template = "<details>\n### Hidden\n</details>\n\n    ### Code\n\n### Seen\nx\n"
        assert template_sections(template) == [("### Seen", "x\n")]

    def test_sections_levels_and_the_answers_it_asks_for(self) -> None:
        rules, answer = suggest_from_template(".github/pull_request_template.md", DJANGO)
        found = {s.rule["section"]: s.rule for s in rules}
        assert list(found) == [
            "#### Trac ticket number", "### Description", "### AI usage", "## Checklist",
        ]  # fmt: skip
        assert answer == "### Description"
        assert "placeholders" not in found["### Description"]
        # The template offers None as an answer: None is no placeholder there.
        assert "NONE" not in found["### AI usage"]["placeholders"]
        assert "TODO" in found["### AI usage"]["placeholders"]
        assert found["## Checklist"]["reason"] == (
            "Keep the PR template's `## Checklist` checklist in the description."
        )
        assert found["## Checklist"]["checklist"] is True
        assert not any("checklist" in found[h] for h in list(found)[:3])
        (prose,) = [e["pr_body"] for e in found["## Checklist"]["examples"]["invalid"][1:]]
        assert prose.startswith("## Checklist\n")  # the heading kept, its items gone

    @pytest.mark.parametrize(
        ("raw", "checklist"),
        [
            ("- [ ] tests\n", True),
            ("1. [x] tests\n", True),
            ("* text\n  - [X] nested\n", True),
            ("<!-- - [ ] a hidden box -->\nSay what you checked.\n", False),
            ("```\n- [ ] code\n```\n", False),
            ("- [ ]tests\n", False),
        ],
    )
    def test_a_checklist_is_a_task_item_as_a_description_reads_it(
        self, raw: str, checklist: bool
    ) -> None:
        (rule,) = suggest_from_template("t.md", f"## Checklist\n{raw}")[0]
        assert rule.rule.get("checklist", False) is checklist

    def test_init_uses_the_template_and_its_rules_judge_bodies(
        self, repo: Path, capsys: Capture
    ) -> None:
        write(repo, ".github/pull_request_template.md", DJANGO)
        write(repo, "pyproject.toml", '[project]\nname = "x"\ndependencies = []\n')
        commit(repo)
        rules = init(repo, capsys)
        assert rules["dependency-reason"]["section"] == "### Description"
        assert rules["pr-template-ai-usage"]["section"] == "### AI usage"
        commit(repo, "rules")
        git(repo, "checkout", "-q", "-b", "work")
        write(repo, "README.md", "x\n")
        commit(repo, "work")
        body = repo.parent / "body.md"
        for text, wanted in (
            (DJANGO, False),  # the template as it comes: nothing answered
            (DJANGO.replace("<!-- Describe the change. -->", "Fixes a bug.")
             .replace("ticket-XXXXX", "ticket-1").replace("<!-- Did you use", "None <!--"), True),
        ):  # fmt: skip
            body.write_text(text)
            argv = ["--repo", str(repo), "rules", "check", "--committed", "--base", "main"]
            main([*argv, "--body-file", str(body), "--format", "json"])
            out = capsys.readouterr().out
            fired = {
                f'"rule": "{i}"' in out for i in ("pr-template-description", "pr-template-ai-usage")
            }
            assert fired == {not wanted}, out
        # django-cms #8774: the checklist's heading kept, its items replaced by prose.
        filled = DJANGO.replace("- [ ] This PR", "- [x] This PR")
        for text, wanted in (
            (filled, True),
            (DJANGO, True),  # unticked boxes are a checklist kept
            (filled.replace("- [x] This PR targets", "I made sure this PR targets"), False),
        ):
            body.write_text(text)
            argv = ["--repo", str(repo), "rules", "check", "--committed", "--base", "main"]
            main([*argv, "--body-file", str(body), "--format", "json"])
            out = capsys.readouterr().out
            assert ('"rule": "pr-template-checklist"' not in out) == wanted, out

    def test_bots_that_commit_here_are_waived_from_the_template(
        self, repo: Path, capsys: Capture
    ) -> None:
        """django-cms: 44 of 150 commits were dependabot's, whose pull requests fill in no
        template; each template rule would have warned on every one of them."""
        write(repo, ".github/pull_request_template.md", DJANGO)
        commit(repo)
        write(repo, "requirements.txt", "x==2\n")
        git(repo, "add", "-A")
        dependabot = "dependabot[bot] <49699333+dependabot[bot]@users.noreply.github.com>"
        git(repo, "commit", "-q", "-m", "build(deps): bump x", "--author", dependabot)
        write(repo, "README.md", "y\n")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "docs", "--author", BOT)  # github-actions[bot]
        rules = init(repo, capsys)
        wanted = ["dependabot[bot]", "github-actions[bot]"]
        assert rules["pr-template-description"]["waive_authors"] == wanted
        assert "waive_authors" not in rules.get("dependency-reason", {})

    def test_descriptions_keep_the_rules_the_team_meets_and_withhold_the_rest(
        self, repo: Path, capsys: Capture
    ) -> None:
        """django-cms: its maintainer answers `## Summary by Sourcery`, not the template's
        `## Description`; a rule for it would have warned on 21 of 31 merged pull requests."""
        write(repo, ".github/pull_request_template.md", DJANGO)
        commit(repo)
        write(repo, "README.md", "y\n")
        git(repo, "add", "-A")
        dependabot = "dependabot[bot] <49699333+dependabot[bot]@users.noreply.github.com>"
        git(repo, "commit", "-q", "-m", "build(deps): bump x", "--author", dependabot)
        answered = "#### Trac ticket number\nticket-12\n### Description\nFixes the cache.\n"
        bodies = [answered] * 5 + ["## Summary by Sourcery\nFixes it.\n"]
        export = repo.parent / "prs.json"
        pulls = [_pull_request(n, b) for n, b in enumerate(bodies, 1)]
        pulls.append(_pull_request(7, "Bumps x.", "app/dependabot"))  # waived: not counted
        export.write_text(json.dumps(pulls))
        argv = ["--repo", str(repo), "init", "--force", "--body-from", str(export)]
        assert main(argv) == 0
        out = capsys.readouterr().out
        text = (repo / ".cagr" / "changes.toml").read_text()
        rules = {r["id"]: r for r in tomllib.loads(uncomment(text))["changes"]["rules"]}
        assert sorted(rules) == ["pr-template-description", "pr-template-trac-ticket-number"]
        assert "5 of the 6 merged pull requests' descriptions given meet it" in text
        for withheld in ("pr-template-ai-usage", "pr-template-checklist"):
            assert f"# Not suggested: {withheld}: 0 of the 6 merged" in text
            assert f"not suggested: {withheld}:" in out
        assert "0 of the 6 merged pull requests' descriptions given meet it" in out
        (repo / ".cagr" / "changes.toml").write_text(uncomment(text))
        assert main(["--repo", str(repo), "rules", "test"]) == 0

    def test_too_few_descriptions_tell_nothing(self, repo: Path) -> None:
        write(repo, ".github/pull_request_template.md", DJANGO)
        commit(repo)
        export = repo.parent / "prs.json"
        export.write_text(json.dumps([_pull_request(1, "no headings")]))
        assert main(["--repo", str(repo), "init", "--force", "--body-from", str(export)]) == 0
        text = (repo / ".cagr" / "changes.toml").read_text()
        assert "Not suggested" not in text
        assert (
            "0 of the 1 merged pull requests' descriptions given meet it (too few to tell)" in text
        )

    def test_an_unreadable_export_writes_nothing(self, repo: Path, capsys: Capture) -> None:
        write(repo, ".github/pull_request_template.md", DJANGO)
        commit(repo)
        export = repo.parent / "prs.json"
        export.write_text("{")
        assert main(["--repo", str(repo), "init", "--body-from", str(export)]) == 2
        assert "--body-from: the pull-request export" in capsys.readouterr().err
        assert not (repo / ".cagr").exists()
        assert main(["--repo", str(repo), "init", "--hooks", "claude", "--body-from", "x"]) == 2

    def test_a_template_without_a_section_to_answer_is_told_so(self) -> None:
        paths = ["pyproject.toml", ".github/PULL_REQUEST_TEMPLATE.md"]
        templates = {".github/PULL_REQUEST_TEMPLATE.md": SVELTE}
        dependency, *body = suggest(paths, None, templates.get)
        assert dependency.rule["section"] == "Risk"
        assert dependency.why.endswith(
            ".github/PULL_REQUEST_TEMPLATE.md has no section left for an answer: add `## Risk`"
            " to it"
        )
        assert [s.rule["section"] for s in body] == [
            "### Please don't delete this checklist!",
            "### Tests",
        ]


def _pull_request(number: int, body: str, login: str | None = None) -> dict[str, object]:
    """One merged pull request as `gh pr list --json number,body,mergeCommit,author` prints it
    (an app's login as gh writes it: `app/NAME`)."""
    login = login or f"person{number}"
    return {
        "number": number,
        "body": body,
        "mergeCommit": {"oid": f"{number:040x}"},
        "author": {"login": login, "is_bot": login.startswith("app/")},
    }
