/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "manager.h"
#include "prometheus-metrics.h"

/* The fleet export (ExportTextfile= in nvprofiled.conf): every ExportIntervalSec=, the usage snapshot is
 * rendered by prometheus-metrics.c and replaces the textfile atomically, for node_exporter's textfile collector.
 * Each GPU client is labelled with a holder's systemd unit (from /proc/<pid>/cgroup) and the profile
 * applied to that process (the manager's own result; see prometheus-metrics.c for which holder), never with its pid
 * unless ExportProcessLabels=yes. The file is mode 0640, given to ExportGroup= (node_exporter's group) when set: it
 * names every user's units and profiles, so it is not for every local user to read. */

/* Writes the file once at once, then every interval; nothing when ExportTextfile= is unset. A failed
 * write is logged (once until the next success) and retried at the next interval. */
int manager_prometheus_start(Manager *m);
void manager_prometheus_stop(Manager *m);
/* Stops, and drops the counters and sources too (at the manager's end). */
void manager_prometheus_free(Manager *m);

/* The snapshot is the usage sampler's (manager_usage(), manager_usage_nvml()), which the export keeps
 * sampling at ExportIntervalSec= with a watch of its own. Tests put other sources in their place here
 * (NULL: the sampler's again); only borrowed, kept alive by the caller. */
void manager_prometheus_set_sources(Manager *m, const DrmUsage *drm, const NvmlSource *nvml);

/* Renders and writes once now (the timer's work; tests call it). 0 or a negative errno. */
int manager_prometheus_write(Manager *m);

/* Files written and writes failed since the manager started; whether the export's timer runs. */
uint64_t manager_prometheus_n_writes(const Manager *m);
uint64_t manager_prometheus_n_failures(const Manager *m);
bool manager_prometheus_running(const Manager *m);
