"""The compiled configuration as JSON-ready data and back: the one codec of its kept form.

cagr_repo.config_cache stores it under `<gitdir>/cagr/config/`; reading it back needs only the
standard library and the core's values. Every value is checked for its type as it is read: a
document that is not exactly what `to_data` wrote raises Damaged, never a partial configuration.
"""

from __future__ import annotations

from cagr_core.data import Damaged, array, flag, table, text, text_or_none, texts
from cagr_core.dependencies import NameFilter
from cagr_core.globs import NamedNames, Names, PathMatcher, Piece, Place
from cagr_core.guards import guard_data, guard_from_data
from cagr_core.ruleset import KINDS, CompiledRule, RuleSet, Selector
from cagr_core.severity import Severity
from cagr_core.templates import Template
from cagr_core.when import When
from cagr_core.whitespace import Whitespace

from .compiled import Compiled, Settings, StackRun

TYPE_CHECKING = False  # not typing's: a warm check need not import it
if TYPE_CHECKING:
    from typing import Any

_PLACES = frozenset({"path", "name", "folder", "end", "part"})
_SCOPES = ("new", "file")


def to_data(kept: Compiled) -> dict[str, Any]:
    """The compiled configuration as JSON-ready data."""
    settings = kept.settings
    return {
        "rules": [_rule_data(compiled) for compiled in kept.rules.rules],
        "settings": {
            "protected_branch": settings.protected_branch,
            "pr_sections": list(settings.pr_sections),
            "on_turn_end": [[run.run, list(run.paths)] for run in settings.on_turn_end],
            "ci": [[run.run, list(run.paths)] for run in settings.ci],
        },
        "rules_digest": kept.rules_digest,
        "rule_sources": [list(pair) for pair in kept.rule_sources],
        "guards": [guard_data(guard) for guard in kept.guards],
        "disabled_guards": list(kept.disabled_guards),
    }


def _rule_data(compiled: CompiledRule) -> dict[str, Any]:
    ignored = compiled.ignore_whitespace
    return {
        "id": compiled.id,
        "kind": compiled.kind,
        "reason": compiled.reason,
        "severity": compiled.severity.value,
        "waive_label": compiled.waive_label,
        "when": compiled.when.value,
        "format": compiled.format,
        "section": compiled.section,
        "contains": compiled.contains,
        "placeholders": None if compiled.placeholders is None else list(compiled.placeholders),
        "checklist": compiled.checklist,
        "ignore_dependencies": _filter_data(compiled.ignore_dependencies),
        "waive_authors": list(compiled.waive_authors),
        "ignore_whitespace": None if ignored is None else ignored.value,
        "paths": _matcher_data(compiled.selector.paths),
        "ignores": _matcher_data(compiled.selector.ignores),
        "require": [_matcher_data(matcher) for matcher in compiled.require],
        "require_globs": list(compiled.require_globs),
        "require_added": list(compiled.require_added),
        "targets": [template.source for template in compiled.targets],
        "language": compiled.language,
        "code_rule": compiled.code_rule,
        "scope": compiled.scope,
        "name": compiled.name,
        "name_regex": compiled.name_regex,
        "forbid": compiled.forbid,
    }


def _matcher_data(matcher: PathMatcher) -> dict[str, Any]:
    return {
        "patterns": list(matcher.patterns),
        "regexes": list(matcher.regexes),
        "deep": [list(names) for names in matcher.deep],
        "alternatives": [None if a is None else list(a) for a in matcher.alternatives],
        "places": [None if place is None else list(place) for place in matcher.places],
        "templates": [
            [None if piece is None else list(piece) for piece in template]
            for template in matcher.templates
        ],
        "binds": matcher.binds,
    }


def _filter_data(names: NameFilter | None) -> dict[str, Any] | None:
    if names is None:
        return None
    return {"globs": list(names.globs), "exact": list(names.exact), "folded": list(names.folded)}


