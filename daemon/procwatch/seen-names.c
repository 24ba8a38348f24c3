/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file-replace.h"
#include "intmap.h"
#include "log.h"
#include "seen-names.h"
#include "string-util.h"

#define SEEN_NAMES_MAGIC "NVPSEEN\n"
#define SEEN_NAMES_VERSION 1u
#define SEEN_NAMES_HEADER_SIZE (8u + 4u + 4u)
#define SEEN_NAMES_NONE 0xffffu
#define SEEN_NAMES_FIELDS 4u
/* uid, last seen, and per name its length and at most SEEN_NAME_MAX bytes. */
#define SEEN_NAMES_RECORD_MAX (4u + 8u + SEEN_NAMES_FIELDS * (2u + SEEN_NAME_MAX))

const SeenNamesLimits seen_names_limits_default = {
        .per_user_max = 256,
        .per_user_bytes_max = 64 * 1024,
        .total_max = 8192,
};

typedef struct Entry {
        SeenName name;
        size_t bytes; /* what counts against the user's byte bound */
        uint64_t hash; /* of uid and names: most entries differ here, without a string compared */
        uint64_t written_usec; /* last_seen_usec as the file last had it */
} Entry;

typedef struct UserShare {
        uid_t uid;
        size_t n_entries;
        size_t bytes;
} UserShare;

struct SeenNames {
        SeenNamesLimits limits;
        Entry *entries;
        size_t n_entries, allocated_entries;
        /* Entry.hash -> index + 1 of an entry with that hash, for every hash an entry has: noting a name
         * seen again (every exec and rescan) is one lookup, not a walk of every entry. */
        IntMap index;
        UserShare *users;
        size_t n_users, allocated_users;
        bool dirty;
};

/* A name worth keeping: short, valid UTF-8, no control characters (it will be shown to people). */
static bool name_valid(const char *s, size_t max)
{
        size_t len;

        if (!s)
                return true;
        len = strnlen(s, max + 1);
        if (len == 0 || len > max || !utf8_is_valid_n(s, len))
                return false;
        for (size_t i = 0; i < len; i++)
                if ((unsigned char) s[i] < 0x20 || (unsigned char) s[i] == 0x7f)
                        return false;
        return true;
}

static size_t name_bytes(const char *s)
{
        return s ? strlen(s) + 1 : 0;
}

static void entry_done(Entry *e)
{
        /* The names live in one allocation, which starts at the first present one. */
        if (e->name.procname)
                free((char *) e->name.procname);
        else if (e->name.comm)
                free((char *) e->name.comm);
        else if (e->name.cmdline)
                free((char *) e->name.cmdline);
        else
                free((char *) e->name.flatpak_id);
}

int seen_names_new(const SeenNamesLimits *limits, SeenNames **ret)
{
        SeenNames *s;

        assert(ret);

        s = calloc(1, sizeof(SeenNames));
        if (!s)
                return -ENOMEM;
        s->limits = limits ? *limits : seen_names_limits_default;
        *ret = s;
        return 0;
}

void seen_names_clear(SeenNames *s)
{
        if (!s)
                return;
        if (s->n_entries > 0)
                s->dirty = true;
        for (size_t i = 0; i < s->n_entries; i++)
                entry_done(&s->entries[i]);
        s->n_entries = 0;
        s->n_users = 0;
        intmap_done(&s->index);
}

SeenNames *seen_names_free(SeenNames *s)
{
        if (!s)
                return NULL;
        seen_names_clear(s);
        free(s->entries);
        free(s->users);
        return mfree(s);
}

static UserShare *user_find(SeenNames *s, uid_t uid)
{
        for (size_t i = 0; i < s->n_users; i++)
                if (s->users[i].uid == uid)
                        return &s->users[i];
        return NULL;
}

/* IntMap's key of a hash (its keys are not zero). */
static uint64_t index_key(uint64_t hash)
{
        return hash != 0 ? hash : 1;
}

