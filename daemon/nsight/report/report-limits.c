/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <sys/stat.h>
#include <unistd.h>

#include "report-container.h"
#include "report-limits.h"

#define MODEL_FACTOR 32u
#define ZSTD_EXPANSION 10u

uint64_t ncu_report_memory_for_file(uint64_t size, bool compressed, uint64_t ceiling)
{
        uint64_t factor = MODEL_FACTOR * (compressed ? ZSTD_EXPANSION : 1u), need;

        if (size == 0 || size > (UINT64_MAX - NCU_REPORT_MEMORY_BASE) / factor)
                return ceiling;
        need = size * factor + NCU_REPORT_MEMORY_BASE;
        return MIN(need, ceiling);
}

void ncu_report_limits_for_memory(uint64_t memory, NcuReportLimits *ret)
{
        NcuReportLimits l;

        ncu_report_limits_default(&l);
        l.max_memory = (size_t) MIN((uint64_t) l.max_memory, memory - memory / 4);
        l.max_header_size = (uint32_t) MIN((uint64_t) l.max_header_size, memory / 16);
        l.max_entry_size = (uint32_t) MIN((uint64_t) l.max_entry_size, memory / 16);
        /* Bytes decompressed: CPU rather than memory (a load holds one record at a time), but a stream
         * that expands past this could not make a model that fits anyway. */
        l.max_file_size = MIN(l.max_file_size, memory * 4);
        *ret = l;
}

uint64_t ncu_report_memory_for_fd(int fd, uint64_t ceiling)
{
        uint8_t head[4];
        struct stat st;
        off_t pos;
        ssize_t n;

        /* The report is what lies from the descriptor's position to the end. */
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
                return ceiling;
        pos = lseek(fd, 0, SEEK_CUR);
        if (pos < 0 || st.st_size <= pos)
                return ceiling;
        n = pread(fd, head, sizeof(head), pos);
        return ncu_report_memory_for_file(
                        (uint64_t) (st.st_size - pos), n > 0 && ncu_is_zstd_frame(head, (size_t) n), ceiling);
}
