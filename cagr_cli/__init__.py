"""cagr_cli: the `cagr` command line; parses arguments, calls repo and core, prints, exits."""
