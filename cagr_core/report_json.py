"""The report as JSON data (what `--format json` prints, docs/checks.md) and back: its one codec.

`report_from_data` reads exactly what `report_data` writes (the gate record keeps a report so),
every value checked for its type: anything else raises Damaged.
"""

from __future__ import annotations

from .changes import Range, Stage, Unchecked
from .data import (
    Damaged,
    array,
    flag,
    number_or_none,
    table,
    text,
    text_or_none,
    texts,
    whole,
)
from .report import (
    CONFIG_SOURCES,
    AddedDependency,
    ConfigChanges,
    Deferred,
    Finding,
    Report,
    TargetRules,
    Timings,
    UncommittedConfig,
    Waived,
)
from .severity import Severity

TYPE_CHECKING = False  # not typing's: the PR gate reads records with this
if TYPE_CHECKING:
    from typing import Any

__all__ = ["Damaged", "json_status", "range_data", "report_data", "report_from_data"]


def range_data(range_: Range | None) -> dict[str, Any] | None:
    """A range as JSON data (`head` is null for the working tree)."""
    if range_ is None:
        return None
    if range_.snapshot:
        return {
            "target_ref": None,
            "target": None,
            "base": None,
            "head": None,
            "result": range_.result,
            "label": range_.label,
            "chosen_by": None,
        }
    return {
        "target_ref": range_.target_ref,
        "target": range_.target,
        "base": range_.base,
        "head": range_.head,
        "result": range_.result,
        "label": range_.label,
        "chosen_by": range_.chosen_by,
    }


def unchecked_data(item: Unchecked) -> dict[str, Any]:
    """One unchecked item as JSON data (`path` is null when the whole check is affected)."""
    return {
        "rule": item.rule,
        "stage": item.stage.value,
        "message": item.message,
        "path": item.path,
        "severity": item.severity.value,
    }


def _dependencies_data(dependencies: tuple[AddedDependency, ...]) -> list[dict[str, str | None]]:
    return [
        {"name": d.name, "section": d.section, "manifest": d.manifest, "change": d.change}
        for d in dependencies
    ]


def json_status(verdict: str) -> str:
    """The JSON report's `status`, one of pass, fail, unchecked and error: a run whose only
    findings a label waived is `pass` there (it exits 0); its `waived` list says which."""
    return "pass" if verdict == "waived" else verdict


def _finding_data(f: Finding) -> dict[str, Any]:
    return {
        "rule": f.rule,
        "kind": f.kind,
        "message": f.message,
        "fix": f.fix,
        "paths": list(f.paths),
        "requires": list(f.requires),
        "target": f.target,
        "targets": list(f.targets),
        "dependencies": _dependencies_data(f.dependencies),
        "severity": f.severity.value,
        "waive_label": f.waive_label,
        "config_source": f.config_source,
        "waive_authors": list(f.waive_authors),
        "parts": dict(f.parts),
        "line": f.line,
        "column": f.column,
    }


def _waived_data(waived: Waived) -> dict[str, Any]:
    """A waived finding, with the label or the author that waived it."""
    by = {"label": waived.label} if waived.label is not None else {"author": waived.author}
    return {**_finding_data(waived.finding), **by}


