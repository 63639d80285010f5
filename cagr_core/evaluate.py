"""The pure evaluator: rules, a change set and a PR body in; a Report out.

Every rule runs; none depends on another, so rule and change order never change the report.
Anything that cannot be decided exactly (an unreadable manifest, a missing body where one is
required, a cap exceeded) is reported as unchecked, never as a pass.
"""

from __future__ import annotations

from collections.abc import Callable

from attrs import define, evolve, field, frozen

from .changes import Change, ChangeSet, Stage, Status, Unchecked
from .globs import PathMatcher, is_literal
from .manifests import ManifestError, added_dependencies
from .pull_request import MAX_BODY_BYTES, Phase, PrBody
from .report import Deferred, Finding, Report
from .rules import AddOnlyRule, PrBodyRule, RequiresRule, SiblingRule, When
from .ruleset import CompiledRule, RuleSet
from .sections import Body, Found, Problem, Section, check_section
from .templates import RenderError


@frozen
class Limits:
    """Caps that keep one evaluation bounded. Exceeding one reports unchecked, never a pass."""

    max_changes: int = 50_000
    max_rules: int = 1_000
    max_manifest_bytes: int = 1024 * 1024
    max_body_bytes: int = MAX_BODY_BYTES


DEFAULT_LIMITS = Limits()


@frozen
class _Trigger:
    """A selected change that fired the rule, with the dependencies it added, if that fired it."""

    change: Change
    added: tuple[str, ...] = ()

    def describe(self) -> str:
        if self.added:
            return f"Added {_first_few(self.added)} in {self.change.path}"
        path, old, new = self.change.path, self.change.old, self.change.new
        if old is None:
            return f"{path} was added"
        if new is None:
            return f"{path} was deleted"
        if self.change.status is Status.TYPE_CHANGED:
            return f"{path} changed from a {old.kind.described} to a {new.kind.described}"
        return f"{path} changed"


def _first_few(items: tuple[str, ...], shown: int = 3) -> str:
    head = ", ".join(items[:shown])
    return head if len(items) <= shown else f"{head} and {len(items) - shown} more"


def _describe_all(triggers: list[_Trigger]) -> str:
    first = triggers[0].describe()
    rest = len(triggers) - 1
    if rest == 0:
        return first
    return f"{first} (and {rest} more selected path{'s' if rest > 1 else ''})"


@define
class _Context:
    """One evaluation's inputs, with the path index and the parsed body computed once."""

    changes: ChangeSet
    body: PrBody
    phase: Phase
    limits: Limits
    by_path: dict[str, Change] = field(init=False)
    _parsed: Body | None = field(init=False, default=None)
    findings: list[Finding] = field(init=False, factory=list)
    unchecked: list[Unchecked] = field(init=False, factory=list)
    deferred: list[Deferred] = field(init=False, factory=list)

    def __attrs_post_init__(self) -> None:
        self.by_path = {change.path: change for change in self.changes.changes}

    def parsed_body(self) -> Body:
        if self._parsed is None:
            assert self.body.text is not None
            self._parsed = Body.parse(self.body.text)
        return self._parsed

    def find(self, compiled: CompiledRule, message: str, paths: list[str]) -> None:
        rule = compiled.rule
        self.findings.append(Finding(rule.id, rule.kind, message, rule.reason, tuple(paths)))

    def triggers(self, compiled: CompiledRule) -> tuple[list[_Trigger], list[Unchecked]]:
        """The selected changes that fire the rule, and the manifests that could not be read."""
        selected = [c for c in self.changes.changes if compiled.selector.selects(c.path)]
        if compiled.when is When.CHANGED:
            return [_Trigger(change) for change in selected], []
        triggers: list[_Trigger] = []
        problems: list[Unchecked] = []
        for change in selected:
            try:
                added = self._added(change)
            except ManifestError as error:
                problems.append(
                    Unchecked(
                        compiled.rule.id,
                        Stage.SELECTOR,
                        f"cannot read dependencies from {change.path}: {error}. The selector"
                        " needs it as a regular file holding a JSON object; fix it, then"
                        " check again.",
                    )
                )
            else:
                if added:
                    triggers.append(_Trigger(change, added))
        return triggers, problems

    def _added(self, change: Change) -> tuple[str, ...]:
        contents: list[bytes | None] = []
        for side_name, side in (("old", change.old), ("new", change.new)):
            if side is None:
                contents.append(None)
                continue
            if not side.kind.is_file:
                raise ManifestError(f"the {side_name} side is a {side.kind.described}, not a file")
            if side.content is None:
                raise ManifestError(f"the {side_name} side's content was not loaded")
            if len(side.content) > self.limits.max_manifest_bytes:
                raise ManifestError(
                    f"the {side_name} side is larger than the"
                    f" {self.limits.max_manifest_bytes} bytes cagr reads"
                )
            contents.append(side.content)
        return added_dependencies(contents[0], contents[1])


