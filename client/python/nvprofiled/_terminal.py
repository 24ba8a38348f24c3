# SPDX-License-Identifier: LGPL-2.1-or-later
"""Text for a terminal: strings from report and rule files never carry
control characters there (JSON output keeps them exact). The rule is
nvprofilectl's (client/terminal-escape.h), through the C extension
_terminal_escape: one implementation for both."""

from nvprofiled._terminal_escape import escape_bytes


def escape(text: str) -> str:
    r"""text as nvprofilectl writes it to a terminal: printable UTF-8 kept,
    a backslash doubled, \a \b \t \n \v \f \r by name, and every byte of a
    control, bidirectional-override or line-separator character, or of
    text that is not UTF-8, as \xNN."""
    return escape_bytes(_utf8(text))


def _utf8(text: str) -> bytes:
    """The bytes text stands for: bytes that were not UTF-8 where it was read
    came in as surrogate escapes (U+DC80..U+DCFF) and go out as those bytes;
    another lone surrogate as its UTF-8-like bytes, which are not UTF-8 and
    so are named byte by byte."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return b"".join(c.encode("utf-8", "surrogatepass")
                        if 0xd800 <= ord(c) < 0xdc80 or 0xdd00 <= ord(c) <= 0xdfff
                        else c.encode("utf-8", "surrogateescape") for c in text)
