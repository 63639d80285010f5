"""Properties of the dependency selector, in every manifest format it reads."""

from __future__ import annotations

import contextlib
import re
import tomllib
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from cagr_core.dependencies import Format
from cagr_manifests import ManifestError, added_dependencies
from cagr_manifests.toml_bounds import MAX_KEY_PARTS, too_many_parts
from tests.property.strategies import MANIFEST_NAMES, Model, manifest_models, render_manifest

FORMATS = [manifest.value for manifest in Format]


def _normalised(manifest: str, name: str) -> str:
    if manifest in ("pyproject.toml", "requirements"):
        return re.sub(r"[-_.]+", "-", name).lower()
    if manifest == "Cargo.toml":
        return name.lower().replace("_", "-")
    return name


def _added(manifest: str, before: str | None, after: str) -> Any:
    return added_dependencies(
        Format(manifest), None if before is None else before.encode(), after.encode()
    )


@st.composite
def two_renderings(draw: st.DrawFn, manifest: str) -> tuple[Model, str, str]:
    model = draw(manifest_models(manifest))
    first = render_manifest(manifest, model, draw(st.randoms(use_true_random=False)))
    second = render_manifest(manifest, model, draw(st.randoms(use_true_random=False)))
    return model, first, second


@pytest.mark.parametrize("manifest", FORMATS)
class TestNothingNew:
    """A manifest adds nothing over itself, nor over any other writing of the same
    dependencies: reordered, respelled (PEP 503, crate names), other versions, markers,
    extras, entry forms, comments and options."""

    @given(data=st.data())
    def test_itself(self, manifest: str, data: st.DataObject) -> None:
        _, text, _ = data.draw(two_renderings(manifest))
        result = _added(manifest, text, text)
        assert result.added == ()
        assert result.unnamed == ()

    @given(data=st.data())
    def test_rewritten(self, manifest: str, data: st.DataObject) -> None:
        _, first, second = data.draw(two_renderings(manifest))
        result = _added(manifest, first, second)
        assert result.added == ()
        assert result.unnamed == ()


@pytest.mark.parametrize("manifest", FORMATS)
class TestOneNew:
    """A name absent from a section before and present after is added, exactly once, with
    that section; a new manifest adds everything it declares."""

    @given(data=st.data())
    def test_one_more_name(self, manifest: str, data: st.DataObject) -> None:
        model = data.draw(manifest_models(manifest, min_size=1))
        section = data.draw(st.sampled_from(sorted(model)))
        name = data.draw(MANIFEST_NAMES[manifest])
        assume(
            _normalised(manifest, name) not in {_normalised(manifest, n) for n in model[section]}
        )
        rng = data.draw(st.randoms(use_true_random=False))
        before = render_manifest(manifest, model, rng)
        grown = {**model, section: model[section] | {name}}
        after = render_manifest(manifest, grown, rng)
        (addition,) = _added(manifest, before, after).added
        assert _normalised(manifest, addition.name) == _normalised(manifest, name)
        written = (addition.section or "").replace("_", "-").lower()
        assert written == section.lower()

    @given(data=st.data())
    def test_a_new_manifest(self, manifest: str, data: st.DataObject) -> None:
        model, text, _ = data.draw(two_renderings(manifest))
        found = {(_normalised(manifest, a.name)) for a in _added(manifest, None, text).added}
        assert found == {_normalised(manifest, n) for names in model.values() for n in names}


@pytest.mark.parametrize("manifest", FORMATS)
class TestNeverACrash:
    """Whatever the bytes, reading either gives what they add or a ManifestError."""

    @given(before=st.binary(max_size=200), after=st.binary(max_size=200))
    def test_any_bytes(self, manifest: str, before: bytes, after: bytes) -> None:
        with contextlib.suppress(ManifestError):
            added_dependencies(Format(manifest), before, after)

    @given(data=st.data())
    def test_a_damaged_manifest(self, manifest: str, data: st.DataObject) -> None:
        _, text, _ = data.draw(two_renderings(manifest))
        cut = data.draw(st.integers(0, len(text)))
        noise = data.draw(st.text(alphabet="[]{}()\"'=#\\\n ,;@-.*", max_size=6))
        damaged = text[:cut] + noise + text[cut + data.draw(st.integers(0, 4)) :]
        with contextlib.suppress(ManifestError):
            _added(manifest, text, damaged)


_key_part = st.one_of(
    st.sampled_from(["a", "b-c", "d_e", "1"]),
    st.text(alphabet="ab.#=[]{}, '", max_size=6).map(lambda t: '"' + t.replace('"', "") + '"'),
    st.text(alphabet='ab.#=[]{}, "', max_size=6).map(lambda t: "'" + t.replace("'", "") + "'"),
)
_value = st.sampled_from(['"a.b.c"', "1.5", "1979-05-27T07:32:00.999", "'x.y'", '"""\n.a.b.\n"""'])


class TestTomlBounds:
    """toml_bounds: a key or table header of more than MAX_KEY_PARTS dotted parts is refused
    before tomllib reads it, and nothing else is (strings, comments and values never count)."""

    @given(
        st.integers(min_value=1, max_value=200),
        _key_part,
        st.booleans(),
        _value,
        st.sampled_from([".", " . ", ". "]),
    )
    def test_only_too_many_parts_are_refused(
        self, parts: int, part: str, header: bool, value: str, dot: str
    ) -> None:
        key = dot.join([part] * (parts - 1) + ["z"])
        text = f"# a.b.c.d\nv = {value}\n" + (f"[{key}]\nw = 1\n" if header else f"{key} = 1\n")
        tomllib.loads(text)  # a valid document, whatever its parts
        line = too_many_parts(text)
        assert (line is not None) == (parts > MAX_KEY_PARTS)
        assert line in (None, text.count("\n") - (1 if header else 0))
