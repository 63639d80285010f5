"""cagr's installed version (gate records name it, so an upgrade invalidates them)."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version


def cagr_version() -> str:
    try:
        return version("cagr")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "0+unknown"
