/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "report": Nsight Compute reports (.ncu-rep, .ncu-repz).
 *
 *   report summary FILE   one line per action: name, grid/block, duration, the top rule findings
 *   report json FILE      the whole model, schema io.github.nvprofiled.ncu-report (see report-json.h)
 *
 * The file is opened here, with the caller's own rights (report_open(): a regular file, nothing else is
 * ever opened), and its descriptor handed to the daemon
 * (LoadReport), whose confined worker parses it; with --local, or when no daemon serves reports, it is
 * parsed in this process with the same reader. Everything from the file is escaped in text output; JSON carries it
 * exactly. Subverbs are a table: the CSV exports (raw, details) are added to it. */

#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client.h"
#include "bus-address.h"
#include "fd-util.h"
#include "fileio.h"
#include "log.h"
#include "report-file.h"
#include "report-json-attrs.h"
#include "report-page-encoding.h"
#include "report.h"
#include "string-util.h"
#include "verb-report-diff.h"
#include "verb-report-python.h"
#include "verb-report.h"

#define REPORT_JSON_MAX ((size_t) 1024 * 1024 * 1024)

DEFINE_TRIVIAL_CLEANUP_FUNC(json_tokener *, json_tokener_free);

/* Why report_file_open() failed. */
static int report_open_error(EscapePool *e, const char *path, int error)
{
        if (error == -EBADFD)
                fprintf(stderr, "nvprofilectl: %s: not a regular file\n", esc(e, path));
        else
                fprintf(stderr, "nvprofilectl: %s: %s\n", esc(e, path), strerror(-error));
        return error;
}

int report_open(const char *path, int *ret_fd)
{
        _cleanup_(escape_pool_done) EscapePool e = { 0 };
        int r;

        r = report_file_open(path, ret_fd);
        if (r < 0)
                return report_open_error(&e, path, r);
        return 0;
}

int report_load_local(const char *path, NcuReport **ret)
{
        _cleanup_(escape_pool_done) EscapePool e = { 0 };
        NcuReportError err;
        int r;

        r = report_file_load(path, ret, &err);
        if (r < 0 && !err.message[0])
                return report_open_error(&e, path, r);
        if (r < 0) {
                /* The message holds no byte of the file (report.h), only the offset. */
                fprintf(stderr, "nvprofilectl: %s: byte %" PRIu64 ": %s\n", esc(&e, path), err.offset, err.message);
                return r;
        }
        return 0;
}

/* Errors that mean no daemon serves reports here: then the file is read in-process. */
static bool error_means_no_service(const sd_bus_error *error)
{
        return sd_bus_error_has_names(error, SD_BUS_ERROR_SERVICE_UNKNOWN, SD_BUS_ERROR_NAME_HAS_NO_OWNER,
                               SD_BUS_ERROR_UNKNOWN_METHOD, SD_BUS_ERROR_UNKNOWN_OBJECT,
                               SD_BUS_ERROR_UNKNOWN_INTERFACE) ||
                        startswith(error->name, "org.freedesktop.DBus.Error.Spawn.") ||
                        startswith(error->name, "org.freedesktop.systemd1.");
}

int report_bus_open(sd_bus **ret)
{
        if (arg.bus_address)
                return bus_open_address(arg.bus_address, ret);
        if (arg.session)
                return sd_bus_open_user(ret);
        return sd_bus_open_system(ret);
}

int report_bus_load(sd_bus *bus, const char *path, char **ret_object)
{
        _cleanup_(escape_pool_done) EscapePool e = { 0 };
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_close_ int fd = -EBADF;
        const char *o;
        int r;

        r = report_open(path, &fd);
        if (r < 0)
                return r;
        r = sd_bus_call_method(
                        bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "LoadReport", &error, &reply, "h", fd);
        if (r < 0) {
                if (error_means_no_service(&error))
                        return 1;
                if (sd_bus_error_has_name(&error, BUS_ERROR_INVALID_REPORT))
                        fprintf(stderr, "nvprofilectl: %s: %s\n", esc(&e, path), esc(&e, error.message));
                else if (sd_bus_error_has_name(&error, BUS_ERROR_LIMITS_EXCEEDED))
                        fprintf(stderr, "nvprofilectl: %s: %s (--local reads it in this process)\n", esc(&e, path),
                                        esc(&e, error.message));
                else
                        log_bus_call_error("LoadReport", &error, r);
                return r;
        }
        r = sd_bus_message_read(reply, "o", &o);
        if (r < 0)
                return log_error_errno(r, "Could not open the report: the daemon's reply does not read");
        *ret_object = strdup(o);
        return *ret_object ? 0 : log_oom();
}

