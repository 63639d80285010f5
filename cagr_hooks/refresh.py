"""After a shell command: keep the committed gate record current when HEAD or the target moved.

Agents commit, push and open the PR in one turn; the record the last turn end wrote is then for
an older HEAD when `gh pr create` comes, and the gate could only give a notice. This hook runs
after every shell command (Claude Code's and Codex's PostToolUse, Cursor's afterShellExecution,
Gemini CLI's AfterTool). While HEAD and the target ref are where the last refresh left them it
returns at once: `head_moved` is the standard library and a few small reads. Otherwise the
committed check runs under the hook's deadline and writes the record, so the gate judges the
HEAD the PR will hold. The gate itself still collects nothing.
"""

from __future__ import annotations

import os
import time

from cagr_git.discover import Checkout, NotARepository, find_checkout
from cagr_git.refs import read_ref
from cagr_repo import json_read
from cagr_repo.state import REFRESH_STAMP, load, save

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cagr_repo.judging_config import WorkingConfig

_RESERVE = 1.0  # seconds left for the answer after the check


def _checkout(cwd: str) -> Checkout | None:
    try:
        checkout = find_checkout(cwd)
    except (NotARepository, OSError):
        return None
    return checkout if checkout.root is not None else None


def _stamp(gitdir: str) -> dict[str, object] | None:
    data = load(gitdir, REFRESH_STAMP, limit=4096)
    try:
        stamp = json_read.loads(data) if data is not None else None
    except ValueError:
        return None
    return stamp if isinstance(stamp, dict) else None


def head_moved(cwd: str) -> bool:
    """Whether HEAD or the recorded target moved since the last refresh (True the first time):
    the only question asked after most shell commands, so it reads two refs and one small file."""
    checkout = _checkout(cwd)
    if checkout is None:
        return False
    stamp = _stamp(checkout.gitdir)
    if stamp is None or read_ref(checkout, "HEAD") != stamp.get("head"):
        return True
    target_ref = stamp.get("target_ref")
    return isinstance(target_ref, str) and read_ref(checkout, target_ref) != stamp.get("target")


def _write_stamp(checkout: Checkout, target_ref: str | None) -> None:
    stamp = {
        "head": read_ref(checkout, "HEAD"),
        "target_ref": target_ref,
        "target": read_ref(checkout, target_ref) if target_ref else None,
        "at": int(time.time()),
    }
    import json  # noqa: PLC0415  # json imports re: the fast path only reads

    save(checkout.gitdir, REFRESH_STAMP, json.dumps(stamp).encode())


def refresh(cwd: str, deadline: float) -> tuple[str | None, dict[str, float]]:
    """Make the committed record current for this checkout if cagr is set up here; the git
    dir and the stage timings (empty when nothing had to run)."""
    from cagr_repo.config_files import find_config_files  # noqa: PLC0415
    from cagr_repo.gate_record import read_gate_record  # noqa: PLC0415

    stages: dict[str, float] = {}
    checkout = _checkout(cwd)
    if checkout is None:
        return None, stages
    assert checkout.root is not None
    from cagr_repo.judging_config import (  # noqa: PLC0415
        committed_not_on_disk,
        read_working_config,
    )

    root = checkout.root
    if not find_config_files(checkout.root).configure_cagr() and not committed_not_on_disk(
        checkout, root
    ):
        _write_stamp(checkout, None)
        return checkout.gitdir, stages
    # The record is judged by HEAD's configuration: the working tree's may be broken or gone.
    config = read_working_config(root, checkout.gitdir)
    if refresh_record(config, checkout, deadline, stages):
        record = read_gate_record(checkout.gitdir)
        _write_stamp(checkout, record.target_ref if record is not None else None)
    return checkout.gitdir, stages


def refresh_record(
    config: WorkingConfig, checkout: Checkout, deadline: float, stages: dict[str, float]
) -> bool:
    """Run the committed check and write the record unless the record is current for the
    target the PR names; False when it ran out of time (try again after the next command). A
    fault is not retried until HEAD moves: the gate asks for a check instead.

    The target is the one the last PR command the gate judged named (`--base`, or cagr's
    default), when that command came after the record; otherwise the record's own: a record
    the person made for another target (`rules check --committed --base develop`) is renewed
    for that target."""
    from cagr_repo.check import CheckRequest, check  # noqa: PLC0415

    from .worker import DeadlinePassed, within  # noqa: PLC0415

    current, base = _current_for_its_target(config, checkout)
    if current:
        return True
    if deadline - time.monotonic() < _RESERVE:
        return False
    started = time.monotonic()
    try:
        request = CheckRequest(base=base, committed=True)
        within(deadline - _RESERVE, lambda: check(config, checkout, request))
    except DeadlinePassed:
        return False
    except Exception:  # any fault: the gate will ask for a check instead
        return True
    stages["gate_record"] = (time.monotonic() - started) * 1000
    return True


def _current_for_its_target(config: WorkingConfig, checkout: Checkout) -> tuple[bool, str | None]:
    """Whether the record is current for the target it should hold, and that target (`--base`;
    None: cagr's default)."""
    from cagr_git.refs import branch_ref  # noqa: PLC0415
    from cagr_repo.gate_record import (  # noqa: PLC0415
        observe,
        read_gate_record,
        record_state,
        stale_reasons,
    )
    from cagr_repo.state import GATE_RECORD, state_path  # noqa: PLC0415

    from .pr_seen import last  # noqa: PLC0415

    record = read_gate_record(checkout.gitdir)
    seen = last(checkout.gitdir)
    try:
        made = os.stat(state_path(checkout.gitdir, GATE_RECORD)).st_mtime
    except OSError:
        made = 0.0
    if seen is not None and (record is None or seen.at >= made):
        base = seen.base  # what the PR names, since the record was made
    elif record is not None and record.target_ref != record.default_target_ref:
        base = record.target_name  # a `--base` the person gave: keep it
    else:
        base = None
    if record is None:
        return False, base
    if base is None:
        _, stale = record_state(checkout, config.raw_digest)
        return not stale, None
    target_ref = branch_ref(checkout, base) or record.target_ref
    now = observe(
        checkout,
        head=read_ref(checkout, "HEAD"),
        target_ref=target_ref,
        target_ref_value=read_ref(checkout, target_ref),
        config_digest=config.raw_digest,
    )
    return not stale_reasons(record, now), base