def _check_requires(compiled: CompiledRule, ctx: _Context) -> None:
    rule = compiled.rule
    assert isinstance(rule, RequiresRule)
    missing = [
        (pattern, matcher)
        for pattern, matcher in zip(rule.require, compiled.require, strict=True)
        if not any(c.exists_as_file and matcher.matches(c.path) for c in ctx.changes.changes)
    ]
    if not missing:
        return
    triggers, problems = ctx.triggers(compiled)
    ctx.unchecked.extend(problems)
    if not triggers:
        return
    gaps = "; ".join(_missing_companion(pattern, matcher, ctx) for pattern, matcher in missing)
    paths = [t.change.path for t in triggers] + [p for p, _ in missing if is_literal(p)]
    ctx.find(compiled, f"{_describe_all(triggers)}; {gaps}.", paths)


def _missing_companion(pattern: str, matcher: PathMatcher, ctx: _Context) -> str:
    """Why nothing satisfied one `require` entry, naming a near miss when there is one."""
    near = next((c for c in ctx.changes.changes if matcher.matches(c.path)), None)
    if near is None:
        shown = pattern.removeprefix("/")
        return (
            f"{shown} did not change"
            if is_literal(pattern)
            else f"nothing matching {pattern} changed"
        )
    if near.new is None:
        return f"{near.path} was deleted, which does not count"
    return f"{near.path} is now a {near.new.kind.described}, not a regular file"


def _check_add_only(compiled: CompiledRule, ctx: _Context) -> None:
    for change in ctx.changes.changes:
        old, new = change.old, change.new
        if old is None or not compiled.selector.selects(change.path):
            continue
        if new is None:
            what = "was deleted"
        elif change.status is Status.TYPE_CHANGED:
            what = f"changed from a {old.kind.described} to a {new.kind.described}"
        elif old.oid == new.oid:
            what = f"changed mode from {old.mode:o} to {new.mode:o}"
        elif old.mode != new.mode:
            what = f"was edited and changed mode from {old.mode:o} to {new.mode:o}"
        else:
            what = "was edited"
        ctx.find(compiled, f"{change.path} existed at the baseline and {what}.", [change.path])


def _check_sibling(compiled: CompiledRule, ctx: _Context) -> None:
    rule, template = compiled.rule, compiled.target
    assert isinstance(rule, SiblingRule)
    assert template is not None
    for change in ctx.changes.changes:
        if change.status is not Status.ADDED or not compiled.selector.selects(change.path):
            continue
        try:
            target = template.render(change.path)
        except RenderError as error:
            ctx.unchecked.append(
                Unchecked(
                    rule.id,
                    Stage.TEMPLATE,
                    f"{error}; add {change.path} to ignores or change target",
                )
            )
            continue
        if target == change.path:
            ctx.unchecked.append(
                Unchecked(rule.id, Stage.TEMPLATE, f"{rule.target} names {change.path} itself")
            )
            continue
        companion = ctx.by_path.get(target)
        if companion is not None and companion.exists_as_file:
            continue
        if companion is None:
            note = ""
        elif companion.new is None:
            note = " (it was deleted)"
        else:
            note = f" (it is now a {companion.new.kind.described}, not a regular file)"
        ctx.find(
            compiled,
            f"Added {change.path}; {target} needs to change too{note}.",
            [change.path, target],
        )


_PROBLEMS = {
    Problem.MISSING: "the PR body has no `## {section}` section",
    Problem.DUPLICATE: "the PR body has more than one `## {section}` section",
    Problem.EMPTY: "{section} has no text beyond placeholders",
    Problem.NO_MARKER: "{section} lacks `{contains}`",
    Problem.MARKER_ALONE: "{section} has `{contains}` with no explanation after it",
}


