/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <stdarg.h>

#include "rc-config.h"
#include "rc-model.h"
#include "rc-resolve.h"

G_DEFINE_AUTOPTR_CLEANUP_FUNC(RcFile, rc_file_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(RcConfig, rc_config_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(RcResolution, rc_resolution_free)

/* Helpers shared by the unit tests: temporary root trees, corpus lookup, and quick parsing. */

/* A fresh temporary directory, removed at exit by test_cleanup_dirs() (registered automatically). */
char *test_mkdtemp(void);

/* Writes content to root/rel, creating parent directories. */
void test_write_file(const char *root, const char *rel, const char *content);
/* The same for content with NUL bytes. */
void test_write_file_n(const char *root, const char *rel, const char *content, size_t len);
void test_mkdir_p(const char *root, const char *rel);
void test_symlink(const char *target, const char *root, const char *rel);

/* Opens a directory as an fd (asserting success). */
int test_open_dir(const char *path);

/* Skips the whole test binary with a reason meson reports as SKIP, then exits. Under protocol 'tap',
 * meson (1.0) reports exit status 77 as ERROR: a TAP plan of zero tests with a SKIP directive is what
 * it counts as a skip. */
G_NORETURN void test_skip_all(const char *reason);

/* Says in the test's messages where two texts first differ: line, column, and both lines. */
void test_report_difference(const char *what, const char *ours, size_t n_ours, const char *theirs, size_t n_theirs);

/* The corpus directory (meson passes it in NVPROFILED_CORPUS). When absent and
 * NVPROFILED_CORPUS_REQUIRED=1, fails the whole binary; otherwise skips it (test_skip_all()). */
const char *test_corpus_dir_or_skip(void);
char *test_corpus_path(const char *rel);

/* Parses text as an rc file named "test.rc". */
RcFile *test_parse(const char *text);
RcFile *test_parse_opts(const char *text, const RcSyntaxOptions *o);

/* Whether f has a diagnostic of severity sev at line:col (0 = any) whose message contains needle. */
bool test_has_diag(const RcDiagnostics *d, RcSeverity sev, uint32_t line, uint32_t column, const char *needle);
void test_dump_diags(const char *path, const RcDiagnostics *d);

/* Builds a configuration from texts, each as a file named file<i>.rc, in that order. */
RcConfig *test_config_from_texts(const char *const *texts, size_t n);

/* Resolves a hypothetical process. */
RcResolution *test_resolve(RcConfig *c, const char *exe, const char *comm, const char *argv0, const char *const *dsos,
                const char *const *env);

/* The effective setting for key, or NULL. */
const RcEffectiveSetting *test_find_setting(const RcResolution *r, const char *key);
int64_t test_setting_int(const RcResolution *r, const char *key);

/* Runs tmux -u -S socket ARGS... (a server of the test's own, at socket) and returns its standard output;
 * fails the test when it fails. What the tests of a real terminal drive. */
char *test_run_tmux(const char *socket, const char *first, ...) G_GNUC_NULL_TERMINATED;
char *test_run_tmuxv(const char *socket, const char *first, va_list ap);

/* Standard output and error redirected to temporary files, for running a command-line entry point in
 * the test process (whose stdout is the TAP stream). */
typedef struct TestCapture {
        int out, err; /* the temporary files */
        int saved_out, saved_err; /* the original stdout and stderr */
} TestCapture;

/* An empty temporary file opened read-write (asserting success). */
int test_temp_fd(void);
/* Everything written to fd from offset 0. */
char *test_read_back(int fd);
/* Flushes stdio and points stdout and stderr at fresh temporary files. */
void test_capture_begin(TestCapture *c);
/* Flushes, restores stdout and stderr, and returns what was written to each (either pointer may be NULL). */
void test_capture_end(TestCapture *c, char **ret_out, char **ret_err);
