"""Field metadata: what the editor schema shows, and where any text (even empty) is allowed."""

from cagr_config.field_docs import doc, text_doc
from cagr_config.schema import json_schema


def test_metadata_shapes() -> None:
    assert doc("What it is.") == {"doc": "What it is."}
    assert text_doc("Content.") == {"doc": "Content.", "any_text": True}


def test_the_schema_uses_them() -> None:
    definitions = json_schema()["definitions"]
    reason = definitions["RequiresRule"]["properties"]["reason"]
    assert reason["description"].startswith("What to do instead")
    assert reason["minLength"] == 1  # plain text must not be empty
    before = definitions["FixtureChange"]["properties"]["before"]
    assert "minLength" not in before  # content may be empty
