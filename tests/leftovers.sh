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

check() {
    snapshot=$1
    local top=$2 found=() line pid comm cmd env attempt
    # What a test just killed may take a moment to be gone.
    for attempt in $(seq 50); do
        found=()
        while read -r line; do
            [ -n "$line" ] || continue
            pid=${line%% *}
            comm=${line#* }
            [ "$pid" != $$ ] || continue
            cmd=$({ tr '\0' ' ' < "/proc/$pid/cmdline"; } 2>/dev/null) || continue
            env=$({ tr '\0' '\n' < "/proc/$pid/environ"; } 2>/dev/null) || continue
            if [[ "$cmd" == *"$top"* ]] || { [ -n "${NVPROFILED_TEST_RUN:-}" ] &&
                [[ $'\n'"$env"$'\n' == *$'\n'"NVPROFILED_TEST_RUN=$NVPROFILED_TEST_RUN"$'\n'* ]]; }; then
                [[ "$cmd" == *leftovers.sh* ]] || found+=("process $pid ($comm): $cmd")
            fi
        done < <(processes | new process)
        while read -r line; do [ -z "$line" ] || found+=("directory $line"); done < <(temp_dirs | new dir)
        while read -r line; do [ -z "$line" ] || found+=("mount $line"); done < <(mounts | new mount)
        while read -r line; do [ -z "$line" ] || found+=("listening on $line"); done < <(listening | new listen)
        [ ${#found[@]} -gt 0 ] || return 0
        sleep 0.1
    done
    printf '    %s\n' "${found[@]}" >&2
    return 1
}

case "${1:-}" in
    snapshot) snapshot "$2" ;;
    check) check "$2" "$3" ;;
    *) sed -n '3,8p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
