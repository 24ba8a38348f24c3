/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The cubin line table (cubin-lines.h): an ELF64 section reader and a DWARF 2-4 line program interpreter for
 * what .debug_line of a cubin holds, nothing more. Every read goes through a Cursor that stops at the end of
 * its bytes; a failed read makes the whole table absent (-EBADMSG inside, 0 and NULL outside). */

#include "cubin-lines.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define SHT_SYMTAB 2
#define SHT_RELA 4
#define SHT_NOBITS 8
#define SHT_REL 9
#define SHT_DYNSYM 11

#define DW_LNS_copy 1
#define DW_LNS_advance_pc 2
#define DW_LNS_advance_line 3
#define DW_LNS_set_file 4
#define DW_LNS_set_column 5
#define DW_LNS_negate_stmt 6
#define DW_LNS_set_basic_block 7
#define DW_LNS_const_add_pc 8
#define DW_LNS_fixed_advance_pc 9
#define DW_LNS_set_prologue_end 10
#define DW_LNS_set_epilogue_begin 11
#define DW_LNS_set_isa 12
#define DW_LNE_end_sequence 1
#define DW_LNE_set_address 2
#define DW_LNE_define_file 3
#define DW_LNE_set_discriminator 4

#define NO_PATH UINT32_MAX

typedef struct Row {
        uint64_t address;
        int64_t line;
        uint32_t path;
        uint32_t sequence;
        uint32_t order; /* position in the program: the first row of an address wins */
} Row;

typedef struct Sequence {
        uint64_t start, end;
} Sequence;

struct CubinLines {
        char **paths;
        size_t n_paths, allocated_paths;
        Row *rows;
        size_t n_rows, allocated_rows;
        Sequence *sequences;
        size_t n_sequences, allocated_sequences;
};

typedef struct Cursor {
        const uint8_t *data;
        size_t size, pos;
        bool bad;
} Cursor;

static uint64_t read_le(Cursor *c, size_t n)
{
        uint64_t v = 0;

        if (c->bad || c->pos > c->size || c->size - c->pos < n) {
                c->bad = true;
                return 0;
        }
        for (size_t i = 0; i < n; i++)
                v |= (uint64_t) c->data[c->pos + i] << (8 * i);
        c->pos += n;
        return v;
}

/* An LEB128 number's low 64 bits (the rest are garbage either way, and the read stays in bounds), with the
 * count of bits it had and its last byte, for the sign. */
static uint64_t read_leb(Cursor *c, unsigned *ret_bits, uint8_t *ret_last)
{
        uint64_t v = 0;
        unsigned shift = 0;
        uint8_t b;

        do {
                b = (uint8_t) read_le(c, 1);
                if (c->bad)
                        return 0;
                if (shift < 64)
                        v |= (uint64_t) (b & 0x7f) << shift;
                shift += 7;
        } while (b & 0x80);
        *ret_bits = shift;
        *ret_last = b;
        return v;
}

static uint64_t read_uleb(Cursor *c)
{
        unsigned bits;
        uint8_t last;

        return read_leb(c, &bits, &last);
}

static int64_t read_sleb(Cursor *c)
{
        unsigned bits = 0;
        uint8_t last = 0;
        uint64_t v = read_leb(c, &bits, &last);

        if (bits < 64 && (last & 0x40))
                v |= UINT64_MAX << bits;
        return (int64_t) v;
}

/* A NUL-terminated string inside the cursor's bytes, or NULL. */
static const char *read_string(Cursor *c)
{
        const uint8_t *nul;

        if (c->bad || c->pos >= c->size) {
                c->bad = true;
                return NULL;
        }
        nul = memchr(c->data + c->pos, 0, c->size - c->pos);
        if (!nul) {
                c->bad = true;
                return NULL;
        }
        const char *s = (const char *) c->data + c->pos;
        c->pos = (size_t) (nul - c->data) + 1;
        return s;
}

/* ---- ELF ------------------------------------------------------------------------------------------------ */

