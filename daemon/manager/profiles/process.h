/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "manager-profiles.h"

/* What every tracked process needs read, whatever the rules: its file access, $HOME and environment (they
 * pick the configuration) and exe (which names it); and its root, opened only when it is not the host's. */
#define PROCESS_FACTS_ALWAYS (PROC_FACTS_STATUS | PROC_FACTS_ENVIRON | PROC_FACTS_EXE)

/* What else the rules of c can test (maps only if maps): cmdline for a cmdline rule, maps for a dso rule.
 * Nothing for a configuration without rules. */
ProcFactsFlags process_facts_needed(const RcConfig *c, bool maps);

/* Opens /proc/<pid> and reads the identity and PROCESS_FACTS_ALWAYS (and cmdline when there is no exe, to
 * tell kernel threads); returns the directory fd to read more through. zombie_is_gone: a zombie (an exited
 * process not reaped yet, which would read as a kernel thread and never be tracked) is -ESRCH right after
 * its stat, with nothing else read. event_ns: the timestamp of the event that makes us look
 * (MANAGER_NO_EVENT: none); a process that started after it is not the event's (manager_event_may_describe())
 * and is -ESTALE right after its stat, with nothing else read. */
int process_facts_open(Manager *m, pid_t pid, const ProcIdentity *expect, bool zombie_is_gone, uint64_t event_ns,
                ProcFacts *ret, int *ret_dfd);

/* Creates, resolves and registers a process from its facts; settle: schedule the post-exec re-reads. */
int process_new_from_facts(Manager *m, const ProcFacts *f, bool settle, Process **ret);

/* The same from what process_facts_open() read, reading through dfd only what the process's configuration
 * can test (maps not when the settle re-reads will). */
int process_new_at(Manager *m, int dfd, ProcFacts *f, bool settle, Process **ret);

/* Reads the process's facts again and re-resolves; > 0 when the result changed, -ESRCH when gone. */
int process_reread(Process *p);

/* Resolves facts against the right configuration (the process's root and $HOME), every file opened with
 * the process's own file access (f->creds). */
int process_resolve(Manager *m, const ProcFacts *f, RcResolution **ret);
/* Resolves f (complete) against config rather than its own configuration: for previews of an edit. */
int process_resolve_in(Manager *m, const ProcFacts *f, RcConfig *config, RcResolution **ret);

/* Tells the callbacks, unregisters and frees. */
void process_remove(Process *p);

Process *process_free(Process *p);

/* Drops the settle re-reads' timer and queue (at the manager's end). */
void process_settle_free(Manager *m);
DEFINE_TRIVIAL_CLEANUP_FUNC(Process *, process_free);
