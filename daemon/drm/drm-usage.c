/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "drm-usage.h"

/* What identifies a client: see drm-usage.h. */
typedef struct ClientKey {
        const char *device;
        bool has_client_id;
        uint64_t client_id;
        pid_t pid; /* only without a client id */
        int fd;
} ClientKey;

static int cmp_u64(uint64_t a, uint64_t b)
{
        return a < b ? -1 : a > b;
}

static int key_compare(const ClientKey *a, const ClientKey *b)
{
        int r;

        r = strcmp(a->device, b->device);
        if (r != 0)
                return r;
        /* Clients with an id first. */
        if (a->has_client_id != b->has_client_id)
                return a->has_client_id ? -1 : 1;
        if (a->has_client_id)
                return cmp_u64(a->client_id, b->client_id);
        if (a->pid != b->pid)
                return a->pid < b->pid ? -1 : 1;
        return a->fd < b->fd ? -1 : a->fd > b->fd;
}

static ClientKey read_key(const DrmUsageRead *r)
{
        const DrmFdinfo *f = r->fdinfo;

        return (ClientKey){
                .device = f->has_pdev ? f->pdev : strempty(r->device),
                .has_client_id = f->has_client_id,
                .client_id = f->client_id,
                .pid = f->has_client_id ? 0 : r->pid,
                .fd = f->has_client_id ? 0 : r->fd,
        };
}

static ClientKey client_key(const DrmUsageClient *c)
{
        return (ClientKey){
                .device = c->device,
                .has_client_id = c->has_client_id,
                .client_id = c->client_id,
                .pid = c->key_pid,
                .fd = c->key_fd,
        };
}

/* Reads of one client sort next to each other, its holders in (pid, fd) order. */
static int read_compare(const void *a, const void *b)
{
        const DrmUsageRead *x = *(const DrmUsageRead *const *) a, *y = *(const DrmUsageRead *const *) b;
        ClientKey kx = read_key(x), ky = read_key(y);
        int r;

        r = key_compare(&kx, &ky);
        if (r != 0)
                return r;
        if (x->pid != y->pid)
                return x->pid < y->pid ? -1 : 1;
        if (x->fd != y->fd)
                return x->fd < y->fd ? -1 : 1;
        /* Keep qsort's result deterministic for identical holders. */
        return x < y ? -1 : x > y;
}

DrmUsage *drm_usage_new(void)
{
        return calloc(1, sizeof(DrmUsage));
}

static void client_done(DrmUsageClient *c)
{
        free(c->device);
        free(c->holders);
        free(c->engines);
        free(c->regions);
}

static void devices_free(DrmUsage *u)
{
        for (size_t i = 0; i < u->n_devices; i++) {
                free(u->devices[i].device);
                free(u->devices[i].engines);
                free(u->devices[i].regions);
        }
        u->devices = mfree(u->devices);
        u->n_devices = 0;
}

DrmUsage *drm_usage_free(DrmUsage *u)
{
        if (!u)
                return NULL;
        for (size_t i = 0; i < u->n_clients; i++)
                client_done(&u->clients[i]);
        free(u->clients);
        devices_free(u);
        return mfree(u);
}

/* The index of the client with key k, or where it would be inserted (with *ret_found false). */
static size_t client_search(const DrmUsage *u, const ClientKey *k, bool *ret_found)
{
        size_t lo = 0, hi = u->n_clients;

        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                ClientKey m = client_key(&u->clients[mid]);
                int r = key_compare(k, &m);

                if (r == 0) {
                        *ret_found = true;
                        return mid;
                }
                if (r < 0)
                        hi = mid;
                else
                        lo = mid + 1;
        }
        *ret_found = false;
        return lo;
}

/* Clients per uid, sorted by uid: what each user's share holds. */
typedef struct UserClients {
        uid_t uid;
        unsigned n;
} UserClients;

static int user_clients_compare(const void *a, const void *b)
{
        uid_t x = ((const UserClients *) a)->uid, y = ((const UserClients *) b)->uid;
        return x < y ? -1 : x > y;
}