typedef struct Elf {
        const uint8_t *data;
        size_t size;
        uint64_t shoff;
        size_t shentsize, shnum, shstrndx;
} Elf;

typedef struct Section {
        uint32_t name, type, link;
        uint64_t offset, size, entsize;
} Section;

static bool elf_open(Elf *e, const uint8_t *data, size_t size)
{
        Cursor c = { .data = data, .size = size, .pos = 0x28 };

        /* ELF64 (class 2), little endian (data 1): what every cubin is. */
        if (size < 64 || memcmp(data, "\177ELF", 4) != 0 || data[4] != 2 || data[5] != 1)
                return false;
        *e = (Elf){ .data = data, .size = size };
        e->shoff = read_le(&c, 8);
        c.pos = 0x3a;
        e->shentsize = (size_t) read_le(&c, 2);
        e->shnum = (size_t) read_le(&c, 2);
        e->shstrndx = (size_t) read_le(&c, 2);
        return !c.bad && e->shentsize >= 64 && e->shoff <= size && e->shnum <= (size - e->shoff) / e->shentsize;
}

static bool elf_section(const Elf *e, size_t i, Section *ret)
{
        Cursor c = { .data = e->data, .size = e->size };

        if (i >= e->shnum)
                return false;
        c.pos = (size_t) e->shoff + i * e->shentsize;
        ret->name = (uint32_t) read_le(&c, 4);
        ret->type = (uint32_t) read_le(&c, 4);
        c.pos += 16; /* flags, addr */
        ret->offset = read_le(&c, 8);
        ret->size = read_le(&c, 8);
        ret->link = (uint32_t) read_le(&c, 4);
        c.pos += 12; /* info, addralign */
        ret->entsize = read_le(&c, 8);
        return !c.bad;
}

/* The section's bytes, false when they are not all in the file. */
static bool elf_section_bytes(const Elf *e, const Section *s, Cursor *ret)
{
        if (s->type == SHT_NOBITS) {
                *ret = (Cursor){ .data = e->data, .size = 0 };
                return true;
        }
        if (s->offset > e->size || s->size > e->size - s->offset)
                return false;
        *ret = (Cursor){ .data = e->data + s->offset, .size = (size_t) s->size };
        return true;
}

/* The NUL-terminated string at offset of the string table section strtab, or NULL. */
static const char *elf_string(const Elf *e, size_t strtab, uint64_t offset)
{
        Section s;
        Cursor c;

        if (!elf_section(e, strtab, &s) || !elf_section_bytes(e, &s, &c) || offset >= c.size)
                return NULL;
        c.pos = (size_t) offset;
        return read_string(&c);
}

/* The first section called name: 1 with it, 0 when there is none, -EBADMSG when a header cannot be read. */
static int elf_find(const Elf *e, const char *name, Section *ret)
{
        for (size_t i = 0; i < e->shnum; i++) {
                const char *n;

                if (!elf_section(e, i, ret))
                        return -EBADMSG;
                /* A name that cannot be read is not the one looked for. */
                n = elf_string(e, e->shstrndx, ret->name);
                if (n && streq(n, name))
                        return 1;
        }
        return 0;
}

/* ---- Relocations of .debug_line ------------------------------------------------------------------------ */

typedef struct Relocation {
        uint64_t offset;
        const char *symbol;
} Relocation;

static int relocation_compare(const void *a, const void *b)
{
        const Relocation *x = a, *y = b;

        if (x->offset != y->offset)
                return x->offset < y->offset ? -1 : 1;
        return strcmp(x->symbol, y->symbol);
}

