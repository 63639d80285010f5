"""Compiling rules: ids, patterns and templates checked once, manifest paths found."""

import pytest

from cagr_config.compile import compile_rules
from cagr_config.rules import RequiresRule, SiblingRule
from cagr_core.errors import RuleError
from tests.support.rules import DEPENDENCY_REASON


class TestRuleSet:
    def test_duplicate_ids(self) -> None:
        rule = RequiresRule(id="x", paths=["a"], require=["b"], reason="r")
        with pytest.raises(RuleError, match="two rules share this id"):
            compile_rules([rule, rule])

    def test_bad_pattern_names_rule_and_key(self) -> None:
        rule = RequiresRule(id="x", paths=["a"], require=["b/"], reason="r")
        with pytest.raises(RuleError, match=r"change rule x: require\[0\]: pattern 'b/'"):
            compile_rules([rule])

    def test_identity_target_is_rejected(self) -> None:
        rule = SiblingRule(id="s", paths=["*.py"], target="{dir}/{name}.{ext}", reason="r")
        with pytest.raises(RuleError, match="names the added file itself"):
            compile_rules([rule])

    def test_content_paths_are_those_a_manifest_selector_reads(self) -> None:
        rules = compile_rules(
            [DEPENDENCY_REASON, RequiresRule(id="r", paths=["*"], require=["x"], reason="r")]
        )
        assert rules.content_paths(["package.json", "a/package.json", "src/x.ts"]) == {
            "package.json",
            "a/package.json",
        }
