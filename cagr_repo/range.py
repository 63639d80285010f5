"""The range a check judges: the target's commit, HEAD, and their merge base.

Problems that make a range impossible to know exactly (no target, no or several merge bases, a
shallow or incomplete history) become `RangeProblem`s, which the collectors report as unchecked
with an instruction, never as a fallback range.
"""

from __future__ import annotations

from cagr_core.errors import ErrorWithFix
from cagr_core.values import value
from cagr_git.history import History, merge_bases
from cagr_git.object_ids import is_sha
from cagr_git.objects import COMMIT, DamagedObject, read_raw
from cagr_git.refs import ref_text
from cagr_git.repository import Repository
from cagr_git.revisions import RevisionProblem, resolve_revision


class RangeProblem(ErrorWithFix):
    """The range cannot be known exactly; the message says what to do."""


@value
class Target:
    """The resolved target: the name asked for, the ref it resolved through (or the revision,
    when it is not a ref: `HEAD~2`, a commit id), and its commit."""

    name: str
    ref: str
    sha: str


def head_commit(repo: Repository) -> str:
    """HEAD's commit id; RangeProblem when HEAD is unborn (no commit yet) or holds junk."""
    head = repo.ref("HEAD")
    if head is not None:
        return head
    text = ref_text(repo.checkout, "HEAD")
    if text is None:
        raise RangeProblem(
            "HEAD has no commit yet, so there is no branch baseline.",
            "Commit something first, then check again.",
        )
    raise RangeProblem(
        f"HEAD (or the branch it is on) holds {text[:50]!r}, which is not a commit id.",
        "Repair the ref (`git reflog` shows where it was), then check again.",
    )


def resolve_target(repo: Repository, name: str) -> Target:
    """The commit a target names: a branch (`origin/<name>`, then the local `<name>`), or any
    revision git resolves to a commit (tag, full or short id, `HEAD~2`, `main^`)."""
    try:
        resolved = resolve_revision(repo, name)
    except RevisionProblem as problem:
        raise RangeProblem(problem.message, problem.fix) from problem
    return Target(name, resolved.ref, resolved.sha)


def merge_base(repo: Repository, target: Target, head: str) -> str:
    """The unique merge base of the target and HEAD; RangeProblem when it is not one commit.

    Computed every time: a remembered base could not be checked without the walk it would save,
    and a wrong one (written by hand, say) would hide the branch's commits.
    """
    shallow = {bytes.fromhex(sha) for sha in repo.shallow if is_sha(sha)}
    history = History(lambda oid: read_raw(repo.objects, oid, COMMIT), repo.commit_graph, shallow)
    try:
        bases = merge_bases(history, bytes.fromhex(target.sha), bytes.fromhex(head))
    except KeyError as error:
        raise RangeProblem(
            "the history between the target and HEAD is incomplete (a commit is missing).",
            "Fetch the full history: `git fetch --unshallow` or `git fetch origin`.",
        ) from error
    except DamagedObject as error:
        raise RangeProblem(
            "the history between the target and HEAD cannot be read:", error.advice
        ) from error
    if not bases:
        if shallow:
            raise RangeProblem(
                f"this is a shallow clone and its history stops before the merge base of"
                f" {target.name} and HEAD.",
                "Fetch more history: `git fetch --unshallow` (in CI: fetch-depth: 0).",
            )
        raise RangeProblem(
            f"HEAD and {target.name} share no history, so there is no merge base.",
            "Check the target with --base.",
        )
    if shallow and bases not in ([bytes.fromhex(target.sha)], [bytes.fromhex(head)]):
        # Below a shallow cut-off, a nearer common ancestor may hide: only "one side contains
        # the other" is certain in a cut history.
        raise RangeProblem(
            f"this is a shallow clone, so the merge base of {target.name} and HEAD cannot be"
            " known exactly (a nearer one may lie below the history's cut-off).",
            "Fetch the full history: `git fetch --unshallow` (in CI: fetch-depth: 0).",
        )
    if len(bases) > 1:
        listed = ", ".join(sorted(b.hex()[:7] for b in bases))
        raise RangeProblem(
            f"HEAD and {target.name} have {len(bases)} merge bases ({listed}), so the branch"
            " baseline is ambiguous.",
            f"Merge or rebase onto {target.name} so there is one merge base.",
        )
    return bases[0].hex()
