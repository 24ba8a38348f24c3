/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "fdinfo": parses saved /proc/<pid>/fdinfo/<fd> dumps locally, without the daemon (as users attach them
 * to bug reports), with the daemon's own parser, and prints what the daemon takes from each. With
 * --interval and two dumps of one client, the utilisation between them, with the daemon's own math.
 * Everything from the files is escaped in text output; JSON carries it exactly. */

#include <fcntl.h>
#include <inttypes.h>
#include <unistd.h>

#include "client.h"
#include "drm-fdinfo.h"
#include "drm-usage.h"
#include "fd-util.h"
#include "fileio.h"

/* A dump is a few hundred bytes; this only stops someone pointing us at a huge file by mistake. */
#define FDINFO_FILE_MAX (1024u * 1024u)

static int read_dump(const char *path, DrmFdinfo **ret)
{
        _cleanup_(escape_pool_done) EscapePool e = { 0 };
        _cleanup_free_ char *text = NULL;
        _cleanup_close_ int fd = -EBADF;
        size_t size;
        int r;

        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0) {
                r = -errno;
                fprintf(stderr, "nvprofilectl: %s: %s\n", esc(&e, path), strerror(-r));
                return r;
        }
        /* Regular files only (procfs files count): a fifo or a device could block or never end. */
        r = read_full_fd(fd, FDINFO_FILE_MAX, &text, &size);
        if (r < 0) {
                fprintf(stderr, "nvprofilectl: %s: %s\n", esc(&e, path),
                                r == -EFBIG                    ? "larger than 1 MiB, not an fdinfo dump"
                                                : r == -EBADFD ? "not a regular file"
                                                               : strerror(-r));
                return r;
        }
        r = drm_fdinfo_parse(text, size, 0, ret);
        if (r < 0) {
                fprintf(stderr, "nvprofilectl: %s: %s\n", esc(&e, path), strerror(-r));
                return r;
        }
        return 0;
}

static const char *kind_why(DrmFdinfoKind k)
{
        switch (k) {
        case DRM_FDINFO_USAGE:
                return "";
        case DRM_FDINFO_NO_STATS:
                return " (no drm- keys: a DRM fd without usage stats, or not a DRM fd)";
        case DRM_FDINFO_NOT_DRM:
                return " (no valid drm-driver key)";
        case _DRM_FDINFO_KIND_MAX:
                break;
        }
        assert_not_reached();
}

static void print_engine(EscapePool *e, const DrmFdinfoEngine *x)
{
        printf("    %-16s", esc(e, x->name));
        if (x->has_busy_ns)
                printf(" busy %" PRIu64 " ns", x->busy_ns);
        if (x->has_cycles)
                printf(" cycles %" PRIu64, x->cycles);
        if (x->has_total_cycles)
                printf(" total-cycles %" PRIu64, x->total_cycles);
        if (x->has_maxfreq)
                printf(" maxfreq %" PRIu64 " Hz", x->maxfreq_hz);
        printf(" capacity %" PRIu64 "%s\n", x->capacity, x->has_capacity ? "" : " (default)");
}

static void print_region(EscapePool *e, const DrmFdinfoRegion *x)
{
        printf("    %-16s", esc(e, x->name));
        for (DrmFdinfoMemStat s = 0; s < _DRM_FDINFO_MEM_MAX; s++)
                if (x->has[s])
                        printf(" %s %" PRIu64 "%s", drm_fdinfo_mem_stat_to_string(s), x->bytes[s],
                                        s == DRM_FDINFO_MEM_RESIDENT && x->resident_from_legacy ? " (drm-memory)" : "");
        if (x->has_legacy && !x->resident_from_legacy)
                printf(" (drm-memory %" PRIu64 " ignored)", x->legacy_bytes);
        printf("\n");
}