def from_data(document: object) -> Compiled:
    """The compiled configuration `to_data` made; Damaged unless every value has its type."""
    document = table(document)
    settings = table(document["settings"])
    rules = RuleSet.of(_rule(table(item)) for item in array(document["rules"]))
    return Compiled(
        rules,
        Settings(
            text_or_none(settings["protected_branch"]),
            texts(settings["pr_sections"]),
            _runs(settings["on_turn_end"]),
            _runs(settings["ci"]),
        ),
        text(document["rules_digest"]),
        tuple(_pair(pair) for pair in array(document["rule_sources"])),
        tuple(guard_from_data(guard) for guard in array(document["guards"])),
        texts(document["disabled_guards"]),
    )


def _rule(item: dict[str, Any]) -> CompiledRule:
    require = tuple(_matcher(table(entry)) for entry in array(item["require"]))
    globs = texts(item["require_globs"])
    added = tuple(flag(value) for value in array(item["require_added"]))
    if not len(require) == len(globs) == len(added):
        raise Damaged
    kind = text(item["kind"])
    scope = text(item["scope"])
    ignored = item["ignore_whitespace"]
    if kind not in KINDS or scope not in _SCOPES:
        raise Damaged
    return CompiledRule(
        text(item["id"]),
        kind,
        text(item["reason"]),
        Selector(_matcher(table(item["paths"])), _matcher(table(item["ignores"]))),
        severity=Severity(text(item["severity"])),
        waive_label=text_or_none(item["waive_label"]),
        when=When(text(item["when"])),
        format=text_or_none(item["format"]),
        require=require,
        require_globs=globs,
        require_added=added,
        targets=tuple(_template(text(source)) for source in array(item["targets"])),
        section=text_or_none(item["section"]),
        contains=text_or_none(item["contains"]),
        placeholders=None if item["placeholders"] is None else texts(item["placeholders"]),
        checklist=flag(item["checklist"]),
        ignore_dependencies=_filter(item["ignore_dependencies"]),
        waive_authors=texts(item["waive_authors"]),
        ignore_whitespace=None if ignored is None else Whitespace(text(ignored)),
        language=text_or_none(item["language"]),
        code_rule=text_or_none(item["code_rule"]),
        scope=scope,
        name=text_or_none(item["name"]),
        name_regex=text_or_none(item["name_regex"]),
        forbid=flag(item["forbid"]),
    )


def _filter(value: object) -> NameFilter | None:
    if value is None:
        return None
    item = table(value)
    return NameFilter(texts(item["globs"]), texts(item["exact"]), texts(item["folded"]))


def _matcher(item: dict[str, Any]) -> PathMatcher:
    return PathMatcher(
        texts(item["patterns"]),
        texts(item["regexes"]),
        tuple(_names(names) for names in array(item["deep"])),
        tuple(None if a is None else _names(a) for a in array(item["alternatives"])),
        tuple(_place(place) for place in array(item["places"])),
        tuple(_template_of(template) for template in array(item["templates"])),
        flag(item["binds"]),
    )


def _template_of(value: object) -> NamedNames:
    pieces: list[Piece | None] = []
    for piece in array(value):
        pieces.append(None if piece is None else texts(piece))
        if pieces[-1] is not None and len(pieces[-1] or ()) % 2 == 0:
            raise Damaged("a named part's pieces alternate text and names")
    return tuple(pieces)


def _names(value: object) -> Names:
    return tuple(text_or_none(name) for name in array(value))


def _place(value: object) -> Place:
    if value is None:
        return None
    kind, key = texts(value)
    if kind not in _PLACES:
        raise Damaged
    return (kind, key)


def _pair(value: object) -> tuple[str, str]:
    first, second = texts(value)
    return (first, second)


def _template(source: str) -> Template:
    return Template(source, tuple(source.split("/")))


def _runs(value: object) -> tuple[StackRun, ...]:
    runs = []
    for entry in array(value):
        run, paths = array(entry)
        runs.append(StackRun(text(run), texts(paths)))
    return tuple(runs)