static size_t index_get(const SeenNames *s, uint64_t hash)
{
        return (size_t) (uintptr_t) intmap_get(&s->index, index_key(hash));
}

/* Points the index's existing key of hash elsewhere. Removed first, the key is put back without the map
 * growing, so this cannot fail. */
static void index_move(SeenNames *s, uint64_t hash, size_t i)
{
        void *was = intmap_remove(&s->index, index_key(hash));
        int r = intmap_put(&s->index, index_key(hash), (void *) (uintptr_t) (i + 1));

        assert(was && r == 0);
        (void) was;
        (void) r;
}

static void entry_remove(SeenNames *s, size_t i)
{
        Entry *e = &s->entries[i];
        UserShare *u = user_find(s, e->name.uid);
        size_t last = s->n_entries - 1;

        assert(u);
        u->n_entries--;
        u->bytes -= e->bytes;
        if (u->n_entries == 0)
                *u = s->users[--s->n_users];

        /* The index goes on to another entry of the same hash (names made to collide), or forgets it; then
         * the last entry moves into the hole. */
        if (index_get(s, e->hash) == i + 1) {
                size_t other = SIZE_MAX;

                for (size_t j = 0; j < s->n_entries && other == SIZE_MAX; j++)
                        if (j != i && index_key(s->entries[j].hash) == index_key(e->hash))
                                other = j;
                if (other == SIZE_MAX)
                        (void) intmap_remove(&s->index, index_key(e->hash));
                else
                        index_move(s, e->hash, other);
        }
        entry_done(e);
        s->entries[i] = s->entries[last];
        s->n_entries--;
        if (i != last && index_get(s, s->entries[i].hash) == last + 1)
                index_move(s, s->entries[i].hash, i);
        s->dirty = true;
}

/* The index of uid's least recently seen entry (any user's if uid is UID_INVALID). */
static size_t oldest_of(const SeenNames *s, uid_t uid)
{
        size_t best = SIZE_MAX;

        for (size_t i = 0; i < s->n_entries; i++) {
                if (uid != UID_INVALID && s->entries[i].name.uid != uid)
                        continue;
                if (best == SIZE_MAX || s->entries[i].name.last_seen_usec < s->entries[best].name.last_seen_usec)
                        best = i;
        }
        return best;
}

/* The user an entry is taken from when all users together are over the bound: the one holding the most. */
static uid_t largest_user(const SeenNames *s)
{
        const UserShare *best = NULL;

        for (size_t i = 0; i < s->n_users; i++)
                if (!best || s->users[i].n_entries > best->n_entries)
                        best = &s->users[i];
        return best ? best->uid : UID_INVALID;
}

static void enforce_user(SeenNames *s, uid_t uid)
{
        UserShare *u;

        while ((u = user_find(s, uid)) &&
                        (u->n_entries > s->limits.per_user_max || u->bytes > s->limits.per_user_bytes_max))
                entry_remove(s, oldest_of(s, uid));
}

static void enforce_total(SeenNames *s)
{
        while (s->n_entries > s->limits.total_max)
                entry_remove(s, oldest_of(s, largest_user(s)));
}

void seen_names_set_limits(SeenNames *s, const SeenNamesLimits *limits)
{
        assert(s);
        assert(limits);

        s->limits = *limits;
        for (size_t i = s->n_users; i > 0; i--)
                if (i - 1 < s->n_users)
                        enforce_user(s, s->users[i - 1].uid);
        enforce_total(s);
}

/* FNV-1a of uid and the names, each name ended by a byte no name holds (0xff is not UTF-8), a missing one
 * by another. */
