#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copies a checkout as a user has it into DEST (an empty folder): its history (a clone), its tracked and
# untracked files, not what git ignores (no build directories); outside git, everything but build*. The test roots (tests/system, the fresh root of
# scripts/test-in-fresh-root.sh) get the checkout this way.
#
#   copy-checkout.sh SOURCE_DIR DEST_DIR
set -euo pipefail

src=$1
dest=$2
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    # The history too, as a clone has it: tests/layout reads the tracked files and the commit subjects.
    # DEST is empty; the index is HEAD's tree, the files below are the checkout's own.
    git clone --quiet --no-checkout --no-hardlinks "$src" "$dest"
    git -C "$dest" reset --quiet
    git -C "$src" ls-files -z --cached --others --exclude-standard |
        (cd "$src" && tar --null --no-recursion -T - -cf - 2>/dev/null) | tar -C "$dest" -xf -
else
    tar -C "$src" --exclude='./build*' -cf - . | tar -C "$dest" -xf -
fi
