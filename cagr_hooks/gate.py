"""The `gh pr create|ready|edit` gate: read the prepared record, never collect a diff.

A current record with findings denies with the fix; so does a current record whose PR-body
obligations (or `[review].pr_sections` headings) the command's own body fails, and a line that
moves HEAD (`git commit && gh pr create`) before its PR command: the commits the PR would hold
do not exist yet. Anything that cannot be decided exactly — no record, a stale one, a foreign
repository or head, a body cagr cannot see, a PR command cagr cannot read — lets the command
through with a notice asking for a fresh committed check, naming the rules the last committed
check failed, and saying CI will check. The gate never answers "allow" and never records a
pass; it keeps only what it saw of the last PR command (`pr_seen`: its target, and what its body
met), for the turn end and the record's refresh.

The standard library and the core's values; mistune only when a body has to be parsed.
"""

from __future__ import annotations

import os
import re

from cagr_core.pull_request import MAX_BODY_BYTES, PrBody
from cagr_core.render import render_details
from cagr_core.report import Report
from cagr_core.sections import heading_marks, heading_text
from cagr_core.values import replace
from cagr_git.discover import Checkout, NotARepository, find_checkout
from cagr_git.refs import branch_ref, read_ref
from cagr_repo.config_files import find_config_files, waive_labels
from cagr_repo.gate_record import (
    GateRecord,
    default_ref_now,
    observe,
    read_gate_record,
    stale_reasons,
)

from . import pr_seen
from .gh_pr import PrCommand
from .protocols import NONE, Decision
from .shell_command import Found

_LET_THROUGH = "This call was let through; no passing result was recorded, and CI will check."


def decide(found: Found, cwd: str) -> Decision:
    """The decision for the PR commands (and unreadable parts) of one shell command run in
    `cwd`, the agent's folder."""
    decisions = [_decide_one(pr, cwd, found.line) for pr in found.commands]
    configured = _configured_checkout(cwd) if found.unreadable or found.mentioned else None
    if found.unreadable and configured is not None:
        decisions.append(_notice(f"{found.unreadable}.", configured[0]))
    elif found.mentioned and configured is not None and _last_failed(configured[0]):
        # Most such lines are text (`echo`, a commit message): said only while the branch fails.
        what = "the command names `gh pr` in a way cagr does not follow, and may run it."
        decisions.append(_notice(what, configured[0]))
    for kind in ("deny", "notice"):
        texts = [d.text for d in decisions if d.kind == kind]
        if texts:
            return Decision(kind, "\n\n".join(dict.fromkeys(texts)))
    return NONE


def _last_failed(checkout: Checkout) -> bool:
    record = read_gate_record(checkout.gitdir)
    return record is not None and record.status == "fail"


def _work_tree_checkout(folder: str) -> Checkout | None:
    """The checkout at `folder` when it has a work tree (where config files live)."""
    try:
        checkout = find_checkout(folder)
    except NotARepository:
        return None
    return None if checkout.root is None else checkout


def _configured_checkout(folder: str) -> tuple[Checkout, str] | None:
    """The checkout at `folder` and its config digest when cagr is set up there: config files,
    or a gate record (a deleted or skip-worktree config is a change of config, not the end of
    cagr: the record's digest then differs)."""
    checkout = _work_tree_checkout(folder)
    if checkout is None or checkout.root is None:
        return None
    files = find_config_files(checkout.root)
    if files.configure_cagr() or read_gate_record(checkout.gitdir) is not None:
        return checkout, files.digest()
    return None


class _Sighting:
    """What judging one PR command saw, filled in as it is known: where, which commit, and the
    body obligations its description met."""

    __slots__ = ("gitdir", "head", "met")

    def __init__(self) -> None:
        self.gitdir: str | None = None
        self.head: str | None = None
        self.met: frozenset[pr_seen.Obligation] = frozenset()


def _decide_one(pr: PrCommand, cwd: str, line: str) -> Decision:
    """One PR command's decision; what it saw is kept for the turn end (`pr_seen`)."""
    sighting = _Sighting()
    decision = _judge(pr, cwd, line, sighting)
    gitdir, head = sighting.gitdir, sighting.head
    if gitdir is not None and head is not None and (pr.verb == "create" or sighting.met):
        # `gh pr edit` names no target: the last `create` seen did, or cagr's default.
        earlier = pr_seen.last(gitdir) if pr.verb != "create" else None
        base = pr.base if pr.verb == "create" else (earlier.base if earlier else None)
        pr_seen.remember(gitdir, pr_seen.seen_now(head, base, sighting.met))
    return decision


