/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the report cases on the real daemon share (test-report-bus, test-report-limits). */

#include <stdbool.h>
#include <stddef.h>
#include <systemd/sd-bus.h>
#include <sys/types.h>

#include "itest.h"

/* A corpus file (relative to the corpus folder) opened read-only; fails the test when it cannot be. */
int itest_open_corpus(const char *rel);
/* Manager.LoadReport(fd): the object path (g_free() it), or NULL with error set. */
char *itest_load_report(sd_bus *bus, int fd, sd_bus_error *error);

/* A memfd holding data, at offset 0. */
int itest_report_memfd_with(const void *data, size_t size);

/* The daemon's children: its workers. */
unsigned itest_report_count_children(pid_t parent);
/* Waits (a bound of 60 s) until the daemon has n children. */
void itest_report_wait_children(pid_t parent, unsigned n);

/* The outcome of an asynchronous call: itest_report_on_async_reply() (userdata an AsyncReply) sets it. */
typedef struct AsyncReply {
        bool done;
        char *error_name;
        char *error_message;
} AsyncReply;
int itest_report_on_async_reply(sd_bus_message *m, void *userdata, sd_bus_error *ret_error);
/* Processes bus until *done. */
void itest_report_process_until(sd_bus *bus, const bool *done);

/* Sets up t over a fixture /proc and starts the daemon with [Reports] SpareWorker=no (these cases count
 * the daemon's children as its reports' workers; the spare worker is tested on its own) and config, with
 * the worker fake_env names (NULL: the real one). */
void itest_report_start_daemon(ITest *t, const char *fake_env, const char *config);

/* Report.ExportJson of the report at path: the fd of its output, or a negative errno with error set. */
int itest_report_export_json(sd_bus *bus, const char *path, sd_bus_error *error);

/* Fails unless x and y are JSON texts of the same document. */
void itest_assert_same_json(const char *x, const char *y);
/* The whole content of the sealed memfd reply's next argument (an h) holds, checked read-only and sealed
 * against writes, growth and further seals; g_free() it. */
char *itest_read_sealed_memfd(sd_bus_message *reply, gsize *ret_size);
