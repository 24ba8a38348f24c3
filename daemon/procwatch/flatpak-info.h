/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>

#include "macro.h"

/* A Flatpak sandbox's /.flatpak-info: the key file (GLib's GKeyFile format) that "flatpak run" writes for
 * each instance and bind-mounts read-only at the root of the sandbox, which Flatpak's own portals read
 * to know which application a process is. Only the [Application] group's "name" key is read. */

#define FLATPAK_INFO_MAX (64u * 1024u) /* flatpak writes about 1 KiB; more is not one of its files */

/* Whether id is an application id as Flatpak makes them: at least two dot-separated elements of
 * [A-Za-z0-9_-], none empty, at most 255 bytes. */
bool flatpak_app_id_valid(const char *id) _pure_;

/* Takes the contents of a .flatpak-info (size bytes, not necessarily NUL-terminated) and returns the
 * [Application] name (the last one, as GKeyFile keeps it). -ENODATA when it has none, -EBADMSG when
 * the text is not a key file (a NUL byte, invalid UTF-8, a line that is neither a group, a comment nor a
 * key=value pair, or a pair before any group) or the name is not a valid application id; the 1-based
 * line of the fault, when ret_line is given. -EFBIG beyond FLATPAK_INFO_MAX. */
int flatpak_info_parse(const char *text, size_t size, char **ret_app, unsigned *ret_line);
