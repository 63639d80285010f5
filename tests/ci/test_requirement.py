"""The install line `cagr init --ci github` writes, from a PEP 610 install record.

The records are shaped like PEP 610's own examples (a VCS checkout, an archive URL, a local
folder, an editable install); .ci/run installs a real wheel several ways and checks the same.
"""

from __future__ import annotations

import json

import pytest

from cagr_ci.requirement import NoRequirement, checked_spec, requirement_from

COMMIT = "7921be1537eac1e97bc40179a57f0349c2aabf3a"


def record(**data: object) -> str:
    return json.dumps(data)


class TestDerived:
    def test_an_index_release_is_pinned_to_its_version(self) -> None:
        assert requirement_from(None, "0.3.1") == "cagr==0.3.1"

    def test_a_vcs_install_is_pinned_to_its_commit_not_the_revision_asked_for(self) -> None:
        text = record(
            url="https://github.com/octo-org/cagr.git",
            vcs_info={"vcs": "git", "requested_revision": "main", "commit_id": COMMIT},
        )
        assert requirement_from(text, "0.1.0") == (
            f"cagr @ git+https://github.com/octo-org/cagr.git@{COMMIT}"
        )

    def test_a_vcs_install_from_a_subdirectory_keeps_it(self) -> None:
        text = record(
            url="ssh://git@github.com/octo-org/tools.git",
            vcs_info={"vcs": "git", "commit_id": COMMIT},
            subdirectory="cagr",
        )
        with pytest.raises(NoRequirement, match="credentials"):
            requirement_from(text, "0.1.0")  # `git@` is a user name in the URL
        text = record(
            url="https://github.com/octo-org/tools.git",
            vcs_info={"vcs": "git", "commit_id": COMMIT},
            subdirectory="cagr",
        )
        assert requirement_from(text, "0.1.0").endswith(f"@{COMMIT}#subdirectory=cagr")

    def test_an_archive_url_keeps_its_hash(self) -> None:
        digest = "2dc6b5a470a1bde68946f263f1af1515a2574a150a30d6ce02c6ff742fcc0db8"
        text = record(
            url="https://example.invalid/cagr-0.1.0.tar.gz",
            archive_info={"hashes": {"sha256": digest}},
        )
        assert requirement_from(text, "0.1.0") == (
            f"cagr @ https://example.invalid/cagr-0.1.0.tar.gz#sha256={digest}"
        )
        legacy = record(url="https://example.invalid/c.whl", archive_info={"hash": "md5=00"})
        assert requirement_from(legacy, "0.1.0") == "cagr @ https://example.invalid/c.whl#md5=00"


class TestNoGuess:
    @pytest.mark.parametrize(
        ("data", "said"),
        [
            (
                {"url": "file:///home/dev/cagr", "dir_info": {"editable": True}},
                "an editable install",
            ),
            ({"url": "file:///home/dev/cagr", "dir_info": {}}, "a local folder"),
            (
                {"url": "file:///tmp/cagr-0.1.0-py3-none-any.whl", "archive_info": {}},
                "a local file",
            ),
            (
                {"url": "file:///home/dev/cagr", "vcs_info": {"vcs": "git", "commit_id": COMMIT}},
                "a local repository",
            ),
        ],
    )
    def test_local_installs_ask_for_install(self, data: dict, said: str) -> None:
        with pytest.raises(NoRequirement) as caught:
            requirement_from(json.dumps(data), "0.1.0")
        assert f"installed here from {said}" in caught.value.message
        assert "--install SPEC" in caught.value.fix

    @pytest.mark.parametrize(
        "url",
        [
            "https://user:token@example.invalid/cagr.git",
            "https://${GITHUB_TOKEN}@example.invalid/cagr.git",
        ],
    )
    def test_credentials_are_never_written_into_a_workflow(self, url: str) -> None:
        text = record(url=url, vcs_info={"vcs": "git", "commit_id": COMMIT})
        with pytest.raises(NoRequirement, match="credentials"):
            requirement_from(text, "0.1.0")

    @pytest.mark.parametrize(
        "text",
        ["{", "[]", '{"url": 3}', record(url="https://x.invalid/c.git", vcs_info={"vcs": "git"})],
    )
    def test_a_damaged_record_is_no_guess(self, text: str) -> None:
        with pytest.raises(NoRequirement):
            requirement_from(text, "0.1.0")


class TestGivenSpec:
    def test_a_given_spec_is_kept_exactly_but_for_outer_spaces(self) -> None:
        assert checked_spec("  cagr @ git+https://x.invalid/c.git@v1 ") == (
            "cagr @ git+https://x.invalid/c.git@v1"
        )
