"""A change rule as TOML text, for tests that write configuration files."""

from __future__ import annotations

RULE = """
[[{prefix}changes.rules]]
id = "{id}"
kind = "requires"
paths = ["src/schema.py"]
require = ["schema.json"]
reason = "Regenerate schema.json."
examples.invalid = [{{ changes = [{{ path = "src/schema.py", status = "M" }}] }}]
examples.valid = [{{ changes = [{{ path = "src/schema.py", status = "M" }}, {{ path = "schema.json", status = "A" }}] }}]
"""


def rule(rule_id: str = "schema", prefix: str = "") -> str:
    """One valid requires rule with this id (prefix `tool.cagr.` for pyproject.toml)."""
    return RULE.format(id=rule_id, prefix=prefix)


# A requires rule most end-to-end tests share (src/schema.py wants schema.json beside it).
SCHEMA_COMPANION = """
[[changes.rules]]
id = "schema-companion"
kind = "requires"
paths = ["src/schema.py"]
require = ["schema.json"]
reason = "Run `make schema` and include schema.json in this change."
examples.invalid = [{ changes = [{ path = "src/schema.py", status = "M" }] }]
examples.valid = [{ changes = [{ path = "src/schema.py", status = "M" }, { path = "schema.json", status = "M" }] }]
"""

# Two rules most end-to-end tests share: that requires rule and a dependency-reason pr_body rule.
TWO_RULES = (
    SCHEMA_COMPANION
    + """
[[changes.rules]]
id = "dependency-reason"
kind = "pr_body"
paths = ["package.json"]
when = "dependency_added"
section = "Risk"
contains = "Dependency reason:"
reason = "In the PR body's Risk section, write `Dependency reason:` and explain the dependency."
examples.invalid = [{ changes = [{ path = "package.json", status = "M", before = "{}", after = '{"dependencies":{"x":"1"}}' }], pr_body = "" }]
examples.valid = [{ changes = [{ path = "package.json", status = "M", before = '{"dependencies":{"x":"1"}}', after = '{"dependencies":{"x":"2"}}' }], pr_body = "" }]
"""
)


# A PR template's checklist section, as `cagr init` suggests it (`checklist = true`).
CHECKLIST_RULE = """
[[changes.rules]]
id = "pr-template-checklist"
kind = "pr_body"
paths = ["**"]
section = "## Checklist"
checklist = true
reason = "Keep the PR template's `## Checklist` checklist in the description."
examples.invalid = [{ changes = [{ path = "a.py", status = "M" }], pr_body = "## Checklist\\nAll done." }]
examples.valid = [{ changes = [{ path = "a.py", status = "M" }], pr_body = "## Checklist\\n- [x] done" }]
"""


def uncomment(text: str) -> str:
    """What a person does: remove the `# ` before each suggested rule's lines."""
    out, in_rule = [], False
    for line in text.splitlines():
        in_rule = in_rule or line.startswith("# Suggested because")
        is_rule_line = in_rule and line.startswith("# ") and not line.startswith("# Suggested")
        out.append(line[2:] if is_rule_line else line)
    return "\n".join(out) + "\n"


# A rule with a named part (round four), as several end-to-end tests use it.
APP_MIGRATION = """
[[changes.rules]]
id = "app-migration"
kind = "requires"
paths = ["apps/{app}/models.py"]
require = [{ path = "apps/{app}/migrations/0*.py", status = "added" }]
reason = "Run makemigrations for this app and commit its new migration."
waive_authors = ["renovate[bot]"]
examples.invalid = [{ changes = [{ path = "apps/a/models.py", status = "M" }, { path = "apps/b/migrations/0002_x.py", status = "A" }] }]
examples.valid = [{ changes = [{ path = "apps/a/models.py", status = "M" }, { path = "apps/a/migrations/0002_x.py", status = "A" }] }]
"""


# One rule of each kind beyond the change rules: a code rule (no new print calls in src/), a
# layout rule (new modules in snake_case) and a guard (no terraform destroy).
CODE_LAYOUT_GUARD = """
[[code.rules]]
id = "no-print"
language = "python"
paths = ["src/**/*.py"]
rule = { pattern = "print($$$A)" }
reason = "Log with the logger instead of print."
examples.invalid = [{ path = "src/a.py", after = "print(1)\\n" }]
examples.valid = [{ path = "src/a.py", before = "print(1)\\n", after = "print(1)\\nx = 2\\n" }]

[[layout.rules]]
id = "snake-modules"
paths = ["src/**/*.py"]
name = "snake_case"
reason = "Name new modules in snake_case."
examples.invalid = [{ changes = [{ path = "src/BadName.py", status = "A" }] }]
examples.valid = [{ changes = [{ path = "src/good_name.py", status = "A" }] }]

[[guards.rules]]
id = "no-destroy"
commands = ["terraform destroy", "terraform apply -destroy"]
reason = "Ask a person to destroy infrastructure."
examples.invalid = [{ command = "terraform destroy -auto-approve" }, { command = "cd infra && terraform apply -destroy" }]
examples.valid = [{ command = "terraform plan" }]
"""
