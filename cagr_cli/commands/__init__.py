"""One module per `cagr` command, each with `run(args) -> int`; `main` builds their parsers."""
