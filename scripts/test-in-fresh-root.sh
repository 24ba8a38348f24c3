#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The README's test command on a fresh Debian 12 root, so that an install step the README or setup.sh
# misses fails (CI: `scripts/setup.sh test --in-fresh-root` runs the plain build's suite this way).
#
#   test-in-fresh-root.sh SOURCE_DIR SHARED_DIR [setup.sh test options...]
#
# 1. mmdebstrap --variant=minbase: what any Debian 12 machine has (apt, dpkg, bash), from this machine's
#    configured mirror (tests/system/mirror-sources.py), nothing of what the tests need: setup.sh
#    installs that itself inside, as the README says.
# 2. The checkout as a user has it (tracked and untracked files, not what git ignores: no build
#    directories) copied to /root/src, SHARED_DIR (the corpus) bound read-only beside it as /root/shared.
# 3. In a mount namespace of its own (nothing it mounts is seen by, or propagates to, this machine), the
#    root bound onto itself (systemd-nspawn, in the system test, needs / to be a mount point), /proc, /sys
#    and /dev as a chroot has them, and a tmpfs /run; this machine's apt download cache is bound in as
#    the cache it is (packages downloaded once). Then
#    chroot, with a login's clean environment, and `cd /root/src && scripts/setup.sh test OPTIONS`.
# Its output goes through; its exit status is setup.sh's. The root's build/meson-logs are copied back
# to SOURCE_DIR/build-fresh-root-logs. Every process in the root is killed and every file removed on any
# exit (trap), a failure or an interrupt too.
set -euo pipefail

src=$(cd "$1" && pwd)
shared=$(cd "$2" && pwd)
shift 2
suite=bookworm
here=$(cd "$(dirname "$0")" && pwd)

[ "$(id -u)" -eq 0 ] || { echo "test-in-fresh-root.sh: run as root (mmdebstrap, mount, chroot)" >&2; exit 1; }
for tool in mmdebstrap unshare chroot; do
    command -v "$tool" >/dev/null || { echo "test-in-fresh-root.sh: $tool is not installed" >&2; exit 1; }
done

work=""
# The processes whose root directory is the fresh root (the chroot and everything started in it).
processes_in_root() {
    local p r
    for p in /proc/[0-9]*; do
        r=$(readlink "$p/root" 2>/dev/null) || continue
        [ "$r" = "$root" ] && echo "${p#/proc/}"
    done
    return 0
}
cleanup() {
    local status=$? attempt pids
    trap - EXIT INT TERM
    if [ -n "$work" ]; then
        # The mounts live in the namespace of the processes in the root: they go with the last of them.
        for attempt in $(seq 50); do
            pids=$(processes_in_root)
            [ -n "$pids" ] || break
            # shellcheck disable=SC2086
            kill -KILL $pids 2>/dev/null || true
            sleep 0.1
        done
        # Nothing is mounted below it in this namespace, so this removes only the root's own files.
        rm -rf --one-file-system "$work"
    fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

work=$(mktemp -d /var/tmp/nvprofiled-fresh-root-XXXXXX)
root=$work/root
python3 "$here/../tests/system/mirror-sources.py" "$suite" > "$work/sources"

apt_cache=/var/cache/apt/archives
echo "==> a fresh Debian $suite root (mmdebstrap --variant=minbase)"
start=$(date +%s)
# In a mount namespace of its own, which takes whatever mmdebstrap mounts with it. This machine's apt
# cache is bound in while it downloads (essential/unlink skipped: what is there stays there), unbound
# before mmdebstrap cleans its cache up. TMPDIR: mmdebstrap's scratch files below the work directory,
# which cleanup() removes whatever happens. force-unsafe-io: dpkg without fsync, for a root that is thrown
# away.
TMPDIR=$work unshare --mount --propagation private -- mmdebstrap --quiet --variant=minbase \
    --dpkgopt=force-unsafe-io --aptopt='Acquire::Retries "3"' --skip=essential/unlink \
    --setup-hook="mkdir -p \"\$1$apt_cache\" && mount --bind $apt_cache \"\$1$apt_cache\"" \
    --customize-hook="umount \"\$1$apt_cache\"" \
    "$suite" "$root" "$work/sources"
echo "==> fresh root built in $(($(date +%s) - start)) s"
# Name resolution for apt inside, as a machine's own network set-up would give it.
cp -L /etc/resolv.conf "$root/etc/resolv.conf"

# The checkout as a user has it.
mkdir -p "$root/root/src" "$root/root/shared"
chmod 0700 "$root/root"
"$here/copy-checkout.sh" "$src" "$root/root/src"

# Run in the new mount namespace: mounts, then the chroot. Private propagation: no mount or unmount here
# reaches this machine's mounts.
mounts_and_chroot='
set -euo pipefail
root=$1 shared=$2 apt_cache=$3
shift 3
mount --bind "$root" "$root"
mount -t proc proc "$root/proc"
mount --rbind /sys "$root/sys"
mount --rbind /dev "$root/dev"
mount -t tmpfs -o mode=0755,nosuid,nodev tmpfs "$root/run"
mount --bind -o ro "$shared" "$root/root/shared"
mount -o remount,bind,ro "$root/root/shared"
[ ! -d "$apt_cache" ] || mount --bind "$apt_cache" "$root/var/cache/apt/archives"
cd "$root"
exec chroot "$root" /usr/bin/env -i HOME=/root USER=root LOGNAME=root SHELL=/bin/bash TERM=dumb \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin ${CI:+CI=$CI} \
    /bin/bash -c "cd /root/src && exec scripts/setup.sh test \"\$@\"" setup.sh "$@"
'
echo "==> in the fresh root: cd /root/src && scripts/setup.sh test $*"
# In the background, waited for: a TERM sent to this script alone runs cleanup() at once (bash runs a
# trap only once the foreground command has finished).
status=0
unshare --mount --propagation private -- bash -c "$mounts_and_chroot" bash "$root" "$shared" "$apt_cache" "$@" &
wait $! || status=$?

rm -rf "$src/build-fresh-root-logs"
[ ! -d "$root/root/src/build/meson-logs" ] || cp -r "$root/root/src/build/meson-logs" "$src/build-fresh-root-logs"
exit "$status"
