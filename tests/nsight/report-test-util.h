/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the report tests share: the corpus reports by name, loading them, reading JSON. */

#include <glib.h>
#include <json-c/json.h>

#include "report.h"

G_DEFINE_AUTOPTR_CLEANUP_FUNC(json_object, json_object_put)

#define REPORT_ARMLETH "armleth_report_ncu2024.2.1"
#define REPORT_EXTRAP "extrap_ex-gpu.s10_ncu2020.3.1"
#define REPORT_ADD3 "nvidia_example_addConstDouble3_ncu2023.3.0"
#define REPORT_SOBEL "nvidia_example_sobelFloat_ncu2023.3.0"
#define REPORT_SYSWEA "syswea_profile_report_ncu2025.1.1"
#define REPORT_CORPUS_N 21

/* Every report of ../shared/corpus/reports, by name (without .ncu-rep): the five above first, then the
 * sixteen from other projects (ncu 2019.x to 2025.2.1, Windows and Linux hosts, Pascal to Blackwell). */
extern const char *const report_corpus_names[REPORT_CORPUS_N];

/* The number of results of each (same order). */
extern const size_t report_corpus_n_actions[REPORT_CORPUS_N];

/* The path of reports/<name>.ncu-rep in the corpus. */
char *report_corpus_path(const char *name);
/* Loads it through an fd, failing the test with the offset and message on error. */
NcuReport *report_corpus_load(const char *name);
/* The metric of that name of a, failing the test when there is none; its value as a double (stored as one)
 * or as a uint64 (converted as ncu_report does). */
const NcuMetric *report_metric(const NcuAction *a, const char *name);
double report_metric_double(const NcuAction *a, const char *name);
uint64_t report_metric_u64(const NcuAction *a, const char *name);
/* The member key of o, or NULL. */
json_object *json_get(json_object *o, const char *key);