def report_data(report: Report) -> dict[str, Any]:
    """The JSON report (docs/checks.md); timings are null where no adapter measured them."""
    return {
        "status": json_status(report.status),
        "range": range_data(report.range),
        "findings": [_finding_data(f) for f in report.findings],
        "waived": [_waived_data(w) for w in report.waived],
        "unchecked": [unchecked_data(item) for item in report.unchecked],
        "deferred": [
            {
                "rule": d.rule,
                "section": d.section,
                "contains": d.contains,
                "message": d.message,
                "fix": d.fix,
                "trigger": d.trigger,
                "dependencies": _dependencies_data(d.dependencies),
                "severity": d.severity.value,
                "waive_label": d.waive_label,
                "waive_authors": list(d.waive_authors),
                "paths": list(d.paths),
                "placeholders": None if d.placeholders is None else list(d.placeholders),
                "checklist": d.checklist,
            }
            for d in report.deferred
        ],
        "pending_staged": list(report.pending_staged),
        "rules_checked": report.rules_checked,
        "fired": list(report.fired),
        "changed_paths": report.changed_paths,
        "uncommitted": report.uncommitted,
        "timings_ms": {
            "collect": report.timings.collect_ms,
            "evaluate": report.timings.evaluate_ms,
        },
        "config_changes": _config_changes_data(report.config_changes),
        "uncommitted_config": _uncommitted_config_data(report.uncommitted_config),
        "rules_filter": None if report.rules_filter is None else list(report.rules_filter),
        "config_sources": list(report.config_sources),
        "target_config": _target_config_data(report.target_config),
    }


def _target_config_data(rules: TargetRules | None) -> dict[str, Any] | None:
    """How the target's configuration differs from the branch's (null: alike, or not read)."""
    if rules is None:
        return None
    return {
        "commit": rules.commit,
        "judged": rules.judged,
        "rules_only_at_target": list(rules.only_target),
        "rules_only_at_head": list(rules.only_head),
        "rules_changed": list(rules.changed),
        "settings_changed": list(rules.settings),
        "invalid": rules.invalid,
        "message": rules.describe(),
    }


def _uncommitted_config_data(config: UncommittedConfig | None) -> dict[str, Any] | None:
    """What the working tree's config has that HEAD's, which judged, does not (null: same)."""
    if config is None:
        return None
    return {
        "rules_added": list(config.added),
        "rules_removed": list(config.removed),
        "rules_changed": list(config.changed),
        "settings_changed": list(config.settings),
        "note": config.note,
        "message": config.describe(),
    }


def _config_changes_data(changes: ConfigChanges | None) -> dict[str, Any] | None:
    """How the change edits cagr's own config (null when it does not)."""
    if changes is None:
        return None
    return {
        "files": list(changes.files),
        "rules_added": list(changes.added),
        "rules_removed": list(changes.removed),
        "rules_changed": list(changes.changed),
        "settings_changed": list(changes.settings),
        "note": changes.note,
    }


# Reading: the inverse of report_data.


def report_from_data(data: object) -> Report:
    """The Report `report_data` wrote; Damaged unless every value has its type."""
    data = table(data)
    timings = table(data["timings_ms"])
    report = Report(
        findings=tuple(_finding(table(item)) for item in array(data["findings"])),
        unchecked=tuple(_unchecked(table(item)) for item in array(data["unchecked"])),
        deferred=tuple(_deferred(table(item)) for item in array(data["deferred"])),
        range=None if data["range"] is None else _range(table(data["range"])),
        pending_staged=texts(data["pending_staged"]),
        timings=Timings(number_or_none(timings["collect"]), number_or_none(timings["evaluate"])),
        rules_checked=whole(data["rules_checked"]),
        changed_paths=whole(data["changed_paths"]),
        uncommitted=None if data["uncommitted"] is None else whole(data["uncommitted"]),
        config_changes=_config_changes(data["config_changes"]),
        waived=tuple(_waived(table(item)) for item in array(data["waived"])),
        uncommitted_config=_uncommitted_config(data["uncommitted_config"]),
        config_sources=texts(data["config_sources"]),
        target_config=_target_config(data["target_config"]),
        rules_filter=None if data["rules_filter"] is None else texts(data["rules_filter"]),
        fired=texts(data["fired"]),
    )
    if json_status(report.status) != data["status"]:
        raise Damaged("the status does not follow from the findings")
    return report


def _severity(value: object) -> Severity:
    try:
        return Severity(text(value))
    except ValueError as error:
        raise Damaged(str(error)) from error


