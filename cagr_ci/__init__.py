"""cagr_ci: the CI entry point (`cagr ci`): events, annotations, step summary."""
