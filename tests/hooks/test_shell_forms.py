"""Every shell form agents send, judged like the bare command; bash is the oracle.

A fake `gh` on the PATH records each call. Running a form through bash says whether (and with
which arguments, in which folder) it would run `gh pr create`; cagr, reading the same line as
data, must find that command with the same arguments, or say it cannot read the line. With a
current failing record no form may pass silently.
"""

from __future__ import annotations

import os
import shlex
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cagr_hooks.gate import decide
from cagr_hooks.protocols import might_run_pr_command
from cagr_hooks.shell_command import find_pr_commands
from tests.support.git import commit, write
from tests.support.hooks import committed_check, denied, gate, project
from tests.support.shell import bash_runs, fake_program

# (form, the programs it needs besides bash and gh)
FORMS = [
    ("bash -lc 'gh pr create -b x'", ()),
    ("bash -euo pipefail -c 'gh pr create -b x'", ()),
    ("sh -c 'gh pr create -b x'", ()),
    ("dash -c 'gh pr create -b x'", ("dash",)),
    ("bash -c \"bash -lc 'gh pr create -b x'\"", ()),
    ("eval gh pr create -b x", ()),
    ("eval 'gh pr create -b x'", ()),
    ('g""h pr create -b x', ()),
    ("g\\h pr create -b x", ()),
    ('gh pr cre""ate -b x', ()),
    ('gh "p"r create -b x', ()),
    ("gh pr cre\\\nate -b x", ()),
    ("$'gh' pr create -b x", ()),
    ("$'\\x67\\150' pr create -b x", ()),
    ("echo $'it\\'s' $(gh pr create -b x)", ()),
    ("time -p gh pr create -b x", ()),
    ('env -S "gh pr create -b x"', ()),
    ("setsid -w gh pr create -b x", ("setsid",)),
    ("flock /tmp/cagr-test.lock gh pr create -b x", ("flock",)),
    ("flock /tmp/cagr-test.lock -c 'gh pr create -b x'", ("flock",)),
    ("ionice -c 3 gh pr create -b x", ("ionice",)),
    ("taskset 1 gh pr create -b x", ("taskset",)),
    ("nohup gh pr create -b x", ()),
    ("stdbuf -oL gh pr create -b x", ("stdbuf",)),
    ("chrt -o 0 gh pr create -b x", ("chrt",)),
    ("script -qec 'gh pr create -b x' /dev/null", ("script",)),
    ("coproc gh pr create -b x; wait", ()),
    ("find . -maxdepth 0 -exec gh pr create -b x \\;", ()),
    ("G=gh; $G pr create -b x", ()),
    ("G=g; H=h; $G$H pr create -b x", ()),
    ('X="gh pr create -b x"; $X', ()),
    ("export B=x; bash -c 'gh pr create -b $B'", ()),
    ("URL=$(gh pr create -b x)", ()),
    ("echo `gh pr create -b x`", ()),
    ("(cd sub && gh pr create -b x)", ()),
    ("cd sub; env -C .. gh pr create -b x", ()),
    ("timeout 5 nice -n 1 nohup gh pr create -b x", ()),
    ("command gh pr create -b x", ()),
    ("exec gh pr create -b x", ()),
    ("if true; then gh pr create -b x; fi", ()),
    ("true && { gh pr create -b x; }", ()),
]
UNREADABLE = [  # bash runs gh pr create; cagr cannot resolve it and says so
    "$(command -v gh) pr create -b x",
    "`command -v gh` pr create -b x",
    "printf 'gh pr create -b x' | bash",
    "bash <<'EOF'\ngh pr create -b x\nEOF",
    'eval "$(echo gh pr create -b x)"',
    "python3 -c 'import os; os.system(\"gh pr create -b x\")'",
    "V=$(echo create); gh pr $V -b x",
    "find . -maxdepth 0 -execdir gh pr create -b x \\;",
    "source <(echo gh pr create -b x)",
]
# Programs not installed on every machine: read as data only (no oracle run).
WRAPPED_ELSEWHERE = [
    "sudo -u me -- gh pr create -b x",
    "doas -u me gh pr create -b x",
    "unbuffer -p gh pr create -b x",
    "caffeinate -i gh pr create -b x",
    "watch -n 5 gh pr create -b x",
    "zsh -ic 'gh pr create -b x'",
    "ksh -c 'gh pr create -b x'",
    "fish -c 'gh pr create -b x'",
    "su -c 'gh pr create -b x' me",
    "parallel 'gh pr create -b {}' ::: x",
]
UNREADABLE_ELSEWHERE = [
    "echo 'gh pr create -b x' | parallel",
    "ssh host 'gh pr create -b x'",
    'node -e \'require("child_process").execSync("gh pr create -b x")\'',
]

