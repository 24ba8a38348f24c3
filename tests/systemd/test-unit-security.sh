#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Scores the unit's hardening with systemd's own analyzer (offline: no running systemd needed) and fails
# when the exposure is above the score the README states, which is read from the README itself so the
# two cannot drift apart. Prints the score for the record.
#
#   test-unit-security.sh UNIT README
set -eu
unit=$1
readme=$2

# The README's layout table states the score, e.g. (`systemd-analyze security`: 2.5, tested)
limit=$(sed -n 's/.*`systemd-analyze security`: \([0-9][0-9.]*\).*/\1/p' "$readme" | head -n 1)
if [ -z "$limit" ]; then
    echo "$readme states no 'systemd-analyze security' score" >&2
    exit 1
fi

out=$(systemd-analyze security --offline=yes --no-pager "$unit" 2>&1) || true
line=$(printf '%s\n' "$out" | grep 'Overall exposure level' || true)
if [ -z "$line" ]; then
    printf '%s\n' "$out"
    echo "systemd-analyze printed no score" >&2
    exit 1
fi
echo "$line (README: $limit)"
score=$(printf '%s\n' "$line" | sed -n 's/.*: \([0-9.]*\) .*/\1/p')
if [ -z "$score" ]; then
    echo "cannot read the score" >&2
    exit 1
fi
awk -v s="$score" -v l="$limit" 'BEGIN { exit !(s + 0 <= l + 0) }' || {
    echo "exposure $score is above the README's $limit: harden the unit, or state the new score" >&2
    exit 1
}
