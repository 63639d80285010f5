"""The pure evaluator: rules, a change set and a PR body in; a Report out.

Every rule runs; none depends on another, so rule and change order never change the report.
Anything that cannot be decided exactly (an unreadable manifest, a missing body where one is
required, a cap exceeded, the caller's deadline passed) is reported as unchecked, never as a pass.

Which changes a rule looks at comes from the RuleSet's index (one walk over the changed paths);
`_evaluate_naive` tries every rule's matchers on every change instead, and is kept as the oracle
the property tests and the benchmark compare against.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import chain

from .changes import (
    MAX_CONTENT_BYTES,
    Change,
    ChangeSet,
    Kind,
    Side,
    Stage,
    Status,
    Unchecked,
)
from .code import CodeMatch, CodeProblem, new_matches
from .dependencies import (
    FORMATS,
    Addition,
    Additions,
    Declared,
    Format,
    ManifestProblem,
    additions,
)
from .dependencies import changes as dependency_changes
from .description import judge_section, owed
from .globs import Binding, PathMatcher, fill, is_literal
from .layout import follows, stem
from .pull_request import MAX_BODY_BYTES, Phase, PrBody
from .report import AddedDependency, Deferred, Finding, Report
from .rule_index import Matches, RuleIndex
from .ruleset import CompiledRule, RuleSet
from .sections import heading_text
from .severity import Severity
from .templates import RenderError
from .values import field, replace, value
from .when import When
from .whitespace import Whitespace, only_whitespace


@value
class Limits:
    """Caps that keep one evaluation bounded. Exceeding one reports unchecked, never a pass."""

    max_changes: int = 50_000
    max_rules: int = 1_000
    max_body_bytes: int = MAX_BODY_BYTES


DEFAULT_LIMITS = Limits()
CODE_FINDINGS_LISTED = 1_000  # a code rule's matches listed one by one; the rest are counted
_EMPTY_BLOB = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"  # many files share it: no rename hint

_CHECK_EVERY = 128  # loop steps between two calls of the caller's `expired`
_OUT_OF_TIME = (
    "the time for this check ran out before this rule was decided. Run `cagr rules check`"
    " to decide it without the time limit."
)


class _OutOfTime(Exception):
    """The caller's deadline passed while a rule was being decided."""


@value(frozen=False)
class _Clock:
    """The caller's deadline: asked before each rule and every _CHECK_EVERY steps of a loop."""

    expired: Callable[[], bool] | None
    _steps: int = 0

    def check(self) -> None:
        """Raise _OutOfTime if the deadline has passed."""
        if self.expired is not None and self.expired():
            raise _OutOfTime

    def tick(self) -> None:
        """One step of a loop: check the deadline on every _CHECK_EVERY-th."""
        self._steps += 1
        if self._steps % _CHECK_EVERY == 0:
            self.check()


TYPE_CHECKING = False  # not typing's: a check need not import it
if TYPE_CHECKING:
    from typing import Any, Protocol

    class _Paths(Protocol):
        """What the rules look at among the changes and the paths whose change is unknown."""

        def changes_matching(self, matcher: PathMatcher) -> list[Change]:
            """The changes whose path the matcher matches, in path order."""
            ...

        def first_unknown(self, compiled: CompiledRule) -> str | None:
            """The first unknown path (in sorted order) the rule selects or requires, if any."""
            ...


@value
class _Scan:
    """The naive way: the matcher is tried on every path, once per rule that asks. It asks the
    deadline only between rules and in the checks' loops, so that it costs what the evaluator
    did before the index and stays a fair baseline."""

    changes: tuple[Change, ...]
    unknown: tuple[str, ...]

    def changes_matching(self, matcher: PathMatcher) -> list[Change]:
        return [change for change in self.changes if matcher.matches(change.path)]

    def first_unknown(self, compiled: CompiledRule) -> str | None:
        for path in self.unknown:
            if compiled.selector.selects(path) or any(m.matches(path) for m in compiled.require):
                return path
        return None


@value(frozen=False)
class _Lookup:
    """The indexed way: every indexed matcher against every path in one walk, on first use
    (so the walk runs under the deadline too), then looked up."""

    index: RuleIndex
    changes: tuple[Change, ...]
    unknown: tuple[str, ...]
    clock: _Clock
    _of_changes: Matches | None = None
    _of_unknown: Matches | None = None

    def changes_matching(self, matcher: PathMatcher) -> list[Change]:
        if self._of_changes is None:
            paths = [change.path for change in self.changes]
            self._of_changes = self.index.match(paths, self.clock.tick)
        return [self.changes[n] for n in self._of_changes.positions(matcher)]

    def first_unknown(self, compiled: CompiledRule) -> str | None:
        if self._of_unknown is None:
            self._of_unknown = self.index.match(self.unknown, self.clock.tick)
        ignores = compiled.selector.ignores
        selected = (
            n
            for n in self._of_unknown.positions(compiled.selector.paths)
            if not ignores.matches(self.unknown[n])
        )
        required = (n for m in compiled.require for n in self._of_unknown.positions(m))
        first = min(chain(selected, required), default=None)
        return None if first is None else self.unknown[first]


