/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "bus-polkit.h"
#include "log.h"

#define POLKIT_NAME "org.freedesktop.PolicyKit1"
#define POLKIT_PATH "/org/freedesktop/PolicyKit1/Authority"
#define POLKIT_INTERFACE "org.freedesktop.PolicyKit1.Authority"

/* CheckAuthorization's flags: AllowUserInteraction. */
#define POLKIT_CHECK_ALLOW_INTERACTION 1u

/* Unanswered questions to polkit at most, all users together; each user may have its share of them
 * (user_counts_share_of(): 8), so that one user's unanswered checks (an authentication agent of its own
 * that never answers) leave everyone else's requests their room. Each holds its caller's request in
 * memory, which was bounded before polkit was asked (bus_authorize()'s callers check sizes first). */
#define POLKIT_QUERIES_MAX 64u

struct BusPolkitQuery {
        BusContext *context;
        sd_bus_message *request;
        sd_bus_slot *slot;
        BusAuthorizedAction action;
        uid_t uid; /* the caller's, counted in context->polkit_pending */
        BusPolkitQuery *prev, *next;
};

static BusPolkitQuery *polkit_query_free(BusPolkitQuery *q)
{
        if (!q)
                return NULL;
        if (q->context) {
                if (q->prev)
                        q->prev->next = q->next;
                else
                        q->context->polkit_queries = q->next;
                if (q->next)
                        q->next->prev = q->prev;
                user_counts_release(&q->context->polkit_pending, q->uid);
        }
        sd_bus_slot_unref(q->slot);
        sd_bus_message_unref(q->request);
        return mfree(q);
}
DEFINE_TRIVIAL_CLEANUP_FUNC(BusPolkitQuery *, polkit_query_free);

void bus_polkit_init(BusContext *c)
{
        user_counts_init(&c->polkit_pending, POLKIT_QUERIES_MAX);
}

void bus_polkit_queries_free(BusContext *c)
{
        while (c->polkit_queries)
                polkit_query_free(c->polkit_queries);
        user_counts_done(&c->polkit_pending);
}

/* polkit's answer: (bba{ss}) is_authorized, is_challenge, details. */
static int read_authorization_result(sd_bus_message *reply, bool *ret_authorized, bool *ret_challenge)
{
        const sd_bus_error *e;
        int authorized, challenge;
        int r;

        e = sd_bus_message_get_error(reply);
        if (e)
                return -sd_bus_error_get_errno(e);
        r = sd_bus_message_enter_container(reply, 'r', "bba{ss}");
        if (r < 0)
                return r;
        r = sd_bus_message_read(reply, "bb", &authorized, &challenge);
        if (r < 0)
                return r;
        *ret_authorized = authorized;
        *ret_challenge = challenge;
        return 0;
}

static int on_authorization_reply(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error)
{
        _cleanup_(polkit_query_freep) BusPolkitQuery *q = userdata;
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        bool authorized = false, challenge = false;
        int r;

        r = read_authorization_result(reply, &authorized, &challenge);
        if (r < 0) {
                uid_t caller = LOG_UID_NONE;

                /* No polkit, or it failed: nobody but root is authorised. Each call says so: the caller's. */
                (void) bus_caller_uid(q->request, &caller);
                log_user_debug_errno(caller, r, "Failed to ask polkit about %s",
                                strna(sd_bus_message_get_sender(q->request)));
        }

        if (authorized)
                r = q->action(q->context, q->request, &error);
        else if (challenge)
                r = sd_bus_error_set(&error, SD_BUS_ERROR_INTERACTIVE_AUTHORIZATION_REQUIRED,
                                "Interactive authentication required.");
        else
                r = sd_bus_error_set(&error, SD_BUS_ERROR_ACCESS_DENIED, "Access denied by polkit.");
        if (r < 0 || sd_bus_error_is_set(&error))
                (void) sd_bus_reply_method_errno(q->request, r, &error);
        return 0;
}

static int ask_polkit(BusContext *c, sd_bus_message *m, uid_t caller, const char *action_id, BusAuthorizedAction action)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *call = NULL;
        _cleanup_(polkit_query_freep) BusPolkitQuery *q = NULL;
        const char *sender;
        uint32_t flags = 0;
        int r;

        sender = sd_bus_message_get_sender(m);
        if (!sender)
                return -EBADMSG;
        if (sd_bus_message_get_allow_interactive_authorization(m))
                flags |= POLKIT_CHECK_ALLOW_INTERACTION;

        /* Counted before polkit is asked anything; polkit_query_free() gives it back. */
        r = user_counts_take(&c->polkit_pending, caller);
        if (r < 0)
                return r;
        q = calloc(1, sizeof(BusPolkitQuery));
        if (!q) {
                user_counts_release(&c->polkit_pending, caller);
                return -ENOMEM;
        }
        q->request = sd_bus_message_ref(m);
        q->action = action;
        q->uid = caller;
        q->context = c;
        q->next = c->polkit_queries;
        if (q->next)
                q->next->prev = q;
        c->polkit_queries = q;

        r = sd_bus_message_new_method_call(
                        c->bus, &call, POLKIT_NAME, POLKIT_PATH, POLKIT_INTERFACE, "CheckAuthorization");
        if (r < 0)
                return r;
        /* The subject is the caller's unique bus name: polkit asks the bus who that is, so no pid race. */
        r = sd_bus_message_append(
                        call, "(sa{sv})sa{ss}us", "system-bus-name", 1, "name", "s", sender, action_id, 0, flags, "");
        if (r < 0)
                return r;
        /* An interactive authentication waits for a person: no timeout of our own beyond sd-bus's. */
        r = sd_bus_call_async(c->bus, &q->slot, call, on_authorization_reply, q, 0);
        if (r < 0)
                return r;
        TAKE_PTR(q);
        return 1;
}

int bus_authorize(BusContext *c, sd_bus_message *m, const char *action_id, BusAuthorizedAction action,
                sd_bus_error *error)
{
        uid_t caller;
        int r;

        assert(c);
        assert(m);
        assert(action_id);
        assert(action);

        r = bus_caller_uid(m, &caller);
        if (r < 0)
                return r;
        if (caller == 0)
                return action(c, m, error);

        r = ask_polkit(c, m, caller, action_id, action);
        if (r == -EUSERS)
                return sd_bus_error_setf(error, BUS_ERROR_LIMITS_EXCEEDED,
                                "At most %u authorisations of one user in progress.", c->polkit_pending.per_user_max);
        if (r == -E2BIG)
                return sd_bus_error_set(error, BUS_ERROR_LIMITS_EXCEEDED, "Too many authorisations in progress.");
        if (r < 0)
                return log_user_warning_errno(caller, r, "Failed to ask polkit");
        return 1;
}
