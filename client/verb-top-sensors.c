/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* nvprofilectl top: a device's sensors (Usage.ListGpuSensors) compact on one line. The power draw and its
 * limit share one figure ("120/255 W"); a clock without a driver's label is named for its domain. Labels
 * come from drivers: escaped like every outside string. */

#include <stdio.h>
#include <stdlib.h>

#include "string-util.h"
#include "verb-top.h"

static const char *jstr(struct json_object *o, const char *key)
{
        const char *s = json_object_get_string(json_object_object_get(o, key));
        return s ? s : "";
}

static double jdouble(struct json_object *o, const char *key)
{
        return json_object_get_double(json_object_object_get(o, key));
}

/* The first reading of sensor with label (NULL: any label), or NULL. */
static struct json_object *find_reading(struct json_object *sensors, const char *sensor, const char *label)
{
        for (size_t i = 0; i < json_object_array_length(sensors); i++) {
                struct json_object *x = json_object_array_get_idx(sensors, i);

                if (streq(jstr(x, "sensor"), sensor) && (!label || streq(jstr(x, "label"), label)))
                        return x;
        }
        return NULL;
}

/* "LABEL " (escaped) or fallback and a blank, or nothing. */
static void put_label(FILE *f, EscapePool *e, struct json_object *x, const char *fallback)
{
        const char *label = jstr(x, "label");

        if (!isempty(label))
                fprintf(f, "%s ", esc(e, label));
        else if (fallback)
                fprintf(f, "%s ", fallback);
}

char *top_sensors_line(struct json_object *device)
{
        _cleanup_(escape_pool_done) EscapePool e = { 0 };
        struct json_object *sensors = json_object_object_get(device, "sensors");
        char *buf = NULL;
        size_t size = 0;
        const char *sep = "";
        FILE *f;

        f = open_memstream(&buf, &size);
        if (!f)
                return NULL;
        for (size_t i = 0; i < json_object_array_length(sensors); i++) {
                struct json_object *x = json_object_array_get_idx(sensors, i), *limit;
                const char *sensor = jstr(x, "sensor"), *unit = jstr(x, "unit");
                double v = jdouble(x, "value");

                if (streq(sensor, "temperature")) {
                        fputs(sep, f);
                        put_label(f, &e, x, NULL);
                        fprintf(f, "%.0f°C", v);
                } else if (streq(sensor, "power")) {
                        fputs(sep, f);
                        put_label(f, &e, x, NULL);
                        limit = find_reading(sensors, "power_limit", jstr(x, "label"));
                        if (limit)
                                fprintf(f, "%.1f/%.0f W", v, jdouble(limit, "value"));
                        else
                                fprintf(f, "%.1f W", v);
                } else if (streq(sensor, "power_limit")) {
                        /* Shown with its draw, when there is one. */
                        if (find_reading(sensors, "power", jstr(x, "label")))
                                continue;
                        fputs(sep, f);
                        put_label(f, &e, x, NULL);
                        fprintf(f, "limit %.0f W", v);
                } else if (streq(sensor, "clock_graphics") || streq(sensor, "clock_memory")) {
                        fputs(sep, f);
                        put_label(f, &e, x, streq(sensor, "clock_graphics") ? "gfx" : "mem");
                        fprintf(f, "%.0f MHz", v);
                } else if (streq(sensor, "fan")) {
                        fputs(sep, f);
                        put_label(f, &e, x, "fan");
                        if (streq(unit, "percent"))
                                fprintf(f, "%.0f%%", v);
                        else
                                fprintf(f, "%.0f rpm", v);
                } else
                        continue; /* a sensor of a newer daemon: not known here */
                sep = "  ";
        }
        if (fclose(f) != 0) {
                free(buf);
                return NULL;
        }
        return buf;
}