@value
class _Trigger:
    """A selected change that fired the rule, with the dependencies it added, if that fired it."""

    change: Change
    added: tuple[Addition, ...] = ()
    deletion: str = "was deleted"

    def describe(self) -> str:
        if self.added:
            labels = tuple(addition.label for addition in self.added)
            if any(addition.change != "added" for addition in self.added):
                return f"{self.change.path} changes its dependencies: {_first_few(labels)}"
            # `dependency_changed` labels say `added x`: the sentence says it once
            added = tuple(label.removeprefix("added ") for label in labels)
            return f"Added {_first_few(added)} in {self.change.path}"
        path, old, new = self.change.path, self.change.old, self.change.new
        if old is None:
            return f"{path} was added"
        if new is None:
            return f"{path} {self.deletion}"
        if self.change.status is Status.TYPE_CHANGED:
            return f"{path} changed from a {old.kind.described} to a {new.kind.described}"
        return f"{path} changed"


def _first_few(items: tuple[str, ...], shown: int = 3) -> str:
    head = ", ".join(items[:shown])
    return head if len(items) <= shown else f"{head} and {len(items) - shown} more"


def _dependencies(triggers: list[_Trigger]) -> tuple[AddedDependency, ...]:
    """Every dependency the triggers added, as data (messages name only the first few)."""
    return tuple(
        AddedDependency(addition.name, addition.section, trigger.change.path, addition.change)
        for trigger in triggers
        for addition in trigger.added
    )


def _describe_all(triggers: list[_Trigger]) -> str:
    """The first trigger described, and the others named (the first few; JSON has them all)."""
    first = triggers[0].describe()
    rest = tuple(trigger.change.path for trigger in triggers[1:])
    if not rest:
        return first
    plural = "s" if len(rest) > 1 else ""
    return f"{first} (and {len(rest)} more selected path{plural}: {_first_few(rest)})"


