#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Runs one test (its command line) so that nothing it started outlives it, even when it fails.

meson runs every test through this (add_test_setup in tests/meson.build). A test that aborts, or that
meson kills at its timeout, cannot clean up after itself, and PR_SET_PDEATHSIG does not help: the kernel
clears it when a child changes credentials, as the daemon does. So this wrapper is a child subreaper
(PR_SET_CHILD_SUBREAPER): whatever the test leaves behind is re-parented here rather than to PID 1, reaped
while the test runs, and killed when it ends. It also gives the test a temporary directory of its own
(TMPDIR, 1777 like /tmp: tests run parts as other users) and removes it at the end, after unmounting
anything a test left mounted below it, so no /tmp/nvprofiled-* directory is left either. The test's $HOME,
its XDG base directories and $XDG_RUNTIME_DIR are in there too, so that nothing it starts writes into the
home of whoever runs the suite (root's, in CI): not GTK's settings through dconf, nor AT-SPI's bus (in
the runtime directory, else in ~/.cache), nor Mesa's shader cache (which Mesa puts in the passwd entry's
home, whatever $HOME says, unless XDG_CACHE_HOME is set). The test's exit status (or the signal that ended
it) is passed on.

meson ends a test that runs over its time by killing its whole process group, this wrapper included, half
a second after SIGTERM. So a janitor, in a session of its own and holding nothing of the test's output,
waits for this wrapper to end however it ends, then kills every process whose environment still carries
the test's TMPDIR and removes that directory.

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


def kill_leftovers(keep):
    """SIGKILLs our children but keep until none is left: their own children come to us when they die."""
    left = []
    for _ in range(100):
        pids = [p for p in children() if p != keep]
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


def processes_of(tmp):
    """The pids whose environment has TMPDIR=tmp: everything the test started, wherever it went."""
    marker = b"TMPDIR=" + tmp.encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                if marker in f.read().split(b"\0"):
                    found.append(int(entry))
        except OSError:
            pass
    return found


def clean(tmp):
    for _ in range(100):
        pids = processes_of(tmp)
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
    mounted = unmount_below(tmp)
    shutil.rmtree(tmp, ignore_errors=True)
    return mounted


def scratch_home(tmp):
    """HOME, the XDG base directories and XDG_RUNTIME_DIR below tmp, ours alone (0700) as the real ones are.
    A test that runs a program as another user gives it a $HOME of its own, and drops these XDG_*_HOME."""
    home = os.path.join(tmp, "home")
    dirs = {"HOME": home, "XDG_CONFIG_HOME": os.path.join(home, ".config"),
            "XDG_CACHE_HOME": os.path.join(home, ".cache"), "XDG_DATA_HOME": os.path.join(home, ".local", "share"),
            "XDG_STATE_HOME": os.path.join(home, ".local", "state"), "XDG_RUNTIME_DIR": os.path.join(tmp, "runtime")}
    for path in dirs.values():
        os.makedirs(path, 0o700)
    return dirs


def start_janitor(tmp):
    """Forks the janitor; returns its pid and the pipe end whose closing (ours, however we end) wakes it."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(w)
        os.setsid()
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.read(r, 1)
        clean(tmp)
        os._exit(0)
    os.close(r)
    return pid, w


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        sys.exit(f"prctl(PR_SET_CHILD_SUBREAPER): {os.strerror(ctypes.get_errno())}")

    tmp = tempfile.mkdtemp(prefix="nvprofiled-run-", dir=os.environ.get("TMPDIR", "/tmp"))
    os.chmod(tmp, 0o1777)
    env = dict(os.environ, TMPDIR=tmp, **scratch_home(tmp))
    janitor_pid, janitor = start_janitor(tmp)

    test = os.fork()
    if test == 0:
        os.close(janitor)
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
        elif pid == janitor_pid:
            janitor_pid = None

    left = kill_leftovers(janitor_pid)
    if left:
        print(f"test-reaper: killed what the test left running: {', '.join(left)}", file=sys.stderr)
    mounted = clean(tmp)
    if mounted:
        print(f"test-reaper: unmounted what the test left mounted: {', '.join(mounted)}", file=sys.stderr)
    # The janitor finds nothing left, and is reaped: it must not outlive us either.
    os.close(janitor)
    if janitor_pid:
        os.waitpid(janitor_pid, 0)

    if status is None:
        sys.exit(1)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
    sys.exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)


main()
