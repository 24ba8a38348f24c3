#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The desktop app's idle cost: nvprofiled-gtk on the real daemon over the usage fixture of its end-to-end
test (tests/gtk/appworld.py), under Xvfb. With the window shown (a WatchUsage descriptor, 1 s samples): the
daemon's and the app's CPU time per second; hidden: the same, and the daemon's samples taken meanwhile
(the aim: none). Prints figures, asserts nothing. Usage: bench-gtk-idle.py [SECONDS] (default 20)."""

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gtk"))
from appworld import ROOT_PATH, AppWorld, wait_for  # noqa: E402


def cpu_seconds(pid):
    """Time on a CPU, in ns (schedstat), of the process's main thread and every other thread."""
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                total += int(f.read().split()[0])
        except (OSError, ValueError):
            pass
    return total / 1e9


def samples(w):
    return w.busctl("get-property", ROOT_PATH, "Usage", "Samples")


def measure(w, seconds):
    pids = {"daemon": w.daemon.pid, "app": w.app.pid}
    before = {k: cpu_seconds(p) for k, p in pids.items()}
    s0, t0 = samples(w), time.monotonic()
    time.sleep(seconds)
    elapsed = time.monotonic() - t0
    s1 = samples(w)
    return {k: (cpu_seconds(p) - before[k]) / elapsed * 1000 for k, p in pids.items()}, s1 - s0, elapsed


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 20.0
    w = AppWorld()
    try:
        w.start_x_and_session()
        w.start_daemon(rescan="5min", log_level="warning")
        w.start_app()
        wait_for("the app's watch", lambda: w.watchers() == 1)
        time.sleep(2)  # start-up and the first refreshes are not idle cost
        shown, shown_samples, t = measure(w, seconds)
        print(f"window shown, 1 s refresh, {t:.1f} s: daemon {shown['daemon']:.2f} ms CPU/s, "
              f"app {shown['app']:.2f} ms CPU/s, {shown_samples} daemon samples")
        w.app_action("hide")
        wait_for("the watch released", lambda: w.watchers() == 0)
        time.sleep(1)
        hidden, hidden_samples, t = measure(w, seconds)
        print(f"window hidden, {t:.1f} s: daemon {hidden['daemon']:.2f} ms CPU/s, "
              f"app {hidden['app']:.2f} ms CPU/s, {hidden_samples} daemon samples")
        w.app_action("quit")
        w.app.wait(timeout=30)
    finally:
        w.teardown()


if __name__ == "__main__":
    main()