@value(frozen=False)
class _Context:
    """One evaluation's inputs, with the path index and the parsed body computed once."""

    changes: ChangeSet
    body: PrBody
    phase: Phase
    limits: Limits
    clock: _Clock
    paths: _Paths
    by_path: dict[str, Change] = field(init=False)
    findings: list[Finding] = field(init=False, factory=list)
    unchecked: list[Unchecked] = field(init=False, factory=list)
    deferred: list[Deferred] = field(init=False, factory=list)
    added_as: dict[str, str] = field(init=False, factory=dict)  # object id -> first added path
    filed: dict[tuple[str, ...], dict[Binding, list[Change]]] = field(init=False, factory=dict)
    fired: set[str] = field(init=False, factory=set)  # rules whose trigger a change matched

    @property
    def snapshot(self) -> bool:
        """Whether the change set is a snapshot of files (`cagr check`), not a change."""
        return self.changes.range is not None and self.changes.range.snapshot

    def __post_init__(self) -> None:
        self.by_path = {change.path: change for change in self.changes.changes}
        for change in self.changes.changes:
            if change.old is None and change.new is not None and change.new.kind.is_file:
                self.added_as.setdefault(change.new.oid, change.path)

    def moved_to(self, change: Change) -> str | None:
        """For a deleted file: the added path that holds the same content (git: a rename)."""
        old = change.old
        if change.new is not None or old is None or old.oid == _EMPTY_BLOB:
            return None
        return self.added_as.get(old.oid) if old.kind.is_file else None

    def deletion(self, change: Change) -> str:
        """`was deleted`, naming where the content went when it reappears as an added path."""
        moved = self.moved_to(change)
        return "was deleted" if moved is None else f"was deleted (its content was added as {moved})"

    def find(self, compiled: CompiledRule, message: str, paths: list[str], **details: Any) -> None:
        """Record a finding; `details` are the Finding's optional fields (requires, target,
        dependencies)."""
        self.findings.append(
            Finding(
                compiled.id,
                compiled.kind,
                message,
                compiled.reason,
                tuple(paths),
                severity=compiled.severity,
                waive_label=compiled.waive_label,
                waive_authors=compiled.waive_authors,
                **details,
            )
        )

    def candidates(
        self, matcher: PathMatcher, bound: PathMatcher | None, binding: Binding = ()
    ) -> list[Change]:
        """The changes a `require` matcher matches; with `bound` (the matcher with `binding`'s
        values put in), those it matches too (the index finds the first, a superset). A
        matcher whose parts each have one place files its changes by binding once."""
        if bound is None:
            return self.paths.changes_matching(matcher)
        if matcher.binds:
            return self._by_binding(matcher).get(binding, [])
        found = self.paths.changes_matching(matcher)
        kept = []
        for change in found:
            self.clock.tick()
            if bound.matches(change.path):
                kept.append(change)
        return kept

    def _by_binding(self, matcher: PathMatcher) -> dict[Binding, list[Change]]:
        """The changes the matcher matches, under each binding of its parts they give."""
        filed = self.filed.get(matcher.patterns)
        if filed is None:
            filed = self.filed[matcher.patterns] = {}
            for change in self.paths.changes_matching(matcher):
                self.clock.tick()
                for binding in matcher.bindings(change.path):
                    filed.setdefault(binding, []).append(change)
        return filed

    def satisfied(
        self,
        matcher: PathMatcher,
        added_only: bool,
        bound: PathMatcher | None,
        binding: Binding = (),
    ) -> bool:
        """Whether a change the `require` matcher matches counts (see _satisfies)."""
        for change in self.candidates(matcher, bound, binding):
            self.clock.tick()
            if _satisfies(change, added_only):
                return True
        return False

    def selected(self, compiled: CompiledRule) -> list[Change]:
        """The changes the rule's selector picks (its paths minus its ignores), in path order."""
        chosen = self.paths.changes_matching(compiled.selector.paths)
        ignores = compiled.selector.ignores
        if not ignores.patterns:
            return chosen
        kept = []
        for change in chosen:
            self.clock.tick()
            if not ignores.matches(change.path):
                kept.append(change)
        return kept

    def triggers(self, compiled: CompiledRule) -> tuple[list[_Trigger], list[_Problem]]:
        """The selected changes that fire the rule, and the manifests that could not be read
        (each with its change)."""
        selected = self.selected(compiled)
        if compiled.when is When.CHANGED:
            return [_Trigger(change, (), self.deletion(change)) for change in selected], []
        if compiled.when is When.ADDED:
            return [_Trigger(change) for change in selected if change.old is None], []
        triggers: list[_Trigger] = []
        problems: list[_Problem] = []
        for change in selected:
            self.clock.check()  # reading a manifest can take long: ask every time
            if change.new is None and compiled.when is When.DEPENDENCY_ADDED:
                continue  # a deleted file adds no dependency, whatever it was
            manifest = compiled.manifest_format(change.path)
            if manifest is None:
                problems.append((change, _not_a_manifest(change.path)))
                continue
            try:
                read = self._added(change, manifest, compiled.when)
            except _SideProblem as error:
                problems.append((change, _manifest_problem(change, manifest, error)))
                continue
            if read.unnamed:
                problems.append((change, _unnamed_problem(change.path, read.unnamed)))
            ignored = compiled.ignore_dependencies
            edits = tuple(
                edit
                for edit in read.added
                if ignored is None or not ignored.ignores(manifest, edit.key)
            )
            if edits:
                triggers.append(_Trigger(change, edits))
        return triggers, problems

    def _added(self, change: Change, manifest: Format, when: When) -> Additions:
        """What the change adds (or, for `dependency_changed`, adds, removes and changes) read
        as `manifest`; _SideProblem for a side that was not read (or not so), or cannot be
        (the old side first: when both are broken, the change did not break the file)."""
        sides: list[Declared | None] = []
        for side_name, side in (("old", change.old), ("new", change.new)):
            if side is None:
                sides.append(None)
                continue
            if not side.kind.is_file:
                raise _SideProblem(
                    f"the {side_name} side is a {side.kind.described}, not a file",
                    side_name,
                    malformed=False,
                )
            read = side.declared(manifest)
            if read is None:
                raise _SideProblem(
                    f"the {side_name} side's content was not loaded", side_name, malformed=False
                )
            if isinstance(read, ManifestProblem):
                raise _SideProblem(
                    f"the {side_name} side {read.message}", side_name, malformed=read.malformed
                )
            sides.append(read)
        if when is When.DEPENDENCY_CHANGED:
            return dependency_changes(manifest, sides[0], sides[1])
        return additions(manifest, sides[0], sides[1])


_Problem = tuple[Change, str]  # a selected manifest that could not be read, and why


def _unchecked(compiled: CompiledRule, problems: list[_Problem]) -> list[Unchecked]:
    return [Unchecked(compiled.id, Stage.SELECTOR, text) for _, text in problems]


