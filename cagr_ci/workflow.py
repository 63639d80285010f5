"""`cagr init --ci github`: the GitHub Actions workflow that runs `cagr ci` on every PR.

The file's first line carries a digest of the rest. While the digest matches, the file is cagr's
own, unedited, and a later `cagr init --ci github` may update it; once anyone edits it, cagr
leaves it alone and says so (`force` replaces it anyway, and says that too). Writes are atomic.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Literal

from attrs import frozen

from cagr_core.version import VERSION
from cagr_repo.files import UnsafeOutput, output_path, write_atomically

WORKFLOW_PATH = ".github/workflows/cagr.yml"
_DIGEST_LINE = re.compile(r"# cagr-digest: sha256:([0-9a-f]{64})\n")

Outcome = Literal["created", "unchanged", "updated", "replaced", "refused"]

_BODY = """\
# Written by `cagr init --ci github` (cagr {version}). While the digest above matches, a later
# `cagr init --ci github` may update this file; once you edit it, cagr leaves it alone.
name: cagr

on:
  pull_request:
    # `edited`: a changed description can break a PR-body rule without a new commit.
    # `labeled`, `unlabeled`: a maintainer's label can waive a rule (its `waive_label`).
    types: [opened, synchronize, reopened, edited, ready_for_review, labeled, unlabeled]
  merge_group:

permissions:
  contents: read

concurrency:
  group: cagr-${{{{ github.event.pull_request.number || github.ref }}}}
  cancel-in-progress: true

jobs:
  change-rules:
    name: Change rules
    runs-on: ubuntu-latest
    timeout-minutes: 30
    steps:
      - name: Check out the pull request's own head, with its history
        uses: actions/checkout@v6
        with:
          # Not GitHub's merge commit: change rules judge the branch's own result.
          ref: ${{{{ github.event.pull_request.head.sha || github.event.merge_group.head_sha }}}}
          fetch-depth: 0
          persist-credentials: false
      - name: Set up Python
        uses: actions/setup-python@v6
        with:
          python-version: "3.12"
      - name: Install cagr
        run: python -m pip install "{requirement}"
      - name: Check the change rules
        run: cagr ci
"""


def workflow_text(requirement: str = f"cagr=={VERSION}") -> str:
    """The workflow file, digest line first."""
    body = _BODY.format(version=VERSION, requirement=requirement)
    return f"# cagr-digest: sha256:{_digest(body)}\n{body}"


def _digest(body: str) -> str:
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def is_unedited(text: str) -> bool:
    """Whether `text` is a workflow cagr wrote (any version) that nobody has edited since."""
    match = _DIGEST_LINE.match(text)
    return match is not None and match.group(1) == _digest(text[match.end() :])


@frozen
class InstallResult:
    """What happened to the workflow file, and a sentence saying so."""

    path: Path
    outcome: Outcome
    message: str


def install_workflow(root: Path, force: bool) -> InstallResult:
    """Write `.github/workflows/cagr.yml` under `root` unless a user's edited copy is there."""
    path = root / WORKFLOW_PATH
    wanted = workflow_text()
    try:
        target = Path(output_path(str(path), str(root), confined=True))
    except UnsafeOutput as error:
        return InstallResult(path, "refused", f"{error}; it was left alone.")
    try:
        current: str | None = target.read_text(encoding="utf-8")
    except FileNotFoundError:
        current = None
    except (OSError, UnicodeDecodeError) as error:
        if not force:
            return InstallResult(
                path,
                "refused",
                f"{WORKFLOW_PATH} exists but cannot be read ({error}); it was left alone."
                " Remove it, or rerun with --force to replace it.",
            )
        current = ""
    if current == wanted:
        return InstallResult(path, "unchanged", f"{WORKFLOW_PATH} is already up to date.")
    if current is None:
        outcome: Outcome = "created"
        message = (
            f"wrote {WORKFLOW_PATH}: commit and push it, and every pull request (and merge"
            " queue batch) runs `cagr ci`."
        )
    elif is_unedited(current):
        outcome, message = "updated", f"updated {WORKFLOW_PATH} (it was cagr's, unedited)."
    elif force:
        outcome = "replaced"
        message = f"replaced {WORKFLOW_PATH}: --force overwrote its edits (git diff shows them)."
    else:
        return InstallResult(
            path,
            "refused",
            f"{WORKFLOW_PATH} has been edited (or was not written by cagr), so it was left"
            " alone. Keep it, or rerun with --force to replace it with cagr's workflow.",
        )
    write_atomically(str(target), wanted.encode("utf-8"))
    return InstallResult(path, outcome, message)