/* Appends (offset, symbol name) of every relocation of the section called name. */
static int relocations_read(const Elf *e, const char *name, const Section *symtab, Relocation **relocations, size_t *n,
                size_t *allocated)
{
        Section rel;
        Cursor c, symbols;
        size_t entsize;
        int r;

        r = elf_find(e, name, &rel);
        if (r <= 0)
                return r;
        if (rel.type != SHT_REL && rel.type != SHT_RELA)
                return -EBADMSG;
        entsize = rel.type == SHT_REL ? 16 : 24;
        if (rel.entsize != entsize || !elf_section_bytes(e, &rel, &c))
                return -EBADMSG;
        if ((symtab->type != SHT_SYMTAB && symtab->type != SHT_DYNSYM) || symtab->entsize < 24 ||
                        !elf_section_bytes(e, symtab, &symbols))
                return -EBADMSG;

        for (size_t i = 0; i < c.size / entsize; i++) {
                uint64_t offset, info, symbol;
                const char *symbol_name;

                c.pos = i * entsize;
                offset = read_le(&c, 8);
                info = read_le(&c, 8);
                symbol = info >> 32;
                if (symbol >= symbols.size / symtab->entsize)
                        return -EBADMSG;
                symbols.pos = (size_t) (symbol * symtab->entsize);
                /* A name that cannot be read is none: the function's operands are kept as stored. */
                symbol_name = elf_string(e, symtab->link, read_le(&symbols, 4));
                if (symbols.bad)
                        return -EBADMSG;
                if (!symbol_name)
                        symbol_name = "";
                if (GREEDY_REALLOC(*relocations, *allocated, *n + 1) < 0)
                        return -ENOMEM;
                (*relocations)[(*n)++] = (Relocation){ .offset = offset, .symbol = symbol_name };
        }
        return 0;
}

/* ---- Loaded functions ---------------------------------------------------------------------------------- */

typedef struct Loaded {
        const char *name;
        uint64_t address;
        size_t order;
} Loaded;

static int loaded_compare(const void *a, const void *b)
{
        const Loaded *x = a, *y = b;
        int c = strcmp(x->name, y->name);

        if (c != 0)
                return c;
        return x->order < y->order ? -1 : x->order > y->order;
}

static int loaded_find(const void *key, const void *element)
{
        return strcmp(key, ((const Loaded *) element)->name);
}

/* Where symbol was loaded (the first function of that name), else 0: its operands are kept as stored. */
static uint64_t loaded_address(const Loaded *loaded, size_t n, const char *symbol)
{
        const Loaded *l;

        if (!symbol || !symbol[0])
                return 0;
        l = bsearch(symbol, loaded, n, sizeof(Loaded), loaded_find);
        if (!l)
                return 0;
        /* bsearch may land on any of equal names: the first listed wins. */
        while (l > loaded && streq(l[-1].name, symbol))
                l--;
        return l->address;
}

/* ---- Paths ---------------------------------------------------------------------------------------------- */

/* dir/name (name alone when absolute or without a directory), '\' read as '/', and empty, '.' and '..'
 * components resolved as POSIX's normpath does, with one leading slash for an absolute path. */
static char *path_join(const char *dir, const char *name)
{
        size_t dir_len = dir ? strlen(dir) : 0, name_len = strlen(name), n = 0;
        _cleanup_free_ char *joined = NULL;
        char *out, *p;
        bool absolute;

        joined = malloc(dir_len + 1 + name_len + 1);
        if (!joined)
                return NULL;
        p = joined;
        if (dir) {
                memcpy(p, dir, dir_len);
                p += dir_len;
                *p++ = '/';
        }
        memcpy(p, name, name_len + 1);
        for (p = joined; *p; p++)
                if (*p == '\\')
                        *p = '/';

        out = malloc(strlen(joined) + 2);
        if (!out)
                return NULL;
        absolute = joined[0] == '/';
        if (absolute)
                out[n++] = '/';
        size_t base = n;
        for (char *comp = joined; *comp;) {
                size_t len = strcspn(comp, "/");

                if ((len == 1 && comp[0] == '.') || len == 0) {
                        /* nothing */
                } else if (len == 2 && comp[0] == '.' && comp[1] == '.') {
                        /* Pops a component, if there is one that is not "..": above the root is the root;
                         * a relative path keeps its leading "..". */
                        size_t last = n;
                        while (last > base && out[last - 1] != '/')
                                last--;
                        bool have = n > base;
                        bool last_dotdot = have && n - last == 2 && out[last] == '.' && out[last + 1] == '.';
                        if (have && !last_dotdot)
                                n = last > base ? last - 1 : base;
                        else if (!absolute) {
                                if (n > base)
                                        out[n++] = '/';
                                out[n++] = '.';
                                out[n++] = '.';
                        }
                } else {
                        if (n > base)
                                out[n++] = '/';
                        memcpy(out + n, comp, len);
                        n += len;
                }
                comp += len;
                if (*comp == '/')
                        comp++;
        }
        if (n == 0)
                out[n++] = '.';
        out[n] = 0;
        return out;
}

