"""Running one command so that nothing escapes it as a traceback.

An exception no command expected ends as one line on stderr that names the stage it came from,
with exit 3 (unchecked) when a check was under way and 2 otherwise: never 1, the code of a
finding, which a script would read as a rule failure. CAGR_DEBUG=1 adds the traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from .output import EXIT_INVALID, EXIT_UNCHECKED, print_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import TracebackType

# Commands that check a change: a failure inside the check leaves it unchecked.
CHECKS = frozenset({"rules_check", "changes", "ci", "hook"})
# The deepest cagr module on the stack names the stage (the first prefix that matches).
_STAGES = (
    ("cagr_repo.config_changes", "evaluate"),  # compares rules once the check has run
    ("cagr_repo.config", "config"),
    ("cagr_core.validate", "config"),
    ("cagr_core.config", "config"),
    ("cagr_repo.range", "range"),
    ("cagr_git.history", "range"),
    ("cagr_git.revisions", "range"),
    ("cagr_repo.gate_record", "record"),
    ("cagr_repo.state", "record"),
    ("cagr_repo.files", "record"),
    ("cagr_repo.", "collect"),
    ("cagr_git.", "collect"),
    ("cagr_core.", "evaluate"),
    ("cagr_cli.", "output"),
)
_CHECK_STAGES = frozenset({"range", "collect", "evaluate", "record", "output"})


def run_command(args: argparse.Namespace) -> int:
    """Import and run the command `args` names; see the module docstring for failures."""
    try:
        module = importlib.import_module(f"cagr_cli.commands.{args.command_module}")
        code: int = module.run(args)
    except BrokenPipeError:
        raise  # the reader went away: main stops quietly, this is no error of cagr's
    except Exception as error:  # the last line of defence; every expected error is handled below
        return _report(args, error)
    return code


def _stage(trace: TracebackType | None) -> str:
    stage = "startup"
    while trace is not None:
        module = str(trace.tb_frame.f_globals.get("__name__", ""))
        stage = next((name for prefix, name in _STAGES if module.startswith(prefix)), stage)
        trace = trace.tb_next
    return stage


def _report(args: argparse.Namespace, error: Exception) -> int:
    stage = _stage(error.__traceback__)
    checking = args.command_module in CHECKS and stage in _CHECK_STAGES
    code = EXIT_UNCHECKED if checking else EXIT_INVALID
    outcome = "nothing was decided (unchecked)" if checking else "nothing was done"
    what = f"{type(error).__name__}: {error}".splitlines()[0][:300]
    message = f"an unexpected error in the {stage} stage ({what}); {outcome}."
    if os.environ.get("CAGR_DEBUG"):
        import traceback  # noqa: PLC0415  # only when asked for

        traceback.print_exception(error, file=sys.stderr)
    else:
        message += " Set CAGR_DEBUG=1 to see where, and please report it."
    if getattr(args, "format", "text") == "json":
        status = "unchecked" if checking else "error"
        print_json(
            {"status": status, "unchecked": [{"rule": None, "stage": stage, "message": message}]}
        )
    print(f"cagr: {message}", file=sys.stderr)
    return code