def _range(item: dict[str, Any]) -> Range:
    if item["result"] == "snapshot":
        return Range.of_snapshot()
    head = text_or_none(item["head"])
    return Range(
        text(item["target_ref"]),
        text(item["target"]),
        text(item["base"]),
        head,
        text_or_none(item["chosen_by"]),
    )


def _dependencies(value: object) -> tuple[AddedDependency, ...]:
    return tuple(
        AddedDependency(
            text(d["name"]), text_or_none(d["section"]), text(d["manifest"]), text(d["change"])
        )
        for d in map(table, array(value))
    )


def _waived(item: dict[str, Any]) -> Waived:
    if "label" in item:
        return Waived(_finding(item), label=text(item["label"]))
    return Waived(_finding(item), author=text(item["author"]))


def _parts(value: object) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((text(name), text(matched)) for name, matched in table(value).items()))


def _finding(item: dict[str, Any]) -> Finding:
    return Finding(
        text(item["rule"]),
        text(item["kind"]),
        text(item["message"]),
        text(item["fix"]),
        texts(item["paths"]),
        requires=texts(item["requires"]),
        target=text_or_none(item["target"]),
        dependencies=_dependencies(item["dependencies"]),
        severity=_severity(item["severity"]),
        waive_label=text_or_none(item["waive_label"]),
        targets=texts(item["targets"]),
        config_source=_config_source(item["config_source"]),
        parts=_parts(item["parts"]),
        waive_authors=texts(item["waive_authors"]),
        line=_whole_or_none(item["line"]),
        column=_whole_or_none(item["column"]),
    )


def _whole_or_none(value: object) -> int | None:
    return None if value is None else whole(value)


def _unchecked(item: dict[str, Any]) -> Unchecked:
    try:
        stage = Stage(text(item["stage"]))
    except ValueError as error:
        raise Damaged(str(error)) from error
    return Unchecked(
        text_or_none(item["rule"]),
        stage,
        text(item["message"]),
        text_or_none(item["path"]),
        _severity(item["severity"]),
    )


def _deferred(item: dict[str, Any]) -> Deferred:
    return Deferred(
        text(item["rule"]),
        text(item["section"]),
        text_or_none(item["contains"]),
        text(item["message"]),
        text(item["fix"]),
        trigger=text(item["trigger"]),
        dependencies=_dependencies(item["dependencies"]),
        severity=_severity(item["severity"]),
        waive_label=text_or_none(item["waive_label"]),
        paths=texts(item["paths"]),
        placeholders=None if item["placeholders"] is None else texts(item["placeholders"]),
        waive_authors=texts(item["waive_authors"]),
        checklist=flag(item.get("checklist", False)),  # absent from reports before it was added
    )


def _config_changes(value: object) -> ConfigChanges | None:
    if value is None:
        return None
    item = table(value)
    return ConfigChanges(
        texts(item["files"]),
        texts(item["rules_added"]),
        texts(item["rules_removed"]),
        texts(item["rules_changed"]),
        texts(item["settings_changed"]),
        text_or_none(item["note"]),
    )


def _uncommitted_config(value: object) -> UncommittedConfig | None:
    if value is None:
        return None
    item = table(value)
    return UncommittedConfig(
        texts(item["rules_added"]),
        texts(item["rules_removed"]),
        texts(item["rules_changed"]),
        texts(item["settings_changed"]),
        text_or_none(item["note"]),
    )


def _config_source(value: object) -> str:
    source = text(value)
    if source not in CONFIG_SOURCES:
        raise Damaged(f"{source!r} is not a configuration's name")
    return source


def _target_config(value: object) -> TargetRules | None:
    if value is None:
        return None
    item = table(value)
    return TargetRules(
        text(item["commit"]),
        flag(item["judged"]),
        texts(item["rules_only_at_target"]),
        texts(item["rules_only_at_head"]),
        texts(item["rules_changed"]),
        texts(item["settings_changed"]),
        text_or_none(item["invalid"]),
    )
