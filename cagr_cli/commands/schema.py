"""`cagr schema`: print, write (`--write`) or check (`--check`) schema/cagr.schema.json."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

from cagr_core.schema import json_schema
from cagr_repo.config import find_root

from ..output import EXIT_FINDINGS, EXIT_OK, print_json

SCHEMA_FILE = "schema/cagr.schema.json"


def schema_text() -> str:
    return json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n"


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def run(args: argparse.Namespace) -> int:
    path = find_root(Path(args.repo)) / SCHEMA_FILE
    if args.write:
        _write_atomically(path, schema_text())
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