class _SideProblem(Exception):
    """A manifest side that cannot be judged: `side` is "old" or "new"; `malformed`, as in
    ManifestProblem."""

    def __init__(self, message: str, side: str, *, malformed: bool) -> None:
        super().__init__(message)
        self.side = side
        self.malformed = malformed


def _not_a_manifest(path: str) -> str:
    return (
        f"{path} is selected, but its name is not that of a manifest cagr reads ({FORMATS});"
        " nothing was read from it. Narrow the rule's paths to manifests, add this path to its"
        ' ignores, or set `format = "requirements"` on the rule if it is a pip requirements file.'
    )


def _unnamed_problem(path: str, unnamed: tuple[str, ...]) -> str:
    return (
        f"cannot tell which dependency {path} adds at {_first_few(unnamed)}: a path or URL that"
        " names no package. Name the package (`name @ URL`, or `#egg=name` on an editable"
        " line) and check again, or have a person review the addition."
    )


def _manifest_problem(change: Change, manifest: Format, error: _SideProblem) -> str:
    """Why a manifest could not be read, and what can be done about it: only a new side that
    is not a valid manifest is the change's to correct."""
    if error.side == "old":
        return (
            f"cannot read dependencies from {change.path}: {error}. The old side is the merge"
            " base's copy, already on the target branch: no edit in this change can fix it, so"
            " the rule stays unchecked for this change. Once the file is valid on the target"
            " branch, rebase onto it and check again; until then, a person has to review the"
            " added dependencies."
        )
    if not error.malformed:
        return (
            f"cannot read dependencies from {change.path}: {error}, so the rule stays unchecked"
            " for this change: a person has to review the dependencies it adds."
        )
    return (
        f"cannot read dependencies from {change.path}: {error}. cagr reads it as"
        f" {manifest.described}, and the merge base's copy was valid: correct this change's"
        " version and check again (if it is not one, add it to the rule's ignores)."
    )


def _satisfies(change: Change, added_only: bool) -> bool:
    """Whether a change matching a `require` entry counts: a regular file in the result, and
    for an added-only entry one the baseline did not have."""
    return change.exists_as_file and (not added_only or change.old is None)


def _bindings(compiled: CompiledRule, change: Change, ctx: _Context) -> tuple[Binding, ...]:
    """The distinct bindings of the named parts `require` or `target` use, for one selected
    change (one empty binding when they use none). A selected path that binds none of them
    (a configuration the validator rejects) is unchecked, never passed."""
    used = compiled.parts_used
    if not used:
        return ((),)
    found: list[Binding] = []
    for binding in compiled.selector.paths.bindings(change.path):
        projected = tuple((name, text) for name, text in binding if name in used)
        if len(projected) == len(used) and projected not in found:
            found.append(projected)
    if not found:
        listed = ", ".join(f"{{{name}}}" for name in sorted(used))
        ctx.unchecked.append(
            Unchecked(
                compiled.id,
                Stage.TEMPLATE,
                f"{change.path} is selected, but no pattern of the rule's paths that matches it"
                f" names {listed}, so its companion is unknown. Name the part in every paths"
                " pattern.",
            )
        )
    return tuple(found)


def _check_requires(compiled: CompiledRule, ctx: _Context) -> None:
    triggers, problems = ctx.triggers(compiled)
    if triggers:
        ctx.fired.add(compiled.id)
    by_binding: dict[Binding, tuple[list[_Trigger], list[_Problem]]] = {}
    for trigger in triggers:
        for binding in _bindings(compiled, trigger.change, ctx):
            by_binding.setdefault(binding, ([], []))[0].append(trigger)
    for problem in problems:
        for binding in _bindings(compiled, problem[0], ctx):
            by_binding.setdefault(binding, ([], []))[1].append(problem)
    for binding, (fired, unread) in sorted(by_binding.items()):
        _requires_for(compiled, ctx, binding, fired, unread)


