"""The quick compile (`cagr_config.quick`) is held to the config model's: over generated
configurations, valid and invalid, in one source or several, it gives exactly the compiled form
`load.load_sources` gives, or it defers (None). It never compiles what the model rejects."""

from __future__ import annotations

import copy
from typing import Any

import tomlkit
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from cagr_config import kept
from cagr_config.load import load_sources
from cagr_config.quick import quick_compile

# Values from right to wrong: each key sometimes missing, blank, of another TOML type, unknown.
_IDS = ["a", "b", "rule-1", "x.y_z", "guard.mine", "", " a", "a b", "-a"]
_GLOBS = [
    "src/**", "*.py", "/docs/*.md", "src/{app}/**", "src/{app}/*.py", "{app}/**/x.py", "a//b",
    "!x", "src/", "", " ", "src/**.ts", "src/{a,b}/*.py", "[ab].py", "requirements*.txt",
    "pyproject.toml", "package.json", "x\\{y", "{X}", "{dir}/a", "**/{app}/**", "a/../b",
    "src/{app", "{a,/b}", "tests/test_{app}.py", "CHANGES.md", "migrations/**", "**/*.sql",
]  # fmt: skip
_TEXTS = ["Do it.", "", "  ", "<!-- x -->", "Say **why**.", "x,y", " label", "label"]
_TARGETS = [
    "tests/test_{name}.py", "{dir}/{name}.test{ext}", "tests/{app}/test_{name}.py", "", "{nope}",
    "a/*.py", "docs/{name}.md", "{name}",
]  # fmt: skip
_SECTIONS = ["Risk", "## Risk", "### AI usage", "", "####### x", "#", "Risk ##"]
_BRANCHES = ["main", "origin/main", "HEAD", "@", "", " ", "a..b", "release/1.x", "HEAD~1"]
_COMMANDS = ["git push --force", "terraform destroy", "kubectl delete ns *", "", " ", "rm"]


def _odd(values: list[Any]) -> st.SearchStrategy[Any]:
    """Mostly the listed values, sometimes another TOML type."""
    return st.one_of(
        st.sampled_from(values),
        st.sampled_from(values),
        st.sampled_from(values),
        st.sampled_from([1, True, 2.5, ["x"], {"a": "b"}]),
    )


@st.composite
def _table(draw: st.DrawFn, fields: dict[str, st.SearchStrategy[Any]], required: set[str]) -> Any:
    out: dict[str, Any] = {}
    for key, values in fields.items():
        if key in required:
            if draw(st.integers(0, 19)):  # a required key is seldom left out
                out[key] = draw(values)
        elif draw(st.booleans()):
            out[key] = draw(values)
    if not draw(st.integers(0, 14)):
        out[draw(st.sampled_from(["requires", "pathz", "extra", "examples_"]))] = "x"
    return out


_STRS = st.lists(_odd(_GLOBS), max_size=3)
_CHANGE = _table(
    {
        "path": _odd(["src/app/x.py", "src/x", "CHANGES.md", "a//b", "tests/test_new.py",
                      "src/app/new.py", "requirements.txt", "migrations/1.sql", "src"]),
        "status": _odd(["A", "M", "D", "T", "X", "a"]),
        "before": _odd(["x\n", "y\n", ""]),
        "after": _odd(["x\n", "y\n", ""]),
    },
    {"path", "status"},
)  # fmt: skip
_EXAMPLE = _table(
    {
        "changes": st.lists(_CHANGE, max_size=3),
        "pr_body": _odd(["", "## Risk\nLow.", "## Risk\nTODO", "Dependency reason: x"]),
        "phase": _odd(["ci", "turn", "pr"]),
    },
    {"changes"},
)
_EXAMPLES = _table(
    {"valid": st.lists(_EXAMPLE, max_size=2), "invalid": st.lists(_EXAMPLE, max_size=2)},
    {"valid", "invalid"},
)
_COMMON: dict[str, st.SearchStrategy[Any]] = {
    "id": _odd(_IDS),
    "paths": _STRS,
    "ignores": _STRS,
    "reason": _odd(_TEXTS),
    "note": _odd(_TEXTS),
    "severity": _odd(["error", "warn", "fatal"]),
    "waive_label": _odd(_TEXTS),
    "waive_authors": st.lists(_odd(["renovate[bot]", "", " a", "a,b", "me"]), max_size=2),
    "examples": _EXAMPLES,
}
_REQUIRED = {"id", "paths", "reason", "examples"}
_MANIFEST: dict[str, st.SearchStrategy[Any]] = {
    "when": _odd(["changed", "added", "dependency_added", "dependency_changed", "never"]),
    "format": _odd(["requirements", "npm"]),
    "ignore_dependencies": st.lists(_odd(["@types/*", "pytest", "", "a/{b}"]), max_size=2),
}
_REQUIREMENT = st.one_of(
    _odd(_GLOBS), st.fixed_dictionaries({"path": _odd(_GLOBS), "status": _odd(["added", "M"])})
)
_CHANGE_RULES = {
    "requires": _table(
        {**_COMMON, **_MANIFEST, "require": st.lists(_REQUIREMENT, max_size=2)},
        _REQUIRED | {"require"},
    ),
    "add_only": _table(
        {**_COMMON, "ignore_whitespace": _odd(["all-space", "space-at-eol", "-w", "All-Space"])},
        _REQUIRED,
    ),
    "sibling": _table(
        {**_COMMON, "target": st.one_of(_odd(_TARGETS), st.lists(_odd(_TARGETS), max_size=2))},
        _REQUIRED | {"target"},
    ),
    "pr_body": _table(
        {
            **_COMMON,
            **_MANIFEST,
            "section": _odd(_SECTIONS),
            "contains": _odd(["Dependency reason:", "", "x"]),
            "placeholders": st.lists(_odd(["TODO", "-", "", "None"]), max_size=2),
            "checklist": _odd([True, False]),
        },
        _REQUIRED | {"section"},
    ),
}