static void print_text(const char *path, const DrmFdinfo *f)
{
        _cleanup_(escape_pool_done) EscapePool e = { 0 };

        printf("%s: %s%s\n", esc(&e, path), drm_fdinfo_kind_to_string(f->kind), kind_why(f->kind));
        if (f->kind == DRM_FDINFO_USAGE) {
                printf("  driver:      %s\n", esc(&e, f->driver));
                printf("  pdev:        %s\n", f->has_pdev ? esc(&e, f->pdev) : "(none)");
                if (f->has_client_id)
                        printf("  client id:   %" PRIu64 "\n", f->client_id);
                else
                        printf("  client id:   (none)\n");
                printf("  client name: %s\n", f->has_client_name ? esc(&e, f->client_name) : "(none)");
                if (f->n_engines > 0)
                        printf("  engines:\n");
                for (size_t i = 0; i < f->n_engines; i++)
                        print_engine(&e, &f->engines[i]);
                if (f->n_regions > 0)
                        printf("  regions (bytes):\n");
                for (size_t i = 0; i < f->n_regions; i++)
                        print_region(&e, &f->regions[i]);
        }
        if (f->n_extras > 0)
                printf("  other keys:\n");
        for (size_t i = 0; i < f->n_extras; i++)
                printf("    %s: %s\n", esc(&e, f->extras[i].key), esc(&e, f->extras[i].value));
        for (size_t i = 0; i < f->n_rejects; i++)
                printf("  %s:%u: rejected %s%s: %s\n", esc(&e, path), f->rejects[i].line, esc(&e, f->rejects[i].key),
                                f->rejects[i].key_cut ? "..." : "", f->rejects[i].reason);
        if (f->n_engines_dropped + f->n_regions_dropped + f->n_extras_dropped + f->n_rejects_dropped > 0)
                printf("  dropped over the bounds: %u engine, %u region, %u other, %u rejection line(s)\n",
                                f->n_engines_dropped, f->n_regions_dropped, f->n_extras_dropped, f->n_rejects_dropped);
}

static struct json_object *u64_or_null(bool has, uint64_t v)
{
        return has ? json_object_new_uint64(v) : NULL;
}

static struct json_object *fdinfo_json(const char *path, const DrmFdinfo *f)
{
        struct json_object *o = json_object_new_object(), *engines = json_object_new_array(),
                           *regions = json_object_new_array(), *extras = json_object_new_array(),
                           *rejects = json_object_new_array();

        json_object_object_add(o, "file", json_object_new_string(path));
        json_object_object_add(o, "kind", json_object_new_string(drm_fdinfo_kind_to_string(f->kind)));
        json_object_object_add(o, "driver", f->kind == DRM_FDINFO_USAGE ? json_object_new_string(f->driver) : NULL);
        json_object_object_add(o, "pdev", f->has_pdev ? json_object_new_string(f->pdev) : NULL);
        json_object_object_add(o, "client_id", u64_or_null(f->has_client_id, f->client_id));
        json_object_object_add(o, "client_name", f->has_client_name ? json_object_new_string(f->client_name) : NULL);

        for (size_t i = 0; i < f->n_engines; i++) {
                const DrmFdinfoEngine *x = &f->engines[i];
                struct json_object *j = json_object_new_object();

                json_object_object_add(j, "name", json_object_new_string(x->name));
                json_object_object_add(j, "busy_ns", u64_or_null(x->has_busy_ns, x->busy_ns));
                json_object_object_add(j, "capacity", json_object_new_uint64(x->capacity));
                json_object_object_add(j, "cycles", u64_or_null(x->has_cycles, x->cycles));
                json_object_object_add(j, "total_cycles", u64_or_null(x->has_total_cycles, x->total_cycles));
                json_object_object_add(j, "maxfreq_hz", u64_or_null(x->has_maxfreq, x->maxfreq_hz));
                json_object_array_add(engines, j);
        }
        json_object_object_add(o, "engines", engines);

