"""Structuring config data: strict types, and a lossless round trip for valid rules."""

from __future__ import annotations

from typing import Any

import jsonschema
from hypothesis import given
from hypothesis import strategies as st

from cagr_config.document import ChangesConfig, Config
from cagr_config.examples import Example, Examples, FixtureChange
from cagr_config.rules import AddOnlyRule, PrBodyRule, RequiresRule, SiblingRule, When
from cagr_config.schema import json_schema
from cagr_config.validate import CONVERTER, rules_digest, structure_config
from cagr_core.changes import Status

ids = st.from_regex(r"[a-z][a-z0-9_-]{0,10}", fullmatch=True)
globs = st.lists(
    st.sampled_from(["src/**", "*.py", "/package.json", "docs/*.{md,rst}"]), min_size=1, max_size=3
)
# What the dependency selector can read, and a format that reads anything as requirements.
manifest_globs = st.lists(
    st.sampled_from(["src/**", "/package.json", "requirements/*.txt", "**/Cargo.toml"]),
    min_size=1,
    max_size=3,
)
selectors = st.one_of(
    st.fixed_dictionaries({"when": st.just(When.CHANGED), "paths": globs}),
    st.fixed_dictionaries(
        {
            "when": st.just(When.DEPENDENCY_ADDED),
            "paths": manifest_globs,
            "format": st.none() | st.just("requirements"),
        }
    ),
    st.fixed_dictionaries(
        {"when": st.just(When.DEPENDENCY_ADDED), "paths": globs, "format": st.just("requirements")}
    ),
)


def _just(values: dict[str, Any]) -> dict[str, Any]:
    return {key: st.just(value) for key, value in values.items()}


texts = st.text(alphabet="abc XYZ.`", min_size=1, max_size=20).filter(str.strip)
examples = st.builds(
    Examples,
    valid=st.just([Example(changes=[FixtureChange(path="a", status=Status.ADDED)])]),
    invalid=st.just(
        [Example(changes=[FixtureChange(path="b", status=Status.DELETED)], pr_body="")]
    ),
)
rules = st.one_of(
    selectors.flatmap(
        lambda selector: st.builds(
            RequiresRule, id=ids, require=globs, reason=texts, examples=examples, **_just(selector)
        )
    ),
    st.builds(
        AddOnlyRule, id=ids, paths=globs, reason=texts, note=st.none() | texts, examples=examples
    ),
    st.builds(
        SiblingRule,
        id=ids,
        paths=globs,
        target=st.just("{dir}/test_{name}.{ext}"),
        reason=texts,
        examples=examples,
    ),
    selectors.flatmap(
        lambda selector: st.builds(
            PrBodyRule,
            id=ids,
            section=texts,
            contains=st.none() | texts,
            reason=texts,
            examples=examples,
            **_just(selector),
        )
    ),
)


def _toml_shaped(value: Any) -> Any:
    """TOML has no null: drop None values, as a TOML file would simply leave the key out."""
    if isinstance(value, dict):
        return {k: _toml_shaped(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_toml_shaped(v) for v in value]
    return value


class TestRoundTrip:
    """Unstructure then structure gives the same rule; the data is valid for the schema too."""

    @given(st.lists(rules, max_size=4, unique_by=lambda r: r.id))
    def test_round_trip(self, generated: list) -> None:
        config = Config(changes=ChangesConfig(rules=tuple(generated)))
        data = {"changes": _toml_shaped(CONVERTER.unstructure(config)["changes"])}
        structured, issues = structure_config(data, "x.toml")
        assert issues == []
        assert structured == config
        assert not list(jsonschema.Draft7Validator(json_schema()).iter_errors(data))

    @given(
        st.lists(rules, min_size=1, max_size=4, unique_by=lambda r: r.id),
        st.randoms(use_true_random=False),
    )
    def test_digest_ignores_order(self, generated: list, rng) -> None:
        shuffled = generated[:]
        rng.shuffle(shuffled)
        assert rules_digest(generated) == rules_digest(shuffled)


class TestStrictness:
    @given(
        st.one_of(
            st.integers(),
            st.booleans(),
            st.floats(allow_nan=False),
            st.lists(st.integers(), min_size=1),
        )
    )
    def test_a_string_key_never_accepts_another_type(self, value: object) -> None:
        config, issues = structure_config({"git": {"protected_branch": value}}, "x.toml")
        assert config is None
        assert issues[0].where == "git.protected_branch"

    @given(
        st.dictionaries(st.text(min_size=1, max_size=5), st.integers(), min_size=1).filter(
            lambda d: not set(d) <= {"changes", "git", "review", "stack"}
        )
    )
    def test_unknown_top_level_keys_are_rejected(self, data: dict) -> None:
        config, issues = structure_config(data, "x.toml")
        assert config is None
        assert issues
