#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The include graph between daemon/'s folders, from the #include lines: no circle, and only the
dependencies HACKING.md's "Layout" allows.

  check-include-graph.py SOURCE_ROOT [--add-include FILE=HEADER]... [--expect-failure] [--graph]

Each folder under daemon/ is a node; daemon/manager's jobs (core/, profiles/, usage/, sections/,
reports/) are nodes of their own, and daemon/manager's own files (manager.c, the thin object that wires
the jobs) another. A quoted #include is resolved as the compiler does with meson's flat include
directories: beside the including file first, then by its name anywhere under daemon/ (a header name
must be unique there). Headers that are not in the tree (generated ones, system ones) are no node.

Fails, naming the files that make each offending edge:
1. on any circle between nodes (a strongly connected set of more than one folder), and
2. on any edge that ALLOWED below does not list: the domains (appprofile, procwatch, drm,
   nvml, nsight) include only daemon/shared, never each other; the manager wires them; a job includes
   core/ and the domains, and another job only where ALLOWED says (usage subscribes to profiles'
   process events); bus/ includes the manager and the domains; the program includes bus/ and below.

--add-include pretends FILE (relative to SOURCE_ROOT) also includes HEADER, to see the check fail on a
circle made on purpose; with --expect-failure the exit status is 0 exactly when the check fails.
--graph also prints every edge between folders with the number of #include lines that make it.
"""

import argparse
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import Dict, List, Set, Tuple

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)

DOMAINS = ["appprofile", "procwatch", "drm", "nvml", "nsight"]
JOBS = ["manager/profiles", "manager/usage", "manager/sections", "manager/reports"]

# node -> the nodes it may include (besides itself).
ALLOWED: Dict[str, Set[str]] = {
    "shared": set(),
    **{d: {"shared"} for d in DOMAINS},
    "manager/core": {"shared", *DOMAINS},
    "manager/profiles": {"shared", *DOMAINS, "manager/core"},
    # Usage follows processes as an observer of profiles (profiles/process-observers.h).
    "manager/usage": {"shared", *DOMAINS, "manager/core", "manager/profiles"},
    "manager/sections": {"shared", *DOMAINS, "manager/core"},
    "manager/reports": {"shared", *DOMAINS, "manager/core"},
    "manager": {"shared", *DOMAINS, "manager/core", *JOBS},
    "bus": {"shared", *DOMAINS, "manager/core", *JOBS},
    "daemon": {"shared", "manager/core", "bus"},
}


def node_of(path: Path, daemon: Path) -> str:
    rel = path.relative_to(daemon).parts
    if len(rel) == 1:
        return "daemon"  # the program, daemon/nvprofiled.c
    if rel[0] == "manager" and len(rel) > 2:
        return "manager/" + rel[1]
    return rel[0]


def collect(root: Path, added: List[Tuple[str, str]]):
    daemon = root / "daemon"
    sources = sorted(p for p in daemon.rglob("*") if p.suffix in (".c", ".h") and p.is_file())
    by_name: Dict[str, List[Path]] = defaultdict(list)
    for p in sources:
        if p.suffix == ".h":
            by_name[p.name].append(p)
    problems = [f"header name {name} is not unique: " + ", ".join(str(p.relative_to(root)) for p in paths)
                for name, paths in sorted(by_name.items()) if len(paths) > 1]

    includes: Dict[Path, List[str]] = {p: INCLUDE.findall(p.read_text(errors="replace")) for p in sources}
    for file, header in added:
        p = root / file
        if p not in includes:
            sys.exit(f"--add-include: {file} is not a source under daemon/")
        includes[p].append(header)

    # (from node, to node) -> the "file includes header" lines that make the edge
    edges: Dict[Tuple[str, str], List[str]] = defaultdict(list)
    for p, names in includes.items():
        for name in names:
            beside = p.parent / name
            found = by_name.get(Path(name).name)
            target = beside if beside.is_file() else (found[0] if found else None)
            if target is None or daemon not in target.parents:
                continue
            a, b = node_of(p, daemon), node_of(target, daemon)
            if a != b:
                edges[(a, b)].append(f"{p.relative_to(root)} includes {name}")
    return edges, problems


def circles(nodes: Set[str], edges) -> List[List[str]]:
    """Strongly connected sets of more than one node (Tarjan)."""
    succ: Dict[str, List[str]] = defaultdict(list)
    for a, b in edges:
        succ[a].append(b)
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on_stack: Set[str] = set()
    found: List[List[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(succ[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            scc = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                scc.append(w)
                if w == v:
                    break
            if len(scc) > 1:
                found.append(sorted(scc))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return found


def check(root: Path, added: List[Tuple[str, str]], graph: bool = False) -> List[str]:
    edges, problems = collect(root, added)
    if graph:
        for (a, b), why in sorted(edges.items()):
            print(f"{a} -> {b} ({len(why)})")
    nodes = {n for e in edges for n in e}
    for scc in circles(nodes, edges):
        lines = [f"circle between folders: {' <-> '.join(scc)}"]
        for (a, b), why in sorted(edges.items()):
            if a in scc and b in scc:
                more = f" (and {len(why) - 1} more)" if len(why) > 1 else ""
                lines.append(f"  {a} -> {b}: {why[0]}{more}")
        problems.append("\n".join(lines))
    for a in sorted(nodes - ALLOWED.keys()):
        problems.append(f"folder daemon/{a} is not in the layout (ALLOWED in {Path(__file__).name})")
    for (a, b), why in sorted(edges.items()):
        if a in ALLOWED and b not in ALLOWED[a]:
            problems.append(f"daemon/{a} may not include daemon/{b}: " + "; ".join(why))
    return problems


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root", type=Path)
    ap.add_argument("--add-include", action="append", default=[], metavar="FILE=HEADER")
    ap.add_argument("--expect-failure", action="store_true")
    ap.add_argument("--graph", action="store_true")
    args = ap.parse_args()
    added = [tuple(a.split("=", 1)) for a in args.add_include]
    problems = check(args.root.resolve(), added, args.graph)  # type: ignore[arg-type]
    for p in problems:
        print(p)
    if args.expect_failure:
        print("failed as expected" if problems else "passed, but a failure was expected")
        return 0 if problems else 1
    if not problems:
        print("include graph: no circle, every edge allowed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