def _check_pr_body(compiled: CompiledRule, ctx: _Context) -> None:
    rule = compiled.rule
    assert isinstance(rule, PrBodyRule)
    triggers, problems = ctx.triggers(compiled)
    if not triggers and not problems:
        return
    need = f"`{rule.contains}` and an explanation" if rule.contains else "an explanation"
    if ctx.phase is Phase.TURN:
        if triggers:
            message = (
                f"{_describe_all(triggers)}; the PR body's {rule.section} section will need {need}."
            )
            ctx.deferred.append(
                Deferred(rule.id, rule.section, rule.contains, message, rule.reason)
            )
        ctx.unchecked.extend(problems)
        return
    text = ctx.body.text
    if text is None or len(text.encode("utf-8", "replace")) > ctx.limits.max_body_bytes:
        why = (
            "no pull-request description is available"
            if text is None
            else f"the PR description is over the {ctx.limits.max_body_bytes} bytes cagr reads"
        )
        ctx.unchecked.append(
            Unchecked(
                rule.id,
                Stage.BODY,
                f"this rule needs the PR body's {rule.section} section, but {why}."
                " Run the check where the PR description is known (a pull request's CI, or with"
                " the body given explicitly).",
            )
        )
        ctx.unchecked.extend(problems)
        return
    section = ctx.parsed_body().section(rule.section)
    if ctx.body.truncated and not section.decided_by_cut_text():
        ctx.unchecked.append(Unchecked(rule.id, Stage.BODY, _cut_section_message(section)))
        ctx.unchecked.extend(problems)
        return
    problem = check_section(section, rule.contains)
    if problem is None:
        return
    ctx.unchecked.extend(problems)
    if not triggers:
        return
    gap = (
        "the PR body is empty"
        if not text.strip()
        else _PROBLEMS[problem].format(section=rule.section, contains=rule.contains)
    )
    ctx.find(compiled, f"{_describe_all(triggers)}; {gap}.", [t.change.path for t in triggers])


def _cut_section_message(section: Section) -> str:
    """Why a cut copy of the description cannot decide a section (see PrBody.truncated)."""
    where = (
        "does not end inside it (no next heading follows it there)"
        if section.found is Found.FOUND
        else "is not in it"
    )
    return (
        f"this rule needs the PR body's {section.name} section, but only the start of the PR"
        f" description is available here and the {section.name} section {where}. Put the section"
        " nearer the top of the description, or give the whole text with --body-file."
    )


_CHECKS: dict[type, Callable[[CompiledRule, _Context], None]] = {
    RequiresRule: _check_requires,
    AddOnlyRule: _check_add_only,
    SiblingRule: _check_sibling,
    PrBodyRule: _check_pr_body,
}


def evaluate(
    rules: RuleSet,
    changes: ChangeSet,
    body: PrBody,
    phase: Phase,
    limits: Limits = DEFAULT_LIMITS,
) -> Report:
    """Judge `changes` (and `body`, where the phase requires one) against every rule."""
    report = Report(range=changes.range, pending_staged=changes.pending_staged)
    if not changes.complete:
        return evolve(report, unchecked=changes.unchecked)
    over = _over_limits(rules, changes, limits)
    if over is not None:
        return evolve(report, unchecked=(over,))
    ctx = _Context(changes, body, phase, limits)
    unknown = {item.path: item.message for item in changes.unchecked if item.path is not None}
    for compiled in rules.rules:
        blocked = _unknown_input(compiled, unknown, changes) if unknown else None
        if blocked is not None:
            message = f"{unknown[blocked]} This rule looks at that path, so it was not decided."
            ctx.unchecked.append(Unchecked(compiled.rule.id, Stage.COLLECT, message, blocked))
            continue
        _CHECKS[type(compiled.rule)](compiled, ctx)
    return evolve(
        report,
        findings=tuple(sorted(ctx.findings, key=lambda f: (f.rule, f.paths, f.message))),
        unchecked=tuple(
            sorted(set(ctx.unchecked), key=lambda u: (u.rule or "", u.stage.value, u.message))
        ),
        deferred=tuple(sorted(ctx.deferred, key=lambda d: (d.rule, d.message))),
    )


def _unknown_input(
    compiled: CompiledRule, unknown: dict[str, str], changes: ChangeSet
) -> str | None:
    """The first path whose change is unknown that this rule would look at, if any: a trigger,
    a required companion, or a sibling target of a known added file."""
    for path in sorted(unknown):
        if compiled.selector.selects(path) or any(m.matches(path) for m in compiled.require):
            return path
    if compiled.target is not None:
        for change in changes.changes:
            if change.status is Status.ADDED and compiled.selector.selects(change.path):
                try:
                    target = compiled.target.render(change.path)
                except RenderError:
                    continue
                if target in unknown:
                    return target
    return None


def _over_limits(rules: RuleSet, changes: ChangeSet, limits: Limits) -> Unchecked | None:
    if len(changes.changes) > limits.max_changes:
        return Unchecked(
            None,
            Stage.LIMITS,
            f"{len(changes.changes)} changed paths are more than the {limits.max_changes} cagr"
            " checks at once; nothing was evaluated. Split the change into smaller ones.",
        )
    if len(rules.rules) > limits.max_rules:
        return Unchecked(
            None,
            Stage.LIMITS,
            f"{len(rules.rules)} change rules are more than the {limits.max_rules} cagr runs at"
            " once; nothing was evaluated. Merge rules that share paths.",
        )
    return None
