# SPDX-License-Identifier: LGPL-2.1-or-later
"""What a rule folder may not do to the runner: shadow a module of the
standard library or of this package, or stand in for NVIDIA's own modules
(ncu's sections folder ships NVIDIA's NvRules.py)."""

from __future__ import annotations

import importlib
import os
import sys
import sysconfig
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import tap  # noqa: E402
from nvprofiled import NvRules, ncu_report, rules  # noqa: E402

RULE = """\
import NvRules

def get_identifier():
    return {ident!r}

def apply(handle):
    pass
{extra}
"""

# Code that must never run: it says so in the module "ran" if it does.
MUST_NOT_RUN = "import sys\nsys.modules.setdefault('ran', []).append(__file__)\n"


def write(folder: str, name: str, text: str) -> str:
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def stdlib_file(module: object) -> bool:
    stdlib = sysconfig.get_paths()["stdlib"]
    return os.path.abspath(getattr(module, "__file__", "")).startswith(
        stdlib + os.sep)


class RuleFolderTest(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = os.path.realpath(self.tmp.name)
        sys.modules.pop("ran", None)

    def tearDown(self) -> None:
        if self.dir in sys.path:
            sys.path.remove(self.dir)
        self.tmp.cleanup()

    def test_folder_comes_after_everything_else(self) -> None:
        write(self.dir, "first.py", RULE.format(ident="First", extra=""))
        loaded, errors = rules.load_rules([self.dir])
        self.assertEqual(errors, [])
        self.assertEqual([r.identifier for r in loaded], ["First"])
        self.assertEqual(sys.path[-1], self.dir)

    def test_a_rule_named_like_the_standard_library_replaces_nothing(
            self) -> None:
        # Rule files are code, so these run (as rules); but json stays the
        # json every other module imports, and colorsys (not imported yet)
        # is still the standard library's when someone imports it later.
        self.assertNotIn("colorsys", sys.modules)
        write(self.dir, "json.py", RULE.format(ident="Json", extra=""))
        write(self.dir, "colorsys.py", RULE.format(ident="Colors", extra=""))
        loaded, errors = rules.load_rules([self.dir])
        self.assertEqual(errors, [])
        self.assertEqual(sorted(r.identifier for r in loaded),
                         ["Colors", "Json"])
        self.assertTrue(stdlib_file(sys.modules["json"]))
        self.assertTrue(stdlib_file(importlib.import_module("colorsys")))

    def test_siblings_are_still_shared(self) -> None:
        write(self.dir, "IsolationHelper.py", "VALUE = 42\n")
        write(self.dir, "user.py", RULE.format(
            ident="User", extra="from IsolationHelper import VALUE\n"))
        loaded, errors = rules.load_rules([self.dir])
        self.assertEqual(errors, [])
        self.assertEqual([r.identifier for r in loaded], ["User"])
        self.assertEqual(loaded[0].module.VALUE, 42)
        self.assertEqual(sys.modules["IsolationHelper"].__file__,
                         os.path.join(self.dir, "IsolationHelper.py"))

    def test_nvidia_modules_are_ignored_with_a_note(self) -> None:
        write(self.dir, "NvRules.py", MUST_NOT_RUN)
        write(self.dir, "ncu_report.py", MUST_NOT_RUN)
        write(self.dir, "_NvRules.py", MUST_NOT_RUN)
        write(self.dir, "_NvRules.cpython-311-x86_64-linux-gnu.so", "")
        write(self.dir, "uses.py", RULE.format(ident="Uses", extra=(
            "import ncu_report\n"
            "try:\n"
            "    import _NvRules\n"
            "except ImportError:\n"
            "    _NvRules = None\n")))
        ignored: list[rules.LoadError] = []
        loaded, errors = rules.load_rules([self.dir], ignored)
        self.assertEqual(errors, [])
        self.assertNotIn("ran", sys.modules)
        self.assertEqual([r.identifier for r in loaded], ["Uses"])
        self.assertEqual(
            sorted((os.path.basename(e.path), e.error) for e in ignored),
            [("NvRules.py", rules.RESERVED_NOTE),
             ("_NvRules.cpython-311-x86_64-linux-gnu.so",
              rules.RESERVED_NOTE),
             ("_NvRules.py", rules.RESERVED_NOTE),
             ("ncu_report.py", rules.RESERVED_NOTE)])
        module = loaded[0].module
        self.assertIs(module.NvRules, NvRules)
        self.assertIs(module.ncu_report, ncu_report)
        self.assertIsNone(module._NvRules)
        self.assertIs(sys.modules["NvRules"], NvRules)


if __name__ == "__main__":
    tap.main()
