"""`when = "dependency_added"` through the evaluator, for every manifest format: what fires, what
the messages and the JSON report say, what stays unchecked, and that an unreadable manifest
leaves every other rule to run."""

from __future__ import annotations

import pytest

from cagr_config.rules import PrBodyRule, RequiresRule
from cagr_config.validate import structure_config
from cagr_core.changes import Change, Side
from cagr_core.report_json import report_data
from cagr_core.when import When
from tests.support.build import added, check, deleted, modified
from tests.support.rules import GOOD_BODY, SCHEMA

REASON = PrBodyRule(
    id="dependency-reason",
    paths=["pyproject.toml", "requirements*.txt", "Cargo.toml", "go.mod", "package.json"],
    when=When.DEPENDENCY_ADDED,
    section="Risk",
    contains="Dependency reason:",
    reason="In the PR body's Risk section, write `Dependency reason:` and why.",
)

# One manifest of each format before and after an addition, and a copy no reader accepts: a
# number too long to convert, nesting too deep, bytes that are not UTF-8, a wrong root or section.
MANIFESTS = {
    "pyproject.toml": (
        '[dependency-groups]\ndev = ["pytest"]\n',
        '[dependency-groups]\ndev = ["pytest", "pytest-xdist"]\n',
        "Added dependency-groups.dev: pytest-xdist in pyproject.toml",
    ),
    "requirements.txt": (
        "django>=4\n",
        "django>=4\ncelery[redis]==5\n",
        "Added celery in requirements.txt",
    ),
    "Cargo.toml": (
        '[dependencies]\nserde = "1"\n',
        '[dependencies]\nserde = "1"\n[target.\'cfg(unix)\'.dependencies]\nlibc = "0.2"\n',
        "Added target.'cfg(unix)'.dependencies: libc in Cargo.toml",
    ),
    "go.mod": (
        "module m\n\ngo 1.22\n",
        "module m\n\ngo 1.22\n\nrequire golang.org/x/net v0.20.0\n",
        "Added require: golang.org/x/net in go.mod",
    ),
    "package.json": (
        "{}",
        '{"dependencies": {"left-pad": "1"}}',
        "Added dependencies.left-pad in package.json",
    ),
}
UNREADABLE = {
    "pyproject.toml": [
        f"x = {'1' * 5000}\n",
        "x = " + "[" * 3000 + "]" * 3000,
        b"\xff",
        "project = 1\n",
    ],
    "requirements.txt": [
        "x; " + "(" * 500 + "os_name=='nt'" + ")" * 500,
        b"\xff",
        "not a requirement\n",
    ],
    "Cargo.toml": [
        f"[package]\nv = {'9' * 5000}\n",
        "x = " + "{a=" * 3000 + "1" + "}" * 3000,
        "dependencies = 1\n",
    ],
    "go.mod": ["require (\n", b"module \xff\n", "/* */\n"],
    "package.json": ["[" * 100_000, "[]", b"\xff{}", '{"dependencies": 1}'],
}


@pytest.mark.parametrize("path", sorted(MANIFESTS))
def test_an_addition_fires_and_names_its_section(path: str) -> None:
    before, after, said = MANIFESTS[path]
    report = check(REASON, modified(path, before, after), body="## Risk\nNone")
    (finding,) = report.findings
    assert finding.message == f"{said}; Risk lacks `Dependency reason:`."
    assert check(REASON, modified(path, before, after), body=GOOD_BODY).status == "pass"


def test_the_json_report_lists_each_dependency_with_its_section() -> None:
    changes = [modified(path, *MANIFESTS[path][:2]) for path in sorted(MANIFESTS)]
    data = report_data(check(REASON, *changes, body=""))
    (finding,) = data["findings"]
    assert finding["dependencies"] == [
        {
            "name": "libc",
            "section": "target.'cfg(unix)'.dependencies",
            "manifest": "Cargo.toml",
            "change": "added",
        },
        {"name": "golang.org/x/net", "section": "require", "manifest": "go.mod", "change": "added"},
        {
            "name": "left-pad",
            "section": "dependencies",
            "manifest": "package.json",
            "change": "added",
        },
        {
            "name": "pytest-xdist",
            "section": "dependency-groups.dev",
            "manifest": "pyproject.toml",
            "change": "added",
        },
        {"name": "celery", "section": None, "manifest": "requirements.txt", "change": "added"},
    ]


def test_a_requires_rule_lists_the_dependencies_that_fired_it_too() -> None:
    lock = RequiresRule(
        id="lockfile",
        paths=["package.json"],
        when=When.DEPENDENCY_ADDED,
        require=["package-lock.json"],
        reason="Run npm install and include package-lock.json.",
    )
    data = report_data(check(lock, modified("package.json", *MANIFESTS["package.json"][:2])))
    (finding,) = data["findings"]
    assert finding["dependencies"] == [
        {
            "name": "left-pad",
            "section": "dependencies",
            "manifest": "package.json",
            "change": "added",
        }
    ]


