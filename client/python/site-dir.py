#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Where the package goes under a prefix: a folder this python3 searches, when it searches one there.

    site-dir.py PREFIX PROPOSED

PROPOSED: what meson's python module proposes, PREFIX joined with the platlib path of its install scheme.
On Debian that is the deb_system scheme's lib/python3/dist-packages, which python3 searches under /usr
only: under /usr/local it searches lib/python3.X/dist-packages (the posix_local scheme, pip's). So this
prints PROPOSED where python3 searches it, else the first folder python3 searches below PREFIX (its site
folders, whether they exist yet or not: site adds them when they do), else PROPOSED (a prefix python3
never looks in, such as /opt/x: `import nvprofiled` then needs PYTHONPATH, meson says so).
"""
import os
import site
import sys


def site_dir(prefix: str, proposed: str) -> str:
    searched = [os.path.normpath(p) for p in site.getsitepackages()]
    proposed = os.path.normpath(proposed)
    if proposed in searched:
        return proposed
    below = [p for p in searched if os.path.commonpath([p, os.path.normpath(prefix)]) == os.path.normpath(prefix)]
    return below[0] if below else proposed


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    print(site_dir(sys.argv[1], sys.argv[2]))
