#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# What a test run left behind: processes, temporary directories, mounts and listening ports of ours that
# were not there when the run began. scripts/setup.sh test exports NVPROFILED_TEST_RUN (a value of its
# own, which every process the tests start inherits), takes a snapshot first and checks at its end (one
# test: it fails when anything is left, and lists it). A process is ours when its environment carries
# that value or its command line names the checkout, so another run on the same machine does not count.
#
#   leftovers.sh snapshot FILE      writes what is there now
#   leftovers.sh check FILE TOP     lists what is new and ours (TOP: the checkout); exit 1 if anything
set -euo pipefail

temp_globs=(/tmp/nvprofiled-* /tmp/nvptest-* /var/tmp/nvprofiled-*)
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
listening() {
    ss -Hltn 2>/dev/null | awk '{ print $4 }' | grep -E ':(9090|9100)$' || true
}

snapshot() {
    {
        processes | sed 's/^/process /'
        temp_dirs | sed 's/^/dir /'
        mounts | sed 's/^/mount /'
        listening | sed 's/^/listen /'
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

check() {
    snapshot=$1
    local top=$2 found=() line pid cmd attempt
    # What a test just killed may take a moment to be gone.
    for attempt in $(seq 30); do
        found=()
        while read -r line; do
            [ -n "$line" ] || continue
            pid=${line%% *}
            [ "$pid" != $$ ] || continue
            cmd=$({ tr '\0' ' ' < "/proc/$pid/cmdline"; } 2>/dev/null || true)
            # Gone meanwhile (or a zombie about to be reaped).
            [ -n "$cmd" ] || continue
            found+=("process $pid: $cmd")
        done < <(processes | new process | grep -E "^($(ours "$top" | paste -sd'|' -)) " || true)
        while read -r line; do [ -z "$line" ] || found+=("directory $line"); done < <(temp_dirs | new dir)
        while read -r line; do [ -z "$line" ] || found+=("mount $line"); done < <(mounts | new mount)
        while read -r line; do [ -z "$line" ] || found+=("listening on $line"); done < <(listening | new listen)
        [ ${#found[@]} -gt 0 ] || return 0
        sleep 0.2
    done
    printf '    %s\n' "${found[@]}" >&2
    return 1
}

case "${1:-}" in
    snapshot) snapshot "$2" ;;
    check) check "$2" "$3" ;;
    *) sed -n '3,8p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
