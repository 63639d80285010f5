"""Sibling target templates: `{dir}/{name}.test.{ext}` rendered from one added path.

For `src/guards/no-push.ts`: {dir} is `src/guards`, {name} is `no-push` (the last extension
removed, so `x.test.ts` gives `x.test`), {ext} is `ts`. For a root file {dir} is empty and the
slash that joined it is dropped. A named part of the rule's paths (`{app}`) is what that part
matched. Substituted text is literal; the result is one exact path.
"""

from __future__ import annotations

import posixpath
import re

from .errors import CagrError, TemplateError
from .globs import GLOB_CHARS, PART_NAME
from .values import value

FIELDS = ("dir", "name", "ext")
_TOKEN = re.compile(r"\{([^{}/]*)\}")


class RenderError(CagrError):
    """A template that cannot give a target for this particular path (no extension for {ext})."""


@value
class Template:
    """A checked target template; `parts` are its `/`-separated components."""

    source: str
    parts: tuple[str, ...]

    @classmethod
    def parse(cls, source: str) -> Template:
        """Check the template; raise TemplateError pointing at the first bad part."""
        if not source.strip():
            raise TemplateError(source, 0, len(source), "a target template cannot be empty")
        if source.startswith("/"):
            raise TemplateError(
                source, 0, 1, "a target is relative to the root; remove the leading /"
            )
        for match in _TOKEN.finditer(source):
            if match.group(1) not in FIELDS and not PART_NAME.fullmatch(match.group(1)):
                raise TemplateError(
                    source,
                    match.start(),
                    match.end(),
                    f"unknown placeholder {match.group(0)}; use {{dir}}, {{name}}, {{ext}} or a"
                    " named part of the rule's paths ({app})",
                )
        literal = _TOKEN.sub(lambda m: "\0" * len(m.group(0)), source)
        for index, char in enumerate(literal):
            if char in GLOB_CHARS:
                raise TemplateError(
                    source,
                    index,
                    index + 1,
                    f"{char!r} is glob syntax; a target is one exact path",
                )
        position = 0
        parts = source.split("/")
        for part in parts:
            if part in (".", ".."):
                raise TemplateError(
                    source, position, position + len(part), f"no {part} components in a target"
                )
            if part == "":
                raise TemplateError(source, position, position + 1, "an empty path component")
            position += len(part) + 1
        return cls(source, tuple(parts))

    @property
    def uses(self) -> frozenset[str]:
        return frozenset(match.group(1) for match in _TOKEN.finditer(self.source))

    @property
    def named_parts(self) -> frozenset[str]:
        """The named parts of the rule's paths the template uses."""
        return self.uses - frozenset(FIELDS)

    def render(self, path: str, named: dict[str, str] | None = None) -> str:
        """The exact target path for `path` (and what its named parts matched); RenderError
        when {ext} is used and there is none."""
        values = {**(named or {}), **placeholder_values(path)}
        if "ext" in self.uses and not values["ext"]:
            raise RenderError(f"{path} has no extension for {{ext}} in {self.source}")
        rendered = (_TOKEN.sub(lambda m: values[m.group(1)], part) for part in self.parts)
        # A component left empty comes from an empty {dir}: drop it with its joining slash.
        parts = [part for part in rendered if part]
        if not parts or any(part in (".", "..") for part in parts):
            raise RenderError(f"{self.source} gives no usable path for {path}")
        return "/".join(parts)


def parse_target(source: str) -> Template:
    """A sibling target template: checked, and not naming the added file itself."""
    template = Template.parse(source)
    if template.render("d/n.e", dict.fromkeys(template.named_parts, "p")) == "d/n.e":
        raise TemplateError(source, 0, len(source), "names the added file itself")
    return template


def placeholder_values(path: str) -> dict[str, str]:
    """{dir}, {name} and {ext} for a repo-relative path."""
    directory, base = posixpath.split(path)
    name, ext = posixpath.splitext(base)
    return {"dir": directory, "name": name, "ext": ext[1:]}
