/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The "report" verb's pieces, for its subverbs in other files (the CSV exports). */

#include <json-c/json.h>
#include <systemd/sd-bus.h>

#include "report-page.h"
#include "report.h"

typedef struct ReportSubverb {
        const char *name;
        int (*run)(const char *path); /* negative errno (said why), or an exit status */
        bool takes_output; /* --output=FILE */
} ReportSubverb;

/* Opens a report file for reading with the caller's rights: a regular file only, checked on an O_PATH
 * handle before anything is opened (a fifo or a device never is), then that same file reopened through
 * the handle. Says why not. */
int report_open(const char *path, int *ret_fd);
/* Reads and parses it in this process; says why not (file, byte offset, reason). */
int report_load_local(const char *path, NcuReport **ret);
/* The bus nvprofilectl talks to (--bus-address, --user, else the system bus). */
int report_bus_open(sd_bus **ret);
/* LoadReport with the file's descriptor: 0 and the object path, 1 when no daemon serves reports, or a
 * negative errno after saying why. */
int report_bus_load(sd_bus *bus, const char *path, char **ret_object);
void report_bus_close(sd_bus *bus, const char *object);
/* Reads the memfd ("h") of a reply whole, at most max_size bytes. */
int report_read_reply_fd(sd_bus_message *reply, size_t max_size, char **ret_text, size_t *ret_size);
/* LoadReport with the file's descriptor, then the Report's method (no argument when flag < 0, else flag as its
 * "b"), which returns a memfd, then Close: 0 and a descriptor of the memfd, 1 when no daemon serves reports,
 * or a negative errno after saying why. */
int report_export_via_daemon(const char *path, const char *method, int flag, int *ret_fd);
/* The same, read whole: the Report's method (no argument when flag < 0, else
 * flag as its "b"), which returns a memfd, read whole (at most max_size bytes), then Close. Returns 1
 * when no daemon serves reports (the caller then reads the file itself), 0 with the bytes, or a negative
 * errno after saying why. */
int report_fetch_via_daemon(
                const char *path, const char *method, int flag, size_t max_size, char **ret_text, size_t *ret_size);
/* The same with ExportPageEncoded(options): one of ncu's pages (report-page.h). */
int report_fetch_page_via_daemon(
                const char *path, const NcuPageOptions *page, size_t max_size, char **ret_text, size_t *ret_size);
/* The same as the JSON document of report-json.h. */
int report_load_json(const char *path, struct json_object **ret);

/* report summary FILE (client/verb-report-summary.c). */
int report_summary(const char *path);

/* report raw|details|session FILE [--csv] [--print-…]: ncu's pages (client/verb-report-export.c). */
int report_raw(const char *path);
int report_details(const char *path);
int report_session(const char *path);
