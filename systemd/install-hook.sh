#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Run by `meson install` after the files are in place (never into a DESTDIR: a package does this in its
# own scripts): creates the nvprofiled user from the sysusers entry, without which the unit cannot start
# (status=217/USER), and rebuilds the journal catalog. Both are what a package's postinst does; the
# same by hand is: systemd-sysusers SYSUSERS_FILE && journalctl --update-catalog.
#
#   install-hook.sh SYSUSERS_FILE TMPFILES_FILE
set -eu
sysusers_file=$1
tmpfiles_file=${2:-}

if [ "$(id -u)" -ne 0 ]; then
    echo "nvprofiled: not root, so the user is not created: run as root: systemd-sysusers $sysusers_file"
    exit 0
fi
if command -v systemd-sysusers >/dev/null; then
    systemd-sysusers "$sysusers_file"
else
    echo "nvprofiled: systemd-sysusers is not installed: create the system user nvprofiled by hand" >&2
    exit 1
fi
# /etc/nvidia/nvidia-application-profiles-rc.d, where system edits go: it must exist when the unit
# starts, since ReadWritePaths=-/etc/nvidia leaves /etc read-only for a path that is missing then.
if [ -n "$tmpfiles_file" ] && command -v systemd-tmpfiles >/dev/null; then
    systemd-tmpfiles --create "$tmpfiles_file" || echo "nvprofiled: systemd-tmpfiles --create $tmpfiles_file failed" >&2
fi
if command -v journalctl >/dev/null; then
    journalctl --update-catalog || echo "nvprofiled: journalctl --update-catalog failed (journalctl -x lacks our entries)" >&2
fi
