"""Text that can never drive a terminal: control characters and undecodable bytes escaped.

File names, command output and rule texts reach people's terminals and agents' transcripts; a
raw ESC, CR, C1 control or bidirectional override could repaint a screen or hide text. Lines and
tabs are kept; JSON (ASCII with its own escapes) passes through unchanged. Standard library only:
the agent hooks use it too.
"""

from __future__ import annotations

import re

_NOT_PLAIN = re.compile(r"[^\t\n\x20-\x7e]")


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char.isprintable():
        return char
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:
        return f"\\x{code - 0xDC00:02x}"  # a byte that was not UTF-8 (surrogateescape)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def terminal_safe(text: str) -> str:
    """`text` with control characters (ESC, CR, C1, bidirectional overrides...) and undecodable
    bytes written as escapes, so a file name can never drive the terminal; JSON output is ASCII
    with its own escapes and passes through unchanged."""
    return _NOT_PLAIN.sub(_escape, text)