def _requires_for(
    compiled: CompiledRule,
    ctx: _Context,
    binding: Binding,
    triggers: list[_Trigger],
    problems: list[_Problem],
) -> None:
    """One binding's obligation: each `require` entry, with the binding's values put in."""
    values = dict(binding)
    missing = []
    for index, (matcher, added_only) in enumerate(
        zip(compiled.require, compiled.require_added, strict=True)
    ):
        own = tuple((name, text) for name, text in binding if name in matcher.parts)
        bound = None
        if matcher.parts:  # filed by binding when it can be, else matched by the bound form
            written = (fill(compiled.require_globs[index], values),)
            bound = matcher if matcher.binds else matcher.bind(values, written)
        if not ctx.satisfied(matcher, added_only, bound, own):
            missing.append((index, matcher, bound, added_only, own))
    if not missing:
        return  # met: whatever an unreadable manifest adds, the companion is there
    ctx.unchecked.extend(_unchecked(compiled, problems))
    if not triggers:
        return
    # Near misses: the first change each missing entry matches, which does not count.
    nearest = [next(iter(ctx.candidates(m, bound, own)), None) for _, m, bound, _, own in missing]
    shown = [fill(compiled.require_globs[index], values) for index, *_ in missing]
    gaps = "; ".join(
        _missing_companion(glob, near, added_only, ctx)
        for glob, (_, _, _, added_only, _), near in zip(shown, missing, nearest, strict=True)
    )
    paths = [t.change.path for t in triggers]
    for near in nearest:
        if near is not None and near.path not in paths:
            paths.append(near.path)
    requires = tuple(
        f"{glob} (added)" if added_only else glob
        for glob, (_, _, _, added_only, _) in zip(shown, missing, strict=True)
    )
    ctx.find(
        compiled,
        f"{_describe_all(triggers)}; {gaps}.",
        paths,
        requires=requires,
        dependencies=_dependencies(triggers),
        parts=binding,
    )


def _missing_companion(pattern: str, near: Change | None, added_only: bool, ctx: _Context) -> str:
    """Why nothing satisfied one `require` entry, naming its near miss when there is one."""
    shown = pattern.removeprefix("/")
    if near is None:
        if added_only:
            return (
                f"{shown} was not added"
                if is_literal(pattern)
                else f"nothing matching {pattern} was added"
            )
        return (
            f"{shown} did not change"
            if is_literal(pattern)
            else f"nothing matching {pattern} changed"
        )
    if near.new is None:
        return f"{near.path} {ctx.deletion(near)}, which does not count"
    if not near.new.kind.is_file:
        return f"{near.path} is now a {near.new.kind.described}, not a regular file"
    what = shown if is_literal(pattern) else f"a file matching {pattern}"
    return f"{near.path} was changed, not added, and this rule needs {what} added"


def _check_add_only(compiled: CompiledRule, ctx: _Context) -> None:
    for change in ctx.selected(compiled):
        ctx.clock.tick()
        old, new = change.old, change.new
        if old is None:
            continue
        ctx.fired.add(compiled.id)
        if new is None:
            what = ctx.deletion(change)
        elif change.status is Status.TYPE_CHANGED:
            what = f"changed from a {old.kind.described} to a {new.kind.described}"
        elif old.oid == new.oid:
            what = f"changed mode from {old.mode:o} to {new.mode:o}"
        elif old.mode != new.mode:
            what = f"was edited and changed mode from {old.mode:o} to {new.mode:o}"
        else:
            edited = _edited(old, new, compiled.ignore_whitespace)
            if edited is None:
                continue  # only in whitespace the rule lets by
            what = edited
        ctx.find(compiled, f"{change.path} existed at the baseline and {what}.", [change.path])


def _edited(old: Side, new: Side, mode: Whitespace | None) -> str | None:
    """How a content edit counts, with `mode`'s whitespace let by (None: the edit is only in
    that whitespace); an edit whose content was not loaded whole counts, as it cannot be
    compared."""
    if mode is None or not (old.kind.is_file and new.kind.is_file):
        return "was edited"
    if old.content is None or new.content is None:
        return "was edited (its content was not read, so not compared ignoring whitespace)"
    if max(len(old.content), len(new.content)) > MAX_CONTENT_BYTES:
        return (
            f"was edited (a side is larger than the {MAX_CONTENT_BYTES} bytes cagr compares"
            " ignoring whitespace)"
        )
    if only_whitespace(old.content, new.content, mode):
        return None
    return "was edited beyond its whitespace"


def _check_sibling(compiled: CompiledRule, ctx: _Context) -> None:
    for change in ctx.selected(compiled):
        ctx.clock.tick()
        if change.status is not Status.ADDED:
            continue
        ctx.fired.add(compiled.id)
        for binding in _bindings(compiled, change, ctx):
            _sibling_for(compiled, ctx, change, binding)


