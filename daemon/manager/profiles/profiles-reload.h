/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "manager-profiles.h"

/* Starts watching the rc files' paths and loads them once; a change reloads them and re-reads the
 * processes they can concern (manager_reload() does the same for all). */
int profiles_start(Manager *m);
