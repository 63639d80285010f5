"""cagr_git: git's on-disk formats in, plain values out; it only reads.

One format a module, as git lays them out: finding git directories (`discover`), refs and HEAD
(`refs`), object ids (`object_ids`), config (`config`) and the remotes it sets (`remotes`), the
repository and its format (`repository`), objects and packs (`objects`), commit-graph and merge
bases (`history`), trees (`trees`), the index (`index`), revisions (`revisions`), git's path
patterns (`patterns`), attributes and ignore rules (`attributes`, `ignore`), content's way in
(`convert`), the working tree (`worktree`) and its status against a base tree (`status`). Files
are read without blocking (`files`). It knows nothing of rules or config, and never hands a
repository to code that can write to it.
"""