def _sibling_for(compiled: CompiledRule, ctx: _Context, change: Change, binding: Binding) -> None:
    """One added path's obligation, for one binding of the named parts its targets use."""
    targets: list[str] = []
    problems: list[str] = []
    for template in compiled.targets:
        try:
            target = template.render(change.path, dict(binding))
        except RenderError as error:
            problems.append(f"{error}; add {change.path} to ignores or change target")
            continue
        if target == change.path:
            problems.append(f"{template.source} names {change.path} itself")
            continue
        if target not in targets:
            targets.append(target)
    if any(_is_file(ctx.by_path.get(target)) for target in targets):
        return
    if problems:  # a target that could not be rendered might be the one the author meant
        ctx.unchecked.extend(Unchecked(compiled.id, Stage.TEMPLATE, t) for t in problems)
        return
    paths = [change.path]
    notes = []
    for target in targets:
        companion = ctx.by_path.get(target)
        if companion is not None:
            paths.append(target)
            notes.append((target, _companion_problem(companion, ctx)))
    needed = targets[0] if len(targets) == 1 else f"one of {', '.join(targets)}"
    if len(targets) == 1 and notes:
        note = f" (it {notes[0][1]})"
    else:
        note = f" ({'; '.join(f'{t} {n}' for t, n in notes)})" if notes else ""
    ctx.find(
        compiled,
        f"Added {change.path}; {needed} needs to be added or changed in this change{note}.",
        paths,
        target=targets[0],
        targets=tuple(targets),
        parts=binding,
    )


def _companion_problem(companion: Change, ctx: _Context) -> str:
    """Why a target that changed does not count: deleted (maybe moved), or no regular file."""
    if companion.new is None:
        moved = ctx.moved_to(companion)
        return "was deleted" if moved is None else f"was deleted; its content was added as {moved}"
    return f"is now a {companion.new.kind.described}, not a regular file"


def _is_file(change: Change | None) -> bool:
    return change is not None and change.exists_as_file


def _check_pr_body(compiled: CompiledRule, ctx: _Context) -> None:
    assert compiled.section is not None
    triggers, problems = ctx.triggers(compiled)
    if triggers:
        ctx.fired.add(compiled.id)
    if not triggers and not problems:
        return
    need = f"`{compiled.contains}` and an explanation" if compiled.contains else "an explanation"
    if compiled.checklist:
        need = f"its checklist (`- [ ]` items) and {need}"
    described = _describe_all(triggers) if triggers else ""
    section = heading_text(compiled.section)
    obligation = Deferred(
        compiled.id,
        compiled.section,
        compiled.contains,
        f"{described}; the PR body's {section} section will need {need}.",
        compiled.reason,
        trigger=described,
        dependencies=_dependencies(triggers),
        severity=compiled.severity,
        waive_label=compiled.waive_label,
        paths=tuple(t.change.path for t in triggers),
        placeholders=compiled.placeholders,
        waive_authors=compiled.waive_authors,
        checklist=compiled.checklist,
    )
    if ctx.phase is Phase.TURN:
        if triggers:
            ctx.deferred.append(obligation)
        ctx.unchecked.extend(_unchecked(compiled, problems))
        return
    judged = judge_section(ctx.body, obligation, ctx.limits.max_body_bytes)
    if judged.unknown is not None:
        ctx.unchecked.append(Unchecked(compiled.id, Stage.BODY, judged.unknown))
    elif judged.gap is None:
        return  # met: whatever an unreadable manifest adds, the description explains it
    ctx.unchecked.extend(_unchecked(compiled, problems))
    if triggers and judged.gap is not None:
        ctx.findings.append(owed(obligation, judged.gap))


def _check_code(compiled: CompiledRule, ctx: _Context) -> None:
    """Each added or modified file the rule selects: its matches that the baseline's version
    of the path does not hold (scope `new`), or all of them (scope `file`). The first
    CODE_FINDINGS_LISTED are findings of their own; the rest, one finding per file that says
    how many (a file of a million matches would otherwise take minutes to report)."""
    listed = 0
    for change in ctx.selected(compiled):
        ctx.clock.tick()
        new = change.new
        if new is not None and new.kind is Kind.SYMLINK:
            # What it points to is what a program reads (Python imports `b.py -> real.txt`),
            # and cagr follows no link: the rule cannot tell what it adds.
            ctx.fired.add(compiled.id)
            message = (
                f"{change.path} is a symbolic link, which cagr does not follow, so the code it"
                " points to was not searched. Point the rule's paths at the file it links to,"
                " or add the link to the rule's ignores."
            )
            ctx.unchecked.append(Unchecked(compiled.id, Stage.CODE, message, change.path))
            continue
        if new is None or not new.kind.is_file:
            continue  # deleted files never fire, and a submodule holds no code of this tree
        ctx.fired.add(compiled.id)
        after = _searched(compiled, change, "result's", new.code_read(compiled.id), ctx)
        if not after:
            continue
        baseline: tuple[CodeMatch, ...] = ()
        old = change.old
        if compiled.scope == "new" and old is not None and old.kind.is_file:
            before = _searched(compiled, change, "merge base's", old.code_read(compiled.id), ctx)
            if before is None:
                continue  # what is new cannot be told from a baseline that was not searched
            baseline = before
        found = new_matches(baseline, after)
        shown = found[: max(0, CODE_FINDINGS_LISTED - listed)]
        for match in shown:
            ctx.clock.tick()
            ctx.find(
                compiled,
                _code_message(compiled, change, match, baseline, after, snapshot=ctx.snapshot),
                [change.path],
                line=match.line,
                column=match.column,
            )
        listed += len(shown)
        if len(found) > len(shown):
            first = found[len(shown)]
            ctx.find(
                compiled,
                f"{change.path}:{first.line}:{first.column}: {len(found) - len(shown)} more"
                f" match(es) of this rule from here on, not listed one by one (a rule lists"
                f" {CODE_FINDINGS_LISTED} of its own).",
                [change.path],
                line=first.line,
                column=first.column,
            )


