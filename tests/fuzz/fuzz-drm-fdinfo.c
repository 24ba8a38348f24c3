/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Fuzz target for the DRM fdinfo parser, which reads what any process's DRM driver prints, and for the
 * usage math over what it parsed: the input is parsed whole, and its two halves are fed to the
 * aggregator as two successive samples of the same fd, then the whole as a third. */

#include <stddef.h>
#include <stdint.h>

#include "drm-fdinfo.h"
#include "drm-usage.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        _cleanup_(drm_usage_freep) DrmUsage *u = NULL;
        _cleanup_(drm_fdinfo_freep) DrmFdinfo *whole = NULL, *a = NULL, *b = NULL;
        const char *text = (const char *) data;
        size_t half = size / 2;

        if (drm_fdinfo_parse(text, size, 0, &whole) < 0)
                return 0;
        if (drm_fdinfo_parse(text, half, DRM_FDINFO_PARSE_NO_EXTRAS, &a) < 0)
                return 0;
        if (drm_fdinfo_parse(text + half, size - half, DRM_FDINFO_PARSE_NO_EXTRAS, &b) < 0)
                return 0;

        /* What a consumer does with the result: every string is a C string within its bound. */
        assert(strlen(whole->driver) <= DRM_FDINFO_DRIVER_MAX);
        assert(strlen(whole->client_name) <= DRM_FDINFO_CLIENT_NAME_MAX);
        assert(whole->n_engines <= DRM_FDINFO_ENGINES_MAX && whole->n_regions <= DRM_FDINFO_REGIONS_MAX);
        assert(whole->n_extras <= DRM_FDINFO_EXTRAS_MAX && whole->n_rejects <= DRM_FDINFO_REJECTS_MAX);
        for (size_t i = 0; i < whole->n_engines; i++)
                assert(whole->engines[i].capacity > 0);
        for (size_t i = 0; i < whole->n_rejects; i++)
                assert(whole->rejects[i].reason && whole->rejects[i].line >= 1);

        u = drm_usage_new();
        if (!u)
                return 0;
        {
                const DrmUsageRead r1[] = {
                        { .fdinfo = a, .device = "d", .pid = 1, .fd = 3, .timestamp_usec = 1000000 },
                        { .fdinfo = b, .device = "d", .pid = 2, .fd = 4, .timestamp_usec = 1000000 },
                };
                const DrmUsageRead r2[] = {
                        { .fdinfo = b, .device = "d", .pid = 1, .fd = 3, .timestamp_usec = 1500000 }
                };
                const DrmUsageRead r3[] = {
                        { .fdinfo = whole, .device = "d", .pid = 1, .fd = 3, .timestamp_usec = 2500000 },
                        { .fdinfo = a, .device = "e", .pid = 1, .fd = 5, .timestamp_usec = 2500001 },
                };

                if (drm_usage_update(u, r1, ELEMENTSOF(r1)) < 0 || drm_usage_update(u, r2, ELEMENTSOF(r2)) < 0 ||
                                drm_usage_update(u, r3, ELEMENTSOF(r3)) < 0)
                        return 0;
        }
        for (size_t i = 0; i < u->n_clients; i++)
                for (size_t j = 0; j < u->clients[i].n_engines; j++) {
                        const DrmUsageEngine *e = &u->clients[i].engines[j];
                        assert(!e->has_engine_percent || (e->engine_percent >= 0 && e->engine_percent <= 100));
                        assert(!e->has_cycles_percent || (e->cycles_percent >= 0 && e->cycles_percent <= 100));
                        assert(!e->has_freq_percent || (e->freq_percent >= 0 && e->freq_percent <= 100));
                }
        return 0;
}
