"""cagr_core: the pure change-rule evaluator. Values in, verdicts out; no I/O of any kind.

The standard library only, and importing this package loads nothing: each module imports only
what it needs. The values: `changes` (Change, ChangeSet, Range, Unchecked), `pull_request`
(PrBody, Phase), `ruleset` (compiled rules), `report` (Report, Finding, Deferred). The
evaluation: `evaluator.evaluate`; text and data: `render`. Configured rules are compiled by
cagr_config; the `cagr` package is the facade for programs.
"""
