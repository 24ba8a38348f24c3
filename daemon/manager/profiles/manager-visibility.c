/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "manager-visibility.h"
#include "string-util.h"

struct ManagerSubscriber {
        Manager *manager;
        uid_t uid;
        char *who;
        void *userdata;
        ManagerSubscriber *prev, *next; /* among uid's */
};

/* One user's subscribers: the map's value, so that a change of the first never touches the map. */
typedef struct SubscriberGroup {
        ManagerSubscriber *first;
        unsigned n;
} SubscriberGroup;

/* IntMap keys are never 0, and uid 0 is root. */
static uint64_t uid_key(uid_t uid)
{
        return (uint64_t) uid + 1;
}

bool manager_process_has_object(const Process *p)
{
        return (p->resolution && p->resolution->n_matched > 0) || p->gpu_user;
}

static SubscriberGroup *group_of(const Manager *m, uid_t uid)
{
        return intmap_get(&m->profiles->subscribers, uid_key(uid));
}

ManagerSubscriber *manager_subscriber_find(const Manager *m, uid_t uid, const char *who)
{
        SubscriberGroup *g = group_of(m, uid);

        assert(who);
        for (ManagerSubscriber *s = g ? g->first : NULL; s; s = s->next)
                if (streq(s->who, who))
                        return s;
        return NULL;
}

int manager_subscribe(Manager *m, uid_t uid, const char *who, ManagerSubscriber **ret)
{
        _cleanup_free_ SubscriberGroup *new_group = NULL;
        _cleanup_free_ ManagerSubscriber *s = NULL;
        SubscriberGroup *g = group_of(m, uid);
        ManagerSubscriber *found;
        int r;

        assert(who);
        assert(ret);

        found = manager_subscriber_find(m, uid, who);
        if (found) {
                *ret = found;
                return 0;
        }
        if (m->profiles->n_subscribers >= MANAGER_SUBSCRIBERS_MAX ||
                        (uid != 0 && g && g->n >= MANAGER_SUBSCRIBERS_PER_USER))
                return -E2BIG;

        s = calloc(1, sizeof(ManagerSubscriber));
        if (!s)
                return -ENOMEM;
        s->who = strdup(who);
        if (!s->who)
                return -ENOMEM;
        if (!g) {
                g = new_group = calloc(1, sizeof(SubscriberGroup));
                if (!g) {
                        free(s->who);
                        return -ENOMEM;
                }
                r = intmap_put(&m->profiles->subscribers, uid_key(uid), g);
                if (r < 0) {
                        free(s->who);
                        return r;
                }
                TAKE_PTR(new_group);
        }
        s->manager = m;
        s->uid = uid;
        s->next = g->first;
        if (g->first)
                g->first->prev = s;
        g->first = s;
        g->n++;
        m->profiles->n_subscribers++;
        *ret = TAKE_PTR(s);
        return 1;
}

ManagerSubscriber *manager_unsubscribe(ManagerSubscriber *s)
{
        SubscriberGroup *g;
        Manager *m;

        if (!s)
                return NULL;
        m = s->manager;
        g = group_of(m, s->uid);
        assert(g && g->n > 0);
        if (s->prev)
                s->prev->next = s->next;
        else
                g->first = s->next;
        if (s->next)
                s->next->prev = s->prev;
        if (--g->n == 0)
                free(intmap_remove(&m->profiles->subscribers, uid_key(s->uid)));
        m->profiles->n_subscribers--;
        free(s->who);
        return mfree(s);
}

void manager_subscribers_free(Manager *m)
{
        SubscriberGroup *g;

        while (intmap_next(&m->profiles->subscribers, &(size_t){ 0 }, NULL, (void **) &g))
                manager_unsubscribe(g->first);
        intmap_done(&m->profiles->subscribers);
}

uid_t manager_subscriber_uid(const ManagerSubscriber *s)
{
        return s->uid;
}

const char *manager_subscriber_who(const ManagerSubscriber *s)
{
        return s->who;
}

void *manager_subscriber_get_userdata(const ManagerSubscriber *s)
{
        return s->userdata;
}

void manager_subscriber_set_userdata(ManagerSubscriber *s, void *userdata)
{
        s->userdata = userdata;
}

static void foreach_of_uid(Manager *m, uid_t uid, ManagerSubscriberFunc fn, void *userdata)
{
        SubscriberGroup *g = group_of(m, uid);

        for (ManagerSubscriber *s = g ? g->first : NULL; s; s = s->next)
                fn(s, userdata);
}

void manager_foreach_subscriber_of(Manager *m, uid_t owner, ManagerSubscriberFunc fn, void *userdata)
{
        /* Exactly those manager_may_see() lets see owner's processes. */
        foreach_of_uid(m, 0, fn, userdata);
        if (owner != 0)
                foreach_of_uid(m, owner, fn, userdata);
}

unsigned manager_matched_processes(const Manager *m, uid_t caller)
{
        const Process *p;
        unsigned n = 0;

        if (caller == 0)
                return m->profiles->n_matched;
        /* Linear in the processes tracked, as ListProcesses is; nothing kept per user to go stale. */
        for (size_t i = 0; intmap_next(&m->profiles->processes, &i, NULL, (void **) &p);)
                n += p->uid == caller && p->resolution && p->resolution->n_matched > 0;
        return n;
}
