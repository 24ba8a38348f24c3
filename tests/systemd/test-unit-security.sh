#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Scores the installed unit's hardening with systemd's own analyzer (offline: no running systemd needed)
# and fails when the exposure grows past the limit. Prints the score for the record.
set -eu
unit=$1
limit=$2
out=$(systemd-analyze security --offline=yes --no-pager "$unit" 2>&1) || true
line=$(printf '%s\n' "$out" | grep 'Overall exposure level' || true)
if [ -z "$line" ]; then
    printf '%s\n' "$out"
    echo "systemd-analyze printed no score" >&2
    exit 1
fi
echo "$line"
score=$(printf '%s\n' "$line" | sed -n 's/.*: \([0-9.]*\) .*/\1/p')
awk -v s="$score" -v l="$limit" 'BEGIN { exit !(s <= l) }' || { echo "exposure $score > $limit" >&2; exit 1; }
