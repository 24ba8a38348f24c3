/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Subscribe and Unsubscribe, and signals sent to subscribers rather than broadcast: the manager says who
 * may be told what (manager-visibility.h); here each subscriber is a bus connection, tracked so that it
 * goes when the connection does, and a signal for it is a message addressed to it, which the bus delivers
 * to it alone. */

#include "bus-common.h"
#include "log.h"
#include "manager-visibility.h"

struct BusSubscriber {
        BusContext *context;
        ManagerSubscriber *subscription;
        sd_bus_track *track;
        BusSubscriber *prev, *next;
};

static BusSubscriber *bus_subscriber_free(BusSubscriber *s)
{
        if (!s)
                return NULL;
        if (s->prev)
                s->prev->next = s->next;
        else
                s->context->subscribers = s->next;
        if (s->next)
                s->next->prev = s->prev;
        manager_unsubscribe(s->subscription);
        sd_bus_track_unref(s->track);
        return mfree(s);
}

void bus_subscribers_free(BusContext *c)
{
        while (c->subscribers)
                bus_subscriber_free(c->subscribers);
}

static int on_subscriber_gone(sd_bus_track *t, void *userdata)
{
        BusSubscriber *s = userdata;

        log_debug("Subscriber %s left the bus", manager_subscriber_who(s->subscription));
        bus_subscriber_free(s);
        return 0;
}

int bus_method_subscribe(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusContext *c = userdata;
        ManagerSubscriber *subscription;
        BusSubscriber *s;
        const char *sender = sd_bus_message_get_sender(m);
        uid_t caller;
        int r;

        if (!sender)
                return sd_bus_error_setf(error, SD_BUS_ERROR_NOT_SUPPORTED, "Subscribe needs a bus with unique names.");
        r = bus_caller_uid(m, &caller);
        if (r < 0)
                return r;
        r = manager_subscribe(c->manager, caller, sender, &subscription);
        if (r < 0)
                return bus_reply_errno(error, r, "too many subscriptions");
        if (r == 0) /* subscribed already */
                return sd_bus_reply_method_return(m, NULL);

        s = calloc(1, sizeof(BusSubscriber));
        if (!s) {
                manager_unsubscribe(subscription);
                return -ENOMEM;
        }
        *s = (BusSubscriber){ .context = c, .subscription = subscription, .next = c->subscribers };
        if (c->subscribers)
                c->subscribers->prev = s;
        c->subscribers = s;
        manager_subscriber_set_userdata(subscription, s);

        r = sd_bus_track_new(sd_bus_message_get_bus(m), &s->track, on_subscriber_gone, s);
        if (r >= 0)
                r = sd_bus_track_add_sender(s->track, m);
        if (r < 0) {
                bus_subscriber_free(s);
                return r;
        }
        return sd_bus_reply_method_return(m, NULL);
}

int bus_method_unsubscribe(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusContext *c = userdata;
        ManagerSubscriber *subscription;
        const char *sender = sd_bus_message_get_sender(m);
        uid_t caller;
        int r;

        r = bus_caller_uid(m, &caller);
        if (r < 0)
                return r;
        subscription = sender ? manager_subscriber_find(c->manager, caller, sender) : NULL;
        if (subscription)
                bus_subscriber_free(manager_subscriber_get_userdata(subscription));
        return sd_bus_reply_method_return(m, NULL);
}

typedef struct SignalToSubscribers {
        BusContext *context;
        const char *path, *interface, *member;
        BusAppendBody append_body;
        const void *userdata;
} SignalToSubscribers;

static void signal_subscriber(ManagerSubscriber *subscription, void *userdata)
{
        const SignalToSubscribers *x = userdata;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        int r;

        r = sd_bus_message_new_signal(x->context->bus, &m, x->path, x->interface, x->member);
        if (r >= 0)
                r = sd_bus_message_set_destination(m, manager_subscriber_who(subscription));
        if (r >= 0)
                r = x->append_body(m, x->userdata);
        if (r >= 0)
                r = sd_bus_send(x->context->bus, m, NULL);
        if (r < 0)
                log_debug_errno(r, "Cannot send %s to %s", x->member, manager_subscriber_who(subscription));
}

void bus_signal_subscribers_of(BusContext *c, uid_t owner, const char *path, const char *interface, const char *member,
                BusAppendBody append_body, const void *userdata)
{
        SignalToSubscribers x = {
                .context = c,
                .path = path,
                .interface = interface,
                .member = member,
                .append_body = append_body,
                .userdata = userdata,
        };

        manager_foreach_subscriber_of(c->manager, owner, signal_subscriber, &x);
}

int bus_append_vtable_properties(sd_bus_message *m, const sd_bus_vtable *vtable, const char *path,
                const char *interface, void *object, bool changing_only)
{
        int r;

        r = sd_bus_message_open_container(m, 'a', "{sv}");
        if (r < 0)
                return r;
        for (const sd_bus_vtable *v = vtable; v->type != _SD_BUS_VTABLE_END; v++) {
                _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;

                if (!IN_SET(v->type, _SD_BUS_VTABLE_PROPERTY, _SD_BUS_VTABLE_WRITABLE_PROPERTY))
                        continue;
                if (changing_only && !(v->flags & SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE))
                        continue;
                /* Every property of ours has its getter, which the same values as Get come from. */
                assert(v->x.property.get);
                r = sd_bus_message_open_container(m, 'e', "sv");
                if (r < 0)
                        return r;
                r = sd_bus_message_append(m, "s", v->x.property.member);
                if (r < 0)
                        return r;
                r = sd_bus_message_open_container(m, 'v', v->x.property.signature);
                if (r < 0)
                        return r;
                r = v->x.property.get(sd_bus_message_get_bus(m), path, interface, v->x.property.member, m,
                                (uint8_t *) object + v->x.property.offset, &error);
                if (r < 0)
                        return r;
                r = sd_bus_message_close_container(m);
                if (r < 0)
                        return r;
                r = sd_bus_message_close_container(m);
                if (r < 0)
                        return r;
        }
        return sd_bus_message_close_container(m);
}
