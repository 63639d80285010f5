"""cagr_ci: `cagr ci`, the complete check in CI; events in, report out.

- `providers.read_event(env, base=, body_file=, stdin=)` -> CiEvent: GitHub Actions
  (`github`), GitLab (`gitlab`) or no CI system, with `--base` / `--body-file` on top.
- `run.run_ci(config, checkout, event)` -> CiResult: exact head, change rules with the event's
  PR body, `[review].pr_sections`, `[stack].ci`, and a clean-checkout check (`integrity`); in a
  merge queue run, the queued pull request read from GitHub's API and judged on its own change
  (`merge_queue`).
- The forge: `forge` (API address, project and token from the CI variables, no HTTP), `rest`
  (the standard-library client: timeouts, retries, rate limits, pages), `github_api` and
  `gitlab_api` (the calls cagr makes), `comment` (`--comment`: one comment, kept current).
- Output: `render` (text, JSON), `annotations`, `summary` and `outputs` (GitHub), `sarif`
  (SARIF 2.1.0, for code scanning), `codequality` (GitLab's code quality report).
- `workflow.install_workflow(root, force, install=, sarif=)`: the workflow `cagr init --ci
  github` writes, its install line from `requirement` (PEP 610) or `--install`.

It never imports cagr_cli: the command line is a thin translation of these calls.
"""
