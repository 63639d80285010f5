"""`cagr init --ci github`: the GitHub Actions workflow that runs `cagr ci` on every PR.

The file's first line carries a digest of the rest. While the digest matches, the file is cagr's
own, unedited, and a later `cagr init --ci github` may update it; once anyone edits it, cagr
leaves it alone and says so (`force` replaces it anyway, and says that too). Writes are atomic.

Its choices are read back from it, so a later run keeps them: the install line given with
`--install` (else one derived from how cagr is installed, see `requirement`), whether the job
uploads a SARIF log to code scanning, and whether it keeps a comment on the pull request
(`--comment`). The job's token gets `pull-requests: read` only when the rules need a queued pull
request's description or labels (`pr_body` rules, `[review].pr_sections`, a `waive_label`), and
`pull-requests: write` only for the comment. Every action is pinned by commit id, the version in
a comment beside it.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Literal

from cagr_core.values import value
from cagr_core.version import VERSION
from cagr_repo.config import RepoConfig
from cagr_repo.files import UnsafeOutput, output_path, write_atomically

from .requirement import NoRequirement, checked_spec, installed_requirement

WORKFLOW_PATH = ".github/workflows/cagr.yml"
_DIGEST_LINE = re.compile(r"# cagr-digest: sha256:([0-9a-f]{64})\n")

# Actions pinned by the commit their release tag names (a tag can be moved; a commit cannot).
CHECKOUT = "actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1 # v7.0.1"
SETUP_PYTHON = "actions/setup-python@5fda3b95a4ea91299a34e894583c3862153e4b97 # v7.0.0"
UPLOAD_SARIF = (
    "github/codeql-action/upload-sarif@8aad20d150bbac5944a9f9d289da16a4b0d87c1e # v4.36.2"
)
PINNED = (CHECKOUT, SETUP_PYTHON, UPLOAD_SARIF)

Outcome = Literal["created", "unchanged", "updated", "replaced", "refused"]

_GIVEN = "# Given with `cagr init --ci github --install`; later runs keep it."
_DERIVED = "# How cagr was installed where `cagr init --ci github` ran (--install changes it)."
_REQUIREMENT_LINE = re.compile(r"^ +CAGR_REQUIREMENT: (\".*\")$", re.MULTILINE)
SARIF_FILE = "$RUNNER_TEMP/cagr.sarif"  # outside the work tree: the checkout stays clean

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
{permissions}    steps:
      - name: Check out the pull request's own head, with its history
        uses: {checkout}
        with:
          # Not GitHub's merge commit: change rules judge the branch's own result.
          ref: ${{{{ github.event.pull_request.head.sha || github.event.merge_group.head_sha }}}}
          fetch-depth: 0
          persist-credentials: false
      - name: Set up Python
        uses: {setup_python}
        with:
          python-version: "3.12"
      - name: Install cagr
        env:
          {origin}
          CAGR_REQUIREMENT: {requirement}
        run: python -m pip install "$CAGR_REQUIREMENT"
      - name: Check the change rules
        id: cagr
{token}        run: cagr ci{arguments}
{upload}"""

_PERMISSIONS = "    permissions:\n      contents: read\n"
_QUEUE = "Merge queue runs read the queued pull request's description and labels"
_COMMENT = "`--comment` writes the pull request's comment"
_SECURITY_EVENTS = "      security-events: write  # the upload of the SARIF log to code scanning\n"
_TOKEN = """\
        env:
          GITHUB_TOKEN: ${{ github.token }}  # for GitHub's API (see permissions); never printed
"""

_UPLOAD = """\
      - name: Upload the findings to code scanning
        # always(): findings make `cagr ci` exit 1, and that is when the log matters. A pull
        # request from a fork gets a read-only token and cannot upload.
        if: always() && steps.cagr.outputs.sarif != '' && !github.event.pull_request.head.repo.fork
        uses: {upload_sarif}
        with:
          sarif_file: ${{{{ runner.temp }}}}/cagr.sarif
          category: cagr
"""


@value
class WorkflowOptions:
    """What the workflow is made of: the install line (`given` with --install, or derived),
    whether the job uploads a SARIF log to code scanning, whether it keeps a comment on the pull
    request, and whether merge queue runs read the queued pull request (`pull_requests`)."""

    requirement: str
    given: bool = False
    sarif: bool = False
    comment: bool = False
    pull_requests: bool = False


def reads_pull_requests(config: RepoConfig) -> bool:
    """Whether a merge queue run needs its pull request: a description to judge (`pr_body`
    rules, `[review].pr_sections`) or labels that may waive (`waive_label`)."""
    return bool(config.config.review.pr_sections) or any(
        rule.kind == "pr_body" or rule.waive_label is not None for rule in config.rules.rules
    )


