/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Benchmark: reading NVIDIA's shipped 570.153.02 rc file, next to json-c alone on the same text with the
 * rc-only syntax removed, and resolving processes against it. Prints one line per figure.
 *
 *   bench-appprofile [CORPUS_DIR]
 *
 * Each figure is the median of 15 batches, so a noisy neighbour moves it less than a mean would. */

#include <fcntl.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <time.h>

#include "bench-util.h"
#include "fd-util.h"
#include "fileio.h"
#include "rc-config.h"
#include "rc-resolve.h"

#define BATCHES 15

/* What json-c alone gets: '#' comments blanked, 0x/0NN integers in decimal. Done once, not timed. */
static char *plain_json(const char *text, size_t size)
{
        char *out = malloc(size * 2 + 1), *o = out;
        bool quoted = false;

        if (!out)
                return NULL;
        for (size_t i = 0; i < size; i++) {
                char c = text[i];
                if (quoted) {
                        *o++ = c;
                        if (c == '\\' && i + 1 < size)
                                *o++ = text[++i];
                        else if (c == '"')
                                quoted = false;
                } else if (c == '"') {
                        quoted = true;
                        *o++ = c;
                } else if (c == '#') {
                        while (i < size && text[i] != '\n')
                                i++;
                        *o++ = '\n';
                } else if (c == '0' && i + 1 < size && (text[i + 1] == 'x' || text[i + 1] == 'X')) {
                        char *end;
                        unsigned long long v = strtoull(text + i, &end, 16);
                        o += sprintf(o, "%llu", v);
                        i = (size_t) (end - text) - 1;
                } else
                        *o++ = c;
        }
        *o = '\0';
        return out;
}

