"""`[review].pr_sections`: headings every pull-request description must have.

Presence only: each named `## Heading` must appear exactly once; what is under it is not judged
(a `pr_body` rule does that, when a change fires it). The section parser is the one `pr_body`
rules use, so both agree on what a heading is.
"""

from __future__ import annotations

from collections.abc import Sequence

from .changes import Stage, Unchecked
from .pull_request import MAX_BODY_BYTES, PrBody
from .report import Finding
from .sections import Found, find_section

RULE = "review.pr_sections"
KIND = "pr_sections"


def check_pr_sections(
    names: Sequence[str], body: PrBody, *, max_body_bytes: int = MAX_BODY_BYTES
) -> tuple[tuple[Finding, ...], tuple[Unchecked, ...]]:
    """A finding per missing or duplicated heading; unchecked when the body is not known.

    No names: nothing to check. An unavailable (or oversized) body: one unchecked item. A cut
    copy of the description (`body.truncated`) decides a heading only where its section ends at
    a next heading inside the copy; the other headings are unchecked.
    """
    if not names:
        return (), ()
    text = body.text
    if text is None or len(text.encode("utf-8", "replace")) > max_body_bytes:
        why = (
            "no pull-request description is available"
            if text is None
            else f"the PR description is over the {max_body_bytes} bytes cagr reads"
        )
        listed = ", ".join(f"`## {name}`" for name in names)
        message = (
            f"the PR description must have the sections {listed}, but {why}. Run the check"
            " where the PR description is known (a pull request's CI, or with the body given"
            " explicitly)."
        )
        return (), (Unchecked(RULE, Stage.BODY, message),)
    document = body.sections()
    findings: list[Finding] = []
    unchecked: list[Unchecked] = []
    for name in names:
        section = find_section(document, name)
        if body.truncated and not section.decided_by_cut_text():
            unchecked.append(Unchecked(RULE, Stage.BODY, _cut_message(name)))
        elif section.found is Found.MISSING:
            findings.append(
                Finding(
                    RULE,
                    KIND,
                    f"The PR description has no `## {name}` section.",
                    f"Add a `## {name}` heading to the PR description (every PR needs one;"
                    " what goes under it is up to you).",
                    (),
                )
            )
        elif section.found is Found.DUPLICATE:
            findings.append(
                Finding(
                    RULE,
                    KIND,
                    f"The PR description has more than one `## {name}` section.",
                    f"Keep one `## {name}` heading in the PR description and merge the others"
                    " into it.",
                    (),
                )
            )
    return tuple(findings), tuple(unchecked)


def _cut_message(name: str) -> str:
    return (
        f"the PR description must have a `## {name}` section, but only the start of the"
        f" description is available here and no `## {name}` section ends inside it. Put the"
        " section nearer the top of the description, or give the whole text with --body-file."
    )
