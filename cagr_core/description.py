"""Judging a pull request's description: the sections a change's `pr_body` rules owe it, and the
headings `[review].pr_sections` asks of every pull request.

One judgement, wherever a description is judged: the evaluator (a check with a body), the PR
gate (a prepared record's deferred obligations against the command's body) and CI. The body
comes parsed (cagr_markdown.parsed); an unavailable or oversized one, or a cut copy that does
not reach a section's end, is unknown: unchecked, never a pass.
"""

from __future__ import annotations

from collections.abc import Sequence

from .changes import Stage, Unchecked
from .pull_request import MAX_BODY_BYTES, PrBody
from .report import Deferred, Finding
from .sections import (
    Found,
    Section,
    check_section,
    describe_problem,
    find_section,
    heading_marks,
    heading_text,
)
from .values import value

SECTIONS_RULE = "review.pr_sections"
SECTIONS_KIND = "pr_sections"


@value
class Judged:
    """How a description met one section a rule needs: `gap` says what is missing (None: met),
    `unknown` why that cannot be told here (then `gap` is None too)."""

    gap: str | None = None
    unknown: str | None = None


def _unreadable(body: PrBody, max_body_bytes: int) -> str | None:
    """Why the body cannot be judged at all (None: it can)."""
    if body.text is None:
        return "no pull-request description is available"
    if len(body.text.encode("utf-8", "replace")) > max_body_bytes:
        return f"the PR description is over the {max_body_bytes} bytes cagr reads"
    return None


def judge_section(
    body: PrBody, obligation: Deferred, max_body_bytes: int = MAX_BODY_BYTES
) -> Judged:
    """Whether the body's section meets the obligation: substance (after its `contains`, when
    given; its `placeholders`, None for the default words) and, with `checklist`, a task-list
    item."""
    section, contains = obligation.section, obligation.contains
    why = _unreadable(body, max_body_bytes)
    if why is not None:
        return Judged(
            unknown=f"this rule needs the PR body's {heading_text(section)} section, but {why}."
            " Run the check"
            " where the PR description is known (a pull request's CI, or with the body given"
            " explicitly)."
        )
    found = find_section(body.sections(), section)
    if body.truncated and not found.decided_by_cut_text():
        return Judged(unknown=_cut_section_message(found))
    problem = check_section(
        found, contains, obligation.placeholders, checklist=obligation.checklist
    )
    if problem is None:
        return Judged()
    assert body.text is not None
    empty = not body.text.strip()
    return Judged(gap=describe_problem(problem, section, contains, empty_body=empty, found=found))


def owed(obligation: Deferred, gap: str) -> Finding:
    """The finding of an obligation the description does not meet."""
    return Finding(
        obligation.rule,
        "pr_body",
        f"{obligation.trigger}; {gap}.",
        obligation.fix,
        obligation.paths,
        dependencies=obligation.dependencies,
        severity=obligation.severity,
        waive_label=obligation.waive_label,
        waive_authors=obligation.waive_authors,
    )


def judge_obligations(
    obligations: Sequence[Deferred], body: PrBody, max_body_bytes: int = MAX_BODY_BYTES
) -> tuple[tuple[Finding, ...], tuple[Unchecked, ...]]:
    """Each deferred obligation against the body: a finding where it is not met, unchecked
    where that cannot be told."""
    findings: list[Finding] = []
    unchecked: list[Unchecked] = []
    for obligation in obligations:
        judged = judge_section(body, obligation, max_body_bytes)
        if judged.unknown is not None:
            unchecked.append(
                Unchecked(obligation.rule, Stage.BODY, judged.unknown, severity=obligation.severity)
            )
        elif judged.gap is not None:
            findings.append(owed(obligation, judged.gap))
    return tuple(findings), tuple(unchecked)


def check_pr_sections(
    names: Sequence[str], body: PrBody, *, max_body_bytes: int = MAX_BODY_BYTES
) -> tuple[tuple[Finding, ...], tuple[Unchecked, ...]]:
    """`[review].pr_sections`: a finding per missing or duplicated heading (what is under it is
    not judged); unchecked when the body is not known.

    No names: nothing to check. An unavailable (or oversized) body: one unchecked item. A cut
    copy of the description (`body.truncated`) decides a heading only where its section ends at
    a next heading inside the copy; the other headings are unchecked.
    """
    if not names:
        return (), ()
    why = _unreadable(body, max_body_bytes)
    if why is not None:
        listed = ", ".join(f"`{heading_marks(name)}`" for name in names)
        message = (
            f"the PR description must have the sections {listed}, but {why}. Run the check"
            " where the PR description is known (a pull request's CI, or with the body given"
            " explicitly)."
        )
        return (), (Unchecked(SECTIONS_RULE, Stage.BODY, message),)
    document = body.sections()
    findings: list[Finding] = []
    unchecked: list[Unchecked] = []
    for name in names:
        section = find_section(document, name)
        heading = heading_marks(name)
        if body.truncated and not section.decided_by_cut_text():
            unchecked.append(Unchecked(SECTIONS_RULE, Stage.BODY, _cut_heading_message(name)))
        elif section.found is Found.MISSING:
            findings.append(
                Finding(
                    SECTIONS_RULE,
                    SECTIONS_KIND,
                    f"The PR description has no `{heading}` section.",
                    f"Add a `{heading}` heading to the PR description (every PR needs one;"
                    " what goes under it is up to you).",
                    (),
                )
            )
        elif section.found is Found.DUPLICATE:
            findings.append(
                Finding(
                    SECTIONS_RULE,
                    SECTIONS_KIND,
                    f"The PR description has more than one `{heading}` section.",
                    f"Keep one `{heading}` heading in the PR description and merge the others"
                    " into it.",
                    (),
                )
            )
    return tuple(findings), tuple(unchecked)


def _cut_section_message(section: Section) -> str:
    """Why a cut copy of the description cannot decide a section (see PrBody.truncated)."""
    where = (
        "does not end inside it (no next heading follows it there)"
        if section.found is Found.FOUND
        else "is not in it"
    )
    name = heading_text(section.name)
    return (
        f"this rule needs the PR body's {name} section, but only the start of the PR"
        f" description is available here and the {name} section {where}. Put the section"
        " nearer the top of the description, or give the whole text with --body-file."
    )


def _cut_heading_message(name: str) -> str:
    heading = heading_marks(name)
    return (
        f"the PR description must have a `{heading}` section, but only the start of the"
        f" description is available here and no `{heading}` section ends inside it. Put the"
        " section nearer the top of the description, or give the whole text with --body-file."
    )
