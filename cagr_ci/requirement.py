"""How a CI job installs cagr: the requirement, derived from how cagr is installed here.

PEP 610 records a direct install in the distribution's `direct_url.json`; an install from a
package index has none. An index release becomes `cagr==VERSION`; a VCS install becomes
`cagr @ git+URL@COMMIT` (the exact commit, never a branch that moves). A local folder, an
editable install or a local file cannot be installed by a CI job, and a URL that carries
credentials must not be written into a workflow: for those there is no guess, and the caller
asks for the requirement (`--install SPEC`). A requirement written into a workflow is checked
for what would break it or run as something else there.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

from cagr_core.errors import ErrorWithFix

MAX_SPEC = 1000
_LOCAL_SCHEMES = ("file", "")


class NoRequirement(ErrorWithFix):
    """The install line cannot be derived, or a given one cannot be used (exit 2)."""


ASK = (
    "Give the install line yourself: `cagr init --ci github --install SPEC`, with SPEC what"
    " `pip install` should install in CI, e.g. --install 'cagr @ git+https://github.com/OWNER/"
    "cagr@COMMIT' or a version your package index serves."
)


def requirement_from(direct_url: str | None, version: str) -> str:
    """The requirement for this install: `direct_url` is the text of its PEP 610
    `direct_url.json` (None: installed from a package index). NoRequirement when there is no
    safe guess."""
    if direct_url is None:
        return f"cagr=={version}"
    try:
        data = json.loads(direct_url)
    except ValueError as error:
        raise NoRequirement(
            f"cagr's install record (direct_url.json) is not valid JSON ({error}).", ASK
        ) from error
    if not isinstance(data, dict) or not isinstance(data.get("url"), str):
        raise NoRequirement("cagr's install record (direct_url.json) has no `url`.", ASK)
    url: str = data["url"]
    parts = urlsplit(url)
    if parts.scheme in _LOCAL_SCHEMES:
        what = _local_kind(data)
        raise NoRequirement(
            f"cagr is installed here from {what} ({url}), which a CI job cannot install from,"
            " so the workflow's install line cannot be derived.",
            ASK,
        )
    if "@" in parts.netloc:
        raise NoRequirement(
            "cagr was installed from a URL that carries credentials; cagr will not write them"
            " into a workflow.",
            ASK,
        )
    vcs = data.get("vcs_info")
    if isinstance(vcs, dict):
        return checked_spec(_vcs_requirement(url, vcs, data), "cagr's install record")
    archive = data.get("archive_info")
    if isinstance(archive, dict):
        return checked_spec(f"cagr @ {url}{_hash_fragment(archive)}", "cagr's install record")
    raise NoRequirement(f"cagr's install record names {url} in a way cagr does not know.", ASK)


def _local_kind(data: dict[str, Any]) -> str:
    info = data.get("dir_info")
    if isinstance(info, dict):
        return "an editable install" if info.get("editable") else "a local folder"
    if isinstance(data.get("vcs_info"), dict):
        return "a local repository"
    return "a local file"


def _vcs_requirement(url: str, vcs: dict[str, Any], data: dict[str, Any]) -> str:
    kind, commit = vcs.get("vcs"), vcs.get("commit_id")
    if not isinstance(kind, str) or not isinstance(commit, str) or not commit:
        raise NoRequirement("cagr's install record has no VCS commit to pin.", ASK)
    subdirectory = data.get("subdirectory")
    tail = f"#subdirectory={subdirectory}" if isinstance(subdirectory, str) else ""
    return f"cagr @ {kind}+{url}@{commit}{tail}"


def _hash_fragment(archive: dict[str, Any]) -> str:
    hashes = archive.get("hashes")
    if isinstance(hashes, dict) and isinstance(hashes.get("sha256"), str):
        return f"#sha256={hashes['sha256']}"
    legacy = archive.get("hash")  # PEP 610's older single `hash`, e.g. "sha256=..."
    return f"#{legacy}" if isinstance(legacy, str) and "=" in legacy else ""


def installed_requirement() -> str:
    """The requirement for the cagr that is running; NoRequirement when there is no guess."""
    from importlib import metadata  # noqa: PLC0415  # only `cagr init --ci` needs it

    # An installer's record (it writes INSTALLER), not a build's `cagr.egg-info` that a source
    # folder on sys.path can hold.
    installed = [
        found
        for found in metadata.distributions(name="cagr")
        if found.read_text("INSTALLER") is not None
    ]
    if not installed:
        raise NoRequirement(
            "cagr is not installed as a package here (it runs from a source folder).", ASK
        )
    distribution = installed[0]
    return requirement_from(distribution.read_text("direct_url.json"), distribution.version)


def checked_spec(spec: str, source: str = "--install") -> str:
    """`spec` if it can stand in a workflow's install step as one argument of `pip install`;
    NoRequirement saying what is wrong with it (`source` names where it came from)."""
    text = spec.strip()
    fix = "Give one requirement, URL or path, as `pip install` takes it." + (
        "" if source == "--install" else f" {ASK}"
    )
    if not text:
        raise NoRequirement(f"{source} is empty.", fix)
    if len(text) > MAX_SPEC or any(ord(char) < 32 or ord(char) == 127 for char in text):
        raise NoRequirement(f"{source} holds a line break, a control character or too much.", fix)
    if text.startswith("-"):
        raise NoRequirement(f"{source} {text!r} is an option, not a requirement.", fix)
    if "${{" in text:
        raise NoRequirement(
            f"{source} holds `${{{{`, which GitHub Actions would evaluate as an expression.", fix
        )
    return text