def _judge(pr: PrCommand, cwd: str, line: str, sighting: _Sighting) -> Decision:
    """One PR command's decision: one return per situation, in the order they are checked."""
    if pr.labels and not pr.dry_run:
        waiving = _waiving_labels(pr, cwd)
        if waiving is not None:
            return waiving
    if pr.undo or pr.dry_run or (pr.verb == "edit" and not pr.sets_body):
        return NONE  # back to draft, a dry run, metadata only: no PR or body to judge
    configured = _configured_checkout(pr.cwd if pr.cwd is not None else cwd)
    unknown_folder = "which folder the PR command runs in is unknown (a `cd` cagr cannot follow)"
    if pr.cwd is None and configured is None:
        # It may run in any repository, one with change rules too: never silence.
        return Decision(
            "notice",
            f"cagr: unchecked: {unknown_folder}, so cagr cannot tell which repository's change"
            " rules apply. Run `cagr rules check --committed` in that repository to check this"
            f" PR's commits now. {_LET_THROUGH}",
        )
    if configured is None:
        return NONE  # no repository, or no change rules here
    checkout, digest = configured
    if pr.cwd is None:
        return _notice(f"{unknown_folder}.", checkout)
    if pr.after_head_move:
        return _commit_first(pr)
    if pr.problem:
        return _notice(f"cagr cannot read this PR command whole: {pr.problem}.", checkout)
    problem = _foreign(checkout, pr)
    if problem:
        return _notice(problem, checkout)
    head = _head(checkout, pr)
    if isinstance(head, Decision):
        return head
    sighting.gitdir, sighting.head = checkout.gitdir, head
    record = read_gate_record(checkout.gitdir)
    target_ref = branch_ref(checkout, pr.base) if pr.base else None
    if pr.base and target_ref is None:
        hint = (
            f" (`-B` takes the branch's name on GitHub: {pr.base.removeprefix('origin/')})"
            if pr.base.startswith("origin/")
            else " (fetch it first)"
        )
        return _notice(
            f"the target branch {pr.base} is not in this clone{hint}.", checkout, pr.base
        )
    if record is None:
        return _notice(
            "there is no prepared change-rule result for this checkout.", checkout, pr.base
        )
    if target_ref is None:  # gh's default: the repository's default branch, as cagr's is now
        target_ref = default_ref_now(checkout, record)
    now = observe(
        checkout,
        head=head,
        target_ref=target_ref,
        target_ref_value=read_ref(checkout, target_ref or record.target_ref),
        config_digest=digest,
    )
    reasons = stale_reasons(record, now)
    if reasons:
        why = "; ".join(reasons)
        return _notice(f"the prepared change-rule result is stale ({why}).", checkout, pr.base)
    if record.status == "fail" and pr.verb == "edit":
        return _notice(
            "the change rules fail for this PR's commits, and editing its description does not"
            f" change that:\n\n{record.text()}\n\nFix them and push; CI reports them on the PR.",
            checkout,
            pr.base,
            named=False,
        )
    if record.status == "fail":
        return Decision(
            "deny",
            "cagr: the change rules fail for this PR's commits. Fix them, commit and push, then"
            f" open the PR again (`{_check_command(pr.base)}` shows where you stand)."
            f"\n\n{_failing_commits(pr, record, line)}",
        )
    if record.status == "unchecked":
        return _notice(
            "the committed check was not complete:\n\n" + record.text(), checkout, pr.base
        )
    return _with_warnings(_body_decision(pr, record, line, sighting), record)


def _waiving_labels(pr: PrCommand, cwd: str) -> Decision | None:
    """A deny when the command adds a label that waives a rule: a waiver is a maintainer's act
    in review, never the agent's own."""
    checkout = _work_tree_checkout(pr.cwd if pr.cwd is not None else cwd)
    if checkout is None or checkout.root is None:
        return None
    # gh finds a label whatever its case (Go's strings.EqualFold): `Schema-OK` adds `schema-ok`.
    waivers: dict[str, list[str]] = {}
    for label, rules_of in waive_labels(find_config_files(checkout.root)).items():
        waivers.setdefault(label.casefold(), []).extend(rules_of)
    added = [label for label in dict.fromkeys(pr.labels) if label.casefold() in waivers]
    if not added:
        return None
    rules = ", ".join(dict.fromkeys(rule for label in added for rule in waivers[label.casefold()]))
    return Decision(
        "deny",
        f"cagr: the label {', '.join(added)} waives the change rule(s) {rules}. A waiver is a"
        " maintainer's decision in review, not the agent's: run the command without it. If the"
        " rule should not apply to this change, say why in the PR description; a maintainer"
        " adds the label if they agree.",
    )


