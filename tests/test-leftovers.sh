#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tests/leftovers.sh names each kind of leftover it looks for. In a scratch tree (its ROOT and HOME) and in
# network and mount namespaces of this test's own (so that no other test's listeners or mounts count, and
# nothing planted here is seen outside), each kind is planted after a snapshot: check must fail and name
# it, and pass again once it is gone. What was there before the snapshot is never named; with nothing
# planted, check passes.
set -euo pipefail

failures=0
leftovers=$(cd "$(dirname "$0")" && pwd)/leftovers.sh

if [ "$(id -u)" -ne 0 ]; then
    echo "needs root: network and mount namespaces of its own"
    exit 77
fi
if [ -z "${NVPROFILED_LEFTOVERS_TEST_INSIDE:-}" ]; then
    exec unshare --net --mount --propagation private env NVPROFILED_LEFTOVERS_TEST_INSIDE=1 "$0" "$@"
fi
ip link set lo up

scratch=$(mktemp -d "${TMPDIR:-/tmp}/nvprofiled-leftovers-test-XXXXXX")
pids=()
cleanup() {
    local p
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    umount "$scratch/root/tmp/nvptest-mount" 2>/dev/null || true
    rm -rf "$scratch"
}
trap cleanup EXIT

root=$scratch/root
home=$scratch/home
top=$scratch/checkout
mkdir -p "$root/etc/systemd/system/multi-user.target.wants" "$root/etc/systemd/user" "$root/etc/rc2.d" \
    "$root/tmp" "$root/var/tmp" "$home/.config" "$home/.cache" "$top"
printf 'root:x:0:0:root:/root:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n' \
    > "$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' > "$root/etc/group"
export NVPROFILED_LEFTOVERS_ROOT=$root NVPROFILED_LEFTOVERS_HOME=$home NVPROFILED_LEFTOVERS_ATTEMPTS=1
marker=leftovers-test-$$-$RANDOM

# listen KIND ADDRESS: a socket of that kind listening (or bound) there, until killed.
listen() {
    python3 - "$@" <<'EOF' &
import socket, sys, time
kind, address = sys.argv[1:]
if kind == "unix":
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(address)
else:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM if kind == "tcp" else socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", int(address)))
if kind != "udp":
    s.listen()
time.sleep(600)
EOF
    p=$!
    for _ in $(seq 50); do
        ss -Hlntux | grep -qF "$2" && return 0
        sleep 0.1
    done
    echo "FAIL: could not listen on $1 $2" >&2
    failures=$((failures + 1))
}

# What was there before the snapshot, of every kind: never named.
printf 'before:x:990:990::/nonexistent:/usr/sbin/nologin\n' >> "$root/etc/passwd"
printf 'before:x:990:\n' >> "$root/etc/group"
ln -s /lib/systemd/system/before.service "$root/etc/systemd/system/multi-user.target.wants/before.service"
mkdir "$home/.config/before" "$root/tmp/nvprofiled-before"
listen tcp 9100
pids+=("$p")
NVPROFILED_TEST_RUN=$marker sleep 600 &
pids+=($!)
# Listed by its pid and name: the name it has once it runs sleep.
while [ "$(cat "/proc/$!/comm")" != sleep ]; do sleep 0.05; done

snapshot=$scratch/snapshot
check() {
    NVPROFILED_TEST_RUN=$marker "$leftovers" check "$snapshot" "$top" 2> "$scratch/found"
}
# expect WHAT PATTERN: check fails, and its list names PATTERN (an extended regular expression).
expect() {
    if check; then
        echo "FAIL: $1 planted, check passed" >&2
        failures=$((failures + 1))
    elif ! grep -qE "$2" "$scratch/found"; then
        echo "FAIL: $1 planted, check did not name it (/$2/):" >&2
        cat "$scratch/found" >&2
        failures=$((failures + 1))
    else
        echo "ok: $1: $(grep -E "$2" "$scratch/found" | head -1 | sed 's/^ *//')"
    fi
}
expect_clean() {
    if ! check; then
        echo "FAIL: nothing left ($1), check failed:" >&2
        cat "$scratch/found" >&2
        failures=$((failures + 1))
    else
        echo "ok: nothing left ($1)"
    fi
}

NVPROFILED_TEST_RUN=$marker "$leftovers" snapshot "$snapshot"
expect_clean "what was there before is not named"

NVPROFILED_TEST_RUN=$marker sleep 600 &
p=$!
expect "a process of ours" "^ *process $p: sleep 600"
kill "$p"; wait "$p" 2>/dev/null || true
sleep 600 &
p=$!
pids+=("$p")
expect_clean "a process not ours: no marker, no checkout in its command line"

mkdir "$root/tmp/nvprofiled-left"
expect "a temporary directory" "^ *directory $root/tmp/nvprofiled-left$"
rmdir "$root/tmp/nvprofiled-left"

mkdir "$root/tmp/nvptest-mount"
mount -t tmpfs none "$root/tmp/nvptest-mount"
expect "a mount" "^ *mount $root/tmp/nvptest-mount$"
umount "$root/tmp/nvptest-mount"
rmdir "$root/tmp/nvptest-mount"

for plant in "tcp 9090 tcp.*127\.0\.0\.1:9090" "udp 5353 udp.*127\.0\.0\.1:5353" \
        "unix $scratch/sock u_str $scratch/sock"; do
    read -r kind address pattern <<<"$plant"
    listen "$kind" "$address"
    expect "a $kind listener" "^ *listening on $pattern$"
    kill "$p"; wait "$p" 2>/dev/null || true
    rm -f "$scratch/sock"
done

cp "$root/etc/passwd" "$scratch/passwd"
printf 'nvptest:x:999:999::/nonexistent:/usr/sbin/nologin\n' >> "$root/etc/passwd"
expect "a user" "^ *user nvptest$"
cp "$scratch/passwd" "$root/etc/passwd"

cp "$root/etc/group" "$scratch/group"
printf 'nvptest:x:999:\n' >> "$root/etc/group"
expect "a group" "^ *group nvptest$"
cp "$scratch/group" "$root/etc/group"

ln -s /lib/systemd/system/prometheus.service "$root/etc/systemd/system/multi-user.target.wants/prometheus.service"
expect "an enabled unit" "^ *enabled unit $root/etc/systemd/system/multi-user.target.wants/prometheus.service$"
rm "$root/etc/systemd/system/multi-user.target.wants/prometheus.service"
ln -s ../init.d/prometheus "$root/etc/rc2.d/S01prometheus"
expect "an enabled init script" "^ *enabled unit $root/etc/rc2.d/S01prometheus$"
rm "$root/etc/rc2.d/S01prometheus"

for planted in .config/dconf .cache/mesa_shader_cache .cache/at-spi .local .Xauthority; do
    mkdir -p "$(dirname "$home/$planted")"
    touch "$home/$planted"
    expect "the home's $planted" "^ *in the home: $home/$planted$"
    rm "$home/$planted"
done

expect_clean "all planted leftovers removed"

if [ "$failures" -gt 0 ]; then
    echo "$failures failed" >&2
    exit 1
fi
