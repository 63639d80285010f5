"""Combining per-source configs: table lists add up; scalars and ids may not collide."""

from cagr_config.document import (
    ChangesConfig,
    Config,
    GitConfig,
    ReviewConfig,
    StackCommand,
    StackConfig,
    combine,
)
from cagr_config.rules import AddOnlyRule


def _rule(rule_id: str) -> AddOnlyRule:
    return AddOnlyRule(id=rule_id, paths=["m/**"], reason="Add a new file.")


def test_lists_add_up_in_source_order() -> None:
    first = Config(
        changes=ChangesConfig(rules=(_rule("a"),)), stack=StackConfig(ci=(StackCommand(run="x"),))
    )
    second = Config(
        changes=ChangesConfig(rules=(_rule("b"),)), stack=StackConfig(ci=(StackCommand(run="y"),))
    )
    loaded, issues = combine([("one.toml", first), ("two.toml", second)])
    assert issues == []
    assert [r.id for r in loaded.config.changes.rules] == ["a", "b"]
    assert [c.run for c in loaded.config.stack.ci] == ["x", "y"]
    assert loaded.source_of("b") == "two.toml"


def test_empty_sources_change_nothing() -> None:
    only = Config(
        changes=ChangesConfig(rules=(_rule("a"),)), review=ReviewConfig(pr_sections=("Risk",))
    )
    loaded, issues = combine([("a.toml", Config()), ("b.toml", only), ("c.toml", Config())])
    assert issues == []
    assert loaded.config == only


def test_collisions_name_both_sources() -> None:
    one = Config(changes=ChangesConfig(rules=(_rule("a"),)), git=GitConfig(protected_branch="main"))
    loaded, issues = combine([("one.toml", one), ("two.toml", one)])
    assert [str(i) for i in issues] == [
        "two.toml: changes.rules[0] (id 'a'): the id 'a' is already used in one.toml"
        " (changes.rules); ids are unique across all rules (change, code, layout and guard"
        " rules): rename one",
        "two.toml: git.protected_branch: already set in one.toml; set it in one file only",
    ]
    assert loaded.config.git.protected_branch == "main"
