"""Properties of sibling target templates."""

from hypothesis import assume, given
from hypothesis import strategies as st

from cagr_core.errors import TemplateError
from cagr_core.templates import RenderError, Template, placeholder_values
from tests.property.strategies import component, repo_path

template_part = st.one_of(
    st.sampled_from(["{dir}", "{name}", "{ext}", "tests", "test_{name}", "{name}.test.{ext}"]),
    st.text(alphabet="abc_-.", min_size=1, max_size=5),
)
templates = st.lists(template_part, min_size=1, max_size=4).map("/".join)


class TestParse:
    """Parsing keeps the source; any text either parses or fails with a span inside it."""

    @given(templates)
    def test_valid_templates_round_trip(self, source: str) -> None:
        try:
            template = Template.parse(source)
        except TemplateError as error:
            assert 0 <= error.start < error.end <= len(source) + 1
            return
        assert template.source == source
        assert "/".join(template.parts) == source

    @given(st.text(max_size=30))
    def test_arbitrary_text_parses_or_points_inside(self, source: str) -> None:
        try:
            Template.parse(source)
        except TemplateError as error:
            assert 0 <= error.start <= len(source)
            assert "^" in error.render()


class TestRender:
    """A rendered target is one exact, relative path inside the root."""

    @given(templates, repo_path)
    def test_never_escapes_the_root(self, source: str, path: str) -> None:
        try:
            target = Template.parse(source).render(path)
        except (TemplateError, RenderError):
            return
        parts = target.split("/")
        assert not target.startswith("/")
        assert all(part not in ("", ".", "..") for part in parts)

    @given(
        st.lists(component, max_size=3).map("/".join),
        component,
        st.text("abc", min_size=1, max_size=3),
    )
    def test_render_then_parse_back(self, where: str, stem: str, ext: str) -> None:
        assume(not stem.startswith(".") and "." not in stem[1:])
        path = f"{where}/{stem}.{ext}" if where else f"{stem}.{ext}"
        target = Template.parse("{dir}/{name}.test.{ext}").render(path)
        assert placeholder_values(target) == {
            "dir": where,
            "name": f"{stem}.test",
            "ext": ext,
        }

    @given(repo_path)
    def test_substituted_text_is_literal(self, path: str) -> None:
        # Glob characters in a path stay as they are in the target, never interpreted.
        target = Template.parse("{dir}/{name}.sibling").render(path)
        values = placeholder_values(path)
        assert target.endswith(values["name"] + ".sibling")
