# SPDX-License-Identifier: LGPL-2.1-or-later
"""Benchmark of nvprofiled.ncu_report: load_report and reading every metric
value (each metric's value and every instance value with its correlation
id) of the largest corpus report, timed, and the peak memory of the whole
process, next to NVIDIA's ncu_report measured on this machine (sobelFloat,
839 metrics: 0.49 s and 101 MB for the whole process).

With --synth BENCH_PYTHON_SYNTH, also the synthetic reports of 100 and
10,000 results (the extrap report's results repeated; NVIDIA's module
measured here on a 100-result report: 0.58 s, 100 MB).

Usage: bench-python.py CORPUS_DIR [--synth PROGRAM] [REPORT...]
Each report runs in a fresh interpreter: its peak RSS (VmHWM, which execve
resets) and its wall time from start to exit are the whole process's.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

NVIDIA_SECONDS = {"nvidia_example_sobelFloat_ncu2023.3.0.ncu-rep": 0.49,
                  "synthetic-100.ncu-rep": 0.58}
NVIDIA_MB = {"nvidia_example_sobelFloat_ncu2023.3.0.ncu-rep": 101.0,
             "synthetic-100.ncu-rep": 100.0}
SYNTHETIC_SOURCE = "extrap_ex-gpu.s10_ncu2020.3.1.ncu-rep"
ROUNDS = 20


def read_everything(path: str) -> tuple[int, float]:
    """Loads the report and reads every value: the number of metrics and
    the seconds load_report took."""
    import nvprofiled.ncu_report as ncu_report
    reads = 0
    start = time.perf_counter()
    ctx = ncu_report.load_report(path)
    loaded = time.perf_counter() - start
    for rng in ctx:
        for action in rng:
            for name in action.metric_names():
                metric = action.metric_by_name(name)
                metric.value()
                reads += 1
                count = metric.num_instances()
                if count:
                    ids = metric.correlation_ids()
                    for i in range(count):
                        metric.value(i)
                        if ids is not None:
                            ids.value(i)
    return reads, loaded


def child(path: str) -> None:
    start = time.perf_counter()
    import nvprofiled.ncu_report  # noqa: F401 - the import is part of the cost
    imported = time.perf_counter()
    reads, load = read_everything(path)
    first = time.perf_counter()
    best = first - imported
    best_load = load
    rounds = ROUNDS if first - imported < 1.0 else 2
    for _ in range(rounds):
        t = time.perf_counter()
        _, load = read_everything(path)
        best = min(best, time.perf_counter() - t)
        best_load = min(best_load, load)
    peak_kb = peak_rss_kb()
    print(f"{reads} {imported - start:.6f} {first - imported:.6f} "
          f"{best:.6f} {best_load:.6f} {peak_kb}")


def peak_rss_kb() -> int:
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def interpreter_kb() -> int:
    out = subprocess.run([sys.executable, __file__, "--bare"],
                         capture_output=True, text=True, check=True)
    return int(out.stdout)


def _timed(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True)
    return time.perf_counter() - start


def whole_process(path: str) -> tuple[float, float, int]:
    """Wall time, CPU time (user + system: what a busy machine distorts
    least) and peak RSS of a process that only loads the report and reads
    every value once."""
    start = time.perf_counter()
    child_process = subprocess.Popen(
        [sys.executable, __file__, "--once", path], stdout=subprocess.PIPE,
        text=True)
    out = child_process.stdout.read()
    _, status, usage = os.wait4(child_process.pid, 0)
    child_process.returncode = os.waitstatus_to_exitcode(status)
    if child_process.returncode != 0:
        raise RuntimeError(f"{path}: exit status {child_process.returncode}")
    return (time.perf_counter() - start, usage.ru_utime + usage.ru_stime,
            int(out))


def main() -> int:
    if len(sys.argv) >= 3 and sys.argv[1] == "--child":
        child(sys.argv[2])
        return 0
    if len(sys.argv) >= 3 and sys.argv[1] == "--once":
        read_everything(sys.argv[2])
        print(peak_rss_kb())
        return 0
    if len(sys.argv) >= 2 and sys.argv[1] == "--bare":
        print(peak_rss_kb())
        return 0
    corpus = sys.argv[1]
    reports = sys.argv[2:]
    synth = None
    if reports[:1] == ["--synth"]:
        synth, reports = reports[1], reports[2:]
    if not reports:
        folder = os.path.join(corpus, "reports")
        names = [n for n in os.listdir(folder) if n.endswith(".ncu-rep")]
        largest = max(names, key=lambda n: os.path.getsize(
            os.path.join(folder, n)))
        reports = [os.path.join(folder, largest)]
    tmp = None
    if synth:
        tmp = tempfile.TemporaryDirectory()
        for count in (100, 10000):
            path = os.path.join(tmp.name, f"synthetic-{count}.ncu-rep")
            subprocess.run([synth, os.path.join(corpus, "reports",
                                                SYNTHETIC_SOURCE),
                            str(count), path], check=True,
                           stdout=subprocess.DEVNULL)
            reports.append(path)
    bare = interpreter_kb()
    bare_wall = min(_timed([sys.executable, "-c", "pass"]) for _ in range(5))
    print(f"python3 alone: start to exit best of 5 {bare_wall * 1e3:.1f} ms;"
          f" peak RSS of this script's interpreter {bare / 1024:.1f} MB")
    for path in reports:
        out = subprocess.run([sys.executable, __file__, "--child", path],
                             capture_output=True, text=True, check=True)
        reads, import_s, first_s, best_s, load_s, peak_kb = \
            out.stdout.split()
        name = os.path.basename(path)
        first, best, mb = float(first_s), float(best_s), int(peak_kb) / 1024
        load = float(load_s)
        rounds = ROUNDS if first < 1.0 else 2
        print(f"{name} ({os.path.getsize(path):,} bytes): {reads} metrics; "
              f"import {float(import_s) * 1e3:.1f} ms; load_report + read "
              f"every value: first {first * 1e3:.1f} ms, best of {rounds} "
              f"{best * 1e3:.1f} ms (load_report {load * 1e3:.1f} ms, "
              f"reading {(best - load) * 1e3:.1f} ms); peak RSS {mb:.1f} MB "
              f"(whole process)")
        runs = [whole_process(path)
                for _ in range(10 if os.path.getsize(path) < 10 << 20 else 2)]
        wall = min(r[0] for r in runs)
        cpu = min(r[1] for r in runs)
        whole_mb = max(r[2] for r in runs) / 1024
        print(f"  whole process (start python3, import, load, read every "
              f"value, exit): best {wall * 1e3:.1f} ms wall, "
              f"{cpu * 1e3:.1f} ms CPU, peak RSS {whole_mb:.1f} MB")
        if name in NVIDIA_SECONDS:
            print(f"  NVIDIA ncu_report: {NVIDIA_SECONDS[name]} s, "
                  f"{NVIDIA_MB[name]:.0f} MB -> ours, whole process: "
                  f"{NVIDIA_SECONDS[name] / wall:.1f}x faster (wall), "
                  f"{NVIDIA_SECONDS[name] / cpu:.1f}x (CPU), "
                  f"{NVIDIA_MB[name] / whole_mb:.1f}x less memory")
    return 0


if __name__ == "__main__":
    sys.exit(main())