/* ---- Line programs -------------------------------------------------------------------------------------- */

typedef struct FileEntry {
        const char *name; /* NULL: an entry DW_LNE_define_file gave without a name */
        uint64_t dir;
        uint32_t path; /* into CubinLines.paths, NO_PATH until used */
} FileEntry;

typedef struct Unit {
        const char **dirs;
        size_t n_dirs, allocated_dirs;
        FileEntry *files;
        size_t n_files, allocated_files;
        uint32_t empty_path; /* the path of a file index out of range: "" */
        uint64_t *row_files; /* the file index of each row of the unit, named once the program is read */
        size_t n_row_files, allocated_row_files;
} Unit;

static void unit_done(Unit *u)
{
        free(u->dirs);
        free(u->files);
        free(u->row_files);
}

static int add_path(CubinLines *l, char *path, uint32_t *ret)
{
        if (!path)
                return -ENOMEM;
        if (l->n_paths >= UINT32_MAX - 1 || GREEDY_REALLOC(l->paths, l->allocated_paths, l->n_paths + 1) < 0) {
                free(path);
                return -ENOMEM;
        }
        l->paths[l->n_paths] = path;
        *ret = (uint32_t) l->n_paths++;
        return 0;
}

/* The path of file index (1-based) of the unit as it stands. */
static int unit_path(CubinLines *l, Unit *u, uint64_t index, uint32_t *ret)
{
        FileEntry *f;

        if (index < 1 || index > u->n_files) {
                if (u->empty_path == NO_PATH) {
                        int r = add_path(l, strdup(""), &u->empty_path);
                        if (r < 0)
                                return r;
                }
                *ret = u->empty_path;
                return 0;
        }
        f = &u->files[index - 1];
        if (!f->name)
                return -EBADMSG;
        if (f->path == NO_PATH) {
                const char *dir = f->dir >= 1 && f->dir <= u->n_dirs && f->name[0] != '/' ? u->dirs[f->dir - 1] : NULL;
                int r = add_path(l, path_join(dir, f->name), &f->path);
                if (r < 0)
                        return r;
        }
        *ret = f->path;
        return 0;
}

static int read_file_entry(Cursor *c, Unit *u, bool terminated)
{
        const char *name = read_string(c);

        if (!name)
                return -EBADMSG;
        if (!name[0] && terminated)
                return 0;
        if (u->n_files >= CUBIN_LINES_MAX_FILES)
                return -EBADMSG;
        if (GREEDY_REALLOC(u->files, u->allocated_files, u->n_files + 1) < 0)
                return -ENOMEM;
        u->files[u->n_files] = (FileEntry){ .name = name[0] ? name : NULL, .path = NO_PATH };
        if (name[0]) {
                u->files[u->n_files].dir = read_uleb(c);
                (void) read_uleb(c); /* mtime */
                (void) read_uleb(c); /* length */
                if (c->bad)
                        return -EBADMSG;
        }
        u->n_files++;
        return 1;
}

typedef struct State {
        uint64_t address, file, op_index;
        int64_t line;
} State;

typedef struct Program {
        const Relocation *relocations; /* the unit's set_address operands', in order */
        size_t n_relocations;
        const Loaded *loaded;
        size_t n_loaded;
} Program;

/* Adds the rows of the unit at offset of .debug_line (c) and moves *offset past it. *open is the start of a
 * sequence the unit leaves open, if it does. */
