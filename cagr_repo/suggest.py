"""Rules `cagr init` suggests from a repository's tracked files and recent history, never
enforced.

Each suggestion is a complete rule — with the valid and invalid examples `cagr rules test` needs —
that `cagr init` writes commented out, with the evidence that made cagr suggest it. Nothing is
suggested on a guess: migration folders and dependency manifests (suggest_layouts), test layouts
that a folder's modules mostly follow (suggest_tests), and files committed beside their sources
that history shows changing with them (suggest_history), and layout rules where every tracked
file of a language is named in one convention that its names show (suggest_names).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import tomlkit

from cagr_core.description import judge_section
from cagr_core.pull_request import PrBody
from cagr_core.report import Deferred, same_account
from cagr_core.values import replace
from cagr_markdown import parsed

from .pr_export import ExportedPullRequest
from .suggest_history import History
from .suggest_history import suggest_from_history as _from_history
from .suggest_layouts import suggest_from_layout as _from_layout
from .suggest_names import suggest_names as _names
from .suggest_template import find_template, suggest_from_template
from .suggest_tests import suggest_tests as _tests
from .suggestion import Suggestion

SCHEMA_LINE = "#:schema ./cagr.schema.json"  # relative to .cagr/changes.toml

__all__ = ["SCHEMA_LINE", "History", "Suggestion", "render", "suggest"]


def suggest(
    paths: Iterable[str],
    history: History | None = None,
    read: Callable[[str], str | None] | None = None,
    descriptions: Sequence[ExportedPullRequest] | None = None,
) -> list[Suggestion]:
    """What the tracked `paths` (and, when given, recent `history`, the project's PR template
    as `read(path)` gives it, and merged pull requests' `descriptions`) support, in a stable
    order; a template rule the descriptions mostly do not meet is withheld."""
    ordered = sorted(paths)
    template = find_template(ordered)
    text = read(template) if read is not None and template is not None else None
    body: list[Suggestion] = []
    section = None
    if template is not None and text is not None:
        body, answer = suggest_from_template(template, text)
        section = (
            (answer, f"{answer} is the first section {template} leaves for an answer")
            if answer is not None
            else ("Risk", f"{template} has no section left for an answer: add `## Risk` to it")
        )
    history = history or History()
    bots = sorted({commit.bot for commit in history.commits if commit.bot})
    if bots:  # bots' pull requests fill in no template
        listed = ", ".join(bots)
        body = [
            Suggestion(
                f"{s.why}; waived for {listed}, who made commits here",
                s.rule | {"waive_authors": bots},
                s.table,
            )
            for s in body
        ]
    if descriptions is not None:
        body = [_against(s, descriptions) for s in body]
    return [
        *_from_layout(ordered, section),
        *body,
        *_from_history(ordered, history),
        *_tests(ordered),
        *_names(ordered),
    ]


_TOO_FEW = 5  # descriptions, fewer than which tell nothing either way


def _against(suggestion: Suggestion, descriptions: Sequence[ExportedPullRequest]) -> Suggestion:
    """A template rule judged on the merged pull requests' descriptions, as CI would have judged
    them (those its `waive_authors` opened left out): kept, with how many met it, when four in
    five did (or too few were there to tell); else withheld, since it would fire on most."""
    rule = suggestion.rule
    waived = rule.get("waive_authors", ())
    bodies = [
        d.body
        for d in descriptions
        if d.author is None or not any(same_account(d.author, a) for a in waived)
    ]
    asked = Deferred(
        rule["id"],
        rule["section"],
        rule.get("contains"),
        "",
        rule["reason"],
        placeholders=_words(rule),
        checklist=rule.get("checklist", False),
    )
    met = sum(judge_section(parsed(PrBody(body)), asked).gap is None for body in bodies)
    seen = f"{met} of the {len(bodies)} merged pull requests' descriptions given meet it"
    if len(bodies) < _TOO_FEW:
        return replace(suggestion, why=f"{suggestion.why}; {seen} (too few to tell)")
    if 5 * met >= 4 * len(bodies):
        return replace(suggestion, why=f"{suggestion.why}; {seen}")
    return replace(suggestion, withheld=f"{seen}, so as an error it would fail most of them")


def _words(rule: dict[str, Any]) -> tuple[str, ...] | None:
    words = rule.get("placeholders")
    return None if words is None else tuple(words)


def _toml_value(value: Any) -> Any:
    if isinstance(value, dict):
        table = tomlkit.inline_table()
        for key, item in value.items():
            table[key] = _toml_value(item)
        return table
    if isinstance(value, list):
        array = tomlkit.array()
        for item in value:
            array.append(_toml_value(item))
        return array
    return value


# The order a reader reads a rule in: what it is, what it watches (`ignores` beside `paths`),
# what it asks for, why, and last the examples that test it.
_KEY_ORDER = (
    "id", "kind", "severity", "paths", "ignores", "ignore_whitespace", "when", "format",
    "require", "target", "name", "forbid", "section", "contains", "checklist", "placeholders",
    "reason", "note", "waive_authors", "examples",
)  # fmt: skip
_SEVERITY_NOTE = 'make it "error" once `cagr replay --last 30` shows its findings are ones you want'
# A description rule judges descriptions, which commits do not hold: replay with gh's export.
_BODY_SEVERITY_NOTE = (
    'make it "error" once `cagr replay --last 30 --body-from prs.json` shows its findings are'
    " ones you want (prs.json: `gh pr list --state merged --json"
    " number,body,mergeCommit,author,labels`)"
)


def _rule_text(rule: dict[str, Any], kind: str) -> str:
    table = tomlkit.table()
    # Every suggestion starts as a warning; one that says its own severity stays one.
    ordered = {"severity": "warn", **rule}
    for key in sorted(ordered, key=lambda k: _KEY_ORDER.index(k) if k in _KEY_ORDER else 99):
        value = ordered[key]
        if key == "severity":
            item = tomlkit.item(value)
            note = _BODY_SEVERITY_NOTE if rule.get("kind") == "pr_body" else _SEVERITY_NOTE
            item.comment(note if "severity" not in rule else "keep it a warning")
            item.trivia.comment_ws = "  "
            table.add(key, item)
        elif key == "examples":
            for label in ("invalid", "valid"):
                table.add(tomlkit.key(["examples", label]), _toml_value(value[label]))
        else:
            table.add(key, _toml_value(value))
    rules = tomlkit.aot()
    rules.append(table)
    document = tomlkit.document()
    document.add(kind, tomlkit.table(is_super_table=True))
    document[kind]["rules"] = rules
    return tomlkit.dumps(document).strip()


def render(suggestions: Sequence[Suggestion]) -> str:
    """The `.cagr/changes.toml` text: a header, then each suggestion commented out."""
    lines = [
        SCHEMA_LINE,
        "# cagr change rules (docs/rules.md in cagr's documentation explains each kind).",
        "# `cagr init` suggested these from this repository's files; none is active yet.",
        "# Uncomment a rule, adjust it, then run `cagr rules test` and `cagr rules check`.",
    ]
    if not suggestions:
        lines.append(
            "#\n# Nothing in this repository suggested a rule (no migration folders, package"
            " manifests,\n# generated files beside their source, test layouts or one name"
            " convention were found)."
        )
    for withheld in (s for s in suggestions if s.withheld is not None):
        lines.append(f"#\n# Not suggested: {withheld.rule['id']}: {withheld.withheld}")
        lines.append(f"# ({withheld.why}).")
    for suggestion in (s for s in suggestions if s.withheld is None):
        lines.append(f"\n# Suggested because: {suggestion.why}.")
        text = _rule_text(suggestion.rule, suggestion.table)
        lines.extend("# " + line if line else "#" for line in text.splitlines())
    return "\n".join(lines) + "\n"