static uint64_t names_hash(uid_t uid, const char *const names[SEEN_NAMES_FIELDS])
{
        uint64_t h = UINT64_C(14695981039346656037);

        for (size_t i = 0; i < sizeof(uid); i++)
                h = (h ^ (uint8_t) (uid >> (8 * i))) * UINT64_C(1099511628211);
        for (size_t i = 0; i < SEEN_NAMES_FIELDS; i++) {
                for (const char *c = names[i]; c && *c; c++)
                        h = (h ^ (uint8_t) *c) * UINT64_C(1099511628211);
                h = (h ^ (names[i] ? 0xffu : 0xfeu)) * UINT64_C(1099511628211);
        }
        return h;
}

static bool entry_is(const Entry *e, uid_t uid, uint64_t hash, const char *const names[SEEN_NAMES_FIELDS])
{
        return e->hash == hash && e->name.uid == uid && streq_ptr(e->name.procname, names[0]) &&
                        streq_ptr(e->name.comm, names[1]) && streq_ptr(e->name.cmdline, names[2]) &&
                        streq_ptr(e->name.flatpak_id, names[3]);
}

/* Copies the present names into one allocation. */
static int entry_init(
                Entry *e, uid_t uid, uint64_t hash, const char *const names[SEEN_NAMES_FIELDS], uint64_t last_seen_usec)
{
        const char **fields[SEEN_NAMES_FIELDS] = { &e->name.procname, &e->name.comm, &e->name.cmdline,
                &e->name.flatpak_id };
        size_t total = 0;
        char *buf, *p;

        for (size_t i = 0; i < SEEN_NAMES_FIELDS; i++)
                total += name_bytes(names[i]);
        assert(total > 0);
        buf = malloc(total);
        if (!buf)
                return -ENOMEM;

        *e = (Entry){
                .name = { .uid = uid, .last_seen_usec = last_seen_usec },
                .bytes = total,
                .hash = hash,
                .written_usec = last_seen_usec,
        };
        p = buf;
        for (size_t i = 0; i < SEEN_NAMES_FIELDS; i++) {
                if (!names[i])
                        continue;
                *fields[i] = p;
                p = stpcpy(p, names[i]) + 1;
        }
        return 0;
}

/* The entry of uid and names, or NULL: through the index, and only when another entry has the same hash
 * (names made to collide), by looking at every one. */
static Entry *entry_find(SeenNames *s, uid_t uid, uint64_t hash, const char *const names[SEEN_NAMES_FIELDS])
{
        size_t at = index_get(s, hash);

        if (at == 0)
                return NULL;
        if (entry_is(&s->entries[at - 1], uid, hash, names))
                return &s->entries[at - 1];
        for (size_t i = 0; i < s->n_entries; i++)
                if (entry_is(&s->entries[i], uid, hash, names))
                        return &s->entries[i];
        return NULL;
}

static int note_at(SeenNames *s, uid_t uid, const char *const names[SEEN_NAMES_FIELDS], uint64_t last_seen_usec)
{
        UserShare *u;
        uint64_t hash;
        Entry e = { 0 }, *f;
        int r;

        if (!names[0] && !names[1] && !names[2] && !names[3])
                return 0;
        if (!name_valid(names[0], SEEN_NAME_MAX) || !name_valid(names[1], SEEN_NAME_COMM_MAX) ||
                        !name_valid(names[2], SEEN_NAME_MAX) || !name_valid(names[3], SEEN_NAME_MAX))
                return -EINVAL;

        hash = names_hash(uid, names);
        f = entry_find(s, uid, hash, names);
        if (f) {
                if (last_seen_usec > f->name.last_seen_usec)
                        f->name.last_seen_usec = last_seen_usec;
                /* A program that runs all day would otherwise rewrite the file every time it is seen. */
                if (f->name.last_seen_usec - f->written_usec >= SEEN_NAMES_WRITE_GRANULARITY_USEC)
                        s->dirty = true;
                return 0;
        }

        if (GREEDY_REALLOC(s->entries, s->allocated_entries, s->n_entries + 1) < 0)
                return -ENOMEM;
        u = user_find(s, uid);
        if (!u) {
                if (GREEDY_REALLOC(s->users, s->allocated_users, s->n_users + 1) < 0)
                        return -ENOMEM;
                u = &s->users[s->n_users++];
                *u = (UserShare){ .uid = uid };
        }
        r = entry_init(&e, uid, hash, names, last_seen_usec);
        if (r >= 0 && index_get(s, hash) == 0)
                r = intmap_put(&s->index, index_key(hash), (void *) (uintptr_t) (s->n_entries + 1));
        if (r < 0) {
                if (e.bytes > 0)
                        entry_done(&e);
                if (u->n_entries == 0)
                        *u = s->users[--s->n_users];
                return r;
        }
        s->entries[s->n_entries++] = e;
        u->n_entries++;
        u->bytes += e.bytes;
        s->dirty = true;

        /* The new entry may itself be the least recently seen (a loaded one): then it goes at once. */
        enforce_user(s, uid);
        enforce_total(s);
        return 1;
}

