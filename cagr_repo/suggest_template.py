"""Suggested `pr_body` rules from the project's own pull-request (merge-request) template: one per
heading it has, at the heading's level, asking for what the template asks there.

A section the template leaves empty (or fills only with an HTML comment) asks the author for an
answer: the rule wants substance there, and a placeholder word the template's own text offers as
an answer ("write None if ...") is left out of the rule's `placeholders`. A checklist section
(one with a task-list item, as a description is read) asks the author to keep it: the rule has
`checklist = true`, so the section must keep a ticked or unticked box, not only text. The
template is the first of the files GitHub and GitLab read, in their order.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from cagr_core.sections import PLACEHOLDER_WORDS, Content, Heading
from cagr_markdown import parse

from .suggestion import Suggestion, example, slug

# Where GitHub (root, docs/, .github/, and their PULL_REQUEST_TEMPLATE/ folders) and GitLab
# (.gitlab/merge_request_templates/) read a template; names compare ignoring case, as GitHub's do.
_FILES = (
    ".github/pull_request_template.md",
    "pull_request_template.md",
    "docs/pull_request_template.md",
)
_FOLDERS = (
    ".github/pull_request_template/",
    "pull_request_template/",
    "docs/pull_request_template/",
    ".gitlab/merge_request_templates/",
)
_MAX_RULES = 6
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
_MARKUP = re.compile(r"[`\[\]<>*_\\]")  # a heading a rule would have to spell as it renders


def find_template(paths: Sequence[str]) -> str | None:
    """The tracked pull-request or merge-request template a forge uses, if any."""
    lowered = {path.lower(): path for path in paths}
    for name in _FILES:
        if name in lowered:
            return lowered[name]
    for folder in _FOLDERS:
        inside = sorted(p for low, p in lowered.items() if low.startswith(folder))
        markdown = [p for p in inside if p.lower().endswith(".md") and "/" not in p[len(folder) :]]
        if markdown:
            return markdown[0]
    return None


def template_sections(text: str) -> list[tuple[str, str]]:
    """The template's ATX headings as cagr reads a description (`cagr_markdown`: one inside an
    HTML block or indented code is none), each as written (`### Tests`) with the raw text below
    it up to the next heading; the raw text keeps what a reader does not see (comments, task
    boxes), which tells what the section asks for."""
    text = text.replace("\r\n", "\n")
    headings = [
        f"{'#' * block.level} {block.text}"
        for block in parse(text)
        if isinstance(block, Heading) and block.atx
    ]
    sections: list[tuple[str, list[str]]] = []
    fence, after = "", 0  # after: the parsed headings met so far
    for line in text.split("\n"):
        opened = _FENCE.match(line)
        if fence:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = ""
        elif opened:
            fence = opened.group(1)
        elif (heading := _ATX.match(line)) and (
            written := f"{heading.group(1)} {heading.group(2).strip()}"
        ) in headings[after:]:
            after = headings.index(written, after) + 1
            sections.append((written, []))
            continue
        if sections:
            sections[-1][1].append(line)
    return [(heading, "\n".join(body)) for heading, body in sections if heading.split(" ", 1)[1]]


def _answers(raw: str) -> list[str]:
    """The default placeholder words the template's text offers as answers (`None`)."""
    words = set(re.findall(r"[A-Za-z/]+", raw))
    return sorted(w for w in PLACEHOLDER_WORDS if any(w == x.lower() for x in words))


def _rule(path: str, heading: str, raw: str) -> tuple[Suggestion, bool]:
    """The rule for one heading, and whether the template leaves its section for an answer."""
    visible = [line for line in _COMMENT.sub("", raw).splitlines() if line.strip()]
    # A task item as the rule will count one in a description (cagr_markdown's Document).
    checklist = any(isinstance(block, Content) and block.tasks for block in parse(raw))
    name = heading.split(" ", 1)[1]
    rule: dict[str, Any] = {
        "id": f"pr-template-{slug(name.lower())[:40].strip('-_.')}",
        "kind": "pr_body",
        "paths": ["**"],
        "section": heading,
    }
    filled = "- [x] done" if checklist else "Answered here."
    invalid = [example({"path": "README.md", "status": "M"}, pr_body="Fixed it.")]
    if checklist:
        what = "a checklist to keep"
        rule["checklist"] = True
        rule["reason"] = f"Keep the PR template's `{heading}` checklist in the description."
        # The heading kept over prose is no checklist.
        prose = f"{heading}\nI ran the tests and updated the docs."
        invalid.append(example({"path": "README.md", "status": "M"}, pr_body=prose))
    elif visible:
        what = "text to replace with an answer"
        rule["reason"] = f"Answer the PR template's `{heading}` section in the description."
    else:
        what = "an empty section to answer"
        rule["reason"] = f"Answer the PR template's `{heading}` section in the description."
        allowed = _answers(raw)
        if allowed:
            rule["placeholders"] = sorted(w.upper() for w in PLACEHOLDER_WORDS if w not in allowed)
            filled = allowed[0].capitalize()
            what += f" ({', '.join(allowed)} is an answer there)"
    rule["examples"] = {
        "invalid": invalid,
        "valid": [example({"path": "README.md", "status": "M"}, pr_body=f"{heading}\n{filled}")],
    }
    return Suggestion(f"{path} has `{heading}`, {what}", rule), not checklist and not visible


def suggest_from_template(path: str, text: str) -> tuple[list[Suggestion], str | None]:
    """The rules for the template at `path`, and the heading of the first section it leaves
    for an answer (where a dependency's reason belongs), if any."""
    rules: list[Suggestion] = []
    answer = None
    for heading, raw in template_sections(text):
        if _MARKUP.search(heading) or len(rules) == _MAX_RULES:
            continue
        suggestion, asks = _rule(path, heading, raw)
        if any(s.rule["id"] == suggestion.rule["id"] for s in rules):
            continue
        rules.append(suggestion)
        if answer is None and asks:
            answer = heading
    return rules, answer
