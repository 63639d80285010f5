"""`cagr ci [--base REF] [--body-file FILE|-] [--labels A,B] [--sarif FILE] [--codequality FILE]
[--comment]`.

A thin translation of cagr_ci: read the CI system's event from the environment, check it, then
print the report (text or JSON), GitHub annotations, job summary and step outputs when on GitHub
Actions, the SARIF log and GitLab's code quality report when asked, and last the pull request's
comment (`--comment`), which never changes the exit code. Exit codes as everywhere: 0 pass, 1 a
finding or a problem with the job, 2 invalid config or usage (or a checkout or event cagr
cannot use), 3 something unchecked.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from cagr_ci.annotations import annotation_lines, command, guarded
from cagr_ci.codequality import codequality_report
from cagr_ci.event import CiEvent, EventError
from cagr_ci.integrity import CheckoutError
from cagr_ci.outputs import output_text, step_outputs
from cagr_ci.providers import read_event
from cagr_ci.render import render_result, result_data
from cagr_ci.run import CiResult, run_ci
from cagr_ci.sarif import sarif_log
from cagr_ci.summary import SUMMARY_LIMIT, error_summary, step_summary
from cagr_core.redaction import redact, tokens
from cagr_repo.body_file import BodyFileError
from cagr_repo.config import ConfigErrors
from cagr_repo.files import UnsafeOutput, append_output, output_path, write_output

from ..checkout import checkout_and_config, config_errors, fail, target_problem
from ..output import EXIT_FINDINGS, EXIT_INVALID, EXIT_OK, EXIT_UNCHECKED, print_json

_SEE_LOG = "the job log lists every problem and its fix."
_EXIT = {"pass": EXIT_OK, "waived": EXIT_OK, "fail": EXIT_FINDINGS, "unchecked": EXIT_UNCHECKED}


def run(args: argparse.Namespace) -> int:
    started = time.monotonic()
    on_github = os.environ.get("GITHUB_ACTIONS") == "true"
    wrong_base = target_problem(args.base)
    if wrong_base is not None:
        return _fail(args, on_github, wrong_base, "")
    # Judged by HEAD's configuration (see run_ci), compiled afresh: CI trusts no local state,
    # and a runner that reuses its clone keeps <gitdir>/cagr from earlier jobs.
    opened = checkout_and_config(args, kept=False)
    if isinstance(opened, int):
        if on_github:
            _annotate_failure(args, f"cagr ci could not open this checkout; {_SEE_LOG}")
        if args.comment:
            _comment_error(args, "cagr ci could not open this checkout.", on_github)
        return opened
    checkout, config = opened
    try:  # refused before anything is checked: a usage error, nothing half-written
        github_files = ("GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT") if on_github else ()
        asked = (args.sarif, args.codequality)
        for path in (*asked, *(os.environ.get(name) for name in github_files)):
            if path:
                output_path(path, checkout.root)
    except UnsafeOutput as error:
        return fail(args, str(error), "cagr ci")
    event = None
    try:
        stdin = sys.stdin.fileno() if sys.stdin is not None else None
        event = read_event(
            os.environ,
            base=args.base,
            body_file=args.body_file,
            labels=args.labels,
            author=args.author,
            stdin=stdin,
        )
        result = run_ci(config, checkout, event, started=started)
    except (EventError, CheckoutError, BodyFileError, ConfigErrors) as error:
        return _could_not_check(args, on_github, error, event)
    _print(args, result, on_github)
    if on_github:
        summary = step_summary(result, result.config, limit=max(0, SUMMARY_LIMIT - _used()))
        _append_summary(summary, checkout.root)
    code = _EXIT[result.status]
    written = ""
    if args.sarif:
        data = json.dumps(sarif_log(result), indent=2, ensure_ascii=True) + "\n"
        if _write(args.sarif, data, checkout.root, "the SARIF log"):
            written = os.path.abspath(args.sarif)
        else:
            code = EXIT_INVALID
    if args.codequality:
        data = json.dumps(codequality_report(result), indent=2, ensure_ascii=True) + "\n"
        if not _write(args.codequality, data, checkout.root, "the code quality report"):
            code = EXIT_INVALID
    if on_github:
        _append_outputs(step_outputs(result, written), checkout.root)
    if args.comment:
        from cagr_ci.comment import comment_body, run_link  # noqa: PLC0415  # only with --comment

        _comment(args, event, comment_body(result, run_link(os.environ)), on_github)
    return code


def _could_not_check(
    args: argparse.Namespace,
    on_github: bool,
    error: EventError | CheckoutError | BodyFileError | ConfigErrors,
    event: CiEvent | None,
) -> int:
    """Say why nothing was checked (and in the comment too, with --comment); exit 2."""
    if isinstance(error, ConfigErrors):  # HEAD's configuration: the log lists every problem
        code = config_errors(args, error.issues, "the configuration committed at HEAD")
        said = "cagr ci could not read the configuration committed at HEAD"
        if on_github:
            _annotate_failure(args, f"{said}; {_SEE_LOG}")
        said += "."
    else:
        message, fix = (
            (str(error), "") if isinstance(error, BodyFileError) else (error.message, error.fix)
        )
        code = _fail(args, on_github, message, fix)
        said = f"{message} {fix}".strip()
    if args.comment:
        _comment_error(args, said, on_github, event)
    return code


def _comment(args: argparse.Namespace, event: CiEvent, body: str, on_github: bool) -> None:
    """Keep the pull request's comment; say what became of it (never an exit code)."""
    from cagr_ci.comment import keep_comment  # noqa: PLC0415  # HTTP only with --comment

    outcome = keep_comment(event, _clean(body))
    to = sys.stderr if args.format == "json" else sys.stdout
    if on_github and outcome.done == "skipped":
        print(command("notice", outcome.message, title="cagr ci --comment"), file=to)
    else:
        print(f"cagr ci: {outcome.message}", file=to)