/* The counter of uid in the sorted array, added (at 0) when missing; NULL on ENOMEM. */
static UserClients *user_clients_get(UserClients **users, size_t *n, uid_t uid)
{
        UserClients key = { .uid = uid }, *found, *x;
        size_t at = 0;

        found = *n > 0 ? bsearch(&key, *users, *n, sizeof(UserClients), user_clients_compare) : NULL;
        if (found)
                return found;
        while (at < *n && (*users)[at].uid < uid)
                at++;
        x = reallocarray(*users, *n + 1, sizeof(UserClients));
        if (!x)
                return NULL;
        *users = x;
        memmove(x + at + 1, x + at, (*n - at) * sizeof(UserClients));
        x[at] = key;
        (*n)++;
        return &x[at];
}

/* Counts the clients already known per uid. */
static int user_clients_count(const DrmUsage *u, UserClients **ret, size_t *ret_n)
{
        _cleanup_free_ UserClients *users = NULL;
        size_t n = 0;

        for (size_t i = 0; i < u->n_clients; i++) {
                UserClients *c = user_clients_get(&users, &n, u->clients[i].uid);

                if (!c)
                        return -ENOMEM;
                c->n++;
        }
        *ret = TAKE_PTR(users);
        *ret_n = n;
        return 0;
}

static int client_insert(DrmUsage *u, size_t *allocated, size_t at, const ClientKey *k)
{
        _cleanup_free_ char *device = NULL;

        device = strdup(k->device);
        if (!device)
                return -ENOMEM;
        if (GREEDY_REALLOC(u->clients, *allocated, u->n_clients + 1) < 0)
                return -ENOMEM;

        memmove(u->clients + at + 1, u->clients + at, (u->n_clients - at) * sizeof(DrmUsageClient));
        u->clients[at] = (DrmUsageClient){
                .device = TAKE_PTR(device),
                .has_client_id = k->has_client_id,
                .client_id = k->client_id,
                .key_pid = k->pid,
                .key_fd = k->fd,
        };
        u->n_clients++;
        return 0;
}

static double clamp_percent(DrmUsage *u, DrmUsageClient *c, DrmUsageEngine *e, double pct)
{
        /* NaN cannot come from our divisions (every divisor is checked), but never pass one on. */
        if (!(pct >= 0.0))
                return 0.0;
        if (pct <= 100.0)
                return pct;
        e->n_clamped++;
        c->n_clamped++;
        u->n_clamped++;
        return 100.0;
}

static DrmUsageEngine *client_engine(DrmUsageClient *c, const char name[static DRM_FDINFO_NAME_MAX + 1])
{
        DrmUsageEngine *e;

        for (size_t i = 0; i < c->n_engines; i++)
                if (streq(c->engines[i].name, name))
                        return &c->engines[i];
        if (c->n_engines >= DRM_FDINFO_ENGINES_MAX) {
                c->n_engines_dropped++;
                return NULL;
        }
        /* The arrays grow by one: a client has a handful of engines, and it is bounded above. */
        e = realloc(c->engines, (c->n_engines + 1) * sizeof(DrmUsageEngine));
        if (!e)
                return NULL;
        c->engines = e;
        e = &c->engines[c->n_engines++];
        *e = (DrmUsageEngine){ .capacity = 1 };
        /* name is a parsed engine's name: an array of the same size, NUL-terminated. */
        memcpy(e->name, name, sizeof(e->name));
        return e;
}

static DrmUsageRegion *client_region(DrmUsageClient *c, const char name[static DRM_FDINFO_NAME_MAX + 1])
{
        DrmUsageRegion *r;

        for (size_t i = 0; i < c->n_regions; i++)
                if (streq(c->regions[i].name, name))
                        return &c->regions[i];
        if (c->n_regions >= DRM_FDINFO_REGIONS_MAX) {
                c->n_regions_dropped++;
                return NULL;
        }
        r = realloc(c->regions, (c->n_regions + 1) * sizeof(DrmUsageRegion));
        if (!r)
                return NULL;
        c->regions = r;
        r = &c->regions[c->n_regions++];
        *r = (DrmUsageRegion){ .stale = false };
        memcpy(r->name, name, sizeof(r->name));
        return r;
}

