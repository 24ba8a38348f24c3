#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Prints, in deb822 form, the entries of this machine's apt sources that serve SUITE (and its -updates
and -security suites), so that the test's root is built from the mirror this machine is configured to
use. Other repositories (third-party ones with keyrings the root does not have) are left out.

    mirror-sources.py SUITE [SOURCES_DIR]      (SOURCES_DIR: /etc/apt by default)
"""
import glob
import os
import sys


def deb822_stanzas(text):
    stanza = {}
    key = None
    for line in text.splitlines() + [""]:
        if line.startswith("#"):
            continue
        if not line.strip():
            if stanza:
                yield stanza
            stanza, key = {}, None
        elif line[0] in " \t" and key:
            stanza[key] += "\n" + line.strip()
        elif ":" in line:
            key, value = line.split(":", 1)
            key = key.strip().lower()
            stanza[key] = value.strip()


def one_line_entries(text):
    for line in text.splitlines():
        words = line.split("#", 1)[0].split()
        if not words or words[0] != "deb":
            continue
        words = words[1:]
        options = {}
        if words and words[0].startswith("["):
            opts = []
            while words:
                w = words.pop(0)
                opts.append(w)
                if w.endswith("]"):
                    break
            for o in " ".join(opts).strip("[] ").split():
                if "=" in o:
                    k, v = o.split("=", 1)
                    options[k.lower()] = v
        if len(words) < 2:
            continue
        entry = {"types": "deb", "uris": words[0], "suites": words[1], "components": " ".join(words[2:])}
        if "signed-by" in options:
            entry["signed-by"] = options["signed-by"]
        yield entry


def main():
    suite = sys.argv[1]
    apt = sys.argv[2] if len(sys.argv) > 2 else "/etc/apt"
    entries = []
    if os.path.exists(os.path.join(apt, "sources.list")):
        entries += one_line_entries(open(os.path.join(apt, "sources.list")).read())
    for path in sorted(glob.glob(os.path.join(apt, "sources.list.d", "*.list"))):
        entries += one_line_entries(open(path).read())
    for path in sorted(glob.glob(os.path.join(apt, "sources.list.d", "*.sources"))):
        entries += deb822_stanzas(open(path).read())

    wanted = {suite, suite + "-updates", suite + "-security"}
    out = []
    for e in entries:
        if e.get("enabled", "yes").lower() == "no" or "deb" not in e.get("types", "").split():
            continue
        suites = [s for s in e.get("suites", "").split() if s in wanted]
        if not suites:
            continue
        stanza = ["Types: deb", "URIs: " + e["uris"], "Suites: " + " ".join(suites),
                  "Components: " + (e.get("components") or "main")]
        if "signed-by" in e and "\n" not in e["signed-by"]:
            stanza.append("Signed-By: " + e["signed-by"])
        out.append("\n".join(stanza))
    if not out:
        sys.exit(f"no apt source for {suite} in {apt}/sources.list or {apt}/sources.list.d")
    print("\n\n".join(out))


main()
