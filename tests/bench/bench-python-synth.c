/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Writes a synthetic report with N profile results for bench-python.py: the blocks of a real report as they
 * are (headers, string table, sources), with the block's results repeated in turn until there are N.
 *
 *   bench-python-synth SOURCE.ncu-rep N OUTPUT.ncu-rep */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ProfilerReport.pb-c.h"
#include "report-builder.h"
#include "report-container.h"

typedef struct Block {
        NV__Profiler__Messages__BlockHeader *header;
        ReportEntry *entries;
        size_t n_entries;
} Block;

typedef struct Source {
        Block *blocks;
        size_t n_blocks;
} Source;

static void *xrealloc(void *p, size_t n)
{
        p = realloc(p, n);
        if (!p)
                abort();
        return p;
}

static int on_block(void *userdata, size_t block, const NcuBlockCounts *counts, const uint8_t *data, size_t size,
                uint64_t offset, NcuReportError *err)
{
        Source *s = userdata;
        NV__Profiler__Messages__BlockHeader *h = nv__profiler__messages__block_header__unpack(NULL, size, data);

        if (!h)
                return -EBADMSG;
        s->blocks = xrealloc(s->blocks, (s->n_blocks + 1) * sizeof(Block));
        s->blocks[s->n_blocks++] = (Block){ .header = h };
        return 0;
}

static int on_entry(void *userdata, size_t block, NcuEntryKind kind, const uint8_t *data, size_t size, uint64_t offset,
                NcuReportError *err)
{
        Source *s = userdata;
        Block *b = &s->blocks[s->n_blocks - 1];

        b->entries = xrealloc(b->entries, (b->n_entries + 1) * sizeof(ReportEntry));
        uint8_t *copy = xrealloc(NULL, size ? size : 1); /* data is only valid during the call */

        memcpy(copy, data, size);
        b->entries[b->n_entries++] = (ReportEntry){ .kind = kind, .raw = copy, .raw_size = size };
        return 0;
}

int main(int argc, char *argv[])
{
        static const NcuContainerCallbacks cb = { .block_header = on_block, .entry = on_entry };
        NcuReportLimits limits;
        ReportBuffer out = { 0 };
        Source s = { 0 };
        struct stat st;
        NcuInput in;
        uint8_t *data;
        long n;
        int fd;

        if (argc != 4 || (n = strtol(argv[2], NULL, 10)) <= 0) {
                fprintf(stderr, "usage: %s SOURCE N OUTPUT\n", argv[0]);
                return 2;
        }
        fd = open(argv[1], O_RDONLY | O_CLOEXEC);
        if (fd < 0 || fstat(fd, &st) < 0) {
                perror(argv[1]);
                return 1;
        }
        data = xrealloc(NULL, (size_t) st.st_size);
        if (read(fd, data, (size_t) st.st_size) != st.st_size) {
                perror(argv[1]);
                return 1;
        }
        close(fd);

        ncu_report_limits_default(&limits);
        ncu_input_init_buffer(&in, data, (size_t) st.st_size, limits.max_file_size);
        if (ncu_container_read(&in, &limits, &cb, &s, NULL) < 0) {
                fprintf(stderr, "%s: not a report\n", argv[1]);
                return 1;
        }
        ncu_input_done(&in);

        /* The results to repeat: every profile result of the source, in order. */
        ReportEntry *results = NULL;
        size_t n_results = 0;
        for (size_t i = 0; i < s.n_blocks; i++)
                for (size_t j = 0; j < s.blocks[i].n_entries; j++)
                        if (s.blocks[i].entries[j].kind == NCU_ENTRY_PROFILE_RESULT) {
                                results = xrealloc(results, (n_results + 1) * sizeof(ReportEntry));
                                results[n_results++] = s.blocks[i].entries[j];
                        }
        if (n_results == 0) {
                fprintf(stderr, "%s: no profile results\n", argv[1]);
                return 1;
        }

        /* The first block with results carries all N; the others keep everything but their results. */
        report_build_start(&out, 7);
        bool placed = false;
        for (size_t i = 0; i < s.n_blocks; i++) {
                Block *b = &s.blocks[i];
                ReportEntry *entries = NULL;
                size_t k = 0;
                bool has_results = false;

                for (size_t j = 0; j < b->n_entries; j++)
                        has_results |= b->entries[j].kind == NCU_ENTRY_PROFILE_RESULT;
                entries = xrealloc(NULL, (b->n_entries + (size_t) n) * sizeof(ReportEntry));
                for (size_t j = 0; j < b->n_entries; j++)
                        if (b->entries[j].kind != NCU_ENTRY_PROFILE_RESULT)
                                entries[k++] = b->entries[j];
                if (has_results && !placed) {
                        for (long j = 0; j < n; j++)
                                entries[k++] = results[(size_t) j % n_results];
                        placed = true;
                }
                report_build_block(&out, b->header, entries, k);
                free(entries);
        }

        fd = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0 || write(fd, out.data, out.size) != (ssize_t) out.size || close(fd) < 0) {
                perror(argv[3]);
                return 1;
        }
        printf("%s: %ld results, %zu bytes\n", argv[3], n, out.size);
        report_buffer_done(&out);
        for (size_t i = 0; i < s.n_blocks; i++) {
                nv__profiler__messages__block_header__free_unpacked(s.blocks[i].header, NULL);
                for (size_t j = 0; j < s.blocks[i].n_entries; j++)
                        free((void *) s.blocks[i].entries[j].raw);
                free(s.blocks[i].entries);
        }
        free(s.blocks);
        free(results);
        free(data);
        return 0;
}