# Lines that run `gh pr create` in ways cagr does not follow (brace lists, positional parameters,
# traps, a script on standard input, a tracer): they name it, so while the branch fails the gate
# says so. `needs`: programs the bash check needs.
MENTIONED = [
    ("{gh,pr,create} -b x", ()),
    ("gh pr {create,} -b x", ()),
    ('set -- gh pr create -b x; "$@"', ()),
    ("trap 'gh pr create -b x' EXIT", ()),
    ("sh -c '\"$@\"' _ gh pr create -b x", ()),
    ("source /dev/stdin <<< 'gh pr create -b x'", ()),
    ("strace -f -o /dev/null gh pr create -b x", ("strace",)),
]
MENTIONED_UNCHECKED_HERE = ["/usr/bin/g[h] pr create -b x", "runuser -u root -- gh pr create -b x"]


@pytest.fixture(scope="module")
def fake_gh(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return fake_program(tmp_path_factory.mktemp("bin"), "gh")


@pytest.fixture
def here(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    (folder / "sub").mkdir(parents=True)
    return folder


@pytest.mark.parametrize(("form", "needs"), FORMS, ids=[f for f, _ in FORMS])
def test_each_form_is_read_as_bash_runs_it(
    form: str, needs: tuple[str, ...], here: Path, fake_gh: Path
) -> None:
    for program in needs:
        if shutil.which(program) is None:
            pytest.skip(f"{program} is not installed")
    (call,) = bash_runs(form, here, fake_gh)
    assert call["argv"][:2] == ["pr", "create"]
    assert might_run_pr_command(form)
    found = find_pr_commands(form, str(here))
    assert found.unreadable is None
    (pr,) = found.commands
    assert (pr.verb, pr.body, pr.problem) == ("create", "x", None)
    assert pr.cwd == call["cwd"]


@pytest.mark.parametrize("form", UNREADABLE)
def test_what_cagr_cannot_resolve_it_says(form: str, here: Path, fake_gh: Path) -> None:
    calls = bash_runs(form, here, fake_gh)
    assert calls, "bash ran gh: cagr may not stay silent"
    assert might_run_pr_command(form)
    found = find_pr_commands(form, str(here))
    assert found.unreadable or any(pr.problem or pr.cwd is None for pr in found.commands)


@pytest.mark.parametrize(("form", "needs"), MENTIONED, ids=[f for f, _ in MENTIONED])
def test_lines_that_name_a_pr_command_cagr_does_not_follow(
    form: str, needs: tuple[str, ...], here: Path, fake_gh: Path
) -> None:
    for program in needs:
        if shutil.which(program) is None:
            pytest.skip(f"{program} is not installed")
    assert bash_runs(form, here, fake_gh), "bash ran gh: cagr may not stay silent"
    assert might_run_pr_command(form)
    found = find_pr_commands(form, str(here))
    assert found.commands or found.unreadable or found.mentioned


@pytest.mark.parametrize("form", WRAPPED_ELSEWHERE)
def test_wrappers_read_as_data(form: str) -> None:
    found = find_pr_commands(form, "/tmp")
    assert found.unreadable is None
    (pr,) = found.commands
    assert pr.verb == "create"
    assert pr.body == "x" or (form.startswith("parallel") and pr.problem)


@pytest.mark.parametrize("form", UNREADABLE_ELSEWHERE)
def test_what_cagr_cannot_read_elsewhere_it_says(form: str) -> None:
    assert might_run_pr_command(form)
    assert find_pr_commands(form, "/tmp").unreadable


class TestWithAFailingRecord:
    """None of the forms may pass silently while the current record fails."""

    @pytest.fixture
    def failing(self, repo: Path) -> Path:
        work = project(repo)
        write(work, "src/schema.py", "v2")
        (work / "sub").mkdir()
        commit(work, "source only")
        assert committed_check(work) == 1
        return work

    def test_every_form_is_denied_or_named(self, failing: Path) -> None:
        for form, _ in FORMS:
            decision = decide(find_pr_commands(form, str(failing)), str(failing))
            assert decision.kind == "deny", form
            assert "schema-companion" in decision.text, form
        for form in UNREADABLE:
            decision = decide(find_pr_commands(form, str(failing)), str(failing))
            assert decision.kind == "notice", form
            assert "failed change rules: schema-companion" in decision.text, form
        for form in [f for f, _ in MENTIONED] + MENTIONED_UNCHECKED_HERE:
            assert might_run_pr_command(form), form
            decision = decide(find_pr_commands(form, str(failing)), str(failing))
            assert decision.kind in ("deny", "notice"), form
            assert "schema-companion" in decision.text, form

    def test_text_that_names_a_pr_command_is_said_only_while_the_branch_fails(
        self, failing: Path
    ) -> None:
        line = "echo 'open it with gh pr create -b x'"
        decision = decide(find_pr_commands(line, str(failing)), str(failing))
        assert decision.kind == "notice"
        assert "names `gh pr` in a way cagr does not follow" in decision.text
        write(failing, "schema.json", '{"v": 2}')
        commit(failing, "the companion")
        assert committed_check(failing) == 0
        assert decide(find_pr_commands(line, str(failing)), str(failing)).kind == "none"

    @pytest.mark.parametrize("agent", ["claude", "codex", "cursor", "gemini"])
    def test_codexs_shell_tool_argv_and_string_forms_are_denied(
        self, failing: Path, agent: str
    ) -> None:
        """Codex's `shell` tool sends `shlex_join(["bash", "-lc", SCRIPT])`."""
        script = "git status && gh pr create -t T -b x"
        answer = gate(failing, shlex.join(["bash", "-lc", script]), agent)
        assert denied(agent, answer.json)

    def test_an_argv_list_is_read_as_the_command_it_runs(self, failing: Path) -> None:
        """Codex's older `local_shell` payload: the argv list itself in `tool_input.command`."""
        from tests.support.hooks import hook, payload  # noqa: PLC0415

        for argv in (["bash", "-lc", "gh pr create -t T -b x"], ["gh", "pr", "create", "-b", "x"]):
            data = payload("codex", 1, failing, command="")
            data["tool_input"]["command"] = argv
            assert denied("codex", hook(data, "--agent", "codex").json), argv

    def test_gh_pr_edit_with_a_body_names_the_failing_rules(self, failing: Path) -> None:
        decision = decide(find_pr_commands("gh pr edit --body x", str(failing)), str(failing))
        assert decision.kind == "notice"
        assert "Change rule schema-companion failed" in decision.text
        assert "editing its description does not change that" in decision.text
        quiet = decide(find_pr_commands("gh pr edit --add-label x", str(failing)), str(failing))
        assert quiet.kind == "none"

    def test_a_commit_before_the_pr_command_is_denied_with_the_order_to_follow(
        self, failing: Path
    ) -> None:
        line = "git add -A && git commit -m fix && git push && gh pr create -t T -b x"
        decision = decide(find_pr_commands(line, str(failing)), str(failing))
        assert decision.kind == "deny"
        assert "runs `git commit` before `gh pr create`" in decision.text
        assert "as a command of its own" in decision.text


# From a session outside the repository, lines that go into it first: the folder comes from the
# shell's own variables or from a command, or `cd -` goes back where an earlier `cd` left.
INTO_THE_REPOSITORY = [
    'cd "$REPO" && gh pr create -b x',
    'cd "$(printf %s "$REPO")" && gh pr create -b x',
    "cd `printf %s $REPO`; gh pr create -b x",
    'pushd "$REPO" && gh pr create -b x',
    'cd "$OLDPWD" && gh pr create -b x',
    "cd - && gh pr create -b x",
    'cd "$REPO" && cd .. && cd - && gh pr create -b x',
    'cd "$REPO/sub" && cd "$PWD/.." && gh pr create -b x',
]


@pytest.mark.parametrize("form", INTO_THE_REPOSITORY)
def test_a_session_outside_the_repository_that_cds_into_it_is_never_silent(
    form: str, repo: Path, tmp_path: Path, fake_gh: Path
) -> None:
    # Before: the folder was unknown (or, for `cd -`, home), the session's folder has no
    # rules, and the gate said nothing while the branch failed. bash says where gh runs.
    work = project(repo)
    (work / "sub").mkdir()
    write(work, "src/schema.py", "v2")
    commit(work, "source only")
    assert committed_check(work) == 1
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    variables = {"REPO": str(work), "OLDPWD": str(work)}
    (call,) = bash_runs(form, elsewhere, fake_gh, variables)
    assert call["cwd"] == str(work)
    found = find_pr_commands(form, str(elsewhere))
    (pr,) = found.commands
    assert pr.cwd in (str(work), None)  # where bash runs it, or unknown: never elsewhere
    decision = decide(found, str(elsewhere))
    if pr.cwd is None:
        assert decision.kind == "notice", decision
        assert "which folder the PR command runs in is unknown" in decision.text
    else:
        assert decision.kind == "deny", decision
        assert "schema-companion" in decision.text


def test_a_working_directory_from_the_tool_input(repo: Path, tmp_path: Path) -> None:
    """Gemini's `dir_path` and (before 0.171) Codex's `workdir` say where the command runs;
    Codex 0.171 sends the command's folder as the payload's `cwd`, with no `workdir`."""
    work = project(repo)
    write(work, "src/schema.py", "v2")
    commit(work, "source only")
    assert committed_check(work) == 1
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for agent, key in (("gemini", "dir_path"), ("codex", "workdir")):
        from tests.support.hooks import hook, payload  # noqa: PLC0415

        data = payload(agent, 1, elsewhere, command="gh pr create -t T -b x")
        data["tool_input"][key] = str(work)
        answer = hook(data, "--agent", agent)
        assert denied(agent, answer.json), agent
    codex = payload("codex", 1, work, command="gh pr create -t T -b x")  # as 0.171 sends it
    assert "workdir" not in codex["tool_input"]
    assert denied("codex", hook(codex, "--agent", "codex").json)


# Obfuscations bash undoes: each keeps the command's meaning.
def _quote_inside(word: str, at: int) -> str:
    return word[:at] + '""' + word[at:]


def _backslash(word: str, at: int) -> str:
    return word[:at] + "\\" + word[at:] if word[at : at + 1].isalpha() else word


def _ansi(word: str, at: int) -> str:
    return "$'" + "".join(f"\\x{ord(c):02x}" for c in word) + "'"


@st.composite
def obfuscated(draw: st.DrawFn) -> str:
    words = ["gh", "pr", draw(st.sampled_from(["create", "new"])), "-b", "x"]
    for index in range(3):
        how = draw(st.sampled_from([None, _quote_inside, _backslash, _ansi]))
        if how is not None:
            words[index] = how(words[index], draw(st.integers(0, len(words[index]) - 1)))
    line = " ".join(words)
    for _ in range(draw(st.integers(0, 3))):
        wrap = draw(
            st.sampled_from(
                [
                    lambda s: f"bash -c {shlex.quote(s)}",
                    lambda s: f"sh -ec {shlex.quote(s)}",
                    lambda s: f"eval {shlex.quote(s)}",
                    lambda s: f"env -S {shlex.quote(s)}",
                    lambda s: f"time -p {s}",
                    lambda s: f"nohup {s}",
                    lambda s: f"R=$( {s} )",
                    lambda s: f"( {s} )",
                    lambda s: f"true && {s}",
                ]
            )
        )
        line = wrap(line)
    return line


@settings(max_examples=60)  # each example runs bash
@given(obfuscated())
def test_obfuscations_bash_undoes_are_undone(form: str) -> None:
    tmp = Path(os.environ.get("TMPDIR", "/tmp")) / f"cagr-forms-{os.getpid()}"
    (tmp / "work").mkdir(parents=True, exist_ok=True)
    bin_folder = tmp / "bin"
    bin_folder.mkdir(exist_ok=True)
    calls = bash_runs(form, tmp / "work", fake_program(bin_folder, "gh"))
    found = find_pr_commands(form, str(tmp / "work"))
    ran = [c for c in calls if c["argv"][:1] == ["pr"]]
    assert might_run_pr_command(form) or not ran
    if found.unreadable is None:  # every call bash made is found (a form the program itself
        # refuses, such as env -S with an unknown escape, may be judged anyway: never a pass)
        assert len(found.commands) >= len(ran)
        assert all((pr.verb, pr.body) == ("create", "x") for pr in found.commands)
