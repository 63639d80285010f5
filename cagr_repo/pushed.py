"""What a push sends: the commits a pre-push check judges, one per pushed ref.

git runs a pre-push hook with one line per ref on standard input, `<local ref> <local sha>
<remote ref> <remote sha>` (githooks(5)); a deleted ref has an all-zero local sha and sends
nothing, and a tag changes no branch (CI judges no tag push either). pre-commit reads those
lines itself and gives its hooks the first ref with commits to send in `PRE_COMMIT_TO_REF`
(its tip) and `PRE_COMMIT_LOCAL_BRANCH` (the local ref; alone when the push sends a whole
history); `pre-commit run --hook-stage pre-push --to-ref REV` sets the
first to any revision. The checked-out HEAD is not what is pushed: `git push origin feature`
from another branch sends feature's commits.
"""

from __future__ import annotations

from collections.abc import Mapping

from cagr_core.errors import ErrorWithFix
from cagr_core.values import value
from cagr_git.object_ids import is_sha
from cagr_git.repository import Repository
from cagr_git.revisions import RevisionProblem, resolve_revision

_ZERO = "0" * 40
MAX_PUSH_LINES = 1000  # refs judged in one push; more is a usage problem, never a partial pass


class PushProblem(ErrorWithFix):
    """What a push sends cannot be read; nothing was judged."""


@value
class Pushed:
    """One pushed ref: the local ref as git names it (`refs/heads/feature`, `HEAD`), its tip,
    and the remote ref it updates (empty when pre-commit does not say)."""

    local_ref: str
    commit: str
    remote_ref: str = ""

    @property
    def branch(self) -> str | None:
        """The local branch's short name (None: not a branch)."""
        ref = self.local_ref
        return ref.removeprefix("refs/heads/") if ref.startswith("refs/heads/") else None


def from_pre_commit(repo: Repository, environ: Mapping[str, str]) -> list[Pushed] | None:
    """The ref pre-commit hands its pre-push hooks (None: not run by pre-commit for a push)."""
    to_ref = environ.get("PRE_COMMIT_TO_REF", "")
    local = environ.get("PRE_COMMIT_LOCAL_BRANCH", "")
    if not to_ref and not local:
        return None
    name = to_ref or local
    try:
        commit = resolve_revision(repo, name).sha
    except RevisionProblem as problem:
        raise PushProblem(
            f"pre-commit names {name} as the pushed commit, and {problem.message}",
            problem.fix,
        ) from problem
    return [Pushed(local or to_ref, commit, environ.get("PRE_COMMIT_REMOTE_BRANCH", ""))]


def from_hook_lines(text: str) -> list[Pushed]:
    """The refs git's pre-push hook lines send (deletions and tags send no change)."""
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) > MAX_PUSH_LINES:
        raise PushProblem(
            f"the push sends {len(lines)} refs, more than the {MAX_PUSH_LINES} cagr judges at"
            " once.",
            "Push fewer refs at a time.",
        )
    pushed = []
    for line in lines:
        parts = line.rsplit(maxsplit=3)
        if len(parts) != 4 or not all(is_sha(sha) for sha in (parts[1], parts[3])):
            raise PushProblem(
                f"{line[:120]!r} is not a line git's pre-push hook writes (`<local ref> <local"
                " sha> <remote ref> <remote sha>`).",
                "Run `cagr rules check --pushed` from a pre-push hook, which git gives these"
                " lines on standard input, or judge one commit with `cagr rules check"
                " --committed`.",
            )
        local_ref, local_sha, remote_ref, _ = parts
        if local_sha != _ZERO and not remote_ref.startswith("refs/tags/"):
            pushed.append(Pushed(local_ref, local_sha, remote_ref))
    return pushed
