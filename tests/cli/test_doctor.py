"""`cagr doctor`: sections that keep violations, unchecked, deferred and errors apart."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from cagr_cli.main import main
from tests.support.git import commit, git, write
from tests.support.hooks import RULES, hook, payload, project

Capture = pytest.CaptureFixture[str]


def doctor(root: Path, capsys: Capture) -> tuple[int, dict]:
    capsys.readouterr()
    code = main(["--repo", str(root), "doctor", "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


def doctor_text(root: Path, capsys: Capture) -> str:
    capsys.readouterr()
    main(["--repo", str(root), "doctor"])
    return capsys.readouterr().out


@pytest.fixture
def work(repo: Path) -> Path:
    return project(repo)


def test_a_violation_is_shown_but_is_not_a_failure(work: Path, capsys: Capture) -> None:
    write(work, "src/schema.py", "v2")
    write(work, "package.json", '{"dependencies": {"x": "1"}}')
    code, data = doctor(work, capsys)
    assert code == 0
    assert data["status"] == "ok"
    assert data["change"] == {
        "violations": ["schema-companion"],
        "warnings": [],
        "unchecked": [],
        "deferred": ["dependency-reason"],
    }
    assert data["config"]["rules"] == {
        "requires": 1, "add_only": 0, "sibling": 0, "pr_body": 1, "code": 0, "layout": 0, "guard": 0
    }  # fmt: skip
    assert data["config"]["examples"] == {"run": 4, "failing": []}
    assert data["range"]["target_ref"] == "refs/heads/main"
    assert data["range"]["chosen_by"] == "default main"


def test_a_warning_is_kept_apart_from_violations(work: Path, capsys: Capture) -> None:
    text = (work / "cagr.toml").read_text()
    write(
        work,
        "cagr.toml",
        text.replace('reason = "Run `make', 'severity = "warn"\nreason = "Run `make', 1),
    )
    write(work, "src/schema.py", "v2")
    code, data = doctor(work, capsys)
    assert code == 0
    assert (data["change"]["violations"], data["change"]["warnings"]) == ([], ["schema-companion"])


def test_an_invalid_config_exits_2_with_every_problem(work: Path, capsys: Capture) -> None:
    write(work, "cagr.toml", '[[changes.rules]]\nid = "x"\nkind = "requires"\n')
    code, data = doctor(work, capsys)
    assert code == 2
    assert data["status"] == "error"
    assert any("require" in problem for problem in data["config"]["problems"])


def test_failing_examples_exit_2(work: Path, capsys: Capture) -> None:
    write(work, "cagr.toml", RULES.replace('require = ["schema.json"]', 'require = ["other.json"]'))
    code, data = doctor(work, capsys)
    assert code == 2
    assert data["config"]["examples"]["failing"] == ["schema-companion examples.valid[0]"]


def test_a_missing_history_is_unchecked_with_its_fix(work: Path, capsys: Capture) -> None:
    write(work, "cagr.toml", RULES + '\n[git]\nprotected_branch = "release"\n')
    code, data = doctor(work, capsys)
    assert code == 3
    (problem,) = data["range"]["problems"]
    assert "cannot find the target branch release" in problem
    assert "git fetch origin release" in problem


def test_the_gate_record_is_absent_current_or_stale_with_why(work: Path, capsys: Capture) -> None:
    assert doctor(work, capsys)[1]["gate_record"] == {"state": "absent"}
    write(work, "src/schema.py", "v2")
    commit(work, "source only")
    main(["--repo", str(work), "rules", "check", "--committed"])
    record = doctor(work, capsys)[1]["gate_record"]
    assert (record["state"], record["result"]) == ("current", "fail")
    git(work, "update-ref", "refs/heads/main", "HEAD")
    write(work, "cagr.toml", RULES + "\n# edited\n")
    record = doctor(work, capsys)[1]["gate_record"]
    assert record["state"] == "stale"  # shown as stale, never as the failure it recorded
    assert record["why_stale"] == [
        "the target refs/heads/main moved since",
        "the cagr configuration changed since",
    ]


def test_hooks_installed_missing_and_outdated_and_their_times(work: Path, capsys: Capture) -> None:
    main(["--repo", str(work), "init", "--hooks", "claude", "--hooks", "codex"])
    settings = work / ".codex" / "hooks.json"
    data = json.loads(settings.read_text())
    del data["hooks"]["Stop"]
    data["hooks"]["PreToolUse"][0]["hooks"][0]["timeout"] = 1
    settings.write_text(json.dumps(data))
    hook(payload("claude", 0, work))
    _, report = doctor(work, capsys)
    agents = report["hooks"]["agents"]
    assert agents["claude"]["state"] == "installed"
    assert agents["codex"]["state"] == "incomplete"
    assert agents["codex"]["missing"] == ["Stop"]
    assert agents["codex"]["outdated"] == ["PreToolUse"]
    assert agents["cursor"]["state"] == "not set up"
    timings = report["hooks"]["timings"]["turn_end"]
    assert timings["calls"] == 1
    assert timings["budget_ms"] == 60_000


def test_whether_each_agents_command_resolves(work: Path, capsys: Capture) -> None:
    bin_folder = work / "tools"
    bin_folder.mkdir()
    (bin_folder / "cagr").write_text("#!/nowhere/python\n")  # a virtualenv that moved
    (bin_folder / "cagr").chmod(0o755)
    main(["--repo", str(work), "init", "--hooks", "claude", "--hook-command", "tools/cagr hook"])
    main(["--repo", str(work), "init", "--hooks", "gemini", "--hook-command", "nowhere/cagr hook"])
    _, report = doctor(work, capsys)
    agents = report["hooks"]["agents"]
    assert agents["claude"]["command"] == "tools/cagr hook"
    assert "#!/nowhere/python" in agents["claude"]["not_resolved"]
    assert agents["gemini"]["not_resolved"] == "`nowhere/cagr` is not an executable file here"
    assert "the hook lets every call through without cagr" in doctor_text(work, capsys)
    settings = work / ".codex" / "hooks.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [
        {"type": "command", "command": f"{Path(sys.executable).parent}/cagr hook --agent codex"}
    ]}]}}))  # fmt: skip
    _, report = doctor(work, capsys)
    codex = report["hooks"]["agents"]["codex"]
    assert codex["resolves_to"] == f"{Path(sys.executable).parent}/cagr"
    assert codex["machine_path"] == f"{Path(sys.executable).parent}/cagr"
    assert "is a path on this machine" in doctor_text(work, capsys)


def test_advice(work: Path, capsys: Capture) -> None:
    extra = """
