/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "manager.h"

/* Creates, resolves and registers a process from its facts; settle: schedule the post-exec re-reads. */
int process_new_from_facts(Manager *m, const ProcFacts *f, bool settle, Process **ret);

/* Reads the process's facts again and re-resolves; > 0 when the result changed, -ESRCH when gone. */
int process_reread(Process *p);

/* Resolves facts against the right configuration (the process's root and $HOME), every file opened with
 * the process's own file access (f->creds). */
int process_resolve(Manager *m, const ProcFacts *f, RcResolution **ret);

/* Tells the callbacks, unregisters and frees. */
void process_remove(Process *p);

Process *process_free(Process *p);
DEFINE_TRIVIAL_CLEANUP_FUNC(Process *, process_free);
