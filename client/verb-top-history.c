/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* nvprofilectl top: each device's busiest engine over time, for the history line. The samples are those
 * top read itself (one per reading), kept in client/usage-history.c as the app keeps its graphs'. */

#include <stdlib.h>

#include "string-util.h"
#include "verb-top.h"

void top_history_done(TopHistory *h)
{
        for (size_t i = 0; i < h->n_devices; i++) {
                free(h->devices[i].source);
                free(h->devices[i].device);
                usage_history_done(&h->devices[i].history);
        }
        free(h->devices);
        *h = (TopHistory){ 0 };
}

const UsageHistory *top_history_find(const TopHistory *h, const char *source, const char *device)
{
        for (size_t i = 0; h && i < h->n_devices; i++)
                if (streq(h->devices[i].source, source) && streq(h->devices[i].device, device))
                        return &h->devices[i].history;
        return NULL;
}

static TopHistoryDevice *history_device(TopHistory *h, const char *source, const char *device)
{
        TopHistoryDevice *x;

        for (size_t i = 0; i < h->n_devices; i++)
                if (streq(h->devices[i].source, source) && streq(h->devices[i].device, device))
                        return &h->devices[i];
        x = reallocarray(h->devices, h->n_devices + 1, sizeof(TopHistoryDevice));
        if (!x)
                return NULL;
        h->devices = x;
        x = &h->devices[h->n_devices];
        *x = (TopHistoryDevice){ .source = strdup(source), .device = strdup(device), .history = USAGE_HISTORY_INIT };
        if (!x->source || !x->device) {
                free(x->source);
                free(x->device);
                return NULL;
        }
        h->n_devices++;
        return x;
}

int top_history_push(TopHistory *h, struct json_object *reading, uint64_t now_usec)
{
        struct json_object *devices = json_object_object_get(reading, "devices");

        assert(h);

        for (size_t i = 0; i < json_object_array_length(devices); i++) {
                struct json_object *d = json_object_array_get_idx(devices, i);
                struct json_object *engines = json_object_object_get(d, "engines");
                const char *source = json_object_get_string(json_object_object_get(d, "source"));
                const char *device = json_object_get_string(json_object_object_get(d, "device"));
                TopHistoryDevice *x;
                double busiest = -1;

                for (size_t k = 0; k < json_object_array_length(engines); k++)
                        busiest = MAX(busiest,
                                        json_object_get_double(json_object_object_get(
                                                        json_object_array_get_idx(engines, k), "busy_percent")));
                x = history_device(h, strempty(source), strempty(device));
                if (!x || usage_history_push(&x->history, now_usec, busiest) < 0)
                        return -ENOMEM;
        }
        return 0;
}
