"""`cagr schema`: print, write (`--write [PATH]`) or check (`--check [PATH]`) the editor schema.

Without PATH, the schema files are where the repository's config files point with `#:schema`
(`cagr init` writes `.cagr/cagr.schema.json` and points `.cagr/changes.toml` at it), else
`.cagr/cagr.schema.json`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from cagr_config.schema import json_schema
from cagr_repo.files import UnsafeOutput, write_output
from cagr_repo.schema_file import schema_files

from ..checkout import root_of
from ..output import EXIT_FINDINGS, EXIT_INVALID, EXIT_OK, print_json


def schema_text() -> str:
    return json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n"


def _paths(args: argparse.Namespace, given: str | bool) -> list[tuple[Path, str]]:
    """Where the schema files are, and how to name them: by default where the repository's
    config points; a path given on the command line is taken from the current folder, as any
    path is."""
    if given is True:
        root = root_of(args.repo)
        return [(root / name, name) for name in schema_files(str(root))]
    return [(Path(str(given)), str(given))]


def _write(path: Path, shown: str, root: Path) -> int:
    try:
        write_output(str(path), schema_text().encode("utf-8"), str(root))
    except UnsafeOutput as error:
        print(f"cagr schema: {error}", file=sys.stderr)
        return EXIT_INVALID
    except OSError as error:
        print(
            f"cagr schema: cannot write {shown} ({error.strerror}: {error.filename});"
            " make its folder one cagr can write to, then run it again",
            file=sys.stderr,
        )
        return EXIT_INVALID
    print(f"wrote {shown}")
    return EXIT_OK


def _check(path: Path, shown: str, again: str) -> int:
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        print(f"cagr schema: cannot read {shown} ({error}); run `{again}`", file=sys.stderr)
        return EXIT_FINDINGS
    if saved != json_schema():
        print(f"cagr schema: {shown} is out of date; run `{again}`", file=sys.stderr)
        return EXIT_FINDINGS
    print(f"{shown} is up to date")
    return EXIT_OK


def run(args: argparse.Namespace) -> int:
    if args.write is not None:
        root = root_of(args.repo)
        return max(_write(path, shown, root) for path, shown in _paths(args, args.write))
    if args.check is not None:
        again = "cagr schema --write" + ("" if args.check is True else f" {args.check}")
        return max(_check(path, shown, again) for path, shown in _paths(args, args.check))
    if args.format == "json":
        print_json(json_schema())
    else:
        sys.stdout.write(schema_text())
    return EXIT_OK
