#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Every rc file is written by the rc edit transaction alone: file_replace() is called from
# daemon/appprofile/rc-edit-transaction.c and nowhere else in the daemon's and the clients' sources (its
# own file and its unit test aside), and by the daemon's state file of remembered names
# (daemon/procwatch/seen-names.c), which is no rc file. A second caller would be a second way to write an
# rc file, outside the transaction's read, compare and replace. Mentions in comments ("file_replace()") do
# not count.
set -eu

top=${1:?the source tree}
callers=$(grep -rlE '(^|[^_[:alnum:]])file_replace[[:space:]]*\([^)]' "$top/daemon" "$top/client" \
        --include='*.c' --include='*.h' |
        sed "s|^$top/||" |
        grep -vxE 'daemon/shared/file-replace\.[ch]|daemon/appprofile/rc-edit-transaction\.c|daemon/procwatch/seen-names\.c' || true)
if [ -n "$callers" ]; then
        echo "file_replace() is called outside the rc edit transaction:" >&2
        echo "$callers" >&2
        exit 1
fi
if ! grep -qE '(^|[^_[:alnum:]])file_replace[[:space:]]*\([^)]' "$top/daemon/appprofile/rc-edit-transaction.c"; then
        echo "the rc edit transaction no longer calls file_replace(): this check looks for the wrong thing" >&2
        exit 1
fi
echo "file_replace() is called by the rc edit transaction (and the remembered names) only."