def _searched(
    compiled: CompiledRule,
    change: Change,
    side: str,
    read: tuple[CodeMatch, ...] | CodeProblem | None,
    ctx: _Context,
) -> tuple[CodeMatch, ...] | None:
    """A side's matches; None (and the rule unchecked for the path) when it was not searched."""
    if isinstance(read, tuple):
        return read
    if read is None:
        message = f"the {side} {change.path} was not searched (its content was not loaded)."
        ctx.unchecked.append(Unchecked(compiled.id, Stage.CODE, message, change.path))
    elif read.everywhere:
        ctx.unchecked.append(Unchecked(compiled.id, Stage.CODE, read.message))
    else:
        message = f"the {side} {change.path} {read.message}"
        ctx.unchecked.append(Unchecked(compiled.id, Stage.CODE, message, change.path))
    return None


def _code_message(  # noqa: PLR0913  # the match, and what it is judged against
    compiled: CompiledRule,
    change: Change,
    match: CodeMatch,
    baseline: tuple[CodeMatch, ...],
    after: tuple[CodeMatch, ...],
    *,
    snapshot: bool,
) -> str:
    lines = match.text.strip().splitlines() or [""]
    shown = lines[0] if len(lines[0]) <= 80 else f"{lines[0][:77]}..."
    shown += " ..." if len(lines) > 1 else ""
    where = f"{change.path}:{match.line}:{match.column}"
    if compiled.scope == "file" or snapshot:
        return f"{where}: `{shown}` matches this code rule."
    if change.old is None or not change.old.kind.is_file:
        return f"{where}: `{shown}` is in a file this change adds."
    had = sum(1 for m in baseline if m.text == match.text)
    has = sum(1 for m in after if m.text == match.text)
    return (
        f"{where}: `{shown}` is new in this change (the merge base's {change.path} has {had}"
        f" of it, the result {has})."
    )


def _check_layout(compiled: CompiledRule, ctx: _Context) -> None:
    """Each added path the rule selects: none may be added (`forbid`), or its stem must follow
    the name convention. Paths that existed at the baseline are never judged."""
    for change in ctx.selected(compiled):
        ctx.clock.tick()
        if change.old is not None or change.new is None:
            continue
        ctx.fired.add(compiled.id)
        added = "is there" if ctx.snapshot else "was added"
        if compiled.forbid:
            message = f"{change.path} {added}, and no file may be added there."
        elif compiled.name_regex is not None and not follows(compiled.name_regex, change.path):
            name = compiled.name or ""
            wanted = (
                f"does not match `{name.removeprefix('regex:')}`"
                if name.startswith("regex:")
                else f"is not {name}"
            )
            message = f"{change.path} {added}; its name's stem `{stem(change.path)}` {wanted}."
        else:
            continue
        ctx.find(compiled, message, [change.path])


_CHECKS: dict[str, Callable[[CompiledRule, _Context], None]] = {
    "requires": _check_requires,
    "add_only": _check_add_only,
    "sibling": _check_sibling,
    "pr_body": _check_pr_body,
    "code": _check_code,
    "layout": _check_layout,
}


def evaluate(  # noqa: PLR0913 - the inputs, the caps and the deadline are all separate
    rules: RuleSet,
    changes: ChangeSet,
    body: PrBody,
    phase: Phase,
    limits: Limits = DEFAULT_LIMITS,
    *,
    expired: Callable[[], bool] | None = None,
) -> Report:
    """Judge `changes` (and `body`, where the phase requires one) against every rule.

    `expired`, when given, says whether the caller's time is up (the core reads no clock). It is
    asked before each rule and periodically inside long loops; once it says yes, every rule not
    yet decided is reported unchecked, and the findings already made are kept.
    """
    return _evaluate(rules, changes, body, phase, limits, expired=expired, naive=False)


