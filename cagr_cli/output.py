"""Shared command-line plumbing: exit codes, the --format option and JSON printing."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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
    json.dump(data, sys.stdout, indent=2, ensure_ascii=True)  # paths may hold undecodable bytes
    sys.stdout.write("\n")


def exit_code(report: Report) -> int:
    """0 pass, 1 a finding, 3 something unchecked (and no finding)."""
    return {"pass": EXIT_OK, "fail": EXIT_FINDINGS, "unchecked": EXIT_UNCHECKED}[report.status]
