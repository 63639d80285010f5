"""The target's configuration beside the branch's: `cagr ci` judges by both, local checks say
how they differ.

A branch that edits `.cagr/changes.toml` could delete a rule, set it to `warn` or narrow its
paths, and pass its own CI. So CI reads the configuration at the target commit it resolved and
evaluates one rule set, the union of the target's rules and the branch's: a rule both hold alike
judges once; a rule only one holds judges as that one has it; a rule the branch changed judges
in both forms. Inside the evaluation the target's form is `ID@target` (`@` is in no rule id, so
it can collide with none); the report names it ID again, with `config_source = "target"`, and a
finding both forms make alike is reported once (`"both"`). So a target form with severity
`error` fails whatever the branch set, and only the target's `waive_label` waives it.
`[review].pr_sections` is the union of both lists, and `[stack].ci` of both commands (the
target's are reviewed; they run on the branch's tree, like the branch's own); `[git]
protected_branch` is the branch's, as it chose the target before the target's was read.

A target whose configuration is invalid (or unreadable) judges nothing. A change that edits
cagr's configuration may be its repair: its own rules judge it alone and the report says so.
Any other change is unchecked until the target is repaired; so the repair itself is never
blocked, and nothing else passes without the target's rules.
"""

from __future__ import annotations

import hashlib

from cagr_config.compiled import Compiled, Settings, StackRun
from cagr_config.sources import is_config_source
from cagr_core.changes import ChangeSet, Stage, Unchecked
from cagr_core.report import BOTH, HEAD, TARGET, Deferred, Finding, Report, TargetRules
from cagr_core.ruleset import CompiledRule, RuleSet
from cagr_core.severity import Severity
from cagr_core.values import replace, value
from cagr_git.objects import DamagedObject
from cagr_git.repository import Repository

from .config import ConfigErrors, RepoConfig, config_from
from .config_cache import cached_config, keep_config
from .config_changes import config_files_at
from .config_files import ConfigFiles
from .range import RangeProblem, resolve_target

TARGET_FORM = "@target"  # the id suffix of a changed rule's target form, inside one evaluation
_SAID = "as the target's configuration has this rule: "
_ORDER = {BOTH: 0, HEAD: 1, TARGET: 2}
_LISTED = 5


def rule_id(evaluated: str) -> str:
    """The rule id a report shows for an id the evaluation used."""
    return evaluated.removesuffix(TARGET_FORM)


@value
class JudgingRules:
    """What a check evaluates (`config`: the branch's own configuration, or in CI the union with
    the target's), whose rules those are (`sources`), what the report says of the target's
    (`note`), and how to name each evaluated rule in the report.

    `unusable`: the target's configuration could not be used (invalid or unreadable), and CI
    asked for it; `finish` then decides what that means for the change.
    """

    config: RepoConfig
    sources: tuple[str, ...] = (HEAD,)
    note: TargetRules | None = None
    only_target: frozenset[str] = frozenset()
    changed: frozenset[str] = frozenset()
    unusable: str | None = None
    repairable: bool = True  # False: git cannot give the target's files, which no edit repairs

    def _named(self, evaluated: str) -> tuple[str, str]:
        """(the id to report, its config_source)."""
        if evaluated.endswith(TARGET_FORM):
            return rule_id(evaluated), TARGET
        if evaluated in self.only_target:
            return evaluated, TARGET
        if TARGET not in self.sources or evaluated in self.changed:
            return evaluated, HEAD
        only_head = self.note.only_head if self.note is not None else ()
        return evaluated, HEAD if evaluated in only_head else BOTH

    def relabel(self, report: Report) -> Report:
        """The report with every rule named as configured and labelled by its source; what both
        forms of a changed rule found alike, said once."""
        if TARGET not in self.sources:
            return report
        findings = _merged([self._finding(f) for f in report.findings], self.changed)
        return replace(
            report,
            findings=tuple(
                sorted(
                    findings,
                    key=lambda f: (f.rule, _ORDER[f.config_source], f.paths, f.message),
                )
            ),
            unchecked=_once([self._item(u) for u in report.unchecked]),
            deferred=_once([self._item(d) for d in report.deferred]),
            fired=tuple(dict.fromkeys(rule_id(fired) for fired in report.fired)),
        )

    def _finding(self, finding: Finding) -> Finding:
        rule, source = self._named(finding.rule)
        return replace(finding, rule=rule, config_source=source)

    def _item(self, item: _Item) -> tuple[_Item, bool]:
        """The item named as configured, and whether it is a target's rule's."""
        if item.rule is None:
            return item, False
        rule, source = self._named(item.rule)
        return replace(item, rule=rule), source == TARGET

    def finish(self, report: Report, changes: ChangeSet) -> Report:
        """The report with what it says of the target's configuration: the note, and when CI
        could not use the target's, unchecked for a change that cannot be its repair."""
        report = replace(report, config_sources=self.sources, target_config=self.note)
        if self.unusable is None or self.note is None or changes.range is None:
            return report
        target = f"{changes.range.target_ref} at {self.note.commit[:12]}"
        where = f"the configuration at the target ({target})"
        if not self.repairable:  # a partial clone (`--filter=blob:none`) lacks its files
            message = (
                f"{where} cannot be read from this clone ({self.unusable}), so the rules the"
                " target requires are unknown here, whatever this change edits. Fetch the"
                " target's files (a clone without a blob filter: actions/checkout's `filter`"
                " left out, or `git fetch origin` in a full clone), then run this check again."
            )
        elif any(is_config_source(change.path) for change in changes.changes):
            return report  # its own rules judged it: it may be the repair
        else:
            message = (
                f"{where} cannot judge ({self.unusable}), so the rules the target requires are"
                " unknown here, and this change does not edit cagr's configuration, which"
                " could repair it. Repair the target's configuration first (a pull request"
                " that edits it is judged by its own rules), then run this check again."
            )
        return replace(
            report,
            unchecked=(Unchecked(None, Stage.CONFIG, message), *report.unchecked),
        )