static int unit_read(CubinLines *l, Cursor *c, size_t *offset, const Program *p, bool *has_open, uint64_t *open)
{
        _cleanup_(unit_done) Unit u = { .empty_path = NO_PATH };
        uint64_t unit_length, base = 0, max_ops = 1, set_addresses = 0;
        unsigned version, min_inst, opcode_base, line_range;
        int line_base;
        bool has_start = false;
        uint64_t sequence_start = 0;
        State s = { .file = 1, .line = 1 };
        size_t end;
        int r;

        c->pos = *offset;
        unit_length = read_le(c, 4);
        if (c->bad || unit_length >= 0xfffffff0 || unit_length > c->size - c->pos)
                return -EBADMSG;
        end = c->pos + (size_t) unit_length;
        version = (unsigned) read_le(c, 2);
        if (version < 2 || version > 4)
                return -EBADMSG;
        (void) read_le(c, 4); /* header_length: the program starts after the file names */
        min_inst = (unsigned) read_le(c, 1);
        if (version >= 4)
                max_ops = read_le(c, 1);
        (void) read_le(c, 1); /* default_is_stmt */
        line_base = (int8_t) read_le(c, 1);
        line_range = (unsigned) read_le(c, 1);
        opcode_base = (unsigned) read_le(c, 1);
        if (c->bad || opcode_base == 0)
                return -EBADMSG;
        c->pos += opcode_base - 1; /* standard_opcode_lengths: read as the standard says */
        for (;;) {
                const char *dir = read_string(c);
                if (!dir)
                        return -EBADMSG;
                if (!dir[0])
                        break;
                if (u.n_dirs >= CUBIN_LINES_MAX_FILES)
                        return -EBADMSG;
                if (GREEDY_REALLOC(u.dirs, u.allocated_dirs, u.n_dirs + 1) < 0)
                        return -ENOMEM;
                u.dirs[u.n_dirs++] = dir;
        }
        do {
                r = read_file_entry(c, &u, true);
                if (r < 0)
                        return r;
        } while (r > 0);

        while (c->pos < end) {
                unsigned opcode = (unsigned) read_le(c, 1);
                bool row = false, end_sequence = false;

                if (c->bad)
                        return -EBADMSG;
                if (opcode >= opcode_base) {
                        unsigned adjusted = opcode - opcode_base;
                        uint64_t advance;

                        if (line_range == 0 || max_ops == 0)
                                return -EBADMSG;
                        advance = adjusted / line_range;
                        s.address += min_inst * ((s.op_index + advance) / max_ops);
                        s.op_index = (s.op_index + advance) % max_ops;
                        s.line += line_base + (int) (adjusted % line_range);
                        row = true;
                } else if (opcode == 0) {
                        uint64_t length = read_uleb(c);
                        unsigned extended = (unsigned) read_le(c, 1);

                        if (c->bad)
                                return -EBADMSG;
                        switch (extended) {
                        case DW_LNE_end_sequence:
                                row = end_sequence = true;
                                break;
                        case DW_LNE_set_address: {
                                const char *symbol = set_addresses < p->n_relocations
                                                ? p->relocations[set_addresses].symbol
                                                : NULL;
                                base = loaded_address(p->loaded, p->n_loaded, symbol);
                                set_addresses++;
                                s.address = read_le(c, 8);
                                break;
                        }
                        case DW_LNE_define_file:
                                r = read_file_entry(c, &u, false);
                                if (r < 0)
                                        return r;
                                break;
                        case DW_LNE_set_discriminator:
                                (void) read_uleb(c);
                                break;
                        default:
                                /* Skipped by its length, which counts the opcode byte read. */
                                if (length == 0)
                                        c->pos--;
                                else if (length - 1 > c->size - c->pos)
                                        c->pos = c->size;
                                else
                                        c->pos += (size_t) (length - 1);
                        }
                } else
                        switch (opcode) {
                        case DW_LNS_copy:
                                row = true;
                                break;
                        case DW_LNS_advance_pc:
                                s.address += read_uleb(c) * min_inst;
                                break;
                        case DW_LNS_advance_line:
                                s.line += read_sleb(c);
                                break;
                        case DW_LNS_set_file:
                                s.file = read_uleb(c);
                                break;
                        case DW_LNS_set_column:
                        case DW_LNS_set_isa:
                                (void) read_uleb(c);
                                break;
                        case DW_LNS_negate_stmt:
                        case DW_LNS_set_basic_block:
                        case DW_LNS_set_prologue_end:
                        case DW_LNS_set_epilogue_begin:
                                break;
                        case DW_LNS_const_add_pc:
                                if (line_range == 0)
                                        return -EBADMSG;
                                s.address += (uint64_t) ((255 - opcode_base) / line_range) * min_inst;
                                break;
                        case DW_LNS_fixed_advance_pc:
                                s.address += read_le(c, 2);
                                break;
                        default:
                                return -EBADMSG;
                        }
                if (c->bad)
                        return -EBADMSG;
                if (!row)
                        continue;

                uint64_t address = base + s.address;
                if (!has_start) {
                        sequence_start = address;
                        has_start = true;
                }
                if (end_sequence) {
                        if (l->n_sequences >= CUBIN_LINES_MAX_ROWS)
                                return -EBADMSG;
                        if (GREEDY_REALLOC(l->sequences, l->allocated_sequences, l->n_sequences + 1) < 0)
                                return -ENOMEM;
                        l->sequences[l->n_sequences++] = (Sequence){ sequence_start, address };
                        has_start = false;
                        base = 0;
                        s = (State){ .file = 1, .line = 1 };
                        continue;
                }
                if (l->n_rows >= CUBIN_LINES_MAX_ROWS)
                        return -EBADMSG;
                if (GREEDY_REALLOC(l->rows, l->allocated_rows, l->n_rows + 1) < 0)
                        return -ENOMEM;
                if (GREEDY_REALLOC(u.row_files, u.allocated_row_files, u.n_row_files + 1) < 0)
                        return -ENOMEM;
                u.row_files[u.n_row_files++] = s.file;
                l->rows[l->n_rows] = (Row){ .address = address,
                        .line = s.line,
                        .sequence = (uint32_t) l->n_sequences,
                        .order = (uint32_t) l->n_rows };
                l->n_rows++;
        }
        if (set_addresses != p->n_relocations)
                return -EBADMSG; /* relocations that are not the operands': unsure */
        /* File names are those of the whole program: a DW_LNE_define_file names a file for rows before it
         * too, as NVIDIA's module answers. */
        for (size_t i = 0; i < u.n_row_files; i++) {
                r = unit_path(l, &u, u.row_files[i], &l->rows[l->n_rows - u.n_row_files + i].path);
                if (r < 0)
                        return r;
        }
        *has_open = has_start;
        *open = sequence_start;
        *offset = end;
        return 0;
}

