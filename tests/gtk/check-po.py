#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The app's translations are complete and current: each LANG.po of LINGUAS passes `msgfmt --check` with
every message translated (no untranslated or fuzzy entry), and holds exactly the messages the sources
have now (xgettext over POTFILES.in with meson's own glib preset, as `ninja nvprofiled-gtk-pot` runs it);
the built desktop entry and AppStream metadata (i18n.merge_file) carry each language.
Usage: check-po.py PO_DIR SOURCE_ROOT PACKAGE DESKTOP_FILE METAINFO_FILE"""

import os
import re
import subprocess
import sys
import tempfile

from mesonbuild.modules.i18n import PRESET_ARGS  # the keywords `ninja PACKAGE-pot` passes, not a copy


def main():
    po_dir, source_root, package, desktop_file, metainfo_file = sys.argv[1:6]
    with open(desktop_file) as f:
        desktop = f.read()
    with open(metainfo_file) as f:
        metainfo = f.read()
    with open(os.path.join(po_dir, "LINGUAS")) as f:
        langs = [w for line in f for w in line.split("#", 1)[0].split()]
    failures = []
    if not langs:
        failures.append("LINGUAS lists no language")
    with tempfile.TemporaryDirectory() as tmp:
        pot = os.path.join(tmp, package + ".pot")
        subprocess.run(["xgettext", "--package-name=" + package, "-f", os.path.join(po_dir, "POTFILES.in"),
                        "-D", source_root, "-k_", "-o", pot, *PRESET_ARGS["glib"]], check=True)
        for lang in langs:
            po = os.path.join(po_dir, lang + ".po")
            r = subprocess.run(["msgfmt", "--check", "--statistics", "-o", os.devnull, po],
                               capture_output=True, text=True)
            stats = r.stderr.strip()
            print(f"# {lang}: {stats}")
            if r.returncode != 0 or re.search(r"untranslated|fuzzy", stats):
                failures.append(f"{lang}.po: {stats}")
            if f"\nComment[{lang}]=" not in desktop:
                failures.append(f"{desktop_file} has no Comment[{lang}]")
            if f'<summary xml:lang="{lang}">' not in metainfo:
                failures.append(f"{metainfo_file} has no summary in {lang}")
            # Every message of the sources is in the catalogue, translated ...
            r = subprocess.run(["msgcmp", po, pot], capture_output=True, text=True)
            if r.returncode != 0:
                failures.append(f"{lang}.po lacks messages of the sources (ninja {package}-update-po):\n{r.stderr}")
            # ... and nothing else: no message the sources no longer have.
            r = subprocess.run(["msgcmp", "--use-untranslated", pot, po], capture_output=True, text=True)
            if r.returncode != 0:
                failures.append(f"{lang}.po has messages the sources no longer have:\n{r.stderr}")
    for f in failures:
        print(f"# {f}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
