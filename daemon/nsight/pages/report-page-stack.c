/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* An action's CPU call stack on ncu's text pages (report-page-stack.h):
 *
 *       CPU Call Stack:
 *         #N 0xPC in FUNCTION
 *            at FILE:LINE
 *            of MODULE
 *
 * frame by frame, innermost first, each followed by an empty line, the whole preceded and followed by one:
 * "in" when the frame's function is known, "at" when its file is, the continuation lines under the PC. */

#include <inttypes.h>

#include "report-page-stack.h"
#include "string-util.h"

void ncu_stack_print_text(FILE *f, const NcuAction *a)
{
        if (a->n_cpu_frames == 0)
                return;
        fputs("\n    CPU Call Stack:\n", f);
        for (size_t i = 0; i < a->n_cpu_frames; i++) {
                const NcuCpuFrame *fr = &a->cpu_frames[i];
                int indent = fprintf(f, "      #%zu ", i) - 1;

                fprintf(f, "0x%" PRIx64, fr->pc);
                if (!isempty(fr->function_name))
                        fprintf(f, " in %s\n%*s", fr->function_name, indent + 1, "");
                else
                        fputc(' ', f);
                if (!isempty(fr->file_name)) {
                        fprintf(f, "at %s", fr->file_name);
                        if (fr->has_line)
                                fprintf(f, ":%" PRIu32, fr->line);
                        fprintf(f, "\n%*s", indent + 1, "");
                }
                fprintf(f, "of %s\n\n", strempty(fr->module_name));
        }
        fputc('\n', f);
}
