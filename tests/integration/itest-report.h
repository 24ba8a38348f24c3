/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the report cases on the real daemon share (test-report-bus, test-report-limits). */

#include <systemd/sd-bus.h>

/* A corpus file (relative to the corpus folder) opened read-only; fails the test when it cannot be. */
int itest_open_corpus(const char *rel);
/* Manager.LoadReport(fd): the object path (g_free() it), or NULL with error set. */
char *itest_load_report(sd_bus *bus, int fd, sd_bus_error *error);