        for (size_t i = 0; i < f->n_regions; i++) {
                const DrmFdinfoRegion *x = &f->regions[i];
                struct json_object *j = json_object_new_object();

                json_object_object_add(j, "name", json_object_new_string(x->name));
                for (DrmFdinfoMemStat s = 0; s < _DRM_FDINFO_MEM_MAX; s++)
                        json_object_object_add(
                                        j, drm_fdinfo_mem_stat_to_string(s), u64_or_null(x->has[s], x->bytes[s]));
                json_object_object_add(j, "memory_legacy", u64_or_null(x->has_legacy, x->legacy_bytes));
                json_object_object_add(j, "resident_from_legacy", json_object_new_boolean(x->resident_from_legacy));
                json_object_array_add(regions, j);
        }
        json_object_object_add(o, "regions", regions);

        for (size_t i = 0; i < f->n_extras; i++) {
                struct json_object *j = json_object_new_object();

                json_object_object_add(j, "key", json_object_new_string(f->extras[i].key));
                json_object_object_add(j, "value", json_object_new_string(f->extras[i].value));
                json_object_object_add(j, "line", json_object_new_int64(f->extras[i].line));
                json_object_array_add(extras, j);
        }
        json_object_object_add(o, "extras", extras);

        for (size_t i = 0; i < f->n_rejects; i++) {
                struct json_object *j = json_object_new_object();

                json_object_object_add(j, "line", json_object_new_int64(f->rejects[i].line));
                json_object_object_add(j, "key", json_object_new_string(f->rejects[i].key));
                json_object_object_add(j, "key_cut", json_object_new_boolean(f->rejects[i].key_cut));
                json_object_object_add(j, "reason", json_object_new_string(f->rejects[i].reason));
                json_object_array_add(rejects, j);
        }
        json_object_object_add(o, "rejected", rejects);
        return o;
}

static struct json_object *percent_or_null(bool has, double v)
{
        return has ? json_object_new_double(v) : NULL;
}

/* The two dumps as two samples of one client, interval_usec apart. Says why not when they are not. */
static int utilisation(
                const char *const paths[2], DrmFdinfo *const f[2], uint64_t interval_usec, struct json_object *out)
{
        _cleanup_(escape_pool_done) EscapePool e = { 0 };
        _cleanup_(drm_usage_freep) DrmUsage *u = NULL;
        const DrmUsageClient *c;
        int r;

        for (unsigned i = 0; i < 2; i++)
                if (f[i]->kind != DRM_FDINFO_USAGE) {
                        fprintf(stderr, "nvprofilectl: %s: not DRM usage, no utilisation.\n", esc(&e, paths[i]));
                        return -EINVAL;
                }
        if (!f[0]->has_client_id || !f[1]->has_client_id || f[0]->client_id != f[1]->client_id ||
                        !streq(f[0]->driver, f[1]->driver) || f[0]->has_pdev != f[1]->has_pdev ||
                        !streq(f[0]->pdev, f[1]->pdev)) {
                fprintf(stderr,
                                "nvprofilectl: %s and %s are not dumps of the same client (driver, drm-pdev and "
                                "drm-client-id must be equal).\n",
                                esc(&e, paths[0]), esc(&e, paths[1]));
                return -EINVAL;
        }

        u = drm_usage_new();
        if (!u)
                return -ENOMEM;
        for (unsigned i = 0; i < 2; i++) {
                const DrmUsageRead read = {
                        .fdinfo = f[i],
                        .device = "dump",
                        .pid = 0,
                        .fd = 0,
                        .timestamp_usec = i * interval_usec,
                };

                r = drm_usage_update(u, &read, 1);
                if (r < 0)
                        return r;
        }
        c = drm_usage_find_client(u, f[0]->has_pdev ? f[0]->pdev : "dump", f[0]->client_id);
        assert(c);

        if (arg.json != JSON_OFF) {
                struct json_object *engines = json_object_new_array();

                json_object_object_add(out, "interval_seconds", json_object_new_double((double) interval_usec / 1e6));
                for (size_t i = 0; i < c->n_engines; i++) {
                        const DrmUsageEngine *x = &c->engines[i];
                        struct json_object *j = json_object_new_object();
                        double busy;
                        bool has_busy = drm_usage_engine_busy(x, &busy);

                        json_object_object_add(j, "name", json_object_new_string(x->name));
                        json_object_object_add(j, "busy_percent", percent_or_null(has_busy, busy));
                        json_object_object_add(
                                        j, "engine_percent", percent_or_null(x->has_engine_percent, x->engine_percent));
                        json_object_object_add(
                                        j, "cycles_percent", percent_or_null(x->has_cycles_percent, x->cycles_percent));
                        json_object_object_add(
                                        j, "freq_percent", percent_or_null(x->has_freq_percent, x->freq_percent));
                        json_object_object_add(j, "went_backwards", json_object_new_boolean(x->n_backwards > 0));
                        json_object_object_add(j, "clamped", json_object_new_boolean(x->n_clamped > 0));
                        json_object_array_add(engines, j);
                }
                json_object_object_add(out, "utilisation", engines);
                return 0;
        }

        printf("Utilisation from %s to %s over %.3f s:\n", esc(&e, paths[0]), esc(&e, paths[1]),
                        (double) interval_usec / 1e6);
        for (size_t i = 0; i < c->n_engines; i++) {
                const DrmUsageEngine *x = &c->engines[i];
                double busy;

                printf("  %-16s", esc(&e, x->name));
                if (drm_usage_engine_busy(x, &busy))
                        printf(" busy %.1f%%", busy);
                else
                        printf(" busy -");
                if (x->has_engine_percent && x->has_cycles_percent)
                        printf(" (cycles %.1f%%)", x->cycles_percent);
                if (x->has_freq_percent)
                        printf(" at max. frequency %.1f%%", x->freq_percent);
                if (x->n_backwards > 0)
                        printf(" (a counter went backwards: 0)");
                if (x->n_clamped > 0)
                        printf(" (above 100%%, cut)");
                if (x->stale)
                        printf(" (not in the second dump)");
                printf("\n");
        }
        return 0;
}

