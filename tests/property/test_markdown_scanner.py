"""The standard-library scanner against mistune, its oracle: where the scanner reads a text
it gives mistune's Document exactly, so no verdict can differ; where it is not sure it says so
and mistune reads the text."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from cagr_core.sections import Content
from cagr_markdown import normal, parse
from cagr_markdown.full import parse as parse_with_mistune
from cagr_markdown.scanner import UNSURE_CHARACTERS, scan
from tests.property.strategies import markdown_text, scanner_markdown

# Cases found by hand and by earlier runs: each reads one construct at an edge.
TRICKY = (
    "## Risk\nLow.  \nmore\n",
    "# A #\n## B ##  \n###C\n#\n## \n## ##\n# #x\n",
    "Risk\n----\ntext",
    "Risk\n===\n## Risk\n",
    "- a\n- [x] b\n  - [ ] c\n    d\n\n  e\n# H\n",
    "<!-- c -->\n## Risk\n<!-- a\nb --> tail\n",
    "a\n<!-- x -->\nb",
    "    code\n## x\n",
    "p\n    not code\n",
    "para\n    # not heading\n",
    "`a`  `` b ` `` ` c ` end",
    "```\n## R\n```\n~~~~\nx\n~~~\n~~~~\n",
    "```\n## R\n",
    "x &amp; y &copy",
    "text\n***\n",
    "* a\n\n\n* b\n",
    "- a\n\n      code?\n",
    "- a\n\n        - b\n",
    "2019. was a year\n",
    "- a\n # h\n",
    "- item\n```\ncode\n```\n",
    "a\n  - b\n",
    "&#82;isk\n## &#82;isk\n",
    "## `Risk`\n",
    "snake_case_name and `a*b` and `<x>`",
    "# T\n\n```python\ncode\n```\n\n- [ ] todo\n- [X] done\n1. [x] ord\n",
    "  ## indented heading\n   ### three\n",
    "- a\n\n  b\n\nc\n",
    "10. ten\n    cont\n",
    "1. one\n2) two\n",
    "foo\n2. bar\n",
    "- a\nb\n--\n",
    "- a\n  # h\n",
    "> ## Risk\n> quoted\n",
    "<h2>Risk</h2>\n\nLow.",
    "| a |\n|---|\n| b |\n",
    "[x]: http://y\n## Risk\n",
    "## Risk\n<details>\n\n## Hidden\n\n</details>\n",
    "\t## Risk\n",
    "## Risk\u00a0\n",
    "a\u2028b",
    "**Risk** low\n*a **b** c*\n***a***\nfoo*bar*\nx * y * z\n__init__.py\n",
    "**a\nb**\n",
    "*a `*` b*\n_a_b_\n**a:**b\n",
    "- Risk\n\n        Risk\n-->\n  # Risk",  # mistune: the item goes on after its code
    "a* " * 150,  # more marks on a line than the scanner matches: mistune reads it
    "`` a ` " * 60,
    "1\n=-",
    "a\n-=",
    "## C\n- [ ] a\n- [x] b\n* [X] c\n  - [ ] nested\n1. [ ] one\n",
    "- [ ]b\n- [x]\n- []\n- [y] z\n[ ] not\n- a [ ] b\n",
    "- [ ]\n  continued\n- [ ]\tt\n",
    "```\n- [ ] fenced\n```\n    - [ ] indented code\n",
    "> - [ ] quoted\n",
    "- [ ] a\n\n  - [x] loose\n\n## H\n- [X] c\n",
    "-   [ ] Risk\n  # Risk",  # mistune keeps the heading in the item
)


def _agrees(text: str) -> None:
    scanned = scan(text)
    if scanned is not None:
        assert normal(scanned) == normal(parse_with_mistune(text))
    assert parse(text) == normal(parse_with_mistune(text))


class TestScannerAgreesWithMistune:
    """Where the scanner reads a text, its Document is mistune's; elsewhere it says None."""

    @given(markdown_text)
    @example("")
    def test_generated_markdown(self, text: str) -> None:
        _agrees(text)

    @given(scanner_markdown)
    def test_generated_markdown_of_what_the_scanner_reads(self, text: str) -> None:
        _agrees(text)

    @given(st.text(alphabet=st.sampled_from("#-*_`~<>!&;[]()= \n\t1.)xRisk\\|"), max_size=40))
    def test_any_text_of_the_constructs_characters(self, text: str) -> None:
        _agrees(text)

    @given(st.text(max_size=60))
    def test_any_text(self, text: str) -> None:
        _agrees(text)

    def test_tricky_cases(self) -> None:
        for text in TRICKY:
            _agrees(text)


ORDINARY = (
    "## Summary\nA small fix.\n\n## Risk\nLow: one function, covered by its test.\n",
    "<!-- Say what changed and why. -->\n## Summary\n\nAdds `cagr ci` caching for the"
    " `config_cache` module.\n\n## Risk\n\n- Low: the cache is keyed by the config's bytes.\n"
    "- [x] tests added\n- [ ] docs\n\n## Testing\n\n```sh\npytest -q tests/repo\n```\n",
    "## Summary\n1. first\n2. second\n   more of it\n\n## Risk\nNone &mdash; a typo.\n",
    "## **Summary**\n**Note:** the `__init__` of *each* module.\n\n## Risk\n_Low_: a rename.\n",
)


def test_ordinary_descriptions_are_read_without_mistune() -> None:
    for text in ORDINARY:
        scanned = scan(text)
        assert scanned is not None, text
        assert normal(scanned) == normal(parse_with_mistune(text))


def _tasks(text: str) -> list[int]:
    return [block.tasks for block in parse(text) if isinstance(block, Content)]


def test_task_items_are_list_items_that_start_with_a_box_and_white_space() -> None:
    """mistune's task_lists: `[ ]`, `[x]` or `[X]` at the start of a list item's first
    paragraph, then white space (a line end counts); nested items count, code and quotes'
    items as rendered."""
    assert _tasks("- [ ] a\n- [x] b\n* [X] c\n  - [ ] nested\n1. [ ] one\n") == [5]
    assert _tasks("- [x]\n- [ ]\n  continued\n") == [2]
    assert _tasks("- [ ]b\n- []\n- [y] z\n- a [ ] b\n\n[ ] not in a list\n") == [0]
    assert _tasks("```\n- [ ] fenced\n```\n\n    - [ ] indented code\n") == [0]
    assert _tasks("> - [ ] quoted\n") == [1]
    assert _tasks("## A\n- [ ] one\n## B\ntext\n- [x] two\n- three\n") == [1, 1]


def test_the_scanner_leaves_every_space_but_space_and_line_feed_to_mistune() -> None:
    spaces = {chr(c) for c in range(0x110000) if chr(c).isspace()} - {" ", "\n"}
    assert spaces | {"\x00"} == UNSURE_CHARACTERS
