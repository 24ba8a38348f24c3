/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Loading Nsight Compute's 2025.3.1 stock section folder (24 files, 1.78 MB, one of 1.46 MB) with our
 * text-format reader, next to Google's own text-format parser doing the same work: protoc --encode over
 * each file, as one process per file (protoc reads one message per run). Both are timed in the same run
 * and the ratio printed; the best of several rounds is kept for each, to damp noise from other load. */

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "section-catalog.h"

static uint64_t now_ns(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static int compare(const void *a, const void *b)
{
        return strcmp(*(char *const *) a, *(char *const *) b);
}

int main(int argc, char **argv)
{
        const int rounds = 5, loads_per_round = 20;
        char folder[4096], *names[256];
        size_t n = 0;

        if (argc < 4) {
                fprintf(stderr, "usage: %s CORPUS_DIR PROTOC PROTO_DIR\n", argv[0]);
                return 2;
        }
        snprintf(folder, sizeof folder, "%s/sections/ncu-2025.3.1", argv[1]);
        DIR *d = opendir(folder);
        if (!d) {
                printf("bench-sections: %s missing, nothing to measure\n", folder);
                return 0;
        }
        for (struct dirent *de; (de = readdir(d)) && n < 256;)
                if (strstr(de->d_name, ".section") && strlen(de->d_name) > 8)
                        names[n++] = strdup(de->d_name);
        closedir(d);
        qsort(names, n, sizeof(char *), compare);

        uint64_t ours = UINT64_MAX, theirs = UINT64_MAX;
        size_t loaded = 0;
        for (int round = 0; round < rounds; round++) {
                uint64_t t0 = now_ns();
                for (int k = 0; k < loads_per_round; k++) {
                        SectionCatalog *c = NULL;
                        SectionFolder f = { folder, false };
                        if (section_catalog_load(&f, 1, NULL, &c) < 0)
                                return 1;
                        loaded = 0;
                        for (size_t i = 0; i < c->n; i++)
                                loaded += !!c->entries[i].section;
                        section_catalog_free(c);
                }
                uint64_t t = (now_ns() - t0) / loads_per_round;
                ours = t < ours ? t : ours;

                t0 = now_ns();
                for (size_t i = 0; i < n; i++) {
                        char cmd[16384];
                        snprintf(cmd, sizeof cmd,
                                        "cd '%s' && '%s' -I. -I/usr/include --encode=NV.Profiler.ProfilerSection "
                                        "ProfilerSection.proto < '%s/%s' > /dev/null",
                                        argv[3], argv[2], folder, names[i]);
                        if (system(cmd) != 0) {
                                fprintf(stderr, "protoc failed on %s\n", names[i]);
                                return 1;
                        }
                }
                t = now_ns() - t0;
                theirs = t < theirs ? t : theirs;
        }

        /* The 1.46 MB file alone, where protoc's start-up matters least. */
        const char *big = "SpeedOfLight_HierarchicalTensorRooflineChart.section";
        uint64_t ours_big = UINT64_MAX, theirs_big = UINT64_MAX;
        char path[8192], cmd[16384];
        snprintf(path, sizeof path, "%s/%s", folder, big);
        FILE *fp = fopen(path, "re");
        static char text[4 << 20];
        size_t len = fp ? fread(text, 1, sizeof text, fp) : 0;
        if (fp)
                fclose(fp);
        for (int round = 0; round < rounds && len > 0; round++) {
                uint64_t t0 = now_ns();
                NV__Profiler__ProfilerSection *s = NULL;
                if (section_file_parse(text, len, NULL, &s, NULL) < 0)
                        return 1;
                protobuf_c_message_free_unpacked(&s->base, NULL);
                uint64_t t = now_ns() - t0;
                ours_big = t < ours_big ? t : ours_big;
                snprintf(cmd, sizeof cmd,
                                "cd '%s' && '%s' -I. -I/usr/include --encode=NV.Profiler.ProfilerSection "
                                "ProfilerSection.proto < '%s' > /dev/null",
                                argv[3], argv[2], path);
                t0 = now_ns();
                if (system(cmd) != 0)
                        return 1;
                t = now_ns() - t0;
                theirs_big = t < theirs_big ? t : theirs_big;
        }

        printf("sections: load of ncu-2025.3.1 (%zu files, %zu loaded), best of %d rounds\n", n, loaded, rounds);
        printf("  nvprofiled text-format reader: %8.2f ms\n", (double) ours / 1e6);
        printf("  protoc --encode, per file:     %8.2f ms\n", (double) theirs / 1e6);
        printf("  ratio: %.1fx faster than protoc\n", (double) theirs / (double) ours);
        if (len > 0)
                printf("  %s alone (%zu bytes): %.2f ms vs protoc %.2f ms, %.1fx\n", big, len, (double) ours_big / 1e6,
                                (double) theirs_big / 1e6, (double) theirs_big / (double) ours_big);
        for (size_t i = 0; i < n; i++)
                free(names[i]);
        return 0;
}