@st.composite
def _change_rule(draw: st.DrawFn) -> Any:
    kind = draw(_odd(["requires", "add_only", "sibling", "pr_body"]))
    rule = draw(
        _CHANGE_RULES.get(kind, _CHANGE_RULES["add_only"])
        if isinstance(kind, str)
        else _CHANGE_RULES["add_only"]
    )
    if draw(st.integers(0, 19)):
        rule["kind"] = kind
    return rule


_LAYOUT = _table(
    {
        **_COMMON,
        "name": _odd(["snake_case", "kebab-case", "Bogus", "regex:[a-z]+", "regex:("]),
        "forbid": _odd([True, False]),
    },
    _REQUIRED,
)
_GUARD_EXAMPLES = _table(
    {
        "valid": st.lists(
            st.fixed_dictionaries({"command": _odd([*_COMMANDS, "git push"])}), max_size=2
        ),
        "invalid": st.lists(st.fixed_dictionaries({"command": _odd(_COMMANDS)}), max_size=2),
    },
    {"valid", "invalid"},
)
_GUARD = _table(
    {
        "id": _odd(_IDS),
        "commands": st.lists(_odd(_COMMANDS), max_size=2),
        "reason": _odd(_TEXTS),
        "note": _odd(_TEXTS),
        "examples": _GUARD_EXAMPLES,
    },
    {"id", "commands", "reason", "examples"},
)
_STACK_COMMAND = _table({"run": _odd(["pytest -q", "", "make lint"]), "paths": _STRS}, {"run"})
_CODE_RULE = st.fixed_dictionaries(
    {
        "id": st.just("code-1"),
        "language": st.just("python"),
        "paths": st.just(["src/**/*.py"]),
        "rule": st.just({"pattern": "print($A)"}),
        "reason": st.just("No prints."),
    }
)
_CONFIG = _table(
    {
        "changes": st.fixed_dictionaries({"rules": st.lists(_change_rule(), max_size=3)}),
        "layout": st.fixed_dictionaries({"rules": st.lists(_LAYOUT, max_size=2)}),
        "guards": _table(
            {
                "rules": st.lists(_GUARD, max_size=2),
                "disable": st.lists(_odd(["guard.no-verify", "guard.nope"]), max_size=2),
            },
            set(),
        ),
        "code": st.fixed_dictionaries({"rules": st.lists(_CODE_RULE, max_size=1)}),
        "git": _table({"protected_branch": _odd(_BRANCHES)}, set()),
        "review": _table({"pr_sections": st.lists(_odd(_SECTIONS), max_size=2)}, set()),
        "stack": _table(
            {
                "on_turn_end": st.lists(_STACK_COMMAND, max_size=2),
                "ci": st.lists(_STACK_COMMAND, max_size=2),
            },
            set(),
        ),
    },
    set(),
)