static int row_compare(const void *a, const void *b)
{
        const Row *x = a, *y = b;

        if (x->address != y->address)
                return x->address < y->address ? -1 : 1;
        return x->order < y->order ? -1 : x->order > y->order;
}

CubinLines *cubin_lines_free(CubinLines *l)
{
        if (!l)
                return NULL;
        for (size_t i = 0; i < l->n_paths; i++)
                free(l->paths[i]);
        free(l->paths);
        free(l->rows);
        free(l->sequences);
        return mfree(l);
}

static int lines_build(const Elf *e, const Loaded *loaded, size_t n_loaded, CubinLines *l)
{
        _cleanup_free_ Relocation *relocations = NULL;
        size_t n_relocations = 0, allocated = 0, next = 0;
        bool has_open = false;
        uint64_t open = 0;
        Section debug_line, symtab;
        Cursor c;
        int r;

        r = elf_find(e, ".debug_line", &debug_line);
        if (r <= 0)
                return r < 0 ? r : -ENODATA;
        if (debug_line.size > CUBIN_LINES_MAX_PROGRAM || !elf_section_bytes(e, &debug_line, &c))
                return -EBADMSG;
        r = elf_find(e, ".symtab", &symtab);
        if (r < 0)
                return r;
        if (r > 0)
                for (size_t i = 0; i < 2; i++) {
                        r = relocations_read(e, i == 0 ? ".rel.debug_line" : ".rela.debug_line", &symtab, &relocations,
                                        &n_relocations, &allocated);
                        if (r < 0)
                                return r;
                }
        qsort_safe(relocations, n_relocations, sizeof(Relocation), relocation_compare);

        for (size_t offset = 0; offset + 4 <= c.size;) {
                size_t first;
                Program p = { .loaded = loaded, .n_loaded = n_loaded };
                Cursor length = c;

                /* The unit's relocations, in order, are its set_address operands'. */
                length.pos = offset;
                uint64_t unit_end = offset + 4 + read_le(&length, 4);
                while (next < n_relocations && relocations[next].offset < offset)
                        next++;
                first = next;
                while (next < n_relocations && relocations[next].offset < unit_end)
                        next++;
                /* No relocation section leaves the array NULL: never offset it. */
                p.relocations = relocations ? relocations + first : NULL;
                p.n_relocations = next - first;
                r = unit_read(l, &c, &offset, &p, &has_open, &open);
                if (r < 0)
                        return r;
        }
        if (l->n_rows == 0)
                return -ENODATA;
        /* A sequence the last unit leaves open ends at its last row. */
        if (has_open) {
                if (GREEDY_REALLOC(l->sequences, l->allocated_sequences, l->n_sequences + 1) < 0)
                        return -ENOMEM;
                l->sequences[l->n_sequences++] = (Sequence){ open, l->rows[l->n_rows - 1].address + 1 };
        }
        return 0;
}

