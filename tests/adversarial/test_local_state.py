"""cagr's local state is checked against damage, not forgery: whoever can write the git
directory can forge it (docs/limits.md). CI is the backstop, so `cagr ci` reads none of it: a
forged kept configuration, with a digest that matches, steers a local check but never CI."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

from cagr_repo import config_cache
from tests.support.adversarial import Outcome
from tests.support.ci import cagr_ci
from tests.support.git import commit

Cagr = Callable[..., Outcome]


def _forge_without_rules(gitdir: Path) -> None:
    """Rewrite every kept configuration with no rules, and a digest that matches."""
    for path in (gitdir / "cagr" / config_cache.FOLDER).iterdir():
        key, _, payload = path.read_bytes().split(b"\n", 2)
        document = json.loads(payload)
        document["rules"] = []
        body = json.dumps(document).encode()
        path.write_bytes(b"\n".join([key, hashlib.sha256(body).hexdigest().encode(), body]))


def test_a_forged_kept_configuration_never_steers_ci(feature: Path, cagr: Cagr) -> None:
    commit(feature, "source only")
    assert cagr(feature, "rules", "check", "--committed", "--base", "main").code == 1
    _forge_without_rules(feature / ".git")
    # The forgery works locally (this is the documented limit, and proves the forgery took)...
    assert cagr(feature, "rules", "check", "--committed", "--base", "main").code == 0
    # ...and CI, which compiles afresh, still fails the change, on a runner that kept the clone.
    result = cagr_ci(feature, {}, "--base", "main")
    assert result.returncode == 1, result.stdout
    assert "Change rule schema-out failed" in result.stdout