# Configurations the model accepts (mostly: a combination may still be rejected), each then
# perhaps mutated in one place: a value replaced by a wrong one, a key removed or one added.
_GOOD_PATHS = ["src/**", "*.py", "/docs/*.md", "src/{a,b}/*.py", "[ab].py", "migrations/**",
               "**/*.sql", "src/{app}/**", "lib/**/*.ts"]  # fmt: skip
_GOOD_IGNORES = ["src/__init__.py", "**/*.md", "vendor/**"]
_GOOD_TEXT = ["Do it.", "Say **why**.", "Add a test."]
_CHANGES = [
    [{"path": "src/x.py", "status": "M"}],
    [{"path": "src/x.py", "status": "A"}, {"path": "CHANGES.md", "status": "M"}],
    [{"path": "src/app/new.py", "status": "A", "after": "x = 1\n"}],
    [{"path": "migrations/1.sql", "status": "D", "before": "x"}],
    [{"path": "docs/a.md", "status": "T", "before": "a", "after": "b"}],
]


@st.composite
def _examples(draw: st.DrawFn) -> dict[str, Any]:
    def one() -> dict[str, Any]:
        example: dict[str, Any] = {"changes": draw(st.sampled_from(_CHANGES))}
        if draw(st.booleans()):
            example["pr_body"] = draw(st.sampled_from(["", "## Risk\nLow."]))
        if draw(st.booleans()):
            example["phase"] = draw(st.sampled_from(["ci", "turn"]))
        return example

    return {"valid": [one()], "invalid": [one() for _ in range(draw(st.integers(1, 2)))]}


@st.composite
def _good_rule(draw: st.DrawFn, index: int) -> dict[str, Any]:
    section = draw(st.sampled_from(["changes", "changes", "layout", "guards"]))
    rule: dict[str, Any] = {"id": f"r{index}", "reason": draw(st.sampled_from(_GOOD_TEXT))}
    if section == "guards":
        rule["commands"] = draw(st.lists(st.sampled_from(_COMMANDS[:3]), min_size=1, max_size=2))
        rule["examples"] = {"valid": [{"command": "git push"}], "invalid": [{"command": "rm"}]}
        return {"guards": rule}
    rule["paths"] = draw(st.lists(st.sampled_from(_GOOD_PATHS), min_size=1, max_size=2))
    if draw(st.booleans()):
        rule["ignores"] = draw(st.lists(st.sampled_from(_GOOD_IGNORES), max_size=2))
    for key, values in (
        ("note", _GOOD_TEXT),
        ("severity", ["error", "warn"]),
        ("waive_label", ["skip-rule"]),
        ("waive_authors", [["renovate[bot]"], []]),
    ):
        if draw(st.booleans()):
            rule[key] = draw(st.sampled_from(values))
    rule["examples"] = draw(_examples())
    if section == "layout":
        if draw(st.booleans()):
            rule["name"] = draw(st.sampled_from(["snake_case", "kebab-case", "regex:[a-z_]+"]))
        else:
            rule["forbid"] = True
        return {"layout": rule}
    kind = draw(st.sampled_from(["requires", "add_only", "sibling", "pr_body"]))
    rule["kind"] = kind
    if kind in ("requires", "pr_body") and draw(st.booleans()):
        rule["when"] = draw(st.sampled_from(["changed", "added"]))
    if kind == "requires":
        rule["require"] = draw(
            st.lists(
                st.sampled_from(
                    ["CHANGES.md", "docs/*.md", {"path": "tests/**", "status": "added"}]
                ),
                min_size=1,
                max_size=2,
            )
        )
    if kind == "sibling":
        rule["target"] = draw(
            st.one_of(
                st.sampled_from(["tests/test_{name}.py", "{dir}/{name}.test{ext}"]),
                st.lists(st.sampled_from(["tests/test_{name}.py", "docs/{name}.md"]), min_size=1),
            )
        )
    if kind == "add_only" and draw(st.booleans()):
        rule["ignore_whitespace"] = draw(st.sampled_from(["all-space", "space-change"]))
    if kind == "pr_body":
        rule["section"] = draw(st.sampled_from(["Risk", "## Risk", "### AI usage"]))
        if draw(st.booleans()):
            rule["contains"] = "Reason:"
        if draw(st.booleans()):
            rule["placeholders"] = draw(st.sampled_from([[], ["TODO", "None"]]))
        if draw(st.booleans()):
            rule["checklist"] = draw(st.booleans())
    return {"changes": rule}


