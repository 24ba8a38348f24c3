/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "manager.h"

/* What users make the daemon log is rate-limited per user ([Limits] UserLogIntervalSec=, UserLogBurst=,
 * AllUsersLogBurst=; log_user_...() in log.h), and a timer on the manager's loop logs the summary of what
 * was dropped when a window ends, also when no further message comes to trigger it. */
int manager_log_start(Manager *m);
void manager_log_stop(Manager *m);
