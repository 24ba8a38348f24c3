/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "manager.h"
#include "usage-export.h"

/* The fleet export (ExportTextfile= in nvprofiled.conf): every ExportIntervalSec=, the usage snapshot is
 * rendered by daemon/export and replaces the textfile atomically, for node_exporter's textfile collector.
 * Each GPU client is labelled with its first holder's systemd unit (from /proc/<pid>/cgroup) and the
 * profile applied to that process (the manager's own result), never with its pid unless
 * ExportProcessLabels=yes. The file is mode 0640, given to ExportGroup= (node_exporter's group) when
 * set: it names every user's units and profiles, so it is not for every local user to read. */

/* Writes the file once at once, then every interval; nothing when ExportTextfile= is unset. A failed
 * write is logged (once until the next success) and retried at the next interval. */
int manager_export_start(Manager *m);
void manager_export_stop(Manager *m);

/* Where the snapshot comes from: the usage sampler hands its model and NVML source here whenever they
 * are (re)created; NULL for a source that is absent. Only borrowed: the caller keeps them alive until it
 * sets others or the manager is freed. */
void manager_export_set_sources(Manager *m, const DrmUsage *drm, NvmlSource *nvml);

/* Renders and writes once now (the timer's work; tests call it). 0 or a negative errno. */
int manager_export_write(Manager *m);
