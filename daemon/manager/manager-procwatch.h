/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "manager.h"

/* Seeing every process start, rename itself and exit: the proc connector when permitted (root), a
 * periodic /proc scan otherwise, and a full rescan at start-up and after every connector overrun. */
int manager_procwatch_start(Manager *m);
void manager_procwatch_stop(Manager *m);

/* After the connector failed (error): reconnects and rescans, or falls back to polling and says the
 * watching is degraded; if even that fails, watchdog pings stop, so that systemd restarts the daemon. */
int manager_procwatch_recover(Manager *m, int error);
