"""The step's outputs for GitHub Actions ($GITHUB_OUTPUT), for later steps and for the
composite action's outputs: `status` (as the JSON report's: pass, fail, unchecked, or error when
nothing could be checked), `findings` and `unchecked` (counts), `sarif` (the log's absolute
path, or empty)."""

from __future__ import annotations

import os

from cagr_core.report_json import json_status

from .run import CiResult

KEYS = ("status", "findings", "unchecked", "sarif")


def step_outputs(result: CiResult | None, sarif: str = "") -> dict[str, str]:
    """The outputs of a run (None: one that could not check anything)."""
    if result is None:
        return {"status": "error", "findings": "0", "unchecked": "0", "sarif": ""}
    return {
        "status": json_status(result.status),
        "findings": str(len(result.report.findings)),
        "unchecked": str(len(result.report.unchecked)),
        "sarif": sarif,
    }


def output_text(values: dict[str, str]) -> str:
    """`values` in GITHUB_OUTPUT's multiline form (`key<<DELIMITER`), with a delimiter that
    occurs in no value, so a path with a line break cannot end a value early."""
    delimiter = f"cagr_{os.urandom(16).hex()}"
    while any(delimiter in value for value in values.values()):  # pragma: no cover
        delimiter = f"cagr_{os.urandom(16).hex()}"
    return "".join(f"{key}<<{delimiter}\n{value}\n{delimiter}\n" for key, value in values.items())
