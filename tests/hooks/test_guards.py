"""Command guards in the before-shell-command hook: built-in and configured guards deny in every
agent's shape with the guard's id and reason, read through the same shell reader as the PR gate
(bash is the oracle: a fake git records what bash runs); a line cagr cannot read whole gets a
notice, never silence; nothing is ever allowed; the hook learns the guards without compiling the
configuration on every command."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from cagr_core.guards import BUILT_IN
from cagr_hooks.guard_state import known_guards, might_trip
from cagr_hooks.guards import judge_command
from cagr_hooks.shell_command import read_line
from cagr_repo.guard_file import KnownGuards
from tests.support.configs import CODE_LAYOUT_GUARD
from tests.support.git import commit, git, write
from tests.support.hooks import allowed_explicitly, denied, hook, payload
from tests.support.shell import bash_runs, fake_program

AGENTS = ["claude", "codex", "cursor", "gemini"]
PUSH = "git push --force origin main"
# Forms that run `git push --force origin main` (bash is the oracle for each).
FORMS = [
    "bash -lc '{c}'",
    "sh -c '{c}'",
    "bash -c \"bash -lc '{c}'\"",
    "eval '{c}'",
    "eval {c}",
    'g""it push --force origin main',
    "git pu\\\nsh --force origin main",
    "$'git' push --force origin main",
    "time -p {c}",
    'env -S "{c}"',
    "nohup {c}",
    "timeout 5 nice -n 1 {c}",
    "G=git; $G push --force origin main",
    'X="{c}"; $X',
    "F=--force; git push $F origin main",
    "URL=$({c})",
    "echo `{c}`",
    "(cd sub && {c})",
    "command {c}",
    "if true; then {c}; fi",
    "true && {{ {c}; }}",
    "git add -A && git commit -qm x; {c}",
    "coproc {c}; wait",
]
UNREADABLE = [
    "$(command -v git) push --force origin main",
    "printf '{c}' | bash",
    "bash <<'EOF'\n{c}\nEOF",
    'eval "$(echo {c})"',
    "python3 -c 'import os; os.system(\"{c}\")'",
    "{{git,push,--force,origin,main}}",
    'set -- {c}; "$@"',
    "trap '{c}' EXIT",
]


@pytest.fixture(scope="module")
def fake_git(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return fake_program(tmp_path_factory.mktemp("bin"), "git")


@pytest.fixture
def checkout(repo: Path) -> Path:
    write(repo, "README.md", "x\n")
    (repo / "sub").mkdir()
    commit(repo, "base")
    return repo


def _judge(command: str, root: Path, known: KnownGuards | None = None) -> tuple[str, str]:
    decision = judge_command(command, str(root), known or KnownGuards(), str(root / ".git"))
    return decision.kind, decision.text


@pytest.mark.parametrize("form", FORMS)
def test_each_form_is_read_as_bash_runs_it(form: str, checkout: Path, fake_git: Path) -> None:
    line = form.format(c=PUSH)
    calls = [c for c in bash_runs(line, checkout, fake_git) if c["argv"][:1] == ["push"]]
    assert calls, "bash ran the force push"
    assert might_trip(line, (), frozenset())
    seen = [r for r in read_line(line, str(checkout), lambda _: False, "", lambda _: False).ran
            if r.texts[:2] == ["git", "push"]]  # fmt: skip
    assert [r.texts[1:] for r in seen] == [c["argv"] for c in calls]
    assert [r.here for r in seen] == [c["cwd"] for c in calls]
    kind, text = _judge(line, checkout)
    assert kind == "deny"
    assert "guard guard.force-push-target denies" in text


@pytest.mark.parametrize("form", UNREADABLE)
def test_a_line_cagr_cannot_read_whole_gets_a_notice(
    form: str, checkout: Path, fake_git: Path
) -> None:
    line = form.format(c=PUSH)
    assert bash_runs(line, checkout, fake_git), "bash ran git: cagr may not stay silent"
    assert might_trip(line, (), frozenset())
    kind, text = _judge(line, checkout)
    assert kind == "notice", text
    assert "cagr cannot read this command whole" in text


@pytest.mark.parametrize(
    ("command", "guard"),
    [
        ("git commit --no-verify -m x", "guard.no-verify"),
        ("git commit -nm x", "guard.no-verify"),
        ("git commit -an", "guard.no-verify"),
        ("git commit --no-veri -m x", "guard.no-verify"),
        ("git push --no-verify", "guard.no-verify"),
        ("git merge --no-verify topic", "guard.no-verify"),
        ("git -c core.hooksPath=/dev/null commit -m x", "guard.no-verify"),
        ("git -c Core.HooksPath=/dev/null push", "guard.no-verify"),
        (
            "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.hooksPath GIT_CONFIG_VALUE_0=/x git commit",
            "guard.no-verify",
        ),
        ("git config core.hooksPath /dev/null", "guard.no-verify"),
        ("git push -f origin main", "guard.force-push-target"),
        ("git push origin +main", "guard.force-push-target"),
        ("git push --force-with-lease origin HEAD:refs/heads/main", "guard.force-push-target"),
        ("git push --mirror", "guard.force-push-target"),
        ("git push --all --force", "guard.force-push-target"),
        ("git -C sub push -f origin feature:main", "guard.force-push-target"),
        ("rm -rf .git/cagr", "guard.cagr-state"),
        ("rm .git/cagr/gate.json", "guard.cagr-state"),
        ("rm -rf .git", "guard.cagr-state"),
        ("rm -rf .git/c*", "guard.cagr-state"),
        ("cd .git && rm -r cagr", "guard.cagr-state"),
        ("echo '{}' > .git/cagr/gate.json", "guard.cagr-state"),
        ("cp /tmp/x .git/cagr/gate.json", "guard.cagr-state"),
        ("mv .git/cagr/turns /tmp/", "guard.cagr-state"),
        ("sed -i s/fail/pass/ .git/cagr/gate.json", "guard.cagr-state"),
        ("dd if=/dev/null of=.git/cagr/gate.json", "guard.cagr-state"),
        ("find .git/cagr -delete", "guard.cagr-state"),
        ("tee .git/cagr/gate.json < /tmp/x", "guard.cagr-state"),
    ],
)
def test_the_built_in_guards_deny(command: str, guard: str, checkout: Path) -> None:
    assert might_trip(command, (), frozenset())
    kind, text = _judge(command, checkout)
    assert kind == "deny", text
    assert f"guard {guard} denies" in text


@pytest.mark.parametrize(
    "command",
    [
        "git commit -m 'fix -n handling'",
        "git commit --verify --no-verify --verify -m x",
        "git push -f origin feature",
        "git push --force",  # on branch work (see the fixture below)
        "git push origin main",
        "git push --force-with-lease origin topic:topic",
        "git config --get core.hooksPath",
        "git config --unset core.hooksPath",
        "cat .git/cagr/gate.json",
        "ls -la .git/cagr",
        "cp .git/cagr/gate.json /tmp/record.json",
        "rm -rf build",
        "git log --oneline",
        "terraform destroy",  # no such guard configured
    ],
)
def test_ordinary_commands_pass_without_a_word(command: str, checkout: Path) -> None:
    git(checkout, "checkout", "-q", "-b", "work")
    assert _judge(command, checkout) == ("none", "")


def test_a_force_push_of_the_current_branch_is_judged_by_where_it_goes(checkout: Path) -> None:
    assert _judge("git push --force", checkout)[0] == "deny"  # on main
    git(checkout, "checkout", "-q", "-b", "work")
    assert _judge("git push --force", checkout)[0] == "none"
    git(checkout, "config", "branch.work.merge", "refs/heads/main")
    assert _judge("git push --force", checkout)[0] == "deny"  # push.default=upstream goes there


def test_the_protected_branch_is_the_target(checkout: Path) -> None:
    known = KnownGuards(protected_branch="release")
    assert _judge("git push -f origin release", checkout, known)[0] == "deny"
    assert _judge("git push -f origin main", checkout, known)[0] == "none"


def test_disabled_built_ins_say_nothing(checkout: Path) -> None:
    known = KnownGuards(disabled=frozenset(BUILT_IN))
    assert not might_trip(
        "git commit -n && git push -f origin main && rm -rf .git", (), known.disabled
    )
    assert _judge("git commit -n && git push -f origin main && rm -rf .git", checkout, known) == (
        "none",
        "",
    )


def _configure(root: Path, text: str) -> None:
    write(root, "cagr.toml", text)


@pytest.fixture
def guarded(checkout: Path) -> Path:
    _configure(checkout, CODE_LAYOUT_GUARD)
    commit(checkout, "rules")
    git(checkout, "checkout", "-q", "-b", "work")
    return checkout


@pytest.mark.parametrize("agent", AGENTS)
def test_every_agent_gets_its_deny_and_never_an_allow(agent: str, guarded: Path) -> None:
    for command in ("terraform destroy -auto-approve", "git commit --no-verify -m wip"):
        answer = hook(payload(agent, 1, guarded, command=command), "--agent", agent)
        assert answer.code == 0
        assert denied(agent, answer.json), answer.raw
        assert not allowed_explicitly(answer.json)
    text = hook(
        payload(agent, 1, guarded, command="cd infra; terraform destroy"), "--agent", agent
    ).text
    assert (
        "guard no-destroy denies `terraform destroy`: Ask a person to destroy infrastructure."
        in text
    )


@pytest.mark.parametrize("agent", AGENTS)
def test_a_notice_is_no_deny_and_no_allow(agent: str, guarded: Path) -> None:
    answer = hook(
        payload(agent, 1, guarded, command="$(which terraform) destroy"), "--agent", agent
    )
    assert answer.code == 0
    assert not denied(agent, answer.json)
    assert not allowed_explicitly(answer.json)
    assert "cannot read this command whole" in answer.text


def test_a_command_no_guard_names_is_let_through_silently(guarded: Path) -> None:
    answer = hook(payload("claude", 1, guarded, command="npm test"), "--agent", "claude")
    assert (answer.code, answer.raw) == (0, "")


def test_the_hook_learns_the_guards_once_and_again_after_a_config_edit(guarded: Path) -> None:
    known, checkout = known_guards(str(guarded))
    assert checkout is not None
    assert [g.id for g in known.configured] == ["no-destroy"]
    kept = guarded / ".git" / "cagr" / "guards.json"
    assert kept.exists()
    stamp = kept.stat().st_mtime_ns
    known_guards(str(guarded))
    assert kept.stat().st_mtime_ns == stamp  # read, not learned again
    _configure(guarded, CODE_LAYOUT_GUARD.replace('terraform destroy",', 'pulumi destroy",'))
    known, _ = known_guards(str(guarded))
    assert known.configured[0].patterns[0].source == "pulumi destroy"
    _configure(guarded, "[guards]\ndisable = ['guard.no-verify']\n")
    known, _ = known_guards(str(guarded))
    assert known.configured == ()
    assert known.disabled == frozenset({"guard.no-verify"})


def test_a_configuration_that_does_not_load_keeps_the_guards_last_kept(guarded: Path) -> None:
    known_guards(str(guarded))
    _configure(guarded, CODE_LAYOUT_GUARD + "\n[[guards.rules]]\nid = 'broken'\n")
    known, _ = known_guards(str(guarded))
    assert [g.id for g in known.configured] == ["no-destroy"]


def test_outside_a_repository_the_built_ins_still_guard(tmp_path: Path) -> None:
    answer = hook(payload("claude", 1, tmp_path, command="git commit -n -m x"), "--agent", "claude")
    assert denied("claude", answer.json)


def test_the_fast_path_names_the_built_in_guards_as_the_core_does() -> None:
    from cagr_hooks import guard_state  # noqa: PLC0415

    assert (guard_state.NO_VERIFY, guard_state.FORCE_PUSH, guard_state.CAGR_STATE) == BUILT_IN


def test_the_fast_path_trusts_a_guard_file_only_for_its_own_checkout_and_files(
    guarded: Path,
) -> None:
    from cagr_hooks.guard_state import quick_look  # noqa: PLC0415

    assert quick_look(str(guarded)) is None  # nothing learned yet: the slow path decides
    known_guards(str(guarded))
    assert quick_look(str(guarded / "sub")) == (("terraform", "terraform"), frozenset())
    write(guarded, ".cagr/more.toml", "")  # a new fragment: a folder that changed
    assert quick_look(str(guarded)) is None
    known_guards(str(guarded))
    assert quick_look(str(guarded)) is not None
    worktree = guarded.parent / "linked"
    git(guarded, "worktree", "add", "-q", str(worktree), "-b", "other")
    assert quick_look(str(worktree)) is None  # its own git directory: nothing learned there
    known_guards(str(worktree))
    assert quick_look(str(worktree)) == (("terraform", "terraform"), frozenset())


@pytest.mark.parametrize(
    ("command", "guard"),
    [
        ("git pull --no-verify", "guard.no-verify"),
        ("git pull --no-veri origin main", "guard.no-verify"),
        ("git push origin +refs/heads/*:refs/heads/*", "guard.force-push-target"),
        ("git push -f origin 'refs/heads/ma*:refs/heads/ma*'", "guard.force-push-target"),
        ("rm -rf .g*", "guard.cagr-state"),
        ("rm -rf .*", "guard.cagr-state"),
        ("rm -rf ./.g?t", "guard.cagr-state"),
        ("rm -rf .[g]it", "guard.cagr-state"),
    ],
)
def test_forms_git_and_bash_take_that_the_text_does_not_spell(
    command: str, guard: str, checkout: Path
) -> None:
    """`git pull` takes `--no-verify` for its merge (git's own usage says so); a glob in a
    dotted name is `.git` once bash expands it; a wildcard refspec updates the target too."""
    assert (
        "--verify"
        in subprocess.run(
            ["git", "pull", "-h"], cwd=checkout, capture_output=True, text=True, check=False
        ).stdout
    )
    assert (
        ".git"
        in subprocess.run(
            ["bash", "-c", "echo .g* .* ./.g?t .[g]it"],
            cwd=checkout,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
    )
    git(checkout, "checkout", "-q", "-b", "work")
    assert might_trip(command, (), frozenset())
    kind, text = _judge(command, checkout)
    assert kind == "deny", text  # before: none
    assert f"guard {guard} denies" in text


def test_a_state_path_the_shell_computes_gets_a_notice(checkout: Path) -> None:
    kind, text = _judge('rm -rf "$(git rev-parse --git-dir)/cagr"', checkout)
    assert kind == "notice", text  # before: none
    assert "names cagr's state folder through a path the shell computes" in text
    assert _judge('cat "$(git rev-parse --git-dir)/cagr/gate.json"', checkout) == ("none", "")


@pytest.mark.parametrize(
    "command",
    ["git push -f origin 'refs/heads/feat*:refs/heads/feat*'", "rm -rf *.pyc", "ls .*"],
)
def test_near_misses_of_those_forms_pass(command: str, checkout: Path) -> None:
    git(checkout, "checkout", "-q", "-b", "work")
    assert _judge(command, checkout) == ("none", "")


@pytest.mark.parametrize(
    ("command", "kind"),
    [
        ("git -c alias.c='commit --no-verify' c -qm x", "deny"),
        ("git -c alias.C='commit -n' c -qm x", "deny"),
        ("git -c alias.c='!git commit --no-verify' c -qm x", "notice"),
    ],
)
def test_an_alias_the_line_defines_is_judged_as_what_git_runs(
    command: str, kind: str, checkout: Path
) -> None:
    """git itself is the oracle: with a pre-commit hook that fails, each line commits."""
    hook_file = checkout / ".git" / "hooks" / "pre-commit"
    hook_file.write_text("#!/bin/sh\nexit 1\n")
    hook_file.chmod(0o755)
    write(checkout, "new.txt", "x\n")
    git(checkout, "add", "new.txt")
    assert subprocess.run(["git", "commit", "-qm", "x"], cwd=checkout, check=False).returncode
    assert subprocess.run(["bash", "-c", command], cwd=checkout, check=False).returncode == 0
    decided, text = _judge(command, checkout)
    assert decided == kind, text  # before: none


@pytest.mark.parametrize(
    "command",
    ["terraform $(echo destroy)", "V=$(cat verb); terraform $V", "terraform `echo destroy`"],
)
def test_a_configured_guard_with_a_word_the_shell_computes_gets_a_notice(
    command: str, guarded: Path, tmp_path: Path
) -> None:
    """bash runs `terraform destroy` for each line (a fake terraform records it); before, the
    guard said nothing, as a line whose guarded word is computed was never matched."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "ran.txt"
    (bin_dir / "terraform").write_text(f'#!/bin/sh\necho "$@" >> "{log}"\n')
    (bin_dir / "terraform").chmod(0o755)
    (guarded / "verb").write_text("destroy\n")
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    subprocess.run(["bash", "-c", command], cwd=guarded, env=env, check=True)
    assert log.read_text().split() == ["destroy"]
    known, _ = known_guards(str(guarded))
    kind, text = _judge(command, guarded, known)
    assert kind == "notice", text
    assert "may run what guard no-destroy denies, with words the shell computes" in text
    assert _judge("terraform $(echo plan) -out x", guarded, known)[0] == "notice"
    assert _judge("terraform plan", guarded, known) == ("none", "")