def _with_warnings(decision: Decision, record: GateRecord) -> Decision:
    """A decision on a record that passed, with its findings added as a notice: a passing
    record's findings are all of `warn` rules, which never deny but are always shown."""
    if decision.kind == "deny" or not record.report.findings:
        return decision
    text = (
        "cagr: the change rules pass for this PR's commits, with warnings (rules of severity"
        f" warn: shown, never denied):\n\n{record.text()}"
    )
    return Decision("notice", "\n\n".join(t for t in (decision.text, text) if t))


def _check_command(base: str | None) -> str:
    """The check that writes the record this PR command needs: its own `--base`, else the
    default target (never the last record's target, which may be why the record is stale)."""
    return "cagr rules check --committed" + (f" --base {base}" if base else "")


def _notice(
    what: str, checkout: Checkout, base: str | None = None, *, named: bool = True
) -> Decision:
    """A notice that lets the command through, with the check to run and, when the last
    committed check failed, which rules it failed (never silence about a failing branch)."""
    record = read_gate_record(checkout.gitdir)
    failed = ""
    if named and record is not None and record.status == "fail":
        rules = ", ".join(dict.fromkeys(finding.rule for finding in record.report.errors))
        failed = f" The last committed check (of {record.head[:12]}) failed change rules: {rules}."
    run = _check_command(base)
    return Decision(
        "notice",
        f"cagr: unchecked: {what}{failed} Run `{run}` to check this PR's commits now."
        f" {_LET_THROUGH}",
    )


def _commit_first(pr: PrCommand) -> Decision:
    """A line that moves HEAD before its PR command: the PR's commits do not exist yet."""
    verb = f"gh pr {pr.verb}"
    return Decision(
        "deny",
        f"cagr: this command runs `{pr.after_head_move}` before `{verb}`, so the commits the PR"
        f" would hold do not exist yet and cagr cannot judge them. Run `{pr.after_head_move}`"
        f" (and `git push`) as a command of its own first, then `{verb}` as a command of its"
        " own: cagr checks the new commits in between.",
    )


def _head(checkout: Checkout, pr: PrCommand) -> str | Decision:
    """The commit the PR would propose: the `--head` branch, the named PR's branch, or HEAD."""
    if pr.verb in ("ready", "edit") and pr.target is not None:
        if read_ref(checkout, f"refs/heads/{pr.target}") is None:
            return _notice(f"cagr cannot tell which local branch PR {pr.target} is.", checkout)
        branch = pr.target
    elif pr.head is not None:
        owner, _, branch = pr.head.rpartition(":")
        if owner:
            remotes = _remotes(checkout)
            if isinstance(remotes, str):
                return _notice(remotes, checkout)
            if owner.lower() not in {remote_owner for _, remote_owner, _ in remotes}:
                return _notice(f"the PR's head {pr.head} is in another repository.", checkout)
    else:
        head = read_ref(checkout, "HEAD")
        return head if head is not None else _notice("HEAD cannot be read.", checkout)
    head = read_ref(checkout, f"refs/heads/{branch}")
    if head is None:
        return _notice(f"the PR's head branch {branch} is not a local branch here.", checkout)
    return head


# A repository in a remote URL or a gh `-R` value: [scheme://][user@]host[:/]owner/name[.git]
_REPOSITORY = re.compile(
    r"(?:^|[@/])(?P<host>[^/@:]+\.[^/@:]+)(?::\d+)?[:/](?P<owner>[^/:]+)/(?P<name>[^/]+?)(?:\.git)?/?$"
    r"|^(?P<owner2>[^/:]+)/(?P<name2>[^/]+?)/?$"
)
_GH_DEFAULT_HOST = "github.com"


def _repository(text: str) -> tuple[str, str, str] | None:
    """(host, owner, name), lower-cased, of a remote URL or a gh `-R` value (`owner/name`
    means github.com, as gh reads it)."""
    match = _REPOSITORY.search(text.strip())
    if match is None:
        return None
    if match.group("owner2"):
        return (_GH_DEFAULT_HOST, match.group("owner2").lower(), match.group("name2").lower())
    return (match.group("host").lower(), match.group("owner").lower(), match.group("name").lower())


def _remotes(checkout: Checkout) -> list[tuple[str, str, str]] | str:
    """(host, owner, name) of each remote's repository as gh finds it in `git remote -v`, or why
    they cannot be known."""
    # Imported here: only `-R` and `--head owner:` need git's configuration (1 ms of imports).
    from cagr_git.gitconfig import GitConfigError  # noqa: PLC0415
    from cagr_git.remotes import read_remotes  # noqa: PLC0415

    try:
        found = read_remotes(checkout)
    except GitConfigError as error:
        return (
            f"git cannot read this repository's configuration ({error}): its remotes are unknown."
        )
    repositories = []
    for remote in found:
        # gh's TranslateRemotes: the fetch URL, and the last push URL only when that names none.
        repository = _repository(remote.fetch_url or "")
        if repository is None and remote.push_urls:
            repository = _repository(remote.push_urls[-1])
        if repository is not None:
            repositories.append(repository)
    return repositories