[[changes.rules]]
id = "future"
kind = "sibling"
paths = ["lib/**/*.py"]
ignores = ["**/vendor/**"]
target = "spec/{name}_spec.py"
reason = "Add the spec."
examples.invalid = [{ changes = [{ path = "lib/a.py", status = "A" }] }]
examples.valid = [{ changes = [{ path = "lib/a.py", status = "A" }, { path = "spec/a_spec.py", status = "A" }] }]
"""
    write(work, "cagr.toml", RULES + extra)
    write(work, "lib/x.py", "x")
    commit(work, "lib")
    notes = doctor(work, capsys)[1]["advice"]
    assert any(
        note.startswith("future: ignore **/vendor/** matches no tracked file") for note in notes
    )
    assert any("future: its target spec/{name}_spec.py points into spec" in note for note in notes)
    assert not any(note.startswith("schema-companion") for note in notes)


def test_text_output(work: Path, capsys: Capture) -> None:
    write(work, "src/schema.py", "v2")
    assert main(["--repo", str(work), "doctor"]) == 0
    out = capsys.readouterr().out
    for heading in ("Config", "Range", "Change (merge base", "Gate record", "Agent hooks"):
        assert f"\n{heading}" in out
    assert "violations: schema-companion" in out


@pytest.mark.parametrize("profile_keeps_it", [True, False])
def test_codex_is_asked_through_its_login_shell(
    work: Path,
    capsys: Capture,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    profile_keeps_it: bool,
) -> None:
    """Codex runs hooks with `$SHELL -lc`: a profile that sets PATH anew (Debian's /etc/profile
    does) drops an activated virtualenv, and the hook then lets everything through. This shell's
    PATH finds cagr either way; doctor must answer for the login shell's."""
    home = tmp_path / "home"
    home.mkdir()
    here = Path(sys.executable).parent
    path = f"{here}:$PATH" if profile_keeps_it else str(tmp_path / "empty")
    (home / ".bash_profile").write_text(f'PATH="{path}"\n')
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("SHELL", "/bin/bash")
    monkeypatch.setenv("PATH", f"{here}:/usr/local/bin:/usr/bin:/bin")
    main(["--repo", str(work), "init", "--hooks", "codex", "--hook-command", "cagr hook"])
    capsys.readouterr()
    codex = doctor(work, capsys)[1]["hooks"]["agents"]["codex"]
    if profile_keeps_it:
        assert codex["resolves_to"] == f"{here}/cagr"
    else:
        assert "not on the PATH of the login shell codex runs hooks in" in codex["not_resolved"]
        assert "--hook-command '.venv/bin/cagr hook'" in codex["not_resolved"]


def test_advice_on_a_pattern_in_the_other_unicode_form(work: Path, capsys: Capture) -> None:
    nfc, nfd = "caf\u00e9", "cafe\u0301"
    extra = f"""
[[changes.rules]]
id = "menu"
kind = "requires"
paths = ["{nfc}/*.txt"]
require = ["menu.json"]
reason = "Update menu.json."
examples.invalid = [{{ changes = [{{ path = "{nfc}/a.txt", status = "M" }}] }}]
examples.valid = [{{ changes = [{{ path = "{nfc}/a.txt", status = "M" }}, {{ path = "menu.json", status = "M" }}] }}]
"""
    write(work, "cagr.toml", RULES + extra)
    write(work, f"{nfd}/a.txt", "x")  # named as macOS wrote names: NFD
    commit(work, "menu")
    notes = doctor(work, capsys)[1]["advice"]
    (said,) = [note for note in notes if note.startswith("menu: the pattern")]
    assert "written in Unicode NFC, but 1 tracked path(s) spell it in NFD" in said
    assert f"Write it as the files are named ({nfd + '/*.txt'!r})" in said
