"""`cagr schema`: print, write (`--write [PATH]`) or check (`--check [PATH]`) the editor schema,
by default schema/cagr.schema.json in the repository."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from cagr_core.schema import json_schema
from cagr_repo.files import UnsafeOutput, write_output

from ..checkout import root_of
from ..output import EXIT_FINDINGS, EXIT_INVALID, EXIT_OK, print_json

SCHEMA_FILE = "schema/cagr.schema.json"


def schema_text() -> str:
    return json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n"


def _path(args: argparse.Namespace, given: str | bool) -> tuple[Path, str]:
    """Where the schema file is, and how to name it: by default in the repository's work tree;
    a path given on the command line is taken from the current folder, as any path is."""
    if given is True:
        return root_of(args.repo) / SCHEMA_FILE, SCHEMA_FILE
    return Path(str(given)), str(given)


def run(args: argparse.Namespace) -> int:
    if args.write is not None:
        path, shown = _path(args, args.write)
        try:
            write_output(str(path), schema_text().encode("utf-8"), str(root_of(args.repo)))
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
    if args.check is not None:
        path, shown = _path(args, args.check)
        again = "cagr schema --write" + ("" if args.check is True else f" {shown}")
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
    if args.format == "json":
        print_json(json_schema())
    else:
        sys.stdout.write(schema_text())
    return EXIT_OK
