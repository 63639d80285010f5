"""The version constant gate records name: the package metadata says the same."""

from importlib.metadata import version

from cagr_core.version import VERSION


def test_the_version_constant_is_the_installed_version() -> None:
    assert version("cagr") == VERSION