void report_bus_close(sd_bus *bus, const char *object)
{
        if (object)
                (void) sd_bus_call_method(bus, BUS_NAME, object, BUS_REPORT_INTERFACE, "Close", NULL, NULL, NULL);
}

int report_read_reply_fd(sd_bus_message *reply, size_t max_size, char **ret_text, size_t *ret_size)
{
        int fd, r;

        r = sd_bus_message_read(reply, "h", &fd);
        if (r < 0)
                return r;
        return read_full_fd(fd, max_size, ret_text, ret_size); /* a sealed memfd */
}

/* ExportPageEncoded's argument: the page and its options encoded once, as the worker reads them
 * (report-page-options.h); the daemon passes them on. */
static int append_page_options(sd_bus_message *m, const NcuPageOptions *o)
{
        NcuWire encoded;
        int r;

        ncu_wire_init(&encoded, NCU_PAGE_OPTIONS_ENCODED_SIZE);
        ncu_wire_put_page_options(&encoded, o);
        r = ncu_wire_finish(&encoded);
        if (r >= 0)
                r = sd_bus_message_append_array(m, 'y', encoded.data, encoded.size);
        ncu_wire_done(&encoded);
        return r;
}

/* method on the daemon's object: its memfd, a descriptor of our own. flag < 0 sends no argument; page
 * (ExportPageEncoded) sends the page and its options. */
static int call_export(sd_bus *bus, const char *object, const char *method, int flag, const NcuPageOptions *page,
                sd_bus_error *error, int *ret_fd)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *exported = NULL;
        int fd, r;

        r = sd_bus_message_new_method_call(bus, &m, BUS_NAME, object, BUS_REPORT_INTERFACE, method);
        if (r < 0)
                return r;
        if (page)
                r = append_page_options(m, page);
        else if (flag >= 0)
                r = sd_bus_message_append(m, "b", flag);
        if (r < 0)
                return r;
        r = sd_bus_call(bus, m, 0, error, &exported);
        if (r < 0)
                return r;
        r = sd_bus_message_read(exported, "h", &fd);
        if (r < 0)
                return r;
        fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        if (fd < 0)
                return -errno;
        *ret_fd = fd;
        return 0;
}

static int export_via_daemon(const char *path, const char *method, int flag, const NcuPageOptions *page, int *ret_fd)
{
        _cleanup_(escape_pool_done) EscapePool e = { 0 };
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *object = NULL;
        int r;

        if (report_bus_open(&bus) < 0)
                return 1;
        r = report_bus_load(bus, path, &object);
        if (r != 0)
                return r;
        r = call_export(bus, object, method, flag, page, &error, ret_fd);
        report_bus_close(bus, object);
        if (r < 0) {
                if (sd_bus_error_has_name(&error, BUS_ERROR_LIMITS_EXCEEDED))
                        fprintf(stderr, "nvprofilectl: %s: %s (--local reads it in this process)\n", esc(&e, path),
                                        esc(&e, error.message));
                else
                        log_bus_call_error(method, &error, r);
                return r;
        }
        return 0;
}

int report_export_via_daemon(const char *path, const char *method, int flag, int *ret_fd)
{
        return export_via_daemon(path, method, flag, NULL, ret_fd);
}

int report_fetch_via_daemon(
                const char *path, const char *method, int flag, size_t max_size, char **ret_text, size_t *ret_size)
{
        _cleanup_close_ int fd = -EBADF;
        int r;

        r = report_export_via_daemon(path, method, flag, &fd);
        if (r != 0)
                return r;
        r = read_full_fd(fd, max_size, ret_text, ret_size);
        return r < 0 ? log_error_errno(r, "Cannot read the daemon's %s", method) : 0;
}

int report_fetch_page_via_daemon(
                const char *path, const NcuPageOptions *page, size_t max_size, char **ret_text, size_t *ret_size)
{
        _cleanup_close_ int fd = -EBADF;
        int r;

        r = export_via_daemon(path, "ExportPageEncoded", -1, page, &fd);
        if (r != 0)
                return r;
        r = read_full_fd(fd, max_size, ret_text, ret_size);
        return r < 0 ? log_error_errno(r, "Could not export the report page") : 0;
}

/* The model through the daemon (LoadReport, ExportJson, Close). Returns 1 when there is no daemon to ask
 * (the caller then reads the file itself), 0 with *ret, or a negative errno after saying why. */
