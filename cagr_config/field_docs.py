"""Config field metadata: the descriptions the editor schema shows for each key."""

from __future__ import annotations


def doc(text: str) -> dict[str, str]:
    """Metadata for a config field: the description the editor schema shows."""
    return {"doc": text}


def text_doc(text: str) -> dict[str, object]:
    """Metadata for content fields, where any string (even an empty one) is meaningful."""
    return {**doc(text), "any_text": True}