_Item = Unchecked | Deferred


def _once(items: list[tuple[_Item, bool]]) -> tuple[_Item, ...]:
    """Items in order, each once; a target's rule's item says so, and is dropped where the
    branch's form of the rule says the same at least as gravely."""
    branch = {_unweighed(item): item.severity for item, theirs in items if not theirs}
    kept: list[_Item] = []
    for item, theirs in items:
        said = branch.get(_unweighed(item)) if theirs else None
        if said is Severity.ERROR or said is item.severity:
            continue
        shown = replace(item, message=_SAID + item.message) if theirs else item
        if shown not in kept:
            kept.append(shown)
    return tuple(kept)


def _unweighed(item: _Item) -> _Item:
    return replace(item, severity=Severity.ERROR)


def _merged(findings: list[Finding], changed: frozenset[str]) -> list[Finding]:
    """A changed rule's findings, each violation said once where one form's finding stands for
    the other's: alike, they are one (BOTH); else the one that fails at least as surely (see
    _covers) is kept. Two that each fail in their own way (other waive labels) both stay."""
    forms: dict[tuple[object, ...], dict[str, Finding]] = {}
    for finding in findings:
        if finding.rule in changed:
            forms.setdefault(_violation(finding), {})[finding.config_source] = finding
    kept: list[Finding] = []
    for finding in findings:
        pair = forms.get(_violation(finding), {}) if finding.rule in changed else {}
        theirs, ours = pair.get(TARGET), pair.get(HEAD)
        if theirs is None or ours is None:
            kept.append(finding)
            continue
        if replace(theirs, config_source=BOTH) == replace(ours, config_source=BOTH):
            shown = [replace(theirs, config_source=BOTH)]
        elif _covers(theirs, ours):
            shown = [theirs]
        elif _covers(ours, theirs):
            shown = [ours]
        else:
            shown = [finding]
        kept.extend(one for one in shown if one not in kept)
    return kept


def _violation(finding: Finding) -> tuple[object, ...]:
    """What a finding says is wrong, whichever form of its rule found it."""
    return (
        finding.rule,
        finding.kind,
        finding.message,
        finding.paths,
        finding.requires,
        finding.targets,
        finding.dependencies,
        finding.parts,
    )


def _covers(one: Finding, other: Finding) -> bool:
    """Whether `one` fails wherever `other` does: an error that nothing waives, or only what
    waives `other` (its label, its authors), covers any finding; a warning covers a warning."""
    if one.severity is Severity.WARN:
        return other.severity is Severity.WARN
    waivers = (one.waive_label, frozenset(one.waive_authors))
    return (
        other.severity is Severity.WARN
        or waivers == (None, frozenset())
        or waivers == (other.waive_label, frozenset(other.waive_authors))
    )


def judging_rules(
    repo: Repository,
    target: str,
    branch: RepoConfig,
    *,
    judge: bool,
    gitdir: str | None = None,
) -> JudgingRules:
    """The rules a check of a change into `target` evaluates: with `judge` (CI), the branch's
    and the target's; otherwise the branch's, with a note when the target's differ. `gitdir`:
    where a local check keeps compiled configurations (CI reads none)."""
    own = JudgingRules(branch)
    if repo.problem is not None:
        return own  # the collection says why
    try:
        commit = resolve_target(repo, target).sha
    except RangeProblem:
        return own  # the collection says why
    try:
        files = config_files_at(repo, commit)
    except (KeyError, DamagedObject) as error:
        why = f"its files cannot be read from git: {error}"
        return _unusable(branch, commit, why, judge, repairable=False)
    if files.digest() == branch.raw_digest:
        return JudgingRules(branch, (TARGET, HEAD) if judge else (HEAD,))
    try:
        theirs = _compiled(branch.root, files, None if judge else gitdir)
    except ConfigErrors as errors:
        listed = "; ".join(str(issue) for issue in errors.issues[:_LISTED])
        more = len(errors.issues) - _LISTED
        listed += f"; and {more} more" if more > 0 else ""
        return _unusable(branch, commit, listed, judge)
    return _both(branch, theirs, commit, judge)


