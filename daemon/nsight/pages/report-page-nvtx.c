/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* An action's NVTX ranges as ncu's pages show them (report-page-nvtx.h). */

#include <inttypes.h>
#include <stdio.h>

#include "macro.h"
#include "report-page-nvtx.h"
#include "string-util.h"

bool ncu_report_has_nvtx_ranges(const NcuReport *r)
{
        assert(r);

        for (size_t i = 0; i < r->n_actions; i++) {
                const NcuNvtxState *s = r->actions[i]->nvtx;
                for (size_t d = 0; s && d < s->n_domains; d++)
                        if (s->domains[d].n_push_pop > 0 || s->domains[d].n_start_end > 0)
                                return true;
        }
        return false;
}

/* The enums' words as ncu prints them; "none" for an attribute the range does not set. Only the color
 * (RGB) and message (ASCII) words occur in the corpus; the others follow the schema's names. */
static const char *color_type_word(const NcuNvtxRange *r)
{
        return r->has_attributes && r->color_type == 1 ? "RGB" : NULL;
}

static const char *message_type_word(const NcuNvtxRange *r)
{
        if (!r->has_attributes)
                return NULL;
        switch (r->message_type) {
        case 1:
                return "ASCII";
        case 2:
                return "UNICODE";
        case 3:
                return "REGISTERED";
        default:
                return NULL;
        }
}

static const char *payload_type_word(const NcuNvtxRange *r)
{
        static const char *const words[] = {
                [NCU_NVTX_PAYLOAD_UINT64] = "UINT64",
                [NCU_NVTX_PAYLOAD_INT64] = "INT64",
                [NCU_NVTX_PAYLOAD_DOUBLE] = "DOUBLE",
                [NCU_NVTX_PAYLOAD_UINT32] = "UINT32",
                [NCU_NVTX_PAYLOAD_INT32] = "INT32",
                [NCU_NVTX_PAYLOAD_FLOAT] = "FLOAT",
                [NCU_NVTX_PAYLOAD_JSON] = "JSON",
                [NCU_NVTX_PAYLOAD_JSON_REGISTERED] = "JSON_REGISTERED",
        };

        if (!r->has_attributes || r->payload_type >= ELEMENTSOF(words))
                return NULL;
        return words[r->payload_type];
}

static void payload_value(const NcuNvtxRange *r, char buf[static 64])
{
        switch (r->payload_type) {
        case NCU_NVTX_PAYLOAD_UINT64:
        case NCU_NVTX_PAYLOAD_UINT32:
                snprintf(buf, 64, "%" PRIu64, r->payload_u64);
                break;
        case NCU_NVTX_PAYLOAD_INT64:
        case NCU_NVTX_PAYLOAD_INT32:
                snprintf(buf, 64, "%" PRId64, (int64_t) r->payload_u64);
                break;
        case NCU_NVTX_PAYLOAD_DOUBLE:
        case NCU_NVTX_PAYLOAD_FLOAT:
                snprintf(buf, 64, "%g", r->payload_double);
                break;
        default:
                buf[0] = 0;
        }
}

static void put_range(Cell *c, const NcuNvtxDomain *d, const NcuNvtxRange *r)
{
        char payload[64] = "", color[16] = "";
        const char *pl = payload_type_word(r);

        if (pl)
                payload_value(r, payload);
        if (color_type_word(r))
                snprintf(color, sizeof(color), "0x%08" PRIx32, r->color);
        cell_puts(c, "  \"");
        cell_puts(c, strempty(d->name));
        cell_puts(c, ":");
        cell_puts(c, strempty(r->name));
        cell_puts(c, ":");
        cell_puts(c, pl ? pl : "none");
        cell_puts(c, ":");
        cell_puts(c, pl && payload[0] ? payload : "none");
        cell_puts(c, ":");
        cell_puts(c, color_type_word(r) ? color_type_word(r) : "none");
        cell_puts(c, ":");
        cell_puts(c, color[0] ? color : "none");
        cell_puts(c, ":");
        cell_puts(c, message_type_word(r) ? message_type_word(r) : "none");
        cell_puts(c, ":");
        cell_puts(c, message_type_word(r) && r->message ? r->message : "none");
        cell_puts(c, "\"");
}

void ncu_nvtx_push_pop_cell(Cell *c, const NcuAction *a)
{
        char tid[16];
        bool any = false;

        cell_reset(c);
        if (!a->nvtx)
                return;
        for (size_t d = 0; d < a->nvtx->n_domains; d++)
                for (size_t i = 0; i < a->nvtx->domains[d].n_push_pop; i++) {
                        if (!any) {
                                snprintf(tid, sizeof(tid), "%" PRIu32, a->thread_id);
                                cell_puts(c, tid);
                                any = true;
                        }
                        put_range(c, &a->nvtx->domains[d], &a->nvtx->domains[d].push_pop[i]);
                }
        if (any)
                cell_puts(c, " ");
}

void ncu_nvtx_start_end_cell(Cell *c, const NcuAction *a)
{
        char id[24];
        bool any = false;

        cell_reset(c);
        if (!a->nvtx)
                return;
        for (size_t d = 0; d < a->nvtx->n_domains; d++)
                for (size_t i = 0; i < a->nvtx->domains[d].n_start_end; i++) {
                        const NcuNvtxRange *r = &a->nvtx->domains[d].start_end[i];
                        snprintf(id, sizeof(id), "%s%" PRIu64, any ? "  " : "", r->start_end_id);
                        cell_puts(c, id);
                        put_range(c, &a->nvtx->domains[d], r);
                        any = true;
                }
        if (any)
                cell_puts(c, " ");
}

static void print_attributes(FILE *f, const NcuNvtxRange *r)
{
        char payload[64] = "";
        const char *pl = payload_type_word(r);

        if (pl) {
                payload_value(r, payload);
                fprintf(f, "          %s: %s\n", pl, payload);
        }
        if (color_type_word(r))
                fprintf(f, "          %s: 0x%08" PRIx32 "\n", color_type_word(r), r->color);
        if (message_type_word(r) && r->message)
                fprintf(f, "          %s: %s\n", message_type_word(r), r->message);
}

void ncu_nvtx_print_text(FILE *f, const NcuAction *a)
{
        bool any = false;

        if (!a->nvtx)
                return;
        for (size_t d = 0; d < a->nvtx->n_domains; d++) {
                const NcuNvtxDomain *dom = &a->nvtx->domains[d];
                if (dom->n_push_pop == 0)
                        continue;
                if (!any)
                        fprintf(f, "    NVTX Push/Pop Stack for Thread %" PRIu32 ":\n", a->thread_id);
                any = true;
                fprintf(f, "     %s\n", strempty(dom->name));
                for (size_t i = 0; i < dom->n_push_pop; i++) {
                        fprintf(f, "        <%zu,%s>\n", i, strempty(dom->push_pop[i].name));
                        print_attributes(f, &dom->push_pop[i]);
                }
        }
        any = false;
        for (size_t d = 0; d < a->nvtx->n_domains; d++) {
                const NcuNvtxDomain *dom = &a->nvtx->domains[d];
                if (dom->n_start_end == 0)
                        continue;
                if (!any)
                        fputs("    NVTX Start/End Ranges:\n", f);
                any = true;
                fprintf(f, "     %s\n", strempty(dom->name));
                for (size_t i = 0; i < dom->n_start_end; i++) {
                        fprintf(f, "        <%" PRIu64 ",%s>\n", dom->start_end[i].start_end_id,
                                        strempty(dom->start_end[i].name));
                        print_attributes(f, &dom->start_end[i]);
                }
        }
}