int seen_names_note(SeenNames *s, uid_t uid, const char *procname, const char *comm, const char *cmdline,
                const char *flatpak_id, uint64_t now_usec)
{
        const char *names[SEEN_NAMES_FIELDS] = { procname, comm, cmdline, flatpak_id };

        assert(s);
        assert(uid != UID_INVALID);
        return note_at(s, uid, names, now_usec);
}

size_t seen_names_forget_older(SeenNames *s, uint64_t cutoff_usec)
{
        size_t n = 0;

        assert(s);
        for (size_t i = s->n_entries; i > 0; i--)
                if (s->entries[i - 1].name.last_seen_usec < cutoff_usec) {
                        entry_remove(s, i - 1);
                        n++;
                }
        return n;
}

size_t seen_names_size(const SeenNames *s)
{
        return s ? s->n_entries : 0;
}

bool seen_names_dirty(const SeenNames *s)
{
        return s && s->dirty;
}

void seen_names_mark_saved(SeenNames *s)
{
        assert(s);
        for (size_t i = 0; i < s->n_entries; i++)
                s->entries[i].written_usec = s->entries[i].name.last_seen_usec;
        s->dirty = false;
}

int seen_names_foreach(const SeenNames *s, uid_t uid, SeenNamesFunc fn, void *userdata)
{
        int r;

        assert(fn);
        if (!s)
                return 0;
        for (size_t i = 0; i < s->n_entries; i++) {
                if (uid != UID_INVALID && s->entries[i].name.uid != uid)
                        continue;
                r = fn(&s->entries[i].name, userdata);
                if (r < 0)
                        return r;
        }
        return 0;
}

static uint8_t *put_le(uint8_t *p, uint64_t v, size_t n)
{
        for (size_t i = 0; i < n; i++)
                *p++ = (uint8_t) (v >> (8 * i));
        return p;
}

static uint64_t get_le(const uint8_t *p, size_t n)
{
        uint64_t v = 0;

        for (size_t i = 0; i < n; i++)
                v |= (uint64_t) p[i] << (8 * i);
        return v;
}

int seen_names_serialize(const SeenNames *s, void **ret, size_t *ret_size)
{
        size_t size = SEEN_NAMES_HEADER_SIZE;
        uint8_t *buf, *p;

        assert(s);
        assert(ret);
        assert(ret_size);
        assert(s->n_entries <= UINT32_MAX);

        for (size_t i = 0; i < s->n_entries; i++) {
                const SeenName *n = &s->entries[i].name;

                /* bytes counts a NUL per present name, which the file does not hold. */
                size += 4 + 8 + SEEN_NAMES_FIELDS * 2 + s->entries[i].bytes - !!n->procname - !!n->comm - !!n->cmdline -
                                !!n->flatpak_id;
        }
        buf = malloc(size);
        if (!buf)
                return -ENOMEM;

        p = buf;
        memcpy(p, SEEN_NAMES_MAGIC, 8);
        p = put_le(p + 8, SEEN_NAMES_VERSION, 4);
        p = put_le(p, s->n_entries, 4);
        for (size_t i = 0; i < s->n_entries; i++) {
                const SeenName *n = &s->entries[i].name;
                const char *names[SEEN_NAMES_FIELDS] = { n->procname, n->comm, n->cmdline, n->flatpak_id };

                p = put_le(p, n->uid, 4);
                p = put_le(p, n->last_seen_usec, 8);
                for (size_t j = 0; j < SEEN_NAMES_FIELDS; j++) {
                        size_t len = names[j] ? strlen(names[j]) : SEEN_NAMES_NONE;

                        p = put_le(p, len, 2);
                        if (names[j])
                                p = mempcpy(p, names[j], len);
                }
        }
        /* Entries hold only names of at most SEEN_NAME_MAX bytes: no length written was 0xffff. */
        assert((size_t) (p - buf) == size);

        *ret = buf;
        *ret_size = (size_t) (p - buf);
        return 0;
}