static void counter_set(DrmUsageCounter *c, uint64_t v, uint64_t usec)
{
        *c = (DrmUsageCounter){ .value = v, .usec = usec, .set = true };
}

static void engine_update(DrmUsage *u, DrmUsageClient *c, DrmUsageEngine *e, const DrmFdinfoEngine *s, uint64_t now)
{
        uint64_t dc = 0, dc_usec = 0;
        bool cycles_moved = false;

        /* A figure whose counters are missing from this sample keeps its previous value (xe without
         * forcewake, panfrost with profiling switched off): the engine is stale, not idle. */
        e->stale = !s->has_busy_ns && !s->has_cycles;
        /* Printed only when above 1 (i915, xe): absent in a sample means 1. */
        e->capacity = s->has_capacity ? s->capacity : 1;
        if (s->has_maxfreq) {
                e->maxfreq_hz = s->maxfreq_hz;
                e->has_maxfreq = true;
        }

        if (s->has_busy_ns) {
                if (!e->busy_ns.set)
                        counter_set(&e->busy_ns, s->busy_ns, now);
                else if (s->busy_ns < e->busy_ns.value) {
                        e->n_backwards++;
                        e->engine_percent = 0;
                        e->has_engine_percent = true;
                } else {
                        uint64_t d = s->busy_ns - e->busy_ns.value, span = now - e->busy_ns.usec;

                        e->engine_percent = clamp_percent(
                                        u, c, e, (double) d * 100.0 / ((double) span * 1000.0 * (double) e->capacity));
                        e->has_engine_percent = true;
                        counter_set(&e->busy_ns, s->busy_ns, now);
                }
        }

        if (s->has_cycles && s->has_total_cycles) {
                /* Held together: their ratio must span the same interval. */
                if (!e->cycles.set || !e->total_cycles.set) {
                        counter_set(&e->cycles, s->cycles, now);
                        counter_set(&e->total_cycles, s->total_cycles, now);
                } else if (s->cycles < e->cycles.value || s->total_cycles < e->total_cycles.value) {
                        e->n_backwards++;
                        e->cycles_percent = 0;
                        e->has_cycles_percent = true;
                } else {
                        uint64_t dt = s->total_cycles - e->total_cycles.value;

                        dc = s->cycles - e->cycles.value;
                        dc_usec = now - e->cycles.usec;
                        cycles_moved = true;
                        /* The GPU clock did not tick (xe): nothing ran, and no division by zero. */
                        e->cycles_percent = 0.0;
                        if (dt > 0)
                                e->cycles_percent = clamp_percent(
                                                u, c, e, (double) dc * 100.0 / ((double) dt * (double) e->capacity));
                        e->has_cycles_percent = true;
                        counter_set(&e->cycles, s->cycles, now);
                        counter_set(&e->total_cycles, s->total_cycles, now);
                }
        } else if (s->has_cycles) {
                /* total-cycles gone: its baseline no longer matches the cycles one. */
                e->total_cycles.set = false;
                if (!e->cycles.set)
                        counter_set(&e->cycles, s->cycles, now);
                else if (s->cycles < e->cycles.value) {
                        e->n_backwards++;
                        if (e->has_maxfreq) {
                                e->freq_percent = 0;
                                e->has_freq_percent = true;
                        }
                } else {
                        dc = s->cycles - e->cycles.value;
                        dc_usec = now - e->cycles.usec;
                        cycles_moved = true;
                        counter_set(&e->cycles, s->cycles, now);
                }
        }

        if (cycles_moved && e->has_maxfreq && e->maxfreq_hz > 0) {
                double possible = (double) e->maxfreq_hz * (double) dc_usec / 1e6 * (double) e->capacity;

                e->freq_percent = clamp_percent(u, c, e, (double) dc * 100.0 / possible);
                e->has_freq_percent = true;
        }
}

