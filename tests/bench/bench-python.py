# SPDX-License-Identifier: LGPL-2.1-or-later
"""Benchmark of nvprofiled.ncu_report beside NVIDIA's ncu_report, the same
script through both modules in one run: import the module, load_report, then
read every metric's value and every instance value with its correlation id.

For each report, each module in fresh interpreters:
  - in process: import + load_report + reading everything, timed inside the
    interpreter (best of a few interpreters), and load_report alone;
  - whole process: python3 start to exit, wall and CPU time (user + system:
    what a busy machine distorts least) and peak RSS.
NVIDIA's module is measured only where its folder is given (the environment
variable NVPROFILED_BENCH_NCU_REPORT, e.g. ncu's extras/python, or
--nvidia DIR); it is NVIDIA's, so never in CI. Prints figures and the ratios
ours/NVIDIA's; asserts nothing.

Usage: bench-python.py CORPUS_DIR [--synth PROGRAM] [--nvidia DIR] [REPORT...]
Without REPORTs: every corpus report; --synth adds synthetic reports of 100
and 10,000 results (the extrap report's results repeated).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

SYNTHETIC_SOURCE = "extrap_ex-gpu.s10_ncu2020.3.1.ncu-rep"
IN_PROCESS_RUNS = 3
WHOLE_PROCESS_RUNS = 3


def import_module(which: str, nvidia_dir: str | None):
    """The module a user's script imports: ours, or NVIDIA's from its
    folder."""
    if which == "nvidia":
        assert nvidia_dir
        sys.path.insert(0, nvidia_dir)
        import ncu_report  # type: ignore[import-not-found]
        return ncu_report
    import nvprofiled.ncu_report as ncu_report
    return ncu_report


def read_everything(module, path: str) -> tuple[int, float]:
    """Loads the report and reads every value: the number of metrics and
    the seconds load_report took."""
    reads = 0
    start = time.perf_counter()
    ctx = module.load_report(path)
    loaded = time.perf_counter() - start
    for i in range(ctx.num_ranges()):
        rng = ctx.range_by_idx(i)
        for j in range(rng.num_actions()):
            action = rng.action_by_idx(j)
            for name in action.metric_names():
                metric = action.metric_by_name(name)
                metric.value()
                reads += 1
                count = metric.num_instances()
                if count:
                    ids = metric.correlation_ids()
                    for k in range(count):
                        metric.value(k)
                        if ids is not None:
                            ids.value(k)
    return reads, loaded


def peak_rss_kb() -> int:
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def child(which: str, nvidia_dir: str | None, path: str) -> None:
    """One fresh interpreter: import, load and read once; prints the metrics
    read, the seconds of all three, of load_report, and the peak RSS."""
    start = time.perf_counter()
    module = import_module(which, nvidia_dir)
    reads, load = read_everything(module, path)
    total = time.perf_counter() - start
    print(f"{reads} {total:.6f} {load:.6f} {peak_rss_kb()}")


def run_child(which: str, nvidia_dir: str | None,
              path: str) -> tuple[int, float, float, int, float, float]:
    """Metrics read, in-process seconds, load_report seconds, peak kB, and
    the whole process's wall and CPU seconds."""
    argv = [sys.executable, __file__, "--child", which, nvidia_dir or "-",
            path]
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
    out = proc.stdout.read() if proc.stdout else ""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{which} on {path}: exit status "
                           f"{os.waitstatus_to_exitcode(status)}")
    reads, total, load, kb = out.split()
    return (int(reads), float(total), float(load), int(kb), wall,
            usage.ru_utime + usage.ru_stime)


def measure(which: str, nvidia_dir: str | None, path: str) -> dict:
    runs = [run_child(which, nvidia_dir, path)
            for _ in range(max(IN_PROCESS_RUNS, WHOLE_PROCESS_RUNS)
                           if os.path.getsize(path) < 10 << 20 else 1)]
    return {
        "reads": runs[0][0],
        "in_process": min(r[1] for r in runs),
        "load": min(r[2] for r in runs),
        "kb": max(r[3] for r in runs),
        "wall": min(r[4] for r in runs),
        "cpu": min(r[5] for r in runs),
    }


def describe(label: str, m: dict) -> str:
    return (f"{label:7} in process {m['in_process'] * 1e3:8.1f} ms "
            f"(load_report {m['load'] * 1e3:7.1f} ms); whole process "
            f"{m['wall'] * 1e3:8.1f} ms wall {m['cpu'] * 1e3:8.1f} ms CPU "
            f"{m['kb'] / 1024:7.1f} MB")


def main() -> int:
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        child(sys.argv[2], None if sys.argv[3] == "-" else sys.argv[3],
              sys.argv[4])
        return 0
    args = sys.argv[1:]
    corpus, args = args[0], args[1:]
    synth = None
    nvidia_dir = os.environ.get("NVPROFILED_BENCH_NCU_REPORT") or None
    while args[:1] in (["--synth"], ["--nvidia"]):
        if args[0] == "--synth":
            synth = args[1]
        else:
            nvidia_dir = args[1]
        args = args[2:]
    reports = args
    if not reports:
        folder = os.path.join(corpus, "reports")
        reports = sorted(os.path.join(folder, n) for n in os.listdir(folder)
                         if n.endswith(".ncu-rep"))
    tmp = None
    if synth:
        tmp = tempfile.TemporaryDirectory(prefix="nvprofiled-bench-python-")
        for count in (100, 10000):
            path = os.path.join(tmp.name, f"synthetic-{count}.ncu-rep")
            subprocess.run([synth, os.path.join(corpus, "reports",
                                                SYNTHETIC_SOURCE),
                            str(count), path], check=True,
                           stdout=subprocess.DEVNULL)
            reports.append(path)
    print(f"python3 {sys.version.split()[0]}; the best of "
          f"{IN_PROCESS_RUNS} fresh interpreters per module and report; "
          + (f"NVIDIA's module from {nvidia_dir}" if nvidia_dir else
             "NVIDIA's module not given (NVPROFILED_BENCH_NCU_REPORT=DIR)"))
    try:
        for path in reports:
            ours = measure("ours", nvidia_dir, path)
            print(f"{os.path.basename(path)} ({os.path.getsize(path):,} "
                  f"bytes, {ours['reads']} metrics)")
            print("  " + describe("ours", ours))
            if not nvidia_dir:
                continue
            try:
                theirs = measure("nvidia", nvidia_dir, path)
            except RuntimeError as e:
                print(f"  NVIDIA  failed: {e}")
                continue
            print("  " + describe("NVIDIA", theirs))
            print(f"  ours: {theirs['in_process'] / ours['in_process']:.1f}x "
                  f"faster in process (import included), "
                  f"{theirs['wall'] / ours['wall']:.1f}x whole process "
                  f"({theirs['cpu'] / ours['cpu']:.1f}x by CPU), "
                  f"{theirs['kb'] / ours['kb']:.1f}x less memory")
    finally:
        if tmp:
            tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