def _evaluate_naive(  # noqa: PLR0913 - the same arguments as evaluate
    rules: RuleSet,
    changes: ChangeSet,
    body: PrBody,
    phase: Phase,
    limits: Limits = DEFAULT_LIMITS,
    *,
    expired: Callable[[], bool] | None = None,
) -> Report:
    """`evaluate` without the index: each rule's matchers tried on every change (the oracle)."""
    return _evaluate(rules, changes, body, phase, limits, expired=expired, naive=True)


def _evaluate(  # noqa: PLR0913 - evaluate's arguments and which way to find paths
    rules: RuleSet,
    changes: ChangeSet,
    body: PrBody,
    phase: Phase,
    limits: Limits,
    *,
    expired: Callable[[], bool] | None,
    naive: bool,
) -> Report:
    report = Report(
        range=changes.range,
        pending_staged=changes.pending_staged,
        changed_paths=len(changes.changes),
    )
    if not changes.complete:
        return replace(report, unchecked=changes.unchecked)
    over = _over_limits(rules, changes, limits)
    if over is not None:
        return replace(report, unchecked=(over,))
    unknown = {item.path: item.message for item in changes.unchecked if item.path is not None}
    clock = _Clock(expired)
    known = changes.changes
    unknown_paths = tuple(sorted(path for path in unknown if not path.endswith("/")))
    paths: _Paths = (
        _Scan(known, unknown_paths) if naive else _Lookup(rules.index, known, unknown_paths, clock)
    )
    ctx = _Context(changes, body, phase, limits, clock, paths)
    decided = 0
    try:
        for compiled in rules.rules:
            clock.check()
            blocked = _unknown_input(compiled, unknown, ctx) if unknown else None
            if blocked is not None:
                message = f"{unknown[blocked]} This rule looks at that path, so it was not decided."
                ctx.unchecked.append(Unchecked(compiled.id, Stage.COLLECT, message, blocked))
            else:
                _CHECKS[compiled.kind](compiled, ctx)
            decided += 1
    except _OutOfTime:
        # What the interrupted rule already found stands (each finding is complete on its
        # own); the rule itself, and every one after it, is undecided.
        ctx.unchecked.extend(
            Unchecked(c.id, Stage.DEADLINE, _OUT_OF_TIME) for c in rules.rules[decided:]
        )
    severities = {c.id: c.severity for c in rules.rules}
    return replace(
        report,
        findings=tuple(
            sorted(
                ctx.findings, key=lambda f: (f.rule, f.paths, f.line or 0, f.column or 0, f.message)
            )
        ),
        unchecked=tuple(
            sorted(
                {_weighed(item, severities) for item in ctx.unchecked},
                key=lambda u: (u.rule or "", u.stage.value, u.message),
            )
        ),
        deferred=tuple(sorted(ctx.deferred, key=lambda d: (d.rule, d.message))),
        rules_checked=len(rules.rules),
        fired=tuple(sorted(ctx.fired)),
    )


def _weighed(item: Unchecked, severities: dict[str, Severity]) -> Unchecked:
    """An undecided rule's item, with that rule's severity: a `warn` rule's never gates."""
    severity = severities.get(item.rule or "", Severity.ERROR)
    return item if severity is item.severity else replace(item, severity=severity)


def _unknown_input(compiled: CompiledRule, unknown: dict[str, str], ctx: _Context) -> str | None:
    """The first path whose change is unknown that this rule would look at, if any: a trigger,
    a required companion, or a sibling target of a known added file. An unknown path ending in
    `/` is a folder whose contents are unknown: the rule looks at it if it could match beneath."""
    folders = [path for path in sorted(unknown) if path.endswith("/")]
    matchers = (compiled.selector.paths, *compiled.require)
    for folder in folders:
        if any(m.could_match_below(folder) for m in matchers):
            return folder
    first = ctx.paths.first_unknown(compiled)
    if first is not None:
        return first
    if compiled.targets:
        for change in ctx.selected(compiled):
            if change.status is not Status.ADDED:
                continue
            for binding in _bindings(compiled, change, ctx):
                found = _unknown_target(compiled, change, binding, unknown, folders)
                if found is not None:
                    return found
    return None


def _unknown_target(
    compiled: CompiledRule,
    change: Change,
    binding: Binding,
    unknown: dict[str, str],
    folders: list[str],
) -> str | None:
    """The first target of an added file, for one binding, whose change is unknown."""
    for template in compiled.targets:
        try:
            target = template.render(change.path, dict(binding))
        except RenderError:
            continue
        if target in unknown:
            return target
        beneath = next((f for f in folders if target.startswith(f)), None)
        if beneath is not None:
            return beneath
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
