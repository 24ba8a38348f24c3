#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Runs one test (its command line) so that nothing it started outlives it, even when it fails.

meson runs every test through this (add_test_setup in tests/meson.build). A test that aborts, or that
meson kills at its timeout, cannot clean up after itself, and PR_SET_PDEATHSIG does not help: the kernel
clears it when a child changes credentials, as the daemon does. So this wrapper is a child subreaper
(PR_SET_CHILD_SUBREAPER): whatever the test leaves behind is re-parented here rather than to PID 1, reaped
while the test runs, and killed when it ends. It also gives the test a temporary directory of its own
(TMPDIR, 1777 like /tmp: tests run parts as other users) and removes it at the end, after unmounting
anything a test left mounted below it, so no /tmp/nvprofiled-* directory is left either. The test's exit
status (or the signal that ended it) is passed on.

    test-reaper.py COMMAND [ARG...]
"""
import ctypes
import os
import shutil
import signal
import sys
import tempfile

PR_SET_CHILD_SUBREAPER = 36


def children():
    me = os.getpid()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        # The fields after the command name, which is in parentheses and may hold anything.
        fields = stat[stat.rindex(b")") + 2:].split()
        if int(fields[1]) == me:
            found.append(int(entry))
    return found


def kill_leftovers():
    """SIGKILLs our children until none is left: their own children come to us when they die."""
    left = []
    for _ in range(100):
        pids = children()
        if not pids:
            break
        for pid in pids:
            try:
                with open(f"/proc/{pid}/comm") as f:
                    left.append(f"{pid} ({f.read().strip()})")
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        for pid in pids:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass
    return left


def unmount_below(path):
    mounts = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            point = line.split()[4].encode().decode("unicode_escape")
            if point == path or point.startswith(path + "/"):
                mounts.append(point)
    for point in sorted(mounts, reverse=True):
        os.spawnvp(os.P_WAIT, "umount", ["umount", "--lazy", point])
    return mounts


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        sys.exit(f"prctl(PR_SET_CHILD_SUBREAPER): {os.strerror(ctypes.get_errno())}")

    tmp = tempfile.mkdtemp(prefix="nvprofiled-run-", dir=os.environ.get("TMPDIR", "/tmp"))
    os.chmod(tmp, 0o1777)
    env = dict(os.environ, TMPDIR=tmp)

    test = os.fork()
    if test == 0:
        try:
            os.execvpe(sys.argv[1], sys.argv[1:], env)
        except OSError as e:
            print(f"test-reaper: cannot run {sys.argv[1]}: {e}", file=sys.stderr)
        os._exit(127)

    # meson stops a test that runs over its time with SIGTERM: the test gets it, then we clean up.
    def forward(signum, frame):
        try:
            os.kill(test, signum)
        except ProcessLookupError:
            pass

    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(s, forward)

    status = None
    while status is None:
        try:
            pid, st = os.wait()
        except ChildProcessError:
            break
        except InterruptedError:
            continue
        if pid == test:
            status = st

    left = kill_leftovers()
    if left:
        print(f"test-reaper: killed what the test left running: {', '.join(left)}", file=sys.stderr)
    mounted = unmount_below(tmp)
    if mounted:
        print(f"test-reaper: unmounted what the test left mounted: {', '.join(mounted)}", file=sys.stderr)
    shutil.rmtree(tmp, ignore_errors=True)

    if status is None:
        sys.exit(1)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
    sys.exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)


main()