size_t seen_names_file_max(const SeenNamesLimits *limits)
{
        assert(limits);
        /* Bounded by the entry count; a bound in the millions is the administrator's choice. */
        if (limits->total_max > (SIZE_MAX / 2 - SEEN_NAMES_HEADER_SIZE) / SEEN_NAMES_RECORD_MAX)
                return SIZE_MAX / 2;
        return SEEN_NAMES_HEADER_SIZE + limits->total_max * SEEN_NAMES_RECORD_MAX;
}

/* One record of a file at *offset into a names array (pointing into copies in bufs). */
static int parse_record(const uint8_t *data, size_t size, size_t *offset, uid_t *ret_uid, uint64_t *ret_last_seen,
                char bufs[SEEN_NAMES_FIELDS][SEEN_NAME_MAX + 1], const char *names[SEEN_NAMES_FIELDS])
{
        size_t o = *offset;

        if (size - o < 12)
                return -EBADMSG;
        *ret_uid = (uid_t) get_le(data + o, 4);
        if (*ret_uid == UID_INVALID)
                return -EBADMSG;
        *ret_last_seen = get_le(data + o + 4, 8);
        o += 12;

        for (size_t j = 0; j < SEEN_NAMES_FIELDS; j++) {
                size_t len;

                if (size - o < 2) {
                        *offset = o;
                        return -EBADMSG;
                }
                len = (size_t) get_le(data + o, 2);
                if (len == SEEN_NAMES_NONE) {
                        names[j] = NULL;
                        o += 2;
                        continue;
                }
                if (len > SEEN_NAME_MAX || size - o - 2 < len || memchr(data + o + 2, '\0', len)) {
                        *offset = o;
                        return -EBADMSG;
                }
                memcpy(bufs[j], data + o + 2, len);
                bufs[j][len] = '\0';
                names[j] = bufs[j];
                o += 2 + len;
        }
        *offset = o;
        return 0;
}

