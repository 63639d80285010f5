"""What `cagr doctor` looks at beyond a check and the gate record: advice about rules.

Advice is never a failure: a rule for paths that do not exist yet can be intentional.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence

from cagr_config.globs import compile_matcher
from cagr_core.rule_index import RuleIndex
from cagr_core.ruleset import RuleSet
from cagr_core.templates import RenderError


def advice(rules: RuleSet, tracked: Sequence[str]) -> list[str]:
    """Rules whose triggers match no tracked file, ignores that match nothing, and sibling
    targets whose folder does not exist: one walk of the tracked files for every rule's paths
    and one for every ignore pattern (rule indexes)."""
    notes = []
    folders = {posixpath.dirname(path) for path in tracked}
    matches = rules.index.match(tracked)
    ignores = {p: compile_matcher([p]) for c in rules.rules for p in c.selector.ignores.patterns}
    ignored = RuleIndex.build(ignores.values()).match(tracked)
    for compiled in rules.rules:
        rule = compiled.id
        matched = [tracked[n] for n in matches.positions(compiled.selector.paths)]
        if not matched:
            notes.append(
                f"{rule}: its paths ({', '.join(compiled.selector.paths.patterns)}) match no"
                " tracked file; fine if it is meant for files to come, otherwise check the globs"
                f" (`cagr explain {rule}`)."
            )
        for pattern in compiled.selector.ignores.patterns:
            if not ignored.positions(ignores[pattern]):
                notes.append(f"{rule}: ignore {pattern} matches no tracked file.")
        selected = [path for path in matched if not compiled.selector.ignores.matches(path)]
        for template in compiled.targets if selected else ():
            targets = set()
            for path in selected:
                for binding in compiled.selector.paths.bindings(path) or ((),):
                    try:
                        targets.add(posixpath.dirname(template.render(path, dict(binding))))
                    except (RenderError, KeyError):  # KeyError: a part this path leaves unnamed
                        continue
            if targets and not targets & folders:
                shown = ", ".join(sorted(t or "(the root)" for t in targets)[:3])
                notes.append(
                    f"{rule}: its target {template.source} points into {shown}, where no"
                    " tracked file is yet; check the template."
                )
    return notes
