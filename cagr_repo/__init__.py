"""cagr_repo: the checkout as cagr's input, over cagr_git.

Config discovery and TOML reading (`config_files`, `config`), the target and range (`target`,
`range`), collecting a ChangeSet (`collect`), the check service (`check`), cagr's state under
`<gitdir>/cagr/` (`state`, `gate_record`), `[stack]` commands (`stack`), `init`'s suggestions
(`suggest`), replaying history (`replay`, with merged pull requests a forge's CLI exported:
`pr_export`), body files and the files cagr writes (`body_file`, `files`).
"""
