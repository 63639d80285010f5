"""A pull request's description: available (even empty) or not at all."""

from cagr_core.pull_request import Phase, PrBody


def test_an_empty_description_is_available() -> None:
    assert PrBody("").available
    assert not PrBody.unavailable().available
    assert PrBody.unavailable() == PrBody(None)
    assert PrBody("") != PrBody.unavailable()


def test_phases_are_spelled_as_the_config_spells_them() -> None:
    assert {phase.value for phase in Phase} == {"turn", "ci"}