int main(int argc, char *argv[])
{
        const char *corpus = argc > 1 ? argv[1] : getenv("NVPROFILED_CORPUS");
        _cleanup_free_ char *path = NULL, *text = NULL, *plain = NULL;
        _cleanup_close_ int root = -EBADF;
        uint64_t t_rc[BATCHES], t_json[BATCHES], t_resolve[BATCHES];
        const unsigned load_iters = 200, resolve_iters = 20000;
        RcConfig *config = NULL;
        RcFile *file = NULL;
        size_t size;
        int r;

        if (!corpus) {
                fprintf(stderr, "Usage: %s CORPUS_DIR\n", argv[0]);
                return 2;
        }
        if (asprintf(&path, "%s/appprofiles/nvidia-shipped-570.153.02-rc", corpus) < 0)
                return 1;
        root = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        r = read_full_file_in_root(root, path, RC_FILE_SIZE_MAX, &text, &size, NULL);
        if (r < 0) {
                fprintf(stderr, "%s: %s\n", path, strerror(-r));
                return 1;
        }
        plain = plain_json(text, size);
        if (!plain)
                return 1;

        for (unsigned b = 0; b < BATCHES; b++) {
                uint64_t t0 = bench_now_ns();
                for (unsigned i = 0; i < load_iters; i++) {
                        RcFile *f = NULL;
                        if (rc_file_parse("/usr/share/nvidia/x-rc", text, size, NULL, &f) < 0 || f->n_rules != 144)
                                return 1;
                        rc_file_unref(f);
                }
                uint64_t t1 = bench_now_ns();
                for (unsigned i = 0; i < load_iters; i++) {
                        struct json_object *o = json_tokener_parse(plain);
                        if (!o)
                                return 1;
                        json_object_put(o);
                }
                uint64_t t2 = bench_now_ns();
                t_rc[b] = (t1 - t0) / load_iters;
                t_json[b] = (t2 - t1) / load_iters;
        }

        r = rc_file_parse("/usr/share/nvidia/nvidia-application-profiles-570.153.02-rc", text, size, NULL, &file);
        if (r < 0 || rc_config_new_from_files(&file, 1, &config) < 0)
                return 1;

        {
                /* A realistic mix: a browser, a compositor with ~40 libraries mapped, a Wine game, a miss. */
                static const char *const maps_gnome[] = {
                        "/usr/lib/x86_64-linux-gnu/libc.so.6",
                        "/usr/lib/x86_64-linux-gnu/libm.so.6",
                        "/usr/lib/x86_64-linux-gnu/libglib-2.0.so.0.7400.6",
                        "/usr/lib/x86_64-linux-gnu/libgio-2.0.so.0",
                        "/usr/lib/x86_64-linux-gnu/libgobject-2.0.so.0",
                        "/usr/lib/x86_64-linux-gnu/libmutter-15.so.0.0.0",
                        "/usr/lib/x86_64-linux-gnu/mutter-15/libmutter-cogl-15.so.0",
                        "/usr/lib/x86_64-linux-gnu/libEGL.so.1.1.0",
                        "/usr/lib/x86_64-linux-gnu/libGLX.so.0.0.0",
                        "/usr/lib/x86_64-linux-gnu/libGLdispatch.so.0.0.0",
                        "/usr/lib/x86_64-linux-gnu/libwayland-server.so.0.21.0",
                        "/usr/lib/x86_64-linux-gnu/libgbm.so.1.0.0",
                        "/usr/lib/x86_64-linux-gnu/libdrm.so.2.4.0",
                        "/usr/lib/x86_64-linux-gnu/libinput.so.10.13.0",
                        "/usr/lib/x86_64-linux-gnu/libudev.so.1.7.5",
                        "/usr/lib/x86_64-linux-gnu/libsystemd.so.0.35.0",
                        "/usr/lib/x86_64-linux-gnu/libpango-1.0.so.0",
                        "/usr/lib/x86_64-linux-gnu/libcairo.so.2",
                        "/usr/lib/x86_64-linux-gnu/libharfbuzz.so.0",
                        "/usr/lib/x86_64-linux-gnu/libfreetype.so.6",
                        "/usr/lib/x86_64-linux-gnu/libpixman-1.so.0",
                        "/usr/lib/x86_64-linux-gnu/libpng16.so.16",
                        "/usr/lib/x86_64-linux-gnu/libz.so.1.2.13",
                        "/usr/lib/x86_64-linux-gnu/libxkbcommon.so.0",
                        "/usr/lib/x86_64-linux-gnu/libX11.so.6.4.0",
                        "/usr/lib/x86_64-linux-gnu/libxcb.so.1.1.0",
                        "/usr/lib/x86_64-linux-gnu/libgjs.so.0",
                        "/usr/lib/x86_64-linux-gnu/libmozjs-102.so.0",
                        "/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
                        "/usr/lib/x86_64-linux-gnu/libgcc_s.so.1",
                        "/usr/lib/x86_64-linux-gnu/libffi.so.8",
                        "/usr/lib/x86_64-linux-gnu/libpcre2-8.so.0",
                        "/usr/lib/x86_64-linux-gnu/libmount.so.1",
                        "/usr/lib/x86_64-linux-gnu/libblkid.so.1",
                        "/usr/lib/x86_64-linux-gnu/libselinux.so.1",
                        "/usr/lib/x86_64-linux-gnu/libnvidia-glcore.so.570.153.02",
                        "/usr/lib/x86_64-linux-gnu/libEGL_nvidia.so.570.153.02",
                        "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
                        "/usr/bin/gnome-shell",
                        NULL,
                };
                static const char *const argv_ff[] = { "/usr/lib/firefox/firefox", NULL };
                static const char *const argv_doom[] = { "C:\\Games\\DOOMEternalx64vk.exe", NULL };
                static const char *const argv_gnome[] = { "/usr/bin/gnome-shell", NULL };
                static const char *const env[] = { "HOME=/home/u", "PATH=/usr/bin", "__GL_SYNC_TO_VBLANK=0", NULL };
                const RcProcessFacts facts[] = {
                        { "/usr/lib/firefox/firefox", "firefox", (char **) argv_ff, NULL, (char **) env, -1, NULL },
                        { "/usr/bin/gnome-shell", "gnome-shell", (char **) argv_gnome, (char **) maps_gnome,
                                        (char **) env, -1, NULL },
                        { "/usr/bin/wine64-preloader", "DOOMEternalx64v", (char **) argv_doom, NULL, (char **) env, -1,
                                        NULL },
                        { "/usr/bin/cat", "cat", (char **) argv_gnome, NULL, (char **) env, -1, NULL },
                };

                for (unsigned b = 0; b < BATCHES; b++) {
                        uint64_t t0 = bench_now_ns();
                        for (unsigned i = 0; i < resolve_iters; i++) {
                                RcResolution *res = NULL;
                                if (rc_resolve(config, &facts[i % ELEMENTSOF(facts)], &res) < 0)
                                        return 1;
                                rc_resolution_free(res);
                        }
                        t_resolve[b] = (bench_now_ns() - t0) / resolve_iters;
                }
        }

        {
                double rc = (double) bench_median_u64(t_rc, BATCHES), js = (double) bench_median_u64(t_json, BATCHES),
                       res = (double) bench_median_u64(t_resolve, BATCHES);

                printf("rc file: %s (%zu bytes, %zu rules, %zu profiles)\n", path, size, file->n_rules,
                                file->n_profiles);
                printf("load 570 rc file (reader + model):   %8.1f us\n", rc / 1000.0);
                printf("json-c alone, comments stripped:     %8.1f us\n", js / 1000.0);
                printf("ratio reader/json-c:                 %8.2f x   (aim <= 1.5)\n", rc / js);
                printf("resolve one process (144 rules):     %8.0f ns  (aim < 20000)\n", res);
        }

        rc_config_unref(config);
        rc_file_unref(file);
        return 0;
}
