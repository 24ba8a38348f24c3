# SPDX-License-Identifier: LGPL-2.1-or-later
"""Run unittest test cases and report them as TAP, like the GLib tests."""

from __future__ import annotations

import os
import sys
import unittest


def _skip_corpus(reason: str) -> None:
    print(f"1..0 # SKIP {reason}")
    sys.exit(0)


def _folder(variable: str, what: str) -> str:
    """The folder in environment variable `variable`; a missing one is a
    skip, or a failure when NVPROFILED_CORPUS_REQUIRED=1."""
    path = os.environ.get(variable, "")
    if path and os.path.isdir(path):
        return path
    if os.environ.get("NVPROFILED_CORPUS_REQUIRED") == "1":
        print(f"Bail out! {what} not found: {path}")
        sys.exit(1)
    _skip_corpus(f"{what} not found")
    return ""


def corpus_dir() -> str:
    """The corpus (meson option corpus_dir)."""
    return _folder("NVPROFILED_CORPUS", "corpus")


def tools_dir() -> str:
    """The scripts that made the corpus oracles (meson option tools_dir)."""
    return _folder("NVPROFILED_TOOLS", "oracle tools")


class _TapResult(unittest.TestResult):
    def __init__(self) -> None:
        super().__init__()
        self.number = 0

    def _line(self, ok: bool, test: unittest.TestCase,
              extra: str = "") -> None:
        self.number += 1
        status = "ok" if ok else "not ok"
        print(f"{status} {self.number} {test.id()}{extra}", flush=True)

    def addSuccess(self, test: unittest.TestCase) -> None:  # noqa: N802
        super().addSuccess(test)
        self._line(True, test)

    def addSkip(self, test: unittest.TestCase,  # noqa: N802
                 reason: str) -> None:
        super().addSkip(test, reason)
        self._line(True, test, f" # SKIP {reason}")

    def _fail(self, test: unittest.TestCase, err: object) -> None:
        self._line(False, test)
        text = self._exc_info_to_string(err, test)  # type: ignore[arg-type]
        for line in text.splitlines():
            print("# " + line)

    def addFailure(self, test: unittest.TestCase,  # noqa: N802
                 err: object) -> None:
        super().addFailure(test, err)  # type: ignore[arg-type]
        self._fail(test, err)

    def addError(self, test: unittest.TestCase,  # noqa: N802
                  err: object) -> None:
        super().addError(test, err)  # type: ignore[arg-type]
        self._fail(test, err)


def main(module: str = "__main__") -> None:
    suite = unittest.defaultTestLoader.loadTestsFromModule(sys.modules[module])
    print(f"1..{suite.countTestCases()}", flush=True)
    result = _TapResult()
    suite.run(result)
    sys.exit(0 if result.wasSuccessful() else 1)