@st.composite
def _good_config(draw: st.DrawFn, first: int) -> dict[str, Any]:
    config: dict[str, Any] = {}
    for index in range(first, first + draw(st.integers(0, 4))):
        ((section, rule),) = draw(_good_rule(index)).items()
        config.setdefault(section, {}).setdefault("rules", []).append(rule)
    if draw(st.booleans()):
        config.setdefault("guards", {})["disable"] = draw(
            st.lists(st.sampled_from(["guard.no-verify", "guard.cagr-state"]), max_size=2)
        )
    if draw(st.integers(0, 3)) == 0:
        config["git"] = {"protected_branch": draw(st.sampled_from(["main", "origin/main"]))}
    if draw(st.integers(0, 3)) == 0:
        config["review"] = {"pr_sections": draw(st.sampled_from([["Risk"], ["## Risk", "Tests"]]))}
    if draw(st.booleans()):
        config["stack"] = {
            draw(st.sampled_from(["ci", "on_turn_end"])): [
                {"run": "pytest -q", "paths": ["src/**"]}
            ]
        }
    return config


_WRONG = ["", " ", 1, True, 2.5, [], ["x"], {}, {"a": "b"}, "!x", "a//b", "{X}", "{app}/x",
          "HEAD", "guard.x", "fatal", "X", "r0", "a,b", "**.py", "src/", "#######"]  # fmt: skip


def _spots(value: Any, out: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    if isinstance(value, dict):
        for key, item in value.items():
            out.append((value, key))
            _spots(item, out)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            out.append((value, index))
            _spots(item, out)
    return out


@st.composite
def _mutated(draw: st.DrawFn, config: dict[str, Any]) -> dict[str, Any]:
    config = copy.deepcopy(config)  # the examples' change lists are shared
    spots = _spots(config, [])
    if not spots or draw(st.booleans()):
        return config
    container, key = spots[draw(st.integers(0, len(spots) - 1))]
    how = draw(st.sampled_from(["replace", "replace", "remove", "add"]))
    if how == "replace" or (how == "remove" and isinstance(container, list)):
        container[key] = draw(st.sampled_from(_WRONG))
    elif how == "remove":
        del container[key]
    elif isinstance(container, dict):
        container[draw(st.sampled_from(["extra", "requires", "kind", "paths", "name"]))] = "x"
    else:
        container.append(draw(st.sampled_from(_WRONG)))
    return config


@st.composite
def _sources(draw: st.DrawFn) -> list[tuple[str, bytes]]:
    names = draw(
        st.lists(
            st.sampled_from(["cagr.toml", "pyproject.toml", ".cagr/a.toml", ".cagr/b/c.toml"]),
            min_size=1,
            max_size=3,
            unique=True,
        )
    )
    read = []
    for number, name in enumerate(names):
        noisy = draw(st.integers(0, 3)) == 0
        config = draw(_CONFIG) if noisy else draw(_mutated(draw(_good_config(10 * number))))
        document = (
            {"tool": {"cagr": config}, "project": {"name": "x"}}
            if name == "pyproject.toml"
            else config
        )
        read.append((name, tomlkit.dumps(document).encode()))
    return read


def _agrees(read: list[tuple[str, bytes]]) -> bool:
    """Whether the quick compile agrees with the model's; True when it compiled."""
    quick = quick_compile(read, [])
    _, model, issues = load_sources(read, [])
    if quick is None:
        return False
    assert model is not None, issues
    assert quick == model
    assert kept.to_data(quick) == kept.to_data(model)
    return True


@settings(
    max_examples=max(200, settings.default.max_examples),  # most are deferred
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(_sources())
def test_the_quick_compile_gives_the_models_compiled_form_or_defers(
    read: list[tuple[str, bytes]],
) -> None:
    event("compiled quickly" if _agrees(read) else "deferred to the model")


def test_a_problem_in_any_source_defers() -> None:
    good = ("cagr.toml", b"[git]\nprotected_branch = 'main'\n")
    assert quick_compile([good], []) is not None
    for bad in (
        b"[git]\nprotected_branch = 'HEAD'\n",
        b"[git]\nprotected_branch = 'main'\n",  # set twice
        b"[gti]\nprotected_branch = 'main'\n",
        b"\xef\xbb\xbf[git]\n",
        b"[[code.rules]]\nid = 'x'\n",
    ):
        assert quick_compile([good, (".cagr/x.toml", bad)], []) is None, bad
    assert quick_compile([good], [(".cagr/x.toml", "is a symlink")]) is None