@pytest.mark.parametrize(
    ("path", "content"),
    [(path, content) for path, contents in sorted(UNREADABLE.items()) for content in contents],
)
def test_an_unreadable_manifest_is_unchecked_for_its_rule_only(
    path: str, content: str | bytes
) -> None:
    """Whatever is in the manifest, the other rule still runs and finds what it finds."""
    data = content if isinstance(content, bytes) else content.encode()
    manifest = Change(path, None, Side(0o100644, "f" * 40, data))
    report = check([REASON, SCHEMA], manifest, modified("src/config/schema.ts"), body="")
    assert [f.rule for f in report.findings] == ["schema-companion"]
    (item,) = report.unchecked
    assert item.rule == "dependency-reason"
    assert item.message.startswith(f"cannot read dependencies from {path}: the new side ")


def test_a_package_json_holding_a_5000_digit_integer_is_read() -> None:
    text = f'{{"version": {"1" * 5000}, "dependencies": {{"x": "1"}}}}'
    report = check(
        [REASON, SCHEMA], added("package.json", text), modified("src/config/schema.ts"), body=""
    )
    assert [f.rule for f in report.findings] == ["dependency-reason", "schema-companion"]
    assert report.unchecked == ()


def test_a_path_no_format_reads_is_unchecked_with_a_config_fix() -> None:
    rule = RequiresRule(
        id="lock",
        paths=["deps/**"],
        when=When.DEPENDENCY_ADDED,
        require=["deps.lock"],
        reason="Lock it.",
    )
    report = check(rule, modified("deps/list.txt", "a\n", "a\nb\n"))
    (item,) = report.unchecked
    assert item.message.startswith(
        "deps/list.txt is selected, but its name is not that of a manifest cagr reads"
    )
    assert item.message.endswith(
        "Narrow the rule's paths to manifests, add this path to its ignores, or set"
        ' `format = "requirements"` on the rule if it is a pip requirements file.'
    )
    assert "fix" not in item.message.lower().replace("fixed", "")  # the file may be valid


def test_format_requirements_reads_any_name() -> None:
    rule = RequiresRule(
        id="lock",
        paths=["deps/**"],
        when=When.DEPENDENCY_ADDED,
        format="requirements",
        require=["deps.lock"],
        reason="Lock it.",
    )
    (finding,) = check(rule, modified("deps/list.txt", "a\n", "a\nb==1\n")).findings
    assert finding.message == "Added b in deps/list.txt; deps.lock did not change."


def test_a_new_entry_that_names_no_package_is_unchecked() -> None:
    change = modified("requirements.txt", "flask\n", "flask\n./vendor/thing\n")
    report = check(REASON, change, body="## Risk\nNone")
    assert report.findings == ()
    (item,) = report.unchecked
    assert item.message.startswith(
        "cannot tell which dependency requirements.txt adds at line 2 (./vendor/thing): a path or"
        " URL that names no package."
    )


def test_a_named_addition_still_fails_beside_an_unnamed_one() -> None:
    change = modified("requirements.txt", "flask\n", "flask\nhttpx\n./vendor/thing\n")
    report = check(REASON, change, body="## Risk\nNone")
    assert [f.message for f in report.findings] == [
        "Added httpx in requirements.txt; Risk lacks `Dependency reason:`."
    ]
    assert len(report.unchecked) == 1


def test_a_deleted_file_adds_nothing_whatever_its_name() -> None:
    rule = RequiresRule(
        id="lock", paths=["**"], when=When.DEPENDENCY_ADDED, require=["x.lock"], reason="Lock."
    )
    assert check(rule, deleted("notes.md")).status == "pass"


def _config_issues(rule: dict[str, object]) -> list[str]:
    base = {
        "id": "deps",
        "kind": "pr_body",
        "section": "Risk",
        "reason": "Explain it.",
        "examples": {
            "valid": [{"changes": [{"path": "requirements.txt", "status": "A", "after": ""}]}],
            "invalid": [{"changes": [{"path": "requirements.txt", "status": "A", "after": "x"}]}],
        },
    }
    _, issues = structure_config({"changes": {"rules": [{**base, **rule}]}}, "cagr.toml")
    return [f"{issue.where}: {issue.message}" for issue in issues]


class TestConfig:
    def test_a_path_no_selector_reads_is_a_config_error_naming_the_formats(self) -> None:
        (issue,) = _config_issues({"paths": ["setup.py"], "when": "dependency_added"})
        assert issue.startswith(
            "changes.rules[0] (id 'deps').paths[0]: `when = \"dependency_added\"` reads"
            " package.json, pyproject.toml, pip requirements files"
        )
        assert "Cargo.toml and go.mod; setup.py can match none of them." in issue

    def test_format_requirements_reads_any_path(self) -> None:
        rule = {"paths": ["deps/*.lst"], "when": "dependency_added", "format": "requirements"}
        assert _config_issues(rule) == []

    def test_format_needs_the_dependency_selector(self) -> None:
        (issue,) = _config_issues({"paths": ["requirements.txt"], "format": "requirements"})
        assert issue.endswith(
            'format: only a `when = "dependency_added"` rule reads manifests; remove it'
        )

    def test_an_unknown_format(self) -> None:
        rule = {"paths": ["requirements.txt"], "when": "dependency_added", "format": "pip"}
        assert _config_issues(rule) == [
            "changes.rules[0] (id 'deps').format: expected 'requirements', got 'pip'"
        ]