static int holders_update(DrmUsageClient *c, const DrmUsageRead *const *group, size_t n)
{
        DrmUsageHolder *h;
        size_t k = 0;

        h = calloc(MIN(n, (size_t) DRM_USAGE_HOLDERS_MAX), sizeof(DrmUsageHolder));
        if (!h)
                return -ENOMEM;
        c->n_holders_dropped = 0;
        for (size_t i = 0; i < n; i++) {
                /* The same (pid, fd) twice in one round is one holder. */
                if (k > 0 && h[k - 1].pid == group[i]->pid && h[k - 1].fd == group[i]->fd)
                        continue;
                if (k >= DRM_USAGE_HOLDERS_MAX) {
                        c->n_holders_dropped++;
                        continue;
                }
                h[k++] = (DrmUsageHolder){ .pid = group[i]->pid, .fd = group[i]->fd };
        }
        free(c->holders);
        c->holders = h;
        c->n_holders = k;
        return 0;
}

static int client_update(DrmUsage *u, DrmUsageClient *c, const DrmUsageRead *const *group, size_t n)
{
        const DrmUsageRead *latest = group[0];
        const DrmFdinfo *f;
        uint64_t now;
        int r;

        for (size_t i = 1; i < n; i++)
                if (group[i]->timestamp_usec > latest->timestamp_usec)
                        latest = group[i];
        f = latest->fdinfo;
        now = latest->timestamp_usec;

        r = holders_update(c, group, n);
        if (r < 0)
                return r;

        if (c->n_samples > 0 && now <= c->timestamp_usec) {
                /* No time has passed for this client: nothing to measure, keep the last figures. */
                u->n_reads_skipped += n;
                return 0;
        }

        c->interval_usec = c->n_samples > 0 ? now - c->timestamp_usec : 0;
        c->timestamp_usec = now;
        c->n_samples++;
        memcpy(c->driver, f->driver, sizeof(c->driver));
        memcpy(c->client_name, f->client_name, sizeof(c->client_name));
        c->has_client_name = f->has_client_name;

        for (size_t i = 0; i < c->n_engines; i++)
                c->engines[i].stale = true;
        for (size_t i = 0; i < f->n_engines; i++) {
                DrmUsageEngine *e;

                e = client_engine(c, f->engines[i].name);
                if (!e) {
                        if (c->n_engines < DRM_FDINFO_ENGINES_MAX)
                                return -ENOMEM;
                        continue;
                }
                engine_update(u, c, e, &f->engines[i], now);
        }

        for (size_t i = 0; i < c->n_regions; i++)
                c->regions[i].stale = true;
        for (size_t i = 0; i < f->n_regions; i++) {
                DrmUsageRegion *region;

                region = client_region(c, f->regions[i].name);
                if (!region) {
                        if (c->n_regions < DRM_FDINFO_REGIONS_MAX)
                                return -ENOMEM;
                        continue;
                }
                memcpy(region->bytes, f->regions[i].bytes, sizeof(region->bytes));
                memcpy(region->has, f->regions[i].has, sizeof(region->has));
                region->stale = false;
        }
        return 0;
}

bool drm_usage_engine_busy(const DrmUsageEngine *e, double *ret_percent)
{
        assert(e);

        if (e->has_engine_percent) {
                if (ret_percent)
                        *ret_percent = e->engine_percent;
                return true;
        }
        if (e->has_cycles_percent) {
                if (ret_percent)
                        *ret_percent = e->cycles_percent;
                return true;
        }
        return false;
}

static uint64_t add_saturating(uint64_t a, uint64_t b)
{
        uint64_t s;
        return __builtin_add_overflow(a, b, &s) ? UINT64_MAX : s;
}

