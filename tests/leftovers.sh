#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# What a test run left behind: processes, temporary directories, mounts, listening sockets, users and
# groups, enabled units and files in the home of whoever runs it, that were not there when the run began.
# scripts/setup.sh test exports NVPROFILED_TEST_RUN (a value of its own, which every process the tests
# start inherits), takes a snapshot first and checks at its end (one test: it fails when anything is
# left, and lists it). A process is ours when its environment carries that value or its command line
# names the checkout, so another run on the same machine does not count.
#
#   leftovers.sh snapshot FILE      writes what is there now
#   leftovers.sh check FILE TOP     lists what is new (processes: and ours; TOP: the checkout); exit 1 if anything
set -euo pipefail
# Listening sockets are read with ss (Debian's iproute2, in setup.sh's test packages): without it a
# listener would go unseen, so say so and fail rather than check less.
command -v ss >/dev/null || { echo "leftovers.sh: ss is not installed (Debian package iproute2)" >&2; exit 1; }

# Where it looks, so that tests/test-leftovers.sh can plant leftovers in a scratch tree: ROOT is put before
# the paths of the file system (/etc/passwd, /etc/systemd/system, /tmp), HOME is the home whose files
# count (default: the passwd entry's of the user running this, root's in CI, whatever $HOME says), and
# ATTEMPTS how often check looks again (0.2 s apart) while something is left, for what a test just
# stopped to be gone.
root=${NVPROFILED_LEFTOVERS_ROOT:-}
home=${NVPROFILED_LEFTOVERS_HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}
attempts=${NVPROFILED_LEFTOVERS_ATTEMPTS:-30}

temp_globs=("$root"/tmp/nvprofiled-* "$root"/tmp/nvptest-* "$root"/var/tmp/nvprofiled-*)
# Not inherited by the programs this script runs, which would otherwise count as ours.
marker=${NVPROFILED_TEST_RUN:-}
unset NVPROFILED_TEST_RUN

processes() {
    ps -e -o pid=,comm= | awk '{ $1 = $1; print }'
}
temp_dirs() {
    local d
    for d in "${temp_globs[@]}"; do [ -e "$d" ] && echo "$d"; done
    return 0
}
mounts() {
    awk '$5 ~ /nvprofiled|nvptest/ { print $5 }' /proc/self/mountinfo
}
# Every listening TCP socket, bound UDP socket and listening or bound unix socket (by path, or @name for
# the abstract ones): its kind and local address.
listening() {
    ss -Hlntux 2>/dev/null | awk '$5 != "*" { print $1, $5 }' | sort -u
}
users() {
    cut -d: -f1 "$root/etc/passwd"
}
groups() {
    cut -d: -f1 "$root/etc/group"
}
# Enablement is a symbolic link in systemd's configuration: in a .wants/.requires/.upholds folder, an
# alias, a mask (and SysV's rc?.d links for init scripts).
enabled_units() {
    local d
    for d in "$root/etc/systemd/system" "$root/etc/systemd/user" "$root"/etc/rc?.d; do
        [ -d "$d" ] && find "$d" -type l -printf '%p\n'
    done
    return 0
}
# The entries of the home, and of its configuration, cache and data folders: what a program run as this
# user writes there for good (dconf's settings, caches, recently used files).
home_files() {
    local d
    [ -n "$home" ] || return 0
    for d in "$home" "$home/.config" "$home/.cache" "$home/.local" "$home/.local/share" "$home/.local/state"; do
        [ -d "$d" ] && find "$d" -mindepth 1 -maxdepth 1 -printf '%p\n'
    done
    return 0
}

snapshot() {
    {
        processes | sed 's/^/process /'
        temp_dirs | sed 's/^/dir /'
        mounts | sed 's/^/mount /'
        listening | sed 's/^/listen /'
        users | sed 's/^/user /'
        groups | sed 's/^/group /'
        enabled_units | sed 's/^/unit /'
        home_files | sed 's/^/home /'
    } > "$1"
}

# new KIND: the lines of that kind now that were not in the snapshot.
new() {
    local kind=$1
    grep -vxF -f <(sed -n "s/^$kind //p" "$snapshot") || true
}

# ours TOP: the pids whose environment carries our NVPROFILED_TEST_RUN or whose command line names TOP.
ours() {
    {
        [ -z "$marker" ] || grep -lzxF "NVPROFILED_TEST_RUN=$marker" /proc/[0-9]*/environ 2>/dev/null || true
        grep -lzF "$1" /proc/[0-9]*/cmdline 2>/dev/null || true
    } | cut -d/ -f3 | sort -u
}

# mine PID: true for this script and the subshells it forks, which carry its environment and command line
# and so would count as ours.
mine() {
    local pid=$1 stat
    while [ "$pid" -gt 1 ]; do
        [ "$pid" != $$ ] || return 0
        stat=$(cat "/proc/$pid/stat" 2>/dev/null) || return 1
        # The fields after the name, which is in parentheses and may hold anything: state, then the parent.
        stat=${stat##*) }
        pid=${stat#* }
        pid=${pid%% *}
    done
    return 1
}

# found_new WHAT KIND < lines: adds each new line of that kind to found, as "WHAT line".
found_new() {
    local line
    while read -r line; do [ -z "$line" ] || found+=("$1 $line"); done < <(new "$2")
}

check() {
    snapshot=$1
    local top=$2 line pid cmd attempt
    found=()
    # What a test just killed may take a moment to be gone.
    for attempt in $(seq "$attempts"); do
        found=()
        while read -r line; do
            [ -n "$line" ] || continue
            pid=${line%% *}
            ! mine "$pid" || continue
            cmd=$({ tr '\0' ' ' < "/proc/$pid/cmdline"; } 2>/dev/null || true)
            # Gone meanwhile (or a zombie about to be reaped).
            [ -n "$cmd" ] || continue
            found+=("process $pid: $cmd")
        done < <(processes | new process | grep -E "^($(ours "$top" | paste -sd'|' -)) " || true)
        found_new directory dir < <(temp_dirs)
        found_new mount mount < <(mounts)
        found_new "listening on" listen < <(listening)
        found_new user user < <(users)
        found_new group group < <(groups)
        found_new "enabled unit" unit < <(enabled_units)
        found_new "in the home:" home < <(home_files)
        [ ${#found[@]} -gt 0 ] || return 0
        [ "$attempt" -eq "$attempts" ] || sleep 0.2
    done
    printf '    %s\n' "${found[@]}" >&2
    return 1
}

case "${1:-}" in
    snapshot) snapshot "$2" ;;
    check) check "$2" "$3" ;;
    *) sed -n '3,11p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
