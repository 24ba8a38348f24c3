# SPDX-License-Identifier: LGPL-2.1-or-later
"""Text for a terminal: strings from report and rule files never carry
control characters there (JSON output keeps them exact)."""


def escape(text: str) -> str:
    r"""Non-printable characters as \xNN / \uNNNN escapes."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else "\\x%02x" % ord(c)
                   if ord(c) < 0x100 else "\\u%04x" % ord(c) for c in text)
