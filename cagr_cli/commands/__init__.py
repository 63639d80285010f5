"""One module per `cagr` command; each has `add_parser(subparsers)` and `run(args) -> int`."""
