"""cagr_repo: a checkout on disk as core values (config files, git via dulwich, worktree state)."""