int cubin_lines_new(
                const void *cubin, size_t size, const CubinFunction *functions, size_t n_functions, CubinLines **ret)
{
        _cleanup_(cubin_lines_freep) CubinLines *l = NULL;
        _cleanup_free_ Loaded *loaded = NULL;
        size_t n_loaded = 0;
        Elf e;
        int r;

        assert(cubin || size == 0);
        assert(functions || n_functions == 0);
        assert(ret);

        *ret = NULL;
        if (!cubin || !elf_open(&e, cubin, size))
                return 0;

        loaded = calloc(MAX(n_functions, 1u), sizeof(Loaded));
        if (!loaded)
                return -ENOMEM;
        for (size_t i = 0; i < n_functions; i++)
                if (functions[i].name)
                        loaded[n_loaded++] = (Loaded){ functions[i].name, functions[i].address, i };
        qsort_safe(loaded, n_loaded, sizeof(Loaded), loaded_compare);

        l = calloc(1, sizeof(CubinLines));
        if (!l)
                return -ENOMEM;
        r = lines_build(&e, loaded, n_loaded, l);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return 0; /* no line information, or none this reader trusts */

        /* Sorted by address, the first row of each address kept. */
        qsort_safe(l->rows, l->n_rows, sizeof(Row), row_compare);
        size_t n = 0;
        for (size_t i = 0; i < l->n_rows; i++)
                if (n == 0 || l->rows[n - 1].address != l->rows[i].address)
                        l->rows[n++] = l->rows[i];
        l->n_rows = n;
        *ret = TAKE_PTR(l);
        return 0;
}

bool cubin_lines_lookup(const CubinLines *l, uint64_t pc, const char **ret_file, int64_t *ret_line)
{
        size_t lo = 0, hi;
        const Row *row;
        const Sequence *s;

        assert(l);

        /* The last row at or below pc. */
        hi = l->n_rows;
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (l->rows[mid].address <= pc)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        if (lo == 0)
                return false;
        row = &l->rows[lo - 1];
        if (row->sequence >= l->n_sequences)
                return false;
        s = &l->sequences[row->sequence];
        if (pc < s->start || pc >= s->end)
                return false;
        if (ret_file)
                *ret_file = l->paths[row->path];
        if (ret_line)
                *ret_line = row->line;
        return true;
}
