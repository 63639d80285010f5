"""cagr_ci: `cagr ci`, the complete check in CI; events in, report out.

- `providers.read_event(env, base=, body_file=)` -> CiEvent: GitHub Actions (`github`), GitLab
  (`gitlab`) or no CI system, with `--base` / `--body-file` on top.
- `run.run_ci(config, checkout, event)` -> CiResult: exact head, change rules with the event's
  PR body, `[review].pr_sections`, `[stack].ci`, and a clean-checkout check (`integrity`).
- Output: `render` (text, JSON), `annotations` and `summary` (GitHub), `sarif` (SARIF 2.1.0).
- `workflow.install_workflow(root, force)`: the workflow `cagr init --ci github` writes.

It never imports cagr_cli: the command line is a thin translation of these calls.
"""
