#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The booted system test: nvprofiled as a user installs and runs it, under systemd as PID 1.
#
#   run-system-test.sh SOURCE_DIR CORPUS_DIR CACHE_DIR
#
# 1. A Debian 12 root from this machine's configured mirror (mmdebstrap, minbase plus what
#    `scripts/setup.sh install` needs and systemd, dbus, polkitd), kept as a tarball (about 550 MB) in
#    CACHE_DIR, keyed by the package list, the mirror and this recipe: meson passes a folder of the build
#    directory, so the root goes with the build directory and nothing is left elsewhere on the machine;
#    NVPROFILED_SYSTEM_TEST_CACHE=DIR (an opt-in) keeps it in DIR instead, for every build directory and
#    run on the machine. The first run with an empty cache builds it: a few minutes.
# 2. The checkout copied into it as /root/src, /root being 0700 as root's home is, and the checks
#    (checks.sh, run inside by nvprofiled-system-test.service) with a corpus report copied at test time.
# 3. systemd-nspawn --boot: the container's systemd runs the checks, which start with exactly
#    `scripts/setup.sh install` (the README's command) and talk to the service over the container's real
#    system bus; the unit's SuccessAction=/FailureAction=exit hand their exit status back as
#    systemd-nspawn's.
# Everything it starts is killed and everything it creates removed on any exit (trap), even a failure.
# Root only (SKIP otherwise, exit 77); without mmdebstrap or systemd-nspawn it SKIPs, or fails where
# NVPROFILED_CORPUS_REQUIRED=1 (CI), since a check that did not run must not pass.
set -euo pipefail

src=$(cd "$1" && pwd)
corpus=$2
cache=${NVPROFILED_SYSTEM_TEST_CACHE:-${3:?usage: run-system-test.sh SOURCE_DIR CORPUS_DIR CACHE_DIR}}
here=$(cd "$(dirname "$0")" && pwd)
suite=bookworm
# The whole run, boot and build inside included; the image is built before this starts counting.
boot_limit_s=${NVPROFILED_SYSTEM_TEST_LIMIT:-1200}

skip_or_fail() {
    if [ "${NVPROFILED_CORPUS_REQUIRED:-0}" = 1 ]; then
        echo "FAIL: $*" >&2
        exit 1
    fi
    echo "SKIP: $*"
    exit 77
}
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root (mmdebstrap, systemd-nspawn)"; exit 77; }
command -v mmdebstrap >/dev/null || skip_or_fail "mmdebstrap is not installed (Debian package mmdebstrap)"
command -v systemd-nspawn >/dev/null || skip_or_fail "systemd-nspawn is not installed (systemd-container)"
# systemd-nspawn makes / a slave mount in its own namespace, which the kernel refuses where / is not a
# mount point: in a chroot entered without binding its directory onto itself first. Said, and failed:
# the test cannot run there, and a test that did not run must not pass.
if ! awk '$5 == "/" { found = 1 } END { exit !found }' /proc/self/mountinfo; then
    echo "FAIL: / is not a mount point here (a chroot whose directory was not bound onto itself):" \
        "systemd-nspawn cannot boot a container from it; enter the chroot after 'mount --bind DIR DIR'," \
        "or run the system test outside it" >&2
    exit 1
fi
report=$(find "$corpus/reports" -maxdepth 1 -name '*.ncu-rep' -size -200k 2>/dev/null | sort | head -n 1)
[ -n "$report" ] || skip_or_fail "no corpus report under $corpus/reports"

# What the root holds: what setup.sh install needs (so that it installs nothing itself, though it could),
# what the service runs on and the checks use.
packages=$("$src/scripts/setup.sh" packages install | sort -u | paste -sd, -)
packages+=",polkitd,passwd,util-linux,iproute2"
mirror=$(python3 "$here/mirror-sources.py" "$suite")
key=$(printf '%s\n%s\n%s\n%s\n' "$suite" "$packages" "$mirror" "recipe 1" | sha256sum | cut -c1-16)
image=$cache/root-$suite-$key.tar