static int report_load_via_daemon(const char *path, struct json_object **ret)
{
        _cleanup_free_ char *text = NULL;
        _cleanup_(json_tokener_freep) json_tokener *tok = NULL;
        size_t size;
        int r;

        r = report_fetch_via_daemon(path, "ExportJson", -1, REPORT_JSON_MAX, &text, &size);
        if (r != 0)
                return r;
        tok = json_tokener_new_ex(64);
        if (!tok)
                return log_oom();
        *ret = json_tokener_parse_ex(tok, text, (int) MIN(size, (size_t) INT32_MAX));
        if (!*ret)
                return log_error_errno(-EBADMSG, "The daemon returned a malformed report model");
        return 0;
}

int report_load_json(const char *path, struct json_object **ret)
{
        _cleanup_(ncu_report_freep) NcuReport *r = NULL;
        int k;

        if (!arg.local) {
                k = report_load_via_daemon(path, ret);
                if (k <= 0)
                        return k;
        }
        k = report_load_local(path, &r);
        if (k < 0)
                return k;
        k = ncu_report_to_json_attrs(r, 0, ret);
        if (k < 0)
                return log_oom();
        return 0;
}

/* What fd holds, to standard output, a chunk at a time. */
static int copy_fd_to_stdout(int fd)
{
        char buf[64 * 1024];

        for (;;) {
                ssize_t n = read(fd, buf, sizeof(buf));

                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (n == 0)
                        return 0;
                if (fwrite(buf, 1, (size_t) n, stdout) != (size_t) n)
                        return -EIO;
        }
}

static int report_json(const char *path)
{
        _cleanup_(json_object_putp) struct json_object *doc = NULL;
        JsonMode saved = arg.json;
        JsonMode mode = arg.json != JSON_OFF ? arg.json : isatty(STDOUT_FILENO) ? JSON_PRETTY : JSON_SHORT;
        int r;

        /* Short JSON is the worker's own text: copied as it comes, never parsed here (the tree of a whole
         * model takes 10 to 16 times its text). */
        if (mode == JSON_SHORT && !arg.local) {
                _cleanup_close_ int fd = -EBADF;

                r = report_export_via_daemon(path, "ExportJson", -1, &fd);
                if (r < 0)
                        return r;
                if (r == 0) {
                        r = copy_fd_to_stdout(fd);
                        if (r < 0 || putchar('\n') == EOF || fflush(stdout) != 0)
                                return log_error_errno(r < 0 ? r : -EIO, "Cannot write the report's JSON");
                        return 0;
                }
        }
        r = report_load_json(path, &doc);
        if (r < 0)
                return r;
        if (arg.json == JSON_OFF) /* "report json" is JSON whatever --json says */
                arg.json = isatty(STDOUT_FILENO) ? JSON_PRETTY : JSON_SHORT;
        json_print(doc);
        arg.json = saved;
        return 0;
}

/* Subverbs implemented elsewhere (the CSV exports) declare their function in verb-report.h and add a line. */
static const ReportSubverb subverbs[] = {
        { "summary", report_summary },
        { "json", report_json },
        { "raw", report_raw, .takes_output = true },
        { "details", report_details, .takes_output = true },
        { "session", report_session, .takes_output = true },
        /* verb-report-rules.c */
        { "rules", report_rules },
};

static int refuse_output(void)
{
        fprintf(stderr, "nvprofilectl: --output is an option of report raw, report details and report session.\n");
        return EXIT_USAGE;
}

int verb_report(int argc, char *argv[])
{
        _cleanup_(escape_pool_done) EscapePool e = { 0 };

        if (streq(argv[1], "diff") && arg.output)
                return refuse_output();
        if (streq(argv[1], "diff")) /* two files: verb-report-diff.c */
                return verb_report_diff(argc - 1, argv + 1);
        if (arg.fail_above || arg.metrics || arg.junit) {
                fprintf(stderr, "nvprofilectl: --fail-above, --metric and --junit are options of report diff.\n");
                return EXIT_USAGE;
        }
        if (argc != 3) {
                fprintf(stderr, "nvprofilectl: report %s takes one file.\n", esc(&e, argv[1]));
                return EXIT_USAGE;
        }
        for (size_t i = 0; i < ELEMENTSOF(subverbs); i++) {
                if (!streq(subverbs[i].name, argv[1]))
                        continue;
                if (arg.output && !subverbs[i].takes_output)
                        return refuse_output();
                return subverbs[i].run(argv[2]);
        }
        fprintf(stderr, "nvprofilectl: report: unknown command \"%s\"; see nvprofilectl --help.\n", esc(&e, argv[1]));
        return EXIT_USAGE;
}
