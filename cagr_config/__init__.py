"""cagr_config: cagr's configuration, from TOML to the core's compiled rules.

The config model (`rules`, `document`: attrs classes, structured from TOML data by cattrs in
`validate`, which also finds what types cannot say), glob syntax (`globs`: wcmatch's
expressions), compiling (`compile`: the core's RuleSet), rule examples (`examples`,
`example_runner`) and the editor schema (`schema`, derived from the same classes). `quick`
compiles the configurations it is sure of without the model (plain values, the same checks in
`checks`, the same compiling), deferring everything else to it. Each module imports only what it
needs: importing this package loads nothing.
"""