work=""
nspawn_pid=""
machine="nvptest-$$"
cleanup() {
    local status=$? p
    trap - EXIT INT TERM
    if [ -n "$nspawn_pid" ] && kill -0 "$nspawn_pid" 2>/dev/null; then
        # The container's init first: when a PID namespace's init dies, the kernel kills everything in it.
        for p in $(ps -o pid= --ppid "$nspawn_pid" 2>/dev/null); do kill -KILL "$p" 2>/dev/null || true; done
        kill -KILL "$nspawn_pid" 2>/dev/null || true
        wait "$nspawn_pid" 2>/dev/null || true
    fi
    if [ -n "$work" ]; then
        # systemd-nspawn's lock on the root directory, which it leaves when killed.
        [ ! -d "$work/root" ] || rm -f "/run/systemd/nspawn/locks/inode-$(stat -c %d:%i "$work/root")"
        # Anything still mounted below the work directory (deepest first), then the directory.
        awk -v w="$work" '$5 == w || index($5, w "/") == 1 { print $5 }' /proc/self/mountinfo | sort -r |
            while read -r p; do umount -l "$p" 2>/dev/null || true; done
        rm -rf --one-file-system "$work"
    fi
    # systemd-nspawn leaves these where /run is not a tmpfs (it refuses to remove a disk file system's
    # files), as on a host whose PID 1 is not systemd.
    rm -rf "/run/systemd/nspawn/propagate/$machine" "/run/systemd/nspawn/unix-export/$machine"
    rmdir /run/systemd/nspawn/propagate /run/systemd/nspawn/unix-export /run/systemd/nspawn/locks \
        /run/systemd/nspawn 2>/dev/null || true
    rm -f "$image.tmp"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Where earlier versions of this test kept the root for good: not any more.
rm -f /var/cache/nvprofiled-test/root-*.tar /var/cache/nvprofiled-test/root-*.tar.tmp
rmdir /var/cache/nvprofiled-test 2>/dev/null || true

work=$(mktemp -d /var/tmp/nvprofiled-system-XXXXXX)
if [ ! -f "$image" ]; then
    echo "# building the Debian $suite root (mmdebstrap, cached as $image)"
    mkdir -p "$cache"
    rm -f "$cache"/root-*.tar
    start=$(date +%s)
    printf '%s\n' "$mirror" > "$work/sources"
    # TMPDIR: mmdebstrap's own scratch root (and what it mounts there) is below the work directory, which
    # cleanup() unmounts and removes whatever happens. force-unsafe-io: dpkg without fsync, for a root
    # that is rebuilt from scratch anyway.
    TMPDIR=$work mmdebstrap --quiet --variant=minbase --format=tar --include="$packages" \
        --dpkgopt=force-unsafe-io --aptopt='Acquire::Retries "3"' "$suite" "$image.tmp" "$work/sources"
    mv "$image.tmp" "$image"
    echo "# root built in $(($(date +%s) - start)) s"
fi

root=$work/root
mkdir "$root" "$work/out"
tar -C "$root" -xpf "$image"

# The checkout as a user has it (tracked and untracked files, not what git ignores: no build
# directories), in root's 0700 home.
mkdir -p "$root/root/src"
chmod 0700 "$root/root"
"$here/../../scripts/copy-checkout.sh" "$src" "$root/root/src"

mkdir -p "$root/nvp-system-test"
cp "$here/checks.sh" "$root/nvp-system-test/"
cp "$report" "$root/nvp-system-test/report.ncu-rep"
cp "$here/nvprofiled-system-test.service" "$root/etc/systemd/system/"
ln -s ../nvprofiled-system-test.service "$root/etc/systemd/system/multi-user.target.wants/"
echo "$machine" > "$root/etc/hostname"

echo "# booting the root with systemd-nspawn; the checks run inside (limit ${boot_limit_s} s)"
start=$(date +%s)
# --register=no: no systemd-machined to register with (machinectl is not available here).
# --keep-unit: the container stays in the cgroup this script runs in. Without it systemd-nspawn asks the
# host's systemd, over D-Bus, for a scope unit, which fails where PID 1 is not systemd (CI runs on such a
# machine: PID 1 is another init and the cgroup hierarchy is v1 with a named systemd one, "hybrid"); with
# it nothing is asked of the host's systemd, and the container's systemd sets up its own hierarchy.
# --console=pipe: no terminal is needed; the checks write to out/, bound into the container.
# --link-journal=no: the container's journal stays inside it (the checks read it there); linking it
# needs a host machine ID, which a chroot (or a fresh image) may not have.
systemd-nspawn --quiet --directory="$root" --machine="$machine" --boot --register=no --keep-unit \
    --console=pipe --resolv-conf=copy-host --link-journal=no --bind="$work/out:/nvp-system-test/out" \
    > "$work/console.log" 2>&1 < /dev/null &
nspawn_pid=$!

status=""
while :; do
    if ! kill -0 "$nspawn_pid" 2>/dev/null; then
        status=0
        wait "$nspawn_pid" || status=$?
        nspawn_pid=""
        break
    fi
    if [ $(($(date +%s) - start)) -ge "$boot_limit_s" ]; then
        echo "# the container ran over ${boot_limit_s} s: killed" >&2
        status=124
        break
    fi
    sleep 1
done

cat "$work/out/checks.log" 2>/dev/null || echo "# the checks wrote nothing: the console said:"
if [ "$status" -ne 0 ]; then
    echo "# console:"
    tail -n 40 "$work/console.log"
fi
echo "# booted run took $(($(date +%s) - start)) s, exit status $status"
exit "$status"
