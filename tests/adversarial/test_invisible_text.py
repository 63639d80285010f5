"""Invisible text is no explanation: after `Dependency reason:` only letters and numbers count,
once entities are decoded and format, control and default-ignorable characters are removed.

Each case drives `cagr rules check --committed --body-file` (the PR body rule fires: the branch
adds a dependency); some drive the `gh pr create` gate's check of the same body.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from cagr_core.sections import Problem, check_section, find_section, missing_sections
from tests.support.adversarial import Outcome
from tests.support.configs import TWO_RULES
from tests.support.evaluation import document
from tests.support.git import commit, git, write
from tests.support.hooks import hook, payload

Cagr = Callable[..., Outcome]
MARKER = "Dependency reason:"

# What passed before: each renders as nothing, or as a mark that says nothing.
INVISIBLE = {
    "zero-width space": "\u200b",
    "zero-width space entity": "&#8203;",
    "zero-width space hex entity": "&#x200B;",
    "word joiner": "\u2060",
    "soft hyphen": "\u00ad",
    "soft hyphen entity": "&shy;",
    "right-to-left override": "\u202e",
    "left-to-right mark": "\u200e",
    "lone combining mark": "\u0301",
    "variation selector": "\ufe0f",
    "tag characters": "\U000e0041\U000e0042\U000e007f",
    "hangul filler": "\u3164",
    "hangul filler entity": "&#12644;",
    "halfwidth hangul filler": "\uffa0",
    "hangul choseong filler": "\u115f",
    "hangul jungseong filler": "\u1160",
    "braille blank": "\u2800",
    "em dash": "\u2014",
    "middle dot": "\u00b7",
    "ideographic full stop": "\u3002",
    "nbsp entity and a full stop": "&nbsp;.",
    "ideographic space": "\u3000",
    "a lone backslash": "\\",
    "NUL": "\x00",
    "byte-order mark": "\ufeff",
    "inline script": "<script>it is needed</script>",
    "style block": "\n\n<style>\nit is needed\n</style>\n",
    "the marker again, with a zero-width space": "\nDependency\u200b reason:",
    "TODO with a zero-width space": "TO\u200bDO",
    "spaced-out N/A": "N / A",
}


@pytest.fixture
def adds_a_dependency(repo: Path) -> Path:
    git(repo, "init", "-q", "-b", "main")
    write(repo, "cagr.toml", TWO_RULES)
    write(repo, "package.json", "{}\n")
    commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, "package.json", '{"dependencies": {"x": "1"}}\n')
    commit(repo, "add x")
    return repo


def _body_file(folder: Path, after: str) -> Path:
    """A drafted description whose Risk section says `after` after the marker."""
    body = folder / "body.md"
    body.write_text(f"## Summary\nAdds x.\n\n## Risk\n{MARKER} {after}\n", encoding="utf-8")
    return body


def _judged(root: Path, cagr: Cagr, folder: Path, after: str) -> Outcome:
    body = _body_file(folder, after)
    return cagr(root, "rules", "check", "--committed", "--body-file", str(body))


@pytest.mark.parametrize("after", list(INVISIBLE.values()), ids=list(INVISIBLE))
def test_invisible_text_after_the_marker_fails(
    adds_a_dependency: Path, cagr: Cagr, tmp_path: Path, after: str
) -> None:
    outcome = _judged(adds_a_dependency, cagr, tmp_path, after)
    assert outcome.code == 1, outcome
    assert "Risk has `Dependency reason:` with no explanation after it" in outcome.out


@pytest.mark.parametrize(
    "after",
    [
        "x parses the wire format",
        "\u200bx\u200b",
        "&#120;",
        "\u0661",
        "中文",
        "ㄱ",
        "\u202ea\u202c",
    ],
)
def test_one_visible_letter_or_number_is_text(
    adds_a_dependency: Path, cagr: Cagr, tmp_path: Path, after: str
) -> None:
    assert _judged(adds_a_dependency, cagr, tmp_path, after).code == 0


@pytest.mark.parametrize("after", ["\u200b", "&#8203;", "\u3164", "\u2800", "&nbsp;."])
def test_the_pr_gate_denies_the_same_body(
    adds_a_dependency: Path, cagr: Cagr, tmp_path: Path, after: str
) -> None:
    assert cagr(adds_a_dependency, "rules", "check", "--committed").code == 0  # deferred
    command = f"gh pr create --base main --title t --body-file {_body_file(tmp_path, after)}"
    answer = hook(payload("claude", 1, adds_a_dependency, command=command))
    decision = (answer.json or {}).get("hookSpecificOutput", {}).get("permissionDecision")
    assert decision == "deny", answer.text
    assert "with no explanation after it" in answer.text


ALONE = {name: text for name, text in INVISIBLE.items() if "marker" not in name}


@pytest.mark.parametrize("after", list(ALONE.values()), ids=list(ALONE))
def test_a_section_of_invisible_text_alone_is_empty(after: str) -> None:
    parsed = document(f"## Risk\n{after}\n")
    assert check_section(find_section(parsed, "Risk"), None) is Problem.EMPTY


def test_headings_read_the_same_for_both_checks() -> None:
    """`[review].pr_sections` and pr_body rules find a heading by the same visible text."""
    parsed = document("## Ri\u200bsk\u2060\nDependency\u00ad reason: ok\n")
    assert missing_sections(parsed, ["Risk"]) == []
    assert check_section(find_section(parsed, "Risk"), MARKER) is None
