# SPDX-License-Identifier: LGPL-2.1-or-later
"""nvprofiled._terminal.escape() against the cases nvprofilectl's C escaping
is held to (tests/client/terminal-escape-cases.json): one rule, the same
output for the same input."""

import json
import os
import sys
import unittest
from pathlib import Path

sys.path.insert(0, os.path.dirname(__file__))
import tap  # noqa: E402
from nvprofiled._terminal import escape  # noqa: E402

CASES = Path(__file__).resolve().parent.parent / "client" / "terminal-escape-cases.json"


class TestTerminalEscape(unittest.TestCase):
    def test_shared_cases(self) -> None:
        cases = json.loads(CASES.read_text(encoding="utf-8"))["cases"]
        self.assertGreater(len(cases), 20)
        for case in cases:
            # As a string read from a file would hold these bytes: what is not
            # UTF-8 as surrogate escapes.
            text = bytes.fromhex(case["input_hex"]).decode("utf-8", "surrogateescape")
            with self.subTest(case["why"]):
                self.assertEqual(escape(text), case["expected"])

    def test_str_surrogates(self) -> None:
        # A lone surrogate that is no escaped byte: its bytes are not UTF-8, each named.
        self.assertEqual(escape("a\ud800b"), "a\\xed\\xa0\\x80b")
        self.assertEqual(escape("\udcff\ud800"), "\\xff\\xed\\xa0\\x80")


if __name__ == "__main__":
    tap.main()
