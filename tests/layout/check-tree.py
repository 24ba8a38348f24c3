#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The tree's shape, as issue 30 ("one house") set it, as TAP: every offender named.

  check-tree.py SOURCE_ROOT

1. No tracked .c, .h or .py file over 1,000 lines: a file that long holds more than one concern.
2. file_replace() is called from the rc-edit transaction only (daemon/appprofile, a file whose name
   says "transaction") and defined in daemon/shared/file-replace.c: one compare-and-replace of rc
   files, not one per client. tests/shared tests the function itself. The one other caller is the
   daemon's own state file of remembered process names (daemon/procwatch/seen-names.c), which needs
   the same atomic replacement and so reuses it rather than writing a second one.
3. dbus-daemon is started from at most one C file, in tests/lib, and one Python file,
   tests/gtk/appworld.py: one test world per language.
4. LICENSE and NEWS exist.
5. No commit newer than CUTOFF_COMMIT has a subject over 72 characters (HACKING.md, "Commits").

The tree is what git tracks: CI runs in a fresh clone, where git and the whole history are there. Outside
a git checkout (a release tarball) there is nothing to check against, and the test says so and fails.
"""

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Callable, List

MAX_LINES = 1000
MAX_SUBJECT = 72
# The last commit before the rule: older subjects are history, not to be rewritten.
CUTOFF_COMMIT = "1dca122"

# Where file_replace( may appear: its own definition and header, the transaction, the state file of
# remembered names, its own unit test.
FILE_REPLACE_ALLOWED = re.compile(
    r"^(daemon/shared/file-replace\.[ch]|daemon/appprofile/[^/]*transaction[^/]*\.[ch]"
    r"|daemon/procwatch/seen-names\.c|tests/shared/test-file-replace\.c)$")
# A call or declaration of file_replace itself, not of user_rc_file_replace or a mention in a comment.
FILE_REPLACE_CALL = re.compile(r"(?<![A-Za-z0-9_])file_replace\(")
# Starting dbus-daemon: the program as a C string of its own (an argv element, an execv path, a
# g_find_program_in_path() argument), or the first element of a Python argv list.
DBUS_DAEMON_C = re.compile(r"\"(/usr/bin/)?dbus-daemon\"")
DBUS_DAEMON_PY = re.compile(r"\[\s*[\"'](/usr/bin/)?dbus-daemon[\"']")
DBUS_DAEMON_PYTHON_HARNESS = "tests/gtk/appworld.py"


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True,
                          text=True).stdout


def code_lines(text: str) -> List[str]:
    """The lines of C or Python source, with comments blanked (so that a mention is no call)."""
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return [re.sub(r"(^|\s)(//|#(?!include)).*$", "", line) for line in text.split("\n")]


class Tap:
    def __init__(self) -> None:
        self.n = 0
        self.failed = 0

    def check(self, name: str, offenders: List[str]) -> None:
        self.n += 1
        if offenders:
            self.failed += 1
            print(f"not ok {self.n} - {name}")
            for o in offenders:
                print(f"#   {o}")
        else:
            print(f"ok {self.n} - {name}")


def tracked_sources(files: List[str]) -> List[str]:
    return [f for f in files if f.endswith((".c", ".h", ".py"))]


def check_sizes(root: Path, files: List[str]) -> List[str]:
    out = []
    for f in tracked_sources(files):
        p = root / f
        if not p.is_file():
            continue
        with open(p, "rb") as fh:
            n = sum(1 for _ in fh)
        if n > MAX_LINES:
            out.append(f"{f}: {n} lines (at most {MAX_LINES})")
    return out


def grep(root: Path, files: List[str], pattern: "re.Pattern[str]",
         allowed: Callable[[str], bool]) -> List[str]:
    """path:line of each code line matching pattern in a file allowed() refuses."""
    out = []
    for f in files:
        p = root / f
        if allowed(f) or not p.is_file():
            continue
        for i, line in enumerate(code_lines(p.read_text(errors="replace")), 1):
            if pattern.search(line):
                out.append(f"{f}:{i}: {line.strip()}")
    return out


def check_file_replace(root: Path, files: List[str]) -> List[str]:
    c_files = [f for f in files if f.endswith((".c", ".h"))]
    return grep(root, c_files, FILE_REPLACE_CALL, lambda f: bool(FILE_REPLACE_ALLOWED.match(f)))


def check_dbus_daemon(root: Path, files: List[str]) -> List[str]:
    c_starters = sorted({hit.split(":")[0] for hit in grep(
        root, [f for f in files if f.endswith(".c")], DBUS_DAEMON_C, lambda f: False)})
    py_starters = sorted({hit.split(":")[0] for hit in grep(
        root, [f for f in files if f.endswith(".py")], DBUS_DAEMON_PY, lambda f: False)})
    out = []
    c_in_lib = [f for f in c_starters if f.startswith("tests/lib/")]
    for f in c_starters:
        if not f.startswith("tests/lib/"):
            out.append(f"{f}: starts dbus-daemon outside tests/lib (use the harness there)")
    if len(c_in_lib) > 1:
        out.append("more than one C file in tests/lib starts dbus-daemon: " + ", ".join(c_in_lib))
    for f in py_starters:
        if f != DBUS_DAEMON_PYTHON_HARNESS:
            out.append(f"{f}: starts dbus-daemon outside {DBUS_DAEMON_PYTHON_HARNESS}")
    return out


def check_files_exist(root: Path) -> List[str]:
    return [f"{name}: missing" for name in ("LICENSE", "NEWS") if not (root / name).is_file()]


def check_subjects(root: Path) -> List[str]:
    try:
        git(root, "rev-parse", "--verify", "--quiet", CUTOFF_COMMIT + "^{commit}")
    except subprocess.CalledProcessError:
        return [f"commit {CUTOFF_COMMIT} not in this clone's history (a shallow clone? fetch it all)"]
    out = []
    for line in git(root, "log", "--format=%h %s", f"{CUTOFF_COMMIT}..HEAD").splitlines():
        commit, _, subject = line.partition(" ")
        if len(subject) > MAX_SUBJECT:
            out.append(f"{commit}: subject of {len(subject)} characters (at most {MAX_SUBJECT}): {subject}")
    return out


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    root = Path(sys.argv[1])
    print("1..5")
    try:
        files = git(root, "ls-files", "-z").split("\0")
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"Bail out! {root} is not a git checkout git can read ({e}): the layout is git's tree")
        return 1
    files = [f for f in files if f]
    tap = Tap()
    tap.check(f"no tracked .c/.h/.py over {MAX_LINES} lines", check_sizes(root, files))
    tap.check("file_replace() called from the rc-edit transaction and the names state file only", check_file_replace(root, files))
    tap.check("dbus-daemon started from one C harness in tests/lib and appworld.py",
              check_dbus_daemon(root, files))
    tap.check("LICENSE and NEWS exist", check_files_exist(root))
    tap.check(f"commit subjects after {CUTOFF_COMMIT} at most {MAX_SUBJECT} characters", check_subjects(root))
    return 1 if tap.failed else 0


if __name__ == "__main__":
    os.environ.setdefault("LC_ALL", "C.UTF-8")
    sys.exit(main())