static int device_add_client(DrmUsageDevice *d, const DrmUsageClient *c)
{
        d->n_clients++;

        for (size_t i = 0; i < c->n_engines; i++) {
                const DrmUsageEngine *e = &c->engines[i];
                DrmUsageDeviceEngine *de = NULL;
                double pct;

                for (size_t j = 0; j < d->n_engines && !de; j++)
                        if (streq(d->engines[j].name, e->name))
                                de = &d->engines[j];
                if (!de) {
                        de = realloc(d->engines, (d->n_engines + 1) * sizeof(DrmUsageDeviceEngine));
                        if (!de)
                                return -ENOMEM;
                        d->engines = de;
                        de = &d->engines[d->n_engines++];
                        *de = (DrmUsageDeviceEngine){ .n_clients = 0 };
                        memcpy(de->name, e->name, sizeof(de->name));
                }
                de->n_clients++;
                if (drm_usage_engine_busy(e, &pct)) {
                        de->busy_percent += pct;
                        de->has_busy_percent = true;
                }
                if (e->has_freq_percent) {
                        de->freq_percent += e->freq_percent;
                        de->has_freq_percent = true;
                }
        }

        for (size_t i = 0; i < c->n_regions; i++) {
                const DrmUsageRegion *r = &c->regions[i];
                DrmUsageDeviceRegion *dr = NULL;

                for (size_t j = 0; j < d->n_regions && !dr; j++)
                        if (streq(d->regions[j].name, r->name))
                                dr = &d->regions[j];
                if (!dr) {
                        dr = realloc(d->regions, (d->n_regions + 1) * sizeof(DrmUsageDeviceRegion));
                        if (!dr)
                                return -ENOMEM;
                        d->regions = dr;
                        dr = &d->regions[d->n_regions++];
                        *dr = (DrmUsageDeviceRegion){ .name = "" };
                        memcpy(dr->name, r->name, sizeof(dr->name));
                }
                for (size_t s = 0; s < _DRM_FDINFO_MEM_MAX; s++)
                        if (r->has[s]) {
                                dr->bytes[s] = add_saturating(dr->bytes[s], r->bytes[s]);
                                dr->has[s] = true;
                        }
        }
        return 0;
}

static int devices_update(DrmUsage *u)
{
        size_t allocated = 0;
        int r;

        devices_free(u);

        /* Clients are sorted by device: each device is one run. */
        for (size_t i = 0; i < u->n_clients; i++) {
                const DrmUsageClient *c = &u->clients[i];
                DrmUsageDevice *d;

                if (u->n_devices == 0 || !streq(u->devices[u->n_devices - 1].device, c->device)) {
                        _cleanup_free_ char *name = strdup(c->device);

                        if (!name || GREEDY_REALLOC(u->devices, allocated, u->n_devices + 1) < 0)
                                return -ENOMEM;
                        d = &u->devices[u->n_devices++];
                        *d = (DrmUsageDevice){ .device = TAKE_PTR(name) };
                        memcpy(d->driver, c->driver, sizeof(d->driver));
                }
                r = device_add_client(&u->devices[u->n_devices - 1], c);
                if (r < 0)
                        return r;
        }

        for (size_t i = 0; i < u->n_devices; i++) {
                DrmUsageDevice *d = &u->devices[i];

                /* Clients' intervals differ, so their sum can pass 100 % by a little. */
                for (size_t j = 0; j < d->n_engines; j++) {
                        if (d->engines[j].busy_percent > 100.0) {
                                d->engines[j].busy_percent = 100.0;
                                d->n_clamped++;
                                u->n_clamped++;
                        }
                        if (d->engines[j].freq_percent > 100.0) {
                                d->engines[j].freq_percent = 100.0;
                                d->n_clamped++;
                                u->n_clamped++;
                        }
                }
        }
        return 0;
}