@value
class DefaultBranchSetting:
    """`[git] protected_branch` as the default branch's configuration has it (`value`: None when
    it sets none), read at `commit`, the tip the default branch's name resolved to."""

    branch: str
    commit: str
    value: str | None


def protected_branch_at(repo: Repository, branch: str, root: str) -> DefaultBranchSetting | None:
    """What the configuration at `branch` (the remote's default branch) says
    `[git] protected_branch` is; None when that branch or its configuration cannot be read.

    `cagr ci` without a target from its event or `--base` takes its target from `[git]
    protected_branch`, which the branch being judged could otherwise set to itself (`HEAD`, its
    own name, a branch it pushed): its change would then be judged against its own commits. The
    default branch's configuration is one the branch cannot edit."""
    try:
        commit = resolve_target(repo, branch).sha
        files = config_files_at(repo, commit)
        compiled = _compiled(root, files, None)
    except (RangeProblem, KeyError, DamagedObject, ConfigErrors):
        return None
    return DefaultBranchSetting(branch, commit, compiled.settings.protected_branch)


def _compiled(root: str, files: ConfigFiles, gitdir: str | None) -> Compiled:
    """The target's files compiled (kept between local checks, keyed by their bytes)."""
    if gitdir is not None:
        kept = cached_config(gitdir, files)
        if kept is not None:
            return kept
    compiled = config_from(root, files).compiled
    if gitdir is not None:
        keep_config(gitdir, files, compiled)
    return compiled


def _unusable(
    branch: RepoConfig, commit: str, why: str, judge: bool, *, repairable: bool = True
) -> JudgingRules:
    note = TargetRules(commit, judged=False, invalid=why)
    unusable = why if judge else None
    return JudgingRules(branch, (HEAD,), note, unusable=unusable, repairable=repairable)


def _both(branch: RepoConfig, theirs: Compiled, commit: str, judge: bool) -> JudgingRules:
    ours = {rule.id: rule for rule in branch.rules.rules}
    target = {rule.id: rule for rule in theirs.rules.rules}
    only_target = frozenset(target.keys() - ours.keys())
    changed = frozenset(i for i in target.keys() & ours.keys() if target[i] != ours[i])
    settings = _settings_differ(theirs.settings, branch.settings)
    note = TargetRules(
        commit,
        judged=judge,
        only_target=tuple(sorted(only_target)),
        only_head=tuple(sorted(ours.keys() - target.keys())),
        changed=tuple(sorted(changed)),
        settings=settings,
    )
    alike = not (note.only_target or note.only_head or note.changed or settings)
    if not judge:
        return JudgingRules(branch, (HEAD,), None if alike else note)
    if alike:
        return JudgingRules(branch, (TARGET, HEAD))
    rules: list[CompiledRule] = [
        *ours.values(),
        *(target[i] for i in sorted(only_target)),
        *(replace(target[i], id=i + TARGET_FORM) for i in sorted(changed)),
    ]
    union = Compiled(
        RuleSet.of(rules),
        _union_settings(theirs.settings, branch.settings),
        hashlib.sha256(f"{theirs.rules_digest}\0{branch.rules_digest}".encode()).hexdigest(),
        branch.compiled.rule_sources,
    )
    return JudgingRules(
        RepoConfig(branch.root, branch.files, union, branch.raw_digest),
        (TARGET, HEAD),
        note,
        only_target,
        changed,
    )


_SETTINGS = (  # what CI reads of them ([stack].on_turn_end runs only at a turn end)
    ("git.protected_branch", "protected_branch"),
    ("review.pr_sections", "pr_sections"),
    ("stack.ci", "ci"),
)


def _settings_differ(target: Settings, branch: Settings) -> tuple[str, ...]:
    return tuple(key for key, name in _SETTINGS if getattr(target, name) != getattr(branch, name))


def _union_settings(target: Settings, branch: Settings) -> Settings:
    """Both lists of headings and of CI commands; the branch's protected branch (it chose the
    target) and turn-end commands (CI runs none)."""
    return Settings(
        branch.protected_branch,
        tuple(dict.fromkeys((*target.pr_sections, *branch.pr_sections))),
        branch.on_turn_end,
        _union_commands(target.ci, branch.ci),
    )


def _union_commands(
    target: tuple[StackRun, ...], branch: tuple[StackRun, ...]
) -> tuple[StackRun, ...]:
    """One entry per command line: it runs when any entry's paths match (no paths: always)."""
    paths: dict[str, tuple[str, ...] | None] = {}  # None: it always runs
    for command in (*target, *branch):
        before = paths.get(command.run, ())
        if not command.paths or command.run not in paths:
            paths[command.run] = command.paths or None
        elif before is not None:
            paths[command.run] = tuple(dict.fromkeys((*before, *command.paths)))
    return tuple(StackRun(run, found or ()) for run, found in paths.items())
