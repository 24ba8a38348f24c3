/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Nsight Compute reports that callers loaded (Manager.LoadReport): each is served by its own confined
 * worker (report-server.h), which keeps the model; the manager keeps only what the budgets need. Reports
 * belong to an owner (a bus client's unique name) and its uid, and end on Close, when the owner leaves,
 * after [Reports] IdleSec= without a call, or when their worker fails.
 *
 * Everything a caller makes the daemon hold is charged to that caller's uid until it is released, within
 * [Reports] MemoryPerUserMax= for one uid and MemoryMax= for all, as report_budget_fit() has them within
 * the daemon's cgroup (report-budget.h: half the unit's MemoryMax= at most):
 *   - each worker's reservation (report-limits.h: derived from the file's size, at most WorkerMemoryMax=),
 *     which its reader's limits and (release builds) its RLIMIT_AS keep it within, for as long as it runs;
 *   - each call's reply, twice its limit (read, then in the D-Bus message), until it is answered;
 *   - each export and diff: while it is made, the most it may take; then the memfd the caller got, until
 *     the caller closes it (every descriptor of that description gone: inotify's IN_CLOSE_NOWRITE on the
 *     memfd), when the daemon truncates its own descriptor of it (a caller who opened another
 *     description of it through /proc reads an empty file from then on);
 * and counted: ReportsPerUserMax= reports (workers) of ReportsMax= (within the unit's TasksMax=),
 * OutputsPerUserMax= memfds held, and NCU_REPORT_CALLS_MAX calls waiting per report. Past any of these
 * the request is refused (-E2BIG, with a sentence saying which) and costs nobody else anything. */

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "report-page-options.h"
#include "report-protocol.h"

typedef struct Manager Manager;
typedef struct ManagerReports ManagerReports;
typedef struct ManagerReport ManagerReport;

/* Calls one report may have waiting (in flight included). */
#define NCU_REPORT_CALLS_MAX 8u

int manager_reports_new(Manager *m, ManagerReports **ret);
ManagerReports *manager_reports_free(ManagerReports *rs);

/* The load's outcome, once (also when the report goes before it loaded: -ECANCELED). error as
 * NcuReportServerLoaded's; on failure the report is freed right after the callback. */
typedef void (*ManagerReportLoaded)(ManagerReport *r, int error, const char *message, void *userdata);

/* Starts loading the report on fd (the caller's descriptor: kept, for diffs) for owner and uid.
 * -E2BIG with *ret_why when a budget refuses it. */
int manager_report_load(Manager *m, const char *owner, uid_t uid, int fd, ManagerReportLoaded loaded, void *userdata,
                ManagerReport **ret, const char **ret_why);

/* owner's loaded report with that id, or NULL: anyone else's cannot be told from one that does not
 * exist. */
ManagerReport *manager_report_find(Manager *m, const char *owner, uint64_t id);
/* The ids of owner's loaded reports, ascending. */
int manager_report_list(Manager *m, const char *owner, uint64_t **ret_ids, size_t *ret_n);
uint64_t manager_report_id(const ManagerReport *r);
Manager *manager_report_manager(const ManagerReport *r);
uid_t manager_report_uid(const ManagerReport *r);
/* The worker's pid (tests). */
pid_t manager_report_worker_pid(const ManagerReport *r);

/* Ends a report: its worker is killed, waiting calls get -ECANCELED. */
void manager_report_close(ManagerReport *r);
/* The owner left the bus: its reports end (the memfds it holds stay charged until closed). */
void manager_reports_owner_gone(Manager *m, const char *owner);

/* A call to the report's worker (report-protocol.h): op, its arguments in the wire encoding, the most
 * its reply may take. reply gets what NcuReportServerReply gets. -E2BIG with *ret_why over a budget. */
typedef void (*ManagerReportReply)(int error, const void *data, size_t size, const char *message, void *userdata);
int manager_report_call(ManagerReport *r, NcuServeOp op, const void *args, size_t size, size_t max_reply,
                ManagerReportReply reply, void *userdata, const char **ret_why);

/* An output in a sealed memfd: done gets 0 and a read-only descriptor of it (done's to close; the memfd
 * stays charged to the caller until every descriptor of it is closed), or an error and a message. */
typedef void (*ManagerReportOutputDone)(int error, int fd, const char *message, void *userdata);
/* An export of the model the worker keeps; page: the encoded options of NCU_SERVE_EXPORT_PAGE
 * (report-page-options.h; NULL for the other kinds), passed on as they are: the worker reads and checks them. */
int manager_report_export(ManagerReport *r, NcuServeExport kind, const void *page, size_t page_size,
                ManagerReportOutputDone done, void *userdata, const char **ret_why);
/* The source view of action of range (report-source-view.h's document), an output like an export. */
int manager_report_source_view(ManagerReport *r, uint32_t range, uint32_t action, ManagerReportOutputDone done,
                void *userdata, const char **ret_why);
/* r compared with baseline (another report of the same owner), by a worker of its own that reads both
 * files again; args: the pairing specs (as, wire). */
int manager_report_diff(ManagerReport *r, ManagerReport *baseline, const void *args, size_t size,
                ManagerReportOutputDone done, void *userdata, const char **ret_why);

/* Bytes charged to uid, and to everyone; reports (workers) of uid, and of everyone; memfds held by uid. */
uint64_t manager_reports_memory(const Manager *m, uid_t uid);
uint64_t manager_reports_memory_total(const Manager *m);
unsigned manager_reports_count(const Manager *m, uid_t uid);
unsigned manager_reports_count_total(const Manager *m);
unsigned manager_reports_outputs(const Manager *m, uid_t uid);
