"""`cagr doctor`: what to look at when something feels wrong, in sections.

Config (sources, rules per kind, problems, examples), range (target, merge base, history), the
change as a check sees it (violations, warnings, unchecked and deferred kept apart), the gate record
(absent, current or stale and why), agent hooks (installed, missing, outdated; recent times)
and advice. A diagnosis, not a policy check: exit 2 for an invalid config or failing examples,
3 when something could not be checked, else 0 — findings in the change never fail it.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from cagr_config.example_runner import run_examples
from cagr_config.rules import RULE_KINDS
from cagr_core.changes import Stage
from cagr_git.discover import Checkout, NotARepository, find_checkout
from cagr_git.index import UnreadableIndex, tracked_paths
from cagr_hooks.guards import run_guard_examples
from cagr_hooks.install import SETTINGS_FILES
from cagr_hooks.installed import AgentStatus, agent_status, timing_summary
from cagr_hooks.notices import recent as recent_notices
from cagr_repo.check import CheckRequest, check
from cagr_repo.config import RepoConfig
from cagr_repo.config_files import find_config_files
from cagr_repo.diagnosis import advice
from cagr_repo.gate_record import record_state
from cagr_repo.judging_config import InvalidConfig, WorkingConfig, read_working_config

from ..output import EXIT_INVALID, EXIT_OK, EXIT_UNCHECKED, print_json

MAX_ADVICE_WORK = 20_000_000  # rule x tracked-file matches doctor does for advice
NOTICES_SHOWN = 5  # the newest of what the hooks said: headless agents show the person none


def _config(root: Path) -> tuple[dict[str, Any], WorkingConfig]:
    files = find_config_files(str(root))
    section: dict[str, Any] = {"sources": [name for name, _ in files.sources()], "problems": []}
    config = read_working_config(str(root))
    if isinstance(config, InvalidConfig):
        section["problems"] = [str(issue) for issue in config.issues]
        return section, config
    kinds: Counter[str] = Counter(c.kind for c in config.rules.rules)
    kinds.update("guard" for _ in config.config.guards.rules)
    section["rules"] = {kind: kinds[kind] for kind in (*RULE_KINDS, "code", "layout", "guard")}
    document = config.config
    results = [
        *run_examples((*document.changes.rules, *document.code.rules, *document.layout.rules)),
        *run_guard_examples(document.guards.rules),
    ]
    section["examples"] = {
        "run": len(results),
        "failing": [f"{r.rule} examples.{r.name}" for r in results if not r.ok],
    }
    return section, config


def _hooks(root: Path, gitdir: str) -> dict[str, Any]:
    agents = {}
    for agent in SETTINGS_FILES:
        status = agent_status(root, agent)
        agents[agent] = {
            "file": status.path,
            "state": status.state,
            "missing": list(status.missing),
            "outdated": list(status.outdated),
            **({"problem": status.problem} if status.problem else {}),
            **({"command": status.command} if status.command else {}),
            **({"resolves_to": status.resolves_to} if status.resolves_to else {}),
            **({"not_resolved": status.not_resolved} if status.not_resolved else {}),
            **({"machine_path": status.machine_path} if status.machine_path else {}),
            **_will_run(status),
        }
    return {
        "agents": agents,
        "timings": timing_summary(gitdir),
        "recent_notices": [
            {key: item[key] for key in ("at", "agent", "moment", "kind", "text")}
            for item in recent_notices(gitdir)[-NOTICES_SHOWN:]
        ],
    }


def _will_run(status: AgentStatus) -> dict[str, Any]:
    """`will_run` (True, False, None: cannot tell), `why` and `fix` for one agent."""
    if status.problem:
        return {"will_run": None, "why": f"the settings file cannot be read: {status.problem}",
                "fix": None}  # fmt: skip
    if status.runs is None:
        return {
            "will_run": False,
            "why": f"cagr's hooks are not installed for {status.agent}",
            "fix": f"cagr init --hooks {status.agent}",
        }
    return {"will_run": status.runs.will_run, "why": status.runs.why, "fix": status.runs.fix}


def diagnose(checkout: Checkout) -> tuple[dict[str, Any], int]:
    """Every section as data, and the exit code."""
    assert checkout.root is not None
    root = Path(checkout.root)
    config_section, config = _config(root)
    data: dict[str, Any] = {"root": str(root), "config": config_section}
    code = EXIT_OK
    if isinstance(config, InvalidConfig) or config_section["examples"]["failing"]:
        code = EXIT_INVALID
    if isinstance(config, InvalidConfig):  # the gate compares file bytes: no rules needed
        data["gate_record"] = _gate_record(checkout, config.raw_digest)
    else:
        # A diagnosis of the target too: one that is the branch itself is named as unchecked.
        report = check(config, checkout, CheckRequest()).report
        range_ = report.range
        data["range"] = {
            "target_ref": range_.target_ref if range_ else None,
            "target": range_.target if range_ else None,
            "chosen_by": range_.chosen_by if range_ else None,
            "merge_base": range_.base if range_ else None,
            "problems": [u.message for u in report.unchecked if u.stage.value == "range"],
        }
        data["change"] = {
            "violations": sorted({f.rule for f in report.errors}),
            "warnings": sorted({f.rule for f in report.warnings}),
            "unchecked": [u.message for u in report.unchecked],
            "deferred": sorted({d.rule for d in report.deferred}),
        }
        # What leaves the configuration itself unknown (a tracked file not on disk), by name.
        config_section["unchecked"] = [
            u.message for u in report.unchecked if u.stage is Stage.CONFIG
        ]
        if report.unchecked and code == EXIT_OK:
            code = EXIT_UNCHECKED
        data["gate_record"] = _gate_record(checkout, config.raw_digest)
        try:
            tracked = tracked_paths(checkout.gitdir)
        except UnreadableIndex as error:
            data["advice"] = [f"advice skipped: the index cannot be read ({error})."]
        else:
            data["advice"] = _advice(config, tracked)
    data["hooks"] = _hooks(root, checkout.gitdir)
    return data, code


def _gate_record(checkout: Checkout, digest: str) -> dict[str, Any]:
    record, reasons = record_state(checkout, digest)
    if record is None:
        return {"state": "absent"}
    return {
        "state": "stale" if reasons else "current",
        "why_stale": reasons,
        "result": record.status,
        "head": record.head,
        "target_ref": record.target_ref,
    }


def _advice(config: RepoConfig, tracked: list[str]) -> list[str]:
    if len(tracked) * max(1, len(config.rules.rules)) <= MAX_ADVICE_WORK:
        return advice(config.rules, tracked)
    return [
        f"advice skipped: {len(config.rules.rules)} rules over {len(tracked)} tracked"
        " files is more than doctor matches."
    ]


def _text(data: dict[str, Any]) -> str:
    config = data["config"]
    lines = [f"cagr doctor: {data['root']}", "", "Config"]
    lines.append(f"  sources: {', '.join(config['sources']) or 'none (no change rules)'}")
    if config["problems"]:
        lines.append(f"  INVALID ({len(config['problems'])} problem(s)):")
        lines.extend(f"    {problem}" for problem in config["problems"])
    lines.extend(f"  UNCHECKED: {problem}" for problem in config.get("unchecked", ()))
    if "rules" in config:
        lines.append("  rules: " + ", ".join(f"{n} {kind}" for kind, n in config["rules"].items()))
        failing = config["examples"]["failing"]
        run = config["examples"]["run"]
        lines.append(
            f"  examples: {run - len(failing)} of {run} pass"
            + (f"; failing: {', '.join(failing)} (`cagr rules test` shows why)" if failing else "")
        )
    if "range" in data:
        range_ = data["range"]
        lines += ["", "Range"]
        if range_["target_ref"]:
            lines.append(
                f"  target: {range_['target_ref']} at {range_['target'][:7]}"
                f" (chosen by {range_['chosen_by']})"
            )
            lines.append(f"  merge base: {range_['merge_base'][:7]} (history available)")
        lines.extend(f"  UNCHECKED: {problem}" for problem in range_["problems"])
        change = data["change"]
        lines += ["", "Change (merge base to working tree; a diagnosis, not a verdict)"]
        lines.append(f"  violations: {', '.join(change['violations']) or 'none'}")
        if change["warnings"]:
            lines.append(f"  warnings (severity warn): {', '.join(change['warnings'])}")
        lines.append(f"  deferred to the PR: {', '.join(change['deferred']) or 'none'}")
        lines.append(f"  unchecked: {len(change['unchecked']) or 'nothing'}")
    if "gate_record" in data:
        record = data["gate_record"]
        lines += ["", "Gate record (for `gh pr create`)"]
        if record["state"] == "absent":
            lines.append("  absent: run `cagr rules check --committed` to prepare it")
        elif record["state"] == "stale":
            lines.append(f"  stale ({'; '.join(record['why_stale'])}); its result no longer counts")
        else:
            lines.append(f"  current: {record['result']} for HEAD {record['head'][:7]}")
    lines += _hooks_text(data["hooks"])
    if data.get("advice"):
        lines += ["", "Advice"]
        lines.extend(f"  {note}" for note in data["advice"])
    return "\n".join(lines)


def _hooks_text(hooks: dict[str, Any]) -> list[str]:
    """Each agent's hook setup, whether its command resolves here, and recent timings."""
    lines = ["", "Agent hooks"]
    for agent, status in hooks["agents"].items():
        detail = status["state"]
        events = status["missing"] or status["outdated"]
        if events:
            what = "missing" if status["missing"] else "outdated"
            detail += f" ({what} {', '.join(events)}; run `cagr init --hooks {agent}`)"
        lines.append(f"  {agent}: {detail} [{status['file']}]")
        if "resolves_to" in status:
            lines.append(f"    runs `{status['command']}`: {status['resolves_to']}")
        elif "not_resolved" in status:
            lines.append(
                f"    runs `{status['command']}`, which does not resolve here"
                f" ({status['not_resolved']}): the hook lets every call through without cagr"
            )
        if "machine_path" in status:
            lines.append(
                f"    {status['machine_path']} is a path on this machine; teammates who use the"
                " committed file lack it. Use `cagr` on the PATH or a path under the project"
                f" (`cagr init --hooks {agent} --hook-command ...`)."
            )
        if status["state"] != "not set up":
            lines.append(f"    will {agent} run them: {will_run_text(status)}")
    for moment, figures in hooks["timings"].items():
        budget = f", budget {figures['budget_ms']:g} ms" if "budget_ms" in figures else ""
        lines.append(
            f"  {moment}: {figures['calls']:g} recent call(s), median {figures['median_ms']:g} ms,"
            f" slowest {figures['max_ms']:g} ms{budget}"
        )
    if hooks["recent_notices"]:
        lines += ["", "Recent notices (what the hooks told the agent; headless runs show no one)"]
        for item in hooks["recent_notices"]:
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(item["at"]))
            first, *rest = item["text"].splitlines() or [""]
            lines.append(f"  {when} {item['agent']} {item['moment']} ({item['kind']}): {first}")
            lines.extend(f"    {line}" for line in rest if line.strip())
    return lines


def will_run_text(status: dict[str, Any]) -> str:
    """`yes`, `NO` or `cannot tell`, with why and the fix."""
    answer = {True: "yes", False: "NO", None: "cannot tell"}[status["will_run"]]
    fix = f". Fix: {status['fix']}" if status.get("fix") else ""
    return f"{answer}: {status['why']}{fix}"


def run(args: argparse.Namespace) -> int:
    try:
        checkout = find_checkout(args.repo)
    except NotARepository as error:
        print(f"cagr doctor: {error}", file=sys.stderr)
        return EXIT_INVALID
    if checkout.root is None:
        print(f"cagr doctor: {checkout.gitdir} is a bare repository", file=sys.stderr)
        return EXIT_INVALID
    data, code = diagnose(checkout)
    if args.format == "json":
        print_json({"status": {0: "ok", 2: "error", 3: "unchecked"}[code], **data})
    else:
        print(_text(data))
    return code
