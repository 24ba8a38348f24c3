/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "manager-profiles.h"

/* What each caller may be told about processes, when nobody asked about one in particular.
 *
 * A signal on the bus reaches every listener, and a property has one value for all of them. So nothing
 * that only a process's owner and root may see goes into either: not its result, not whether a rule
 * matched it (a rule can come from the owner's private rc file, a match from its libraries or its
 * environment), not its object (which exists because a rule matched it or because it uses a GPU), not
 * its GPU use or figures. All of that is told to subscribers only, each about the processes it may see
 * (manager_may_see()): a subscriber is a caller that asked to be told (the bus layer's Subscribe, one
 * per bus connection), and the manager keeps who it is and bounds how many there are. What everybody is
 * told (signals without a destination, property values) carries only counts and states of the daemon
 * itself. */

/* Subscribers in total, and of one user: root has no share of its own, only the total bounds it. Every
 * exec of a user's process is a message to each of that user's subscribers, sent from the main loop: a
 * share of 64 made one user's execs cost the daemon 8 to 10 times as much. 8 is room for an app's
 * windows, top and a monitor, and keeps that factor small. */
#define MANAGER_SUBSCRIBERS_MAX 4096u
#define MANAGER_SUBSCRIBERS_PER_USER 8u

typedef struct ManagerSubscriber ManagerSubscriber;

/* Whether a process gets an object (for its owner and root): a rule matched it, or it uses a GPU. */
bool manager_process_has_object(const Process *p);

/* Subscribes who (a caller's name, unique while it lives: the bus connection's) for uid. Returns 1 and the
 * new subscriber, 0 and the existing one when who is subscribed already, -E2BIG past the limits. */
int manager_subscribe(Manager *m, uid_t uid, const char *who, ManagerSubscriber **ret);
/* who's subscription for uid, or NULL. */
ManagerSubscriber *manager_subscriber_find(const Manager *m, uid_t uid, const char *who);
/* Ends the subscription; returns NULL. */
ManagerSubscriber *manager_unsubscribe(ManagerSubscriber *s);
/* Ends every subscription (at the manager's end). */
void manager_subscribers_free(Manager *m);

uid_t manager_subscriber_uid(const ManagerSubscriber *s) _pure_;
const char *manager_subscriber_who(const ManagerSubscriber *s) _pure_;
/* What the layer that subscribed keeps with the subscriber (not owned by the manager). */
void *manager_subscriber_get_userdata(const ManagerSubscriber *s) _pure_;
void manager_subscriber_set_userdata(ManagerSubscriber *s, void *userdata);

/* Calls fn for each subscriber that may see the processes of owner (owner's own subscribers and root's),
 * and for no other. fn must not subscribe or unsubscribe anybody. */
typedef void (*ManagerSubscriberFunc)(ManagerSubscriber *s, void *userdata);
void manager_foreach_subscriber_of(Manager *m, uid_t owner, ManagerSubscriberFunc fn, void *userdata);

/* Tracked processes that a rule matches, of those caller may see: its own; root: all. */
unsigned manager_matched_processes(const Manager *m, uid_t caller);
