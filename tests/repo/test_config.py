"""Loading configuration from a checkout: sources, combination, and every error at once."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cagr_repo.config import ConfigErrors, load_config
from tests.support.configs import rule
from tests.support.git import write


def errors(root: Path) -> list[str]:
    with pytest.raises(ConfigErrors) as caught:
        load_config(root)
    return [str(issue) for issue in caught.value.issues]


class TestSources:
    def test_no_config_means_no_rules(self, repo: Path) -> None:
        assert load_config(repo).rules.rules == ()

    @pytest.mark.parametrize(
        ("name", "prefix"),
        [
            ("cagr.toml", ""),
            ("pyproject.toml", "tool.cagr."),
            (".cagr/changes.toml", ""),
            (".cagr/nested/deeper/more.toml", ""),
        ],
    )
    def test_root_pyproject_and_nested_fragments_agree(
        self, repo: Path, name: str, prefix: str
    ) -> None:
        write(repo, name, rule(prefix=prefix))
        loaded = load_config(repo)
        reference = repo.parent / "reference"
        reference.mkdir()
        write(reference, "cagr.toml", rule())
        assert loaded.loaded.config == load_config(reference).loaded.config
        assert loaded.rules_digest == load_config(reference).rules_digest
        assert loaded.loaded.source_of("schema") == name

    def test_pyproject_without_tool_cagr_is_not_config(self, repo: Path) -> None:
        write(repo, "pyproject.toml", '[project]\nname = "x"\n')
        assert load_config(repo).loaded.config.changes.rules == ()

    def test_tables_add_up_and_empty_arrays_do_not_erase(self, repo: Path) -> None:
        write(repo, "cagr.toml", rule("a") + '\n[stack]\non_turn_end = [{ run = "make lint" }]\n')
        write(repo, ".cagr/b.toml", rule("b"))
        write(repo, ".cagr/empty.toml", "[changes]\nrules = []\n[stack]\non_turn_end = []\n")
        config = load_config(repo).loaded.config
        assert [r.id for r in config.changes.rules] == ["a", "b"]
        assert [c.run for c in config.stack.on_turn_end] == ["make lint"]

    def test_review_evals_is_not_config(self, repo: Path) -> None:
        write(repo, ".cagr/review-evals/case.toml", "this is = not [valid")
        assert load_config(repo).rules.rules == ()

    def test_scalars_set_twice_are_an_error(self, repo: Path) -> None:
        write(repo, "cagr.toml", '[git]\nprotected_branch = "main"\n')
        write(repo, ".cagr/git.toml", '[git]\nprotected_branch = "trunk"\n')
        assert errors(repo) == [
            ".cagr/git.toml: git.protected_branch: already set in cagr.toml; set it in one file only"
        ]

    def test_git_review_and_stack_keys(self, repo: Path) -> None:
        write(
            repo,
            "cagr.toml",
            '[git]\nprotected_branch = "trunk"\n[review]\npr_sections = ["Summary", "Risk"]\n'
            '[[stack.ci]]\nrun = "make check"\npaths = ["src/**"]\n',
        )
        config = load_config(repo).loaded.config
        assert config.git.protected_branch == "trunk"
        assert config.review.pr_sections == ("Summary", "Risk")
        assert config.stack.ci[0].paths == ("src/**",)


class TestDigests:
    def test_rules_digest_is_stable_across_formatting_and_order(self, repo: Path) -> None:
        write(repo, "cagr.toml", rule("a") + rule("b"))
        first = load_config(repo)
        write(repo, "cagr.toml", "# reordered and reformatted\n" + rule("b") + "\n\n" + rule("a"))
        second = load_config(repo)
        assert first.rules_digest == second.rules_digest
        assert first.raw_digest != second.raw_digest

    def test_rules_digest_changes_with_meaning(self, repo: Path) -> None:
        write(repo, "cagr.toml", rule("a"))
        first = load_config(repo).rules_digest
        write(repo, "cagr.toml", rule("a").replace("Regenerate", "Rebuild"))
        assert load_config(repo).rules_digest != first


class TestErrors:
    def test_duplicate_ids_name_both_sources(self, repo: Path) -> None:
        write(repo, "cagr.toml", rule("same"))
        write(repo, ".cagr/other.toml", rule("same"))
        (message,) = errors(repo)
        assert message.startswith(".cagr/other.toml: changes.rules[0] (id 'same'):")
        assert "already used in cagr.toml" in message

    def test_malformed_toml_keeps_line_and_column(self, repo: Path) -> None:
        write(repo, ".cagr/bad.toml", 'ok = 1\nbroken = "unterminated\n')
        (message,) = errors(repo)
        assert message.startswith(".cagr/bad.toml: is not valid TOML:")
        assert "line 2" in message

    def test_every_error_at_once_across_files(self, repo: Path) -> None:
        write(
            repo,
            "cagr.toml",
            rule("a").replace('reason = "Regenerate schema.json."', 'reason = "  "'),
        )
        write(
            repo,
            ".cagr/x.toml",
            rule("b").replace('kind = "requires"', 'kind = "requires"\nfoo = 1'),
        )
        write(repo, ".cagr/y.toml", "[[changes.rules]]\nid = 3\n")
        found = errors(repo)
        assert len(found) == 3
        assert (
            found[0]
            == "cagr.toml: changes.rules[0] (id 'a').reason: cannot be blank; say what to do instead"
        )
        assert found[1].startswith(".cagr/x.toml: changes.rules[0] (id 'b'): unknown key foo")
        assert found[2] == (
            ".cagr/y.toml: changes.rules[0]: `kind` must be one of 'requires', 'add_only',"
            " 'sibling', 'pr_body', got None"
        )

    def test_key_and_type_errors_come_with_glob_and_template_errors(self, repo: Path) -> None:
        """One round: a rule with an unknown key, another with a wrong type, beside rules whose
        glob, template and example are wrong, in one file."""
        text = "\n".join(
            (
                rule("keyed").replace('kind = "requires"', 'kind = "requires"\nbogus = 1'),
                rule("typed").replace('reason = "Regenerate schema.json."', "reason = 5"),
                rule("globbed").replace('paths = ["src/schema.py"]', 'paths = ["src/**["]'),
                rule("templated").replace('require = ["schema.json"]', 'require = ["{nope}.json"]'),
                rule("keyed-too").replace(
                    'kind = "requires"', 'kind = "requires"\nbogus = 1\nignores = ["a/**b"]'
                ),
            )
        )
        write(repo, "cagr.toml", text)
        found = errors(repo)
        ids = [f.split("(id ")[1].split(")")[0] for f in found]
        assert ids == sorted(
            ids, key=["'keyed'", "'typed'", "'globbed'", "'templated'", "'keyed-too'"].index
        )
        said = "\n".join(found)
        assert "(id 'keyed'): unknown key bogus" in said
        assert "(id 'typed').reason: expected a string" in said
        assert "(id 'globbed').paths[0]: pattern 'src/**['" in said
        assert "(id 'templated').require[0]:" in said
        assert "(id 'keyed-too').ignores[0]: pattern 'a/**b'" in said  # beside its key error

    @pytest.mark.parametrize(
        ("edit", "said"),
        [
            (
                ('paths = ["src/schema.py"]', 'paths = "src/schema.py"'),
                "paths: expected an array, got a string",
            ),
            (('paths = ["src/schema.py"]', "paths = []"), "paths: list at least one glob"),
            (
                ('require = ["schema.json"]', 'require = ["../schema.json"]'),
                "require[0]: pattern '../schema.json': no .. components",
            ),
            (('kind = "requires"', 'kind = "requires"\ntarget = "x"'), "unknown key target"),
            (('id = "x"', 'id = "has space"'), "id: use letters, digits"),
            (
                ('status = "M" }] }]\nexamples.valid', 'status = "R" }] }]\nexamples.valid'),
                "status: expected one of 'A', 'M', 'D', 'T', got 'R'",
            ),
            (("examples.invalid = [", "examples.invalidx = ["), "unknown key invalidx"),
        ],
    )
    def test_rule_errors(self, repo: Path, edit: tuple[str, str], said: str) -> None:
        write(repo, "cagr.toml", rule("x").replace(*edit))
        found = errors(repo)
        assert any(said in message for message in found), found

    def test_examples_are_required(self, repo: Path) -> None:
        text = "\n".join(line for line in rule("x").splitlines() if not line.startswith("examples"))
        write(repo, "cagr.toml", text)
        found = errors(repo)
        assert [m.split(": ")[1] for m in found] == [
            "changes.rules[0] (id 'x').examples.valid",
            "changes.rules[0] (id 'x').examples.invalid",
        ]

    def test_impossible_fixture(self, repo: Path) -> None:
        write(
            repo, "cagr.toml", rule("x").replace('status = "A" }', 'status = "A", before = "old" }')
        )
        (message,) = errors(repo)
        assert message.endswith(
            "examples.valid[0]: schema.json: an addition has no before side; remove `before`"
        )

    def test_escaping_template(self, repo: Path) -> None:
        write(
            repo,
            "cagr.toml",
            '[[changes.rules]]\nid = "s"\nkind = "sibling"\npaths = ["*.py"]\n'
            'target = "../{name}_test.py"\nreason = "Add a test."\n'
            'examples.invalid = [{ changes = [{ path = "a.py", status = "A" }] }]\n'
            'examples.valid = [{ changes = [{ path = "a.py", status = "A" }, { path = "a_test.py", status = "A" }] }]\n',
        )
        (message,) = errors(repo)
        assert (
            "target: target template '../{name}_test.py': no .. components in a target" in message
        )
        assert message.endswith("  ../{name}_test.py\n  ^^")

    def test_dependency_selector_needs_content(self, repo: Path) -> None:
        write(
            repo,
            "cagr.toml",
            '[[changes.rules]]\nid = "d"\nkind = "pr_body"\npaths = ["package.json"]\n'
            'when = "dependency_added"\nsection = "Risk"\nreason = "Explain it."\n'
            'examples.invalid = [{ changes = [{ path = "package.json", status = "M", after = "{}" }], pr_body = "" }]\n'
            'examples.valid = [{ changes = [{ path = "README.md", status = "M" }] }]\n',
        )
        (message,) = errors(repo)
        assert "package.json needs `before` content" in message

    def test_when_only_on_requires_and_pr_body(self, repo: Path) -> None:
        write(
            repo,
            "cagr.toml",
            rule("x")
            .replace('kind = "requires"', 'kind = "add_only"')
            .replace('require = ["schema.json"]', 'when = "changed"'),
        )
        (message,) = errors(repo)
        assert "unknown key when" in message

    def test_wrong_types_in_other_tables(self, repo: Path) -> None:
        write(
            repo,
            "cagr.toml",
            '[git]\nprotected_branch = 3\n[review]\npr_sections = "Risk"\n[stack]\nci = [{ paths = ["x/"] }]\n',
        )
        found = errors(repo)
        assert "cagr.toml: git.protected_branch: expected a string, got an integer" in found
        assert "cagr.toml: review.pr_sections: expected an array, got a string" in found
        assert "cagr.toml: stack.ci[0].run: a required key is missing" in found

    def test_a_boolean_is_true_or_false_not_any_value(self, repo: Path) -> None:
        # cattrs alone took bool("false"): a layout rule that forbade what it meant to name.
        layout = '[[layout.rules]]\nid = "a"\npaths = ["x/**"]\nforbid = "false"\nreason = "r"\n'
        write(repo, "cagr.toml", layout)
        (message,) = errors(repo)
        assert (
            message
            == "cagr.toml: layout.rules[0] (id 'a').forbid: expected true or false, got a string"
        )

    def test_a_value_where_a_table_belongs_is_named_so(self, repo: Path) -> None:
        write(
            repo,
            "cagr.toml",
            'git = "main"\n[changes]\nrules = [3]\n[stack]\nci = ["pytest -q"]\n',
        )
        found = errors(repo)
        assert "cagr.toml: git: expected a table, got a string" in found
        assert "cagr.toml: stack.ci[0]: expected a table, got a string" in found
        assert all("AttributeError" not in f and "iterable" not in f for f in found), found

    def test_unknown_top_level_table(self, repo: Path) -> None:
        write(repo, "cagr.toml", "[change]\nrules = []\n")
        (message,) = errors(repo)
        assert (
            message == "cagr.toml: unknown key change (did you mean `changes`?); the keys here are:"
            " changes, code, layout, guards, git, review, stack"
        )

    def test_a_key_one_edit_away_is_suggested(self, repo: Path) -> None:
        write(repo, "cagr.toml", rule("x").replace("require = ", "requires = "))
        found = errors(repo)
        assert (
            "cagr.toml: changes.rules[0] (id 'x'): unknown key requires (did you mean"
            " `require`?); the keys here are: id, kind, paths, ignores, when, format, require,"
            " ignore_dependencies, reason, note, severity, waive_label, waive_authors, examples"
        ) in found
        write(
            repo, "cagr.toml", rule("x").replace("reason = ", "raeson = ").replace("ignores", "x")
        )
        assert any("unknown key raeson (did you mean `reason`?)" in m for m in errors(repo))
        write(repo, "cagr.toml", rule("x").replace("reason = ", "motive = "))
        assert any("unknown key motive; the keys here are" in m for m in errors(repo))

    def test_tool_cagr_must_be_a_table(self, repo: Path) -> None:
        write(repo, "pyproject.toml", '[tool]\ncagr = "yes"\n')
        assert errors(repo) == ["pyproject.toml: tool.cagr: must be a table"]


class TestFiles:
    def test_fragment_that_is_a_directory(self, repo: Path) -> None:
        (repo / ".cagr" / "odd.toml").mkdir(parents=True)
        assert errors(repo) == [".cagr/odd.toml: is a directory, not a TOML file; rename it"]

    def test_unreadable_fragment(self, repo: Path) -> None:
        (repo / ".cagr").mkdir()
        os.symlink("missing.toml", repo / ".cagr" / "dangling.toml")
        (message,) = errors(repo)
        assert message.startswith(".cagr/dangling.toml: cannot be read")

    def test_fragment_linking_outside_the_repository(self, repo: Path) -> None:
        outside = repo.parent / "outside.toml"
        outside.write_text(rule())
        (repo / ".cagr").mkdir()
        os.symlink(outside, repo / ".cagr" / "link.toml")
        assert errors(repo) == [
            ".cagr/link.toml: links outside the repository (to an absolute path, which git keeps"
            " as text and another clone does not have); cagr follows only relative links that"
            " stay inside it"
        ]

    def test_not_utf8(self, repo: Path) -> None:
        (repo / "cagr.toml").write_bytes(b'[git]\nprotected_branch = "\xff"\n')
        (message,) = errors(repo)
        assert message.startswith("cagr.toml: is not UTF-8")


def test_every_problem_of_one_rule_at_once(repo: Path) -> None:
    write(
        repo,
        "cagr.toml",
        '[[changes.rules]]\nid = "s"\nkind = "sibling"\npaths = ["src/"]\nignores = ["!x"]\n'
        'target = "{dir}/{Nme}"\nreason = " "\n',
    )
    found = [m.split(": ", 2)[1] for m in errors(repo)]
    assert found == [
        "changes.rules[0] (id 's').reason",
        "changes.rules[0] (id 's').paths[0]",
        "changes.rules[0] (id 's').ignores[0]",
        "changes.rules[0] (id 's').target",
        "changes.rules[0] (id 's').examples.valid",
        "changes.rules[0] (id 's').examples.invalid",
    ]
