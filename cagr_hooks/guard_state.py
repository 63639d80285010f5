"""Which guards are in force where a shell command runs, learned without compiling the
configuration on every command, and the cheap test that lets nearly every command through.

The guards come from `<gitdir>/cagr/guards.json` (cagr_repo.guard_file) while it was written for
the configuration files as they are; otherwise the configuration is loaded once (its kept
compiled form when the files' bytes are unchanged) and the file written again. Outside a
repository, or with no configuration, the built-in guards alone are in force. Standard library
only up to the point where a command may trip a guard.
"""

from __future__ import annotations

from cagr_core.guards import BUILT_IN
from cagr_git.discover import Checkout, NotARepository, find_checkout
from cagr_repo.guard_file import (
    KnownGuards,
    read_guard_file,
    read_last_guards,
    signature,
    write_guard_file,
)

NO_VERIFY, FORCE_PUSH, CAGR_STATE = BUILT_IN
_UNQUOTE = str.maketrans("", "", "'\"\\")


def known_guards(cwd: str) -> tuple[KnownGuards, Checkout | None]:
    """The guards in force for a command run in `cwd`, and the checkout there (None: none)."""
    try:
        checkout = find_checkout(cwd)
    except NotARepository:
        return KnownGuards(), None
    if checkout.root is None:
        return KnownGuards(), checkout
    known = read_guard_file(checkout.gitdir, checkout.root)
    return (known if known is not None else _learn(checkout, checkout.root)), checkout


def _learn(checkout: Checkout, root: str) -> KnownGuards:
    """The guards of the configuration as it is, kept for next time: from its kept compiled
    form, else (when its text can hold guards or `protected_branch`) compiled once. A
    configuration that does not load keeps the guards last kept (else the built-ins)."""
    from cagr_repo.config import ConfigErrors, load_config  # noqa: PLC0415  # a config edit
    from cagr_repo.config_cache import cached_config  # noqa: PLC0415
    from cagr_repo.config_files import find_config_files  # noqa: PLC0415

    seen = signature(root)
    files = find_config_files(root)
    compiled = cached_config(checkout.gitdir, files) if files.configure_cagr() else None
    text = b"".join(data for _, data in files.sources())
    if compiled is None and (b"guards" in text or b"protected_branch" in text):
        try:
            compiled = load_config(root, checkout.gitdir).compiled
        except ConfigErrors:
            return read_last_guards(checkout.gitdir) or KnownGuards()
    known = KnownGuards()
    if compiled is not None:
        known = KnownGuards(
            compiled.guards,
            frozenset(compiled.disabled_guards),
            compiled.settings.protected_branch,
        )
    write_guard_file(checkout.gitdir, root, known, seen)
    return known


def might_trip(command: str, known: KnownGuards) -> bool:
    """A cheap test that lets nearly every shell command through at once: whether the command
    (quotes and backslashes removed) names what a guard in force looks for; bash's `$'...'`
    can spell any word, so it always goes on to the shell reader."""
    if "$'" in command:
        return True
    plain = command.replace("\\\n", "").translate(_UNQUOTE)
    disabled = known.disabled
    if NO_VERIFY not in disabled and (
        "no-veri" in plain or "hookspath" in plain.lower() or ("commit" in plain and "-" in plain)
    ):
        return True
    if FORCE_PUSH not in disabled and "push" in plain:
        return True
    if CAGR_STATE not in disabled and ("cagr" in plain or ".git" in plain):
        return True
    return any(
        program_word(pattern.source) in plain
        for guard in known.configured
        for pattern in guard.patterns
    )


def program_word(pattern: str) -> str:
    """The longest literal piece of a pattern's program word: what a line that runs it must
    spell somewhere (or compute, which `$` shows)."""
    return max(pattern.split(maxsplit=1)[0].split("*"), key=len)