int drm_usage_update(DrmUsage *u, const DrmUsageRead *reads, size_t n_reads)
{
        _cleanup_free_ const DrmUsageRead **sorted = NULL;
        _cleanup_free_ bool *seen = NULL;
        _cleanup_free_ UserClients *users = NULL;
        size_t n = 0, allocated = u->n_clients, n_users = 0;
        int r;

        assert(u);
        assert(reads || n_reads == 0);

        u->n_updates++;
        u->n_reads_skipped = 0;
        u->n_clients_dropped = 0;

        sorted = calloc(MAX(n_reads, (size_t) 1), sizeof(DrmUsageRead *));
        if (!sorted)
                return -ENOMEM;
        for (size_t i = 0; i < n_reads; i++) {
                assert(reads[i].fdinfo);
                if (reads[i].fdinfo->kind != DRM_FDINFO_USAGE) {
                        u->n_reads_skipped++;
                        continue;
                }
                sorted[n++] = &reads[i];
        }
        /* The sampler reads in the same order every time, often already sorted: then no sort. */
        for (size_t i = 1; i < n; i++)
                if (read_compare(&sorted[i - 1], &sorted[i]) > 0) {
                        qsort_safe(sorted, n, sizeof(DrmUsageRead *), read_compare);
                        break;
                }

        /* seen[] follows u->clients through insertions. */
        seen = calloc(u->n_clients + n + 1, sizeof(bool));
        if (!seen)
                return -ENOMEM;
        r = user_clients_count(u, &users, &n_users);
        if (r < 0)
                return r;

        for (size_t i = 0; i < n;) {
                ClientKey k = read_key(sorted[i]), kj;
                size_t j = i + 1, at;
                bool found;

                for (; j < n; j++) {
                        kj = read_key(sorted[j]);
                        if (key_compare(&k, &kj) != 0)
                                break;
                }

                at = client_search(u, &k, &found);
                if (!found) {
                        UserClients *owner = user_clients_get(&users, &n_users, sorted[i]->uid);

                        if (!owner)
                                return -ENOMEM;
                        if (u->n_clients >= DRM_USAGE_CLIENTS_MAX || owner->n >= DRM_USAGE_CLIENTS_PER_USER_MAX) {
                                u->n_clients_dropped++;
                                i = j;
                                continue;
                        }
                        r = client_insert(u, &allocated, at, &k);
                        if (r < 0)
                                return r;
                        u->clients[at].uid = sorted[i]->uid;
                        owner->n++;
                        memmove(seen + at + 1, seen + at, (u->n_clients - 1 - at) * sizeof(bool));
                }
                seen[at] = true;

                r = client_update(u, &u->clients[at], sorted + i, j - i);
                if (r < 0)
                        return r;
                i = j;
        }

        /* Vanished clients go, with their baselines: a client that comes back starts afresh. */
        {
                size_t k = 0;

                for (size_t i = 0; i < u->n_clients; i++) {
                        if (!seen[i]) {
                                client_done(&u->clients[i]);
                                continue;
                        }
                        u->clients[k++] = u->clients[i];
                }
                u->n_clients = k;
        }

        return devices_update(u);
}

const DrmUsageClient *drm_usage_find_client(const DrmUsage *u, const char *device, uint64_t client_id)
{
        ClientKey k = { .device = device, .has_client_id = true, .client_id = client_id };
        bool found;
        size_t at;

        assert(u);
        assert(device);

        at = client_search(u, &k, &found);
        return found ? &u->clients[at] : NULL;
}

const DrmUsageDevice *drm_usage_find_device(const DrmUsage *u, const char *device)
{
        assert(u);
        assert(device);
        for (size_t i = 0; i < u->n_devices; i++)
                if (streq(u->devices[i].device, device))
                        return &u->devices[i];
        return NULL;
}

const DrmUsageEngine *drm_usage_client_find_engine(const DrmUsageClient *c, const char *name)
{
        assert(c);
        assert(name);
        for (size_t i = 0; i < c->n_engines; i++)
                if (streq(c->engines[i].name, name))
                        return &c->engines[i];
        return NULL;
}

const DrmUsageRegion *drm_usage_client_find_region(const DrmUsageClient *c, const char *name)
{
        assert(c);
        assert(name);
        for (size_t i = 0; i < c->n_regions; i++)
                if (streq(c->regions[i].name, name))
                        return &c->regions[i];
        return NULL;
}

const DrmUsageDeviceEngine *drm_usage_device_find_engine(const DrmUsageDevice *d, const char *name)
{
        assert(d);
        assert(name);
        for (size_t i = 0; i < d->n_engines; i++)
                if (streq(d->engines[i].name, name))
                        return &d->engines[i];
        return NULL;
}

const DrmUsageDeviceRegion *drm_usage_device_find_region(const DrmUsageDevice *d, const char *name)
{
        assert(d);
        assert(name);
        for (size_t i = 0; i < d->n_regions; i++)
                if (streq(d->regions[i].name, name))
                        return &d->regions[i];
        return NULL;
}
