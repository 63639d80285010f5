"""cagr_repo: a checkout on disk as core values (config files, git through dulwich and cagr's
own object reader, worktree state)."""
