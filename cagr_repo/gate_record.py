"""The gate record: what `cagr rules check --committed` decided, and exactly what for.

The `gh pr create` gate reads it instead of collecting a diff, so it is written and read with the
standard library and the core's values only (its report through the report's own codec). A
record is current only while the repository, worktree, HEAD, target ref and its value, config
bytes and cagr version all still match; `stale_reasons` says which do not.
It stores failures as well as passes, and is validated field by field when read: a record that
is not exactly what a writer wrote is absent, never trusted.
"""

from __future__ import annotations

import json
import os

from cagr_core.data import table, text, text_or_none, texts
from cagr_core.render import render_details
from cagr_core.report import Report
from cagr_core.report_json import json_status, report_data, report_from_data
from cagr_core.values import value
from cagr_core.version import VERSION
from cagr_git.discover import Checkout
from cagr_git.object_ids import is_sha
from cagr_git.refs import branch_ref, read_ref

from .state import GATE_RECORD, load, remove, state_path, write_state
from .target import BY_PROTECTED_BRANCH, choose_target

TYPE_CHECKING = False  # not typing's: the PR gate reads records
if TYPE_CHECKING:
    from typing import Any

RECORD_VERSION = 5
TEXT_LIMIT = 8_000  # the gate shows it to an agent, whose messages hold 10,000 characters
_STATUSES = ("pass", "fail", "unchecked")


def identity(checkout: Checkout) -> tuple[str, str]:
    """(repository, worktree) as real paths, so links and relative paths agree."""
    worktree = checkout.root if checkout.root is not None else checkout.gitdir
    return os.path.realpath(checkout.commondir), os.path.realpath(worktree)


@value(kw_only=True)
class GateRecord:
    """One committed check: its identity, range, config digest, version and report.

    `target_ref` is the ref the target resolved through, or, when the target is not a ref, the
    revision as read (`HEAD~2`, `refs/heads/main~1`, a whole commit id), and `target_ref_value`
    that ref's own value (a tag object's id, say) when it is a ref; `default_target_ref` is the
    ref cagr's default target chose at the time, for PR commands that give no `--base`.
    `report` is the check's verdict with PR-body obligations deferred (the body that counts is
    the one on the `gh` command); `pr_sections` the headings `[review].pr_sections` asks of
    every PR description (the config digest keeps both current).
    """

    repository: str
    worktree: str
    head: str
    target_name: str
    target_ref: str
    target_ref_value: str | None
    default_target_ref: str | None
    default_chosen_by: str | None
    target: str
    base: str
    cagr_version: str
    config_digest: str
    rules_digest: str
    pr_sections: tuple[str, ...]
    report: Report

    @property
    def status(self) -> str:
        """pass, fail or unchecked (the JSON report's status)."""
        return json_status(self.report.status)

    def text(self, report: Report | None = None) -> str:
        """The record's report (or `report`, a part of it) for a person, within TEXT_LIMIT."""
        return render_details(self.report if report is None else report, limit=TEXT_LIMIT)

    def to_json(self) -> bytes:
        data = {
            "version": RECORD_VERSION,
            **{name: getattr(self, name) for name in _TEXT_FIELDS + _OPTIONAL_TEXT_FIELDS},
            "pr_sections": list(self.pr_sections),
            "report": report_data(self.report),
        }
        return (json.dumps(data, indent=2, sort_keys=True, ensure_ascii=True) + "\n").encode()

    @classmethod
    def from_json(cls, data: bytes) -> GateRecord | None:
        """The record, or None unless every field has the shape its writer gives it."""
        try:
            parsed = table(json.loads(data))
            if parsed.get("version") != RECORD_VERSION:
                return None
            fields: dict[str, Any] = {name: text(parsed[name]) for name in _TEXT_FIELDS}
            fields.update({name: text_or_none(parsed[name]) for name in _OPTIONAL_TEXT_FIELDS})
            if not all(is_sha(fields[name]) for name in _SHA_FIELDS):
                return None
            report = report_from_data(parsed["report"])
            if json_status(report.status) not in _STATUSES:
                return None
            return cls(**fields, pr_sections=texts(parsed["pr_sections"]), report=report)
        except (ValueError, KeyError, TypeError, RecursionError):  # Damaged is a ValueError
            return None


_TEXT_FIELDS = (
    "repository",
    "worktree",
    "head",
    "target_name",
    "target_ref",
    "target",
    "base",
    "cagr_version",
    "config_digest",
    "rules_digest",
)
_OPTIONAL_TEXT_FIELDS = ("target_ref_value", "default_target_ref", "default_chosen_by")
_SHA_FIELDS = ("head", "target", "base")


def read_gate_record(gitdir: str) -> GateRecord | None:
    data = load(gitdir, GATE_RECORD, limit=16 * 1024 * 1024)
    return None if data is None else GateRecord.from_json(data)


