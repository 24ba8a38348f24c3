/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "itest.h"

/* GPU clients in the integration harness's fixture /proc, for the real daemon's usage sampler: the
 * process's fd 3 is a link to /dev/null (char 1:3), which the daemon takes for a DRM node with
 * USAGE_FIXTURE_CONFIG (DrmMajor=1), so no device node and no root are needed; its fdinfo/3 is the text
 * given (a corpus dump, or counters a test advances); its cgroup names a systemd unit. */

#define USAGE_FIXTURE_CONFIG "[Usage]\nDrmMajor=1\nNVML=no\n"

void usage_fixture_gpu_process(
                ITest *t, pid_t pid, const char *comm, const char *exe, const char *cgroup, const char *fdinfo);

/* Replaces fdinfo/3 of pid in one rename, as a new reading would show new counters. */
void usage_fixture_set_fdinfo(ITest *t, pid_t pid, const char *fdinfo);