int verb_fdinfo(int argc, char *argv[])
{
        _cleanup_(json_object_putp) struct json_object *out = json_object_new_object();
        struct json_object *files = json_object_new_array();
        DrmFdinfo *parsed[2] = { NULL, NULL };
        bool failed = false;
        int r = 0;

        assert(argc >= 2);

        if (arg.interval_usec > 0 && argc != 3) {
                fprintf(stderr, "nvprofilectl: fdinfo --interval= takes exactly two dumps of one client, got %d.\n",
                                argc - 1);
                json_object_put(files);
                return EXIT_USAGE;
        }
        json_object_object_add(out, "files", files);

        for (int i = 1; i < argc; i++) {
                _cleanup_(drm_fdinfo_freep) DrmFdinfo *f = NULL;

                if (read_dump(argv[i], &f) < 0) {
                        failed = true;
                        continue;
                }
                if (f->kind != DRM_FDINFO_USAGE)
                        failed = true;
                if (arg.json != JSON_OFF)
                        json_object_array_add(files, fdinfo_json(argv[i], f));
                else
                        print_text(argv[i], f);
                if (arg.interval_usec > 0)
                        parsed[i - 1] = TAKE_PTR(f);
        }

        if (arg.interval_usec > 0 && parsed[0] && parsed[1]) {
                if (arg.json == JSON_OFF)
                        printf("\n");
                r = utilisation((const char *const[]){ argv[1], argv[2] }, parsed, arg.interval_usec, out);
        } else if (arg.interval_usec > 0)
                failed = true;
        drm_fdinfo_free(parsed[0]);
        drm_fdinfo_free(parsed[1]);

        if (arg.json != JSON_OFF) {
                /* Without --interval there is no second sample: no utilisation. */
                if (!json_object_object_get_ex(out, "utilisation", NULL)) {
                        json_object_object_add(out, "interval_seconds", NULL);
                        json_object_object_add(out, "utilisation", NULL);
                }
                (void) json_print_document("fdinfo", NULL, out);
        }
        if (r < 0)
                return r;
        return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