def _comment_error(
    args: argparse.Namespace, text: str, on_github: bool, event: CiEvent | None = None
) -> None:
    """The comment of a run that could not check anything, when its event can be read."""
    from cagr_ci.comment import error_body, run_link  # noqa: PLC0415  # only with --comment

    if event is None:
        try:
            event = read_event(os.environ, base=None, body_file=None)
        except (EventError, BodyFileError):
            return  # no event, no pull request to comment on; the log says why
    _comment(args, event, error_body(text, run_link(os.environ)), on_github)


def _write(path: str, data: str, root: str | None, what: str) -> bool:
    """Write a report the run was asked for; when that fails, say so (the report is out
    already) and return False."""
    try:
        write_output(path, _clean(data).encode("utf-8"), root)
    except (OSError, UnsafeOutput) as error:
        why = error.strerror if isinstance(error, OSError) else str(error)
        print(
            f"cagr ci: cannot write {what} {path}: {why}. Name a file in a folder the job can"
            " write to.",
            file=sys.stderr,
        )
        return False
    return True


def _print(args: argparse.Namespace, result: CiResult, on_github: bool) -> None:
    if args.format == "json":
        print_json(result_data(result))
        annotations_to = sys.stderr  # stdout holds exactly one JSON object
    else:
        text = render_result(result)
        print(guarded(text) if on_github else text)
        annotations_to = sys.stdout
    if on_github:
        for line in annotation_lines(result):
            print(line, file=annotations_to)


def _used() -> int:
    """Bytes of the step summary earlier steps wrote."""
    try:
        return os.path.getsize(os.environ.get("GITHUB_STEP_SUMMARY", ""))
    except OSError:
        return 0


def _append_summary(text: str, root: str | None) -> None:
    path = os.environ.get("GITHUB_STEP_SUMMARY")
    if not path:
        return
    try:
        append_output(path, _clean(text).encode("utf-8"), root)
    except UnsafeOutput as error:
        print(f"cagr ci: cannot write the job summary: {error}.", file=sys.stderr)


def _append_outputs(values: dict[str, str], root: str | None) -> None:
    path = os.environ.get("GITHUB_OUTPUT")
    if not path:
        return
    try:
        append_output(path, _clean(output_text(values)).encode("utf-8", "surrogateescape"), root)
    except UnsafeOutput as error:
        print(f"cagr ci: cannot write the step outputs: {error}.", file=sys.stderr)


def _clean(text: str) -> str:
    """What cagr writes (a file, the comment) without the forge tokens this job holds: the
    forge's answers may quote them. What it prints passes the same filter (cagr_cli.output)."""
    return redact(text, tokens(os.environ))


def _fail(args: argparse.Namespace, on_github: bool, message: str, fix: str) -> int:
    text = f"{message} {fix}".strip()
    fail(args, text, "cagr ci")
    if on_github:
        _annotate_failure(args, text)
    return EXIT_INVALID


def _annotate_failure(args: argparse.Namespace, text: str) -> None:
    """On GitHub: an error annotation, a job summary and empty outputs for a run that could
    not check anything."""
    print(
        command("error", text, title="cagr ci could not check this run"),
        file=sys.stderr if args.format == "json" else sys.stdout,
    )
    _append_summary(error_summary(text), None)
    _append_outputs(step_outputs(None), None)