int seen_names_parse(SeenNames *s, const void *data, size_t size, uint64_t now_usec, uint64_t retention_usec,
                size_t *ret_offset)
{
        _cleanup_(seen_names_freep) SeenNames *loaded = NULL;
        char bufs[SEEN_NAMES_FIELDS][SEEN_NAME_MAX + 1];
        const uint8_t *d = data;
        uint64_t cutoff, count;
        size_t o = 0;
        int r;

        assert(s);
        assert(data || size == 0);

        if (ret_offset)
                *ret_offset = 0;
        if (size < SEEN_NAMES_HEADER_SIZE || memcmp(d, SEEN_NAMES_MAGIC, 8) != 0)
                return -EBADMSG;
        if (get_le(d + 8, 4) != SEEN_NAMES_VERSION) {
                if (ret_offset)
                        *ret_offset = 8;
                return -EPROTONOSUPPORT;
        }
        count = get_le(d + 12, 4);
        o = SEEN_NAMES_HEADER_SIZE;

        /* Parsed aside first: a file that turns out corrupt adds nothing. */
        r = seen_names_new(&s->limits, &loaded);
        if (r < 0)
                return r;
        cutoff = now_usec > retention_usec ? now_usec - retention_usec : 0;

        for (uint64_t i = 0; i < count; i++) {
                const char *names[SEEN_NAMES_FIELDS];
                size_t start = o;
                uint64_t last_seen;
                uid_t uid;

                r = parse_record(d, size, &o, &uid, &last_seen, bufs, names);
                if (r < 0) {
                        if (ret_offset)
                                *ret_offset = o;
                        return r;
                }
                if (!names[0] && !names[1] && !names[2] && !names[3]) {
                        if (ret_offset)
                                *ret_offset = start;
                        return -EBADMSG;
                }
                if (last_seen < cutoff)
                        continue;
                r = note_at(loaded, uid, names, MIN(last_seen, now_usec));
                if (r == -EINVAL) {
                        if (ret_offset)
                                *ret_offset = start;
                        return -EBADMSG;
                }
                if (r < 0)
                        return r;
        }
        if (o != size) {
                if (ret_offset)
                        *ret_offset = o;
                return -EBADMSG;
        }

        for (size_t i = 0; i < loaded->n_entries; i++) {
                const SeenName *n = &loaded->entries[i].name;
                const char *names[SEEN_NAMES_FIELDS] = { n->procname, n->comm, n->cmdline, n->flatpak_id };

                r = note_at(s, n->uid, names, n->last_seen_usec);
                if (r < 0)
                        return r;
        }
        return 0;
}

int seen_names_save(SeenNames *s, int dir_fd, const char *name)
{
        _cleanup_free_ char *old = NULL;
        _cleanup_free_ void *data = NULL;
        size_t old_size = 0, size;
        int r;

        assert(s);
        assert(dir_fd >= 0);
        assert(name);

        r = seen_names_serialize(s, &data, &size);
        if (r < 0)
                return r;

        /* file_replace() replaces only what it was shown; nobody else writes this file, so what is there is
         * what it replaces. One too large to have been loaded was ignored at start: it goes. */
        for (unsigned attempt = 0;; attempt++) {
                r = file_read_regular(dir_fd, name, seen_names_file_max(&s->limits), &old, &old_size);
                if (r == -EFBIG && unlinkat(dir_fd, name, 0) < 0 && errno != ENOENT)
                        return -errno;
                if (IN_SET(r, -ENOENT, -EFBIG))
                        old = NULL;
                else if (r < 0)
                        return r;
                r = file_replace(dir_fd, name, old, old_size, data, size, 0600, NULL);
                if (r != -ESTALE || attempt > 0)
                        break;
                old = mfree(old);
                old_size = 0;
        }
        if (r < 0)
                return r;
        seen_names_mark_saved(s);
        return 0;
}

int seen_names_load(SeenNames *s, int dir_fd, const char *name, uint64_t now_usec, uint64_t retention_usec)
{
        _cleanup_free_ char *data = NULL;
        size_t size = 0, max, offset = 0;
        bool was_dirty;
        int r;

        assert(s);
        assert(dir_fd >= 0);
        assert(name);

        max = seen_names_file_max(&s->limits);
        r = file_read_regular(dir_fd, name, max, &data, &size);
        if (r == -ENOENT)
                return 0;
        if (r == -EFBIG) {
                log_warning("Ignoring %s: larger than the %zu bytes its bounds allow (offset %zu).", name, max, max);
                return 0;
        }
        if (r == -ENOMEM)
                return log_oom();
        if (r < 0)
                return log_warning_errno(r, "Cannot read %s", name);

        was_dirty = s->dirty;
        r = seen_names_parse(s, data, size, now_usec, retention_usec, &offset);
        if (r == -ENOMEM)
                return log_oom();
        if (r < 0) {
                log_warning_errno(r, "Ignoring %s: not a valid file of remembered names at byte offset %zu", name,
                                offset);
                return 0;
        }
        /* What was just read is what the file holds. */
        s->dirty = was_dirty;
        return 0;
}