def write_gate_record(gitdir: str, record: GateRecord) -> str | None:
    """Write the record; None when written. When that fails, any older record is removed so it
    cannot stand in, and the answer says what happened, for a person."""
    why = write_state(gitdir, GATE_RECORD, record.to_json())
    if why is None:
        return None
    existed = os.path.lexists(state_path(gitdir, GATE_RECORD))
    left = discard_gate_record(gitdir, record)
    if left is None:
        left = (
            "the older record there was removed" if existed else "there was no older record"
        ) + ", so `gh pr create` will ask for a fresh check."
    return f"the gate record could not be written to {state_path(gitdir, '')} ({why}); {left}"


def discard_gate_record(gitdir: str, instead: GateRecord | None = None) -> str | None:
    """Remove the record a check did not replace (`instead`: the one it meant to write). None
    when no record is left; else what the one left means for `gh pr create`, for a person."""
    older = read_gate_record(gitdir)
    if remove(gitdir, GATE_RECORD):
        return None
    fresh = "so `gh pr create` will ask for a fresh check"
    if older is None:
        return f"the file there could not be removed, but the gate does not read it, {fresh}."
    held = f"the older record there (for HEAD {older.head[:7]}, result {older.status})"
    advice = f" Make {state_path(gitdir, '')} writable (or remove that file), then check again."
    if instead is not None and older.head != instead.head:
        return f"{held} could not be removed; it is for another commit, {fresh}.{advice}"
    return (
        f"{held} could not be removed, and `gh pr create` goes by it for as long as it matches"
        f" HEAD, the target and the configuration.{advice}"
    )


@value(kw_only=True)
class Observed:
    """What the checkout holds now, to compare a record with (see `observe`).

    `target_ref` is the ref a PR targets (None: the record's default target) and
    `target_ref_value` that ref's value now. Dirty files are not here: they are not part of a
    committed check.
    """

    identity: tuple[str, str]
    head: str | None
    target_ref: str | None
    target_ref_value: str | None
    config_digest: str
    version: str = VERSION


def observe(
    checkout: Checkout,
    *,
    head: str | None,
    target_ref: str | None,
    target_ref_value: str | None,
    config_digest: str,
) -> Observed:
    """What `checkout` holds now, as a record is compared with it."""
    return Observed(
        identity=identity(checkout),
        head=head,
        target_ref=target_ref,
        target_ref_value=target_ref_value,
        config_digest=config_digest,
    )


def stale_reasons(record: GateRecord, now: Observed) -> list[str]:
    """Why the record does not describe `now` (empty when it is current)."""
    reasons = []
    if now.identity != (record.repository, record.worktree):
        reasons.append("it was made in another repository or worktree")
    if now.head != record.head:
        reasons.append("HEAD moved since")
    wanted = now.target_ref or record.default_target_ref
    start, relative = _split_revision(record.target_ref)
    if wanted is not None and wanted != record.target_ref:
        reasons.append(f"it was made for target {record.target_ref}, not {wanted}")
    elif start == "HEAD" or is_sha(start):
        pass  # HEAD was compared above; a commit id never moves
    elif relative or not start.startswith("refs/"):
        reasons.append(
            f"its target {record.target_ref} is read through {start}, which may have moved since"
        )
    elif now.target_ref_value != record.target_ref_value:
        reasons.append(f"the target {record.target_ref} moved since")
    if now.config_digest != record.config_digest:
        reasons.append("the cagr configuration changed since")
    if now.version != record.cagr_version:
        reasons.append(f"it was made by cagr {record.cagr_version}, this is {now.version}")
    return reasons


def record_state(checkout: Checkout, config_digest: str) -> tuple[GateRecord | None, list[str]]:
    """The gate record and why it is stale (no reasons: current), for the default target."""
    record = read_gate_record(checkout.gitdir)
    if record is None:
        return None, []
    now = observe(
        checkout,
        head=read_ref(checkout, "HEAD"),
        target_ref=default_ref_now(checkout, record),
        target_ref_value=read_ref(checkout, record.target_ref),
        config_digest=config_digest,
    )
    return record, stale_reasons(record, now)


def _split_revision(target_ref: str) -> tuple[str, str]:
    """A recorded target as (what it starts from, its `~N`/`^N` suffixes): a ref, `HEAD`, a
    commit id or a pseudo-ref such as `FETCH_HEAD`."""
    cut = min((i for i in (target_ref.find("~"), target_ref.find("^")) if i >= 0), default=None)
    return (target_ref, "") if cut is None else (target_ref[:cut], target_ref[cut:])


def default_ref_now(checkout: Checkout, record: GateRecord) -> str | None:
    """The ref cagr's default target names now, for a PR command that gives no base.

    When the configuration chose it, it is the record's own (an unchanged config digest says the
    configuration is the same); otherwise origin/HEAD or main is looked up again, so a moved
    origin/HEAD makes the record stale.
    """
    if record.default_chosen_by == BY_PROTECTED_BRANCH:
        return record.default_target_ref
    return branch_ref(checkout, choose_target(checkout, None, None).name)
