"""`cagr schema`: print, write (`--write`) or check (`--check`) schema/cagr.schema.json."""

from __future__ import annotations

import argparse
import json
import sys

from cagr_core.schema import json_schema
from cagr_repo.files import write_atomically

from ..checkout import root_of
from ..output import EXIT_FINDINGS, EXIT_INVALID, EXIT_OK, print_json

SCHEMA_FILE = "schema/cagr.schema.json"


def schema_text() -> str:
    return json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n"


def run(args: argparse.Namespace) -> int:
    path = root_of(args.repo) / SCHEMA_FILE
    if args.write:
        try:
            write_atomically(str(path), schema_text().encode("utf-8"))
        except OSError as error:
            print(
                f"cagr schema: cannot write {SCHEMA_FILE} ({error.strerror}: {error.filename});"
                " make `schema` a folder cagr can write to, then run it again",
                file=sys.stderr,
            )
            return EXIT_INVALID
        print(f"wrote {SCHEMA_FILE}")
        return EXIT_OK
    if args.check:
        try:
            saved = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            print(
                f"cagr schema: cannot read {SCHEMA_FILE} ({error}); run `cagr schema --write`",
                file=sys.stderr,
            )
            return EXIT_FINDINGS
        if saved != json_schema():
            print(
                f"cagr schema: {SCHEMA_FILE} is out of date; run `cagr schema --write`",
                file=sys.stderr,
            )
            return EXIT_FINDINGS
        print(f"{SCHEMA_FILE} is up to date")
        return EXIT_OK
    if args.format == "json":
        print_json(json_schema())
    else:
        sys.stdout.write(schema_text())
    return EXIT_OK