def workflow_text(options: WorkflowOptions) -> str:
    """The workflow file, digest line first."""
    why = [
        reason
        for wanted, reason in ((options.pull_requests, _QUEUE), (options.comment, _COMMENT))
        if wanted
    ]
    access = "write" if options.comment else "read"
    granted = (
        "".join(f"      # {reason}.\n" for reason in why) + f"      pull-requests: {access}\n"
        if why
        else "",
        _SECURITY_EVENTS if options.sarif else "",
    )
    arguments = (" --comment" if options.comment else "") + (
        f' --sarif "{SARIF_FILE}"' if options.sarif else ""
    )
    body = _BODY.format(
        version=VERSION,
        permissions=_PERMISSIONS + "".join(granted) if any(granted) else "",
        checkout=CHECKOUT,
        setup_python=SETUP_PYTHON,
        origin=_GIVEN if options.given else _DERIVED,
        requirement=json.dumps(options.requirement),  # a YAML double-quoted scalar
        token=_TOKEN if why else "",
        arguments=arguments,
        upload=_UPLOAD.format(upload_sarif=UPLOAD_SARIF) if options.sarif else "",
    )
    return f"# cagr-digest: sha256:{_digest(body)}\n{body}"


def read_options(text: str) -> WorkflowOptions | None:
    """The options a workflow cagr wrote was made with (None: not one cagr can read)."""
    match = _REQUIREMENT_LINE.search(text)
    if match is None:
        return None
    try:
        requirement = json.loads(match.group(1))
    except ValueError:
        return None
    if not isinstance(requirement, str):
        return None
    return WorkflowOptions(
        requirement,
        given=_GIVEN in text,
        sarif=" --sarif " in text,
        comment="cagr ci --comment" in text,
        pull_requests=_QUEUE in text,
    )


def _digest(body: str) -> str:
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def is_unedited(text: str) -> bool:
    """Whether `text` is a workflow cagr wrote (any version) that nobody has edited since."""
    match = _DIGEST_LINE.match(text)
    return match is not None and match.group(1) == _digest(text[match.end() :])


@value
class InstallResult:
    """What happened to the workflow file, and a sentence saying so."""

    path: Path
    outcome: Outcome
    message: str
    options: WorkflowOptions | None = None


def choose_options(
    current: WorkflowOptions | None,
    install: str | None,
    sarif: bool | None,
    *,
    comment: bool | None = None,
    pull_requests: bool | None = None,
) -> WorkflowOptions:
    """`--install`, else the current file's given line, else how cagr is installed here, else
    the current file's derived line; `--sarif`/`--no-sarif` and `--comment`/`--no-comment`,
    else the current file's choice; `pull_requests` as the rules need (None: unknown, the
    current file's). NoRequirement when no install line can be had."""
    choices = {
        "sarif": sarif if sarif is not None else bool(current and current.sarif),
        "comment": comment if comment is not None else bool(current and current.comment),
        "pull_requests": (
            pull_requests if pull_requests is not None else bool(current and current.pull_requests)
        ),
    }
    if install is not None:
        return WorkflowOptions(checked_spec(install), given=True, **choices)
    if current is not None and current.given:
        return WorkflowOptions(current.requirement, given=True, **choices)
    try:
        return WorkflowOptions(installed_requirement(), **choices)
    except NoRequirement:
        if current is None:
            raise
        return WorkflowOptions(current.requirement, **choices)


def install_workflow(  # noqa: PLR0913  # each option of `cagr init --ci github`
    root: Path,
    force: bool,
    *,
    install: str | None = None,
    sarif: bool | None = None,
    comment: bool | None = None,
    pull_requests: bool | None = None,
) -> InstallResult:
    """Write `.github/workflows/cagr.yml` under `root` unless a user's edited copy is there;
    NoRequirement when the install line can be neither derived nor kept."""
    path = root / WORKFLOW_PATH
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
    edited = current is not None and not is_unedited(current)
    if edited and not force:
        return InstallResult(
            path,
            "refused",
            f"{WORKFLOW_PATH} has been edited (or was not written by cagr), so it was left"
            " alone. Keep it, or rerun with --force to replace it with cagr's workflow.",
        )
    options = choose_options(
        read_options(current or ""), install, sarif, comment=comment, pull_requests=pull_requests
    )
    wanted = workflow_text(options)
    if current == wanted:
        return InstallResult(path, "unchanged", f"{WORKFLOW_PATH} is already up to date.", options)
    if current is None:
        outcome: Outcome = "created"
        message = (
            f"wrote {WORKFLOW_PATH}: commit and push it, and every pull request (and merge"
            " queue batch) runs `cagr ci`."
        )
    elif edited:
        outcome = "replaced"
        message = f"replaced {WORKFLOW_PATH}: --force overwrote its edits (git diff shows them)."
    else:
        outcome, message = "updated", f"updated {WORKFLOW_PATH} (it was cagr's, unedited)."
    write_atomically(str(target), wanted.encode("utf-8"))
    return InstallResult(path, outcome, message, options)