def _foreign(checkout: Checkout, pr: PrCommand) -> str | None:
    """Why `-R/--repo` (or GH_REPO) names a repository this checkout is not a clone of, or why
    that cannot be known."""
    if pr.repo is None:
        return None
    remotes = _remotes(checkout)
    if isinstance(remotes, str):
        return remotes
    if _repository(pr.repo) not in remotes:
        return f"the PR is for {pr.repo}, which is not a remote of this checkout."
    return None


def _failing_commits(pr: PrCommand, record: GateRecord, line: str) -> str:
    """A deny on failing commits: the record's findings and, when the command's body can be
    read, that body judged in place of the record's "deferred to the pull request" obligations
    (a rule must not read as both still owed and failed), so one round trip fixes both."""
    if not record.report.deferred and not record.pr_sections:
        return record.text()
    body, _ = _body_of(pr, line)
    if body is None:
        return record.text()
    kept = record.text(replace(record.report, deferred=()))
    judged = _judged(body, record)
    if not judged.findings:
        return kept
    return f"{kept}\n\nThe PR description given also misses what the rules ask:\n\n" + (
        render_details(judged)
    )


def _body_of(pr: PrCommand, line: str) -> tuple[str | None, str | None]:
    """The command's body: (text, None), or (None, why it cannot be known here)."""
    if pr.body is not None or pr.body_file is None:
        return pr.body, pr.body_unavailable
    assert pr.cwd is not None
    if line.count(pr.body_file) > 1:
        return None, f"the command also names {pr.body_file} elsewhere, and may write it first"
    return _read_body_file(pr.body_file, pr.cwd)


def _body_decision(pr: PrCommand, record: GateRecord, line: str, sighting: _Sighting) -> Decision:
    """A current record that passed: check the body obligations against the command's body."""
    obligations = record.report.deferred
    headings = record.pr_sections
    if not obligations and not headings:
        return NONE
    body, why = _body_of(pr, line)
    if body is None:
        owed = [f"the {heading_text(o.section)} section ({o.rule})" for o in obligations] + [
            f"a `{heading_marks(h)}` heading" for h in headings
        ]
        advice = (
            "" if pr.verb == "ready" else " Give it with `--body-file FILE` to have it checked now."
        )
        return Decision(
            "notice",
            f"cagr: this PR's description must have {', '.join(owed)}, but cagr cannot see the"
            f" body here: {why}.{advice} {_LET_THROUGH}",
        )
    judged = _judged(body, record)
    if judged.errors:
        return Decision(
            "deny",
            "cagr: the PR description does not meet the change rules.\n\n"
            + render_details(replace(judged, unchecked=())),
        )
    if judged.unchecked:
        return Decision(
            "notice",
            "cagr: unchecked: the PR description cannot be judged here:\n\n"
            f"{render_details(judged)}\n\n{_LET_THROUGH}",
        )
    failed = {finding.rule for finding in judged.findings}  # of `warn` rules here
    sighting.met = frozenset(
        (o.rule, o.section, o.contains) for o in obligations if o.rule not in failed
    )
    if judged.findings:
        return Decision(
            "notice",
            "cagr: the PR description misses what rules of severity warn ask (shown, never"
            " denied):\n\n" + render_details(judged),
        )
    return NONE


def _read_body_file(path: str, cwd: str) -> tuple[str | None, str | None]:
    """(text, None), or (None, why not): the same reader and bound as `--body-file`."""
    from cagr_repo.body_file import BodyFileError, read_body_file  # noqa: PLC0415  # a file named

    try:
        return read_body_file(os.path.join(cwd, os.path.expanduser(path)), MAX_BODY_BYTES), None
    except BodyFileError as error:
        return None, str(error).rstrip(".")


def _judged(body: str, record: GateRecord) -> Report:
    """The command's body judged by the core, as CI judges it: the record's deferred
    obligations and the headings every pull request needs."""
    # Judging a body (mistune's parser above all) costs more than the rest of the gate: it is
    # loaded only when there is a body to judge.
    from cagr_core.description import check_pr_sections, judge_obligations  # noqa: PLC0415
    from cagr_markdown import parsed  # noqa: PLC0415

    given = parsed(PrBody(body))
    owed, unknown = judge_obligations(record.report.deferred, given)
    missing, unseen = check_pr_sections(record.pr_sections, given)
    return Report(findings=owed + missing, unchecked=unknown + unseen)
