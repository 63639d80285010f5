"""cagr_cli: the `cagr` command line, the top floor: parses arguments, calls down, prints."""
