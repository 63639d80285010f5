"""Shared command-line plumbing: exit codes, the --format option and JSON printing."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Iterator

from cagr_core.redaction import redact, tokens
from cagr_core.safe_text import terminal_safe

TYPE_CHECKING = False  # not typing's: importing it costs every command
if TYPE_CHECKING:
    from typing import Any, TextIO

    from cagr_core.report import Report

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_INVALID = 2
EXIT_UNCHECKED = 3


def format_option() -> argparse.ArgumentParser:
    """A parent parser giving a command `--format text|json`."""
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    return parent


def print_json(data: Any) -> None:
    # One write: json.dump would hand the stream (escaping, see terminal_safe) every token.
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=True) + "\n")  # paths may be bytes


def exit_code(report: Report) -> int:
    """0 pass (or only waived findings), 1 a finding, 3 something unchecked (and no finding)."""
    codes = {"pass": EXIT_OK, "waived": EXIT_OK, "fail": EXIT_FINDINGS, "unchecked": EXIT_UNCHECKED}
    return codes[report.status]


# Anything but printable ASCII, newline and tab is looked at one character at a time.
class _TerminalSafe:
    """A text stream that escapes what it is given (terminal_safe), never shows a forge token
    the environment holds, and never fails to encode."""

    def __init__(self, stream: TextIO, secrets: tuple[str, ...] = ()) -> None:
        self._stream = stream
        self._secrets = secrets

    def write(self, text: str) -> int:
        safe = terminal_safe(redact(text, self._secrets) if self._secrets else text)
        try:
            return self._stream.write(safe)
        except UnicodeEncodeError:  # a stream that cannot hold this character: escape it
            encoding = self._stream.encoding or "ascii"
            return self._stream.write(safe.encode(encoding, "backslashreplace").decode(encoding))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextlib.contextmanager
def terminal_safe_streams() -> Iterator[None]:
    """stdout and stderr escape what is printed to them (terminal_safe), and show no token the
    environment holds (redact), while the block runs."""
    stdout, stderr = sys.stdout, sys.stderr
    secrets = tokens(os.environ)
    if stdout is not None:  # None when the process has no stdout at all
        sys.stdout = _TerminalSafe(stdout, secrets)
    if stderr is not None:
        sys.stderr = _TerminalSafe(stderr, secrets)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = stdout, stderr
