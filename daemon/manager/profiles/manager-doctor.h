/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "manager.h"
#include "rc-doctor.h"

/* The profile doctor for a caller (rc-doctor.h finds; this picks what it looks at): which configuration,
 * and which processes, the caller may be told about. */

typedef enum ManagerDoctorScope {
        MANAGER_DOCTOR_USER, /* the system's files and those of the caller's home */
        MANAGER_DOCTOR_SYSTEM, /* the system's files only */
        MANAGER_DOCTOR_ALL_USERS, /* root: the system's files and every home the daemon has read */
        _MANAGER_DOCTOR_SCOPE_MAX,
        _MANAGER_DOCTOR_SCOPE_INVALID = -EINVAL,
} ManagerDoctorScope;

/* Findings, and the configurations whose files they name (their paths are borrowed). */
typedef struct ManagerDoctorReport {
        RcFinding *findings;
        size_t n_findings, allocated_findings;
        size_t n_dropped;
        bool incomplete; /* a run met its work bound (RC_DOCTOR_STEPS_MAX): findings may be missing */
        RcConfig **configs;
        size_t n_configs, allocated_configs;
} ManagerDoctorReport;

void manager_doctor_report_done(ManagerDoctorReport *r);

/* Runs the doctor for a caller with creds. Processes (running, and remembered by ManagerProfiles.seen_names)
 * count only where the caller may see them (manager_may_see()). home: the caller's $HOME for
 * MANAGER_DOCTOR_USER (NULL: the system's files only); -EACCES when the caller could not open it itself
 * (as ListRules), -EPERM for MANAGER_DOCTOR_ALL_USERS unless the caller is root. */
int manager_doctor(Manager *m, const UserCreds *caller, ManagerDoctorScope scope, const char *home,
                ManagerDoctorReport *ret);

const char *manager_doctor_scope_to_string(ManagerDoctorScope s) _const_;
ManagerDoctorScope manager_doctor_scope_from_string(const char *s) _pure_;
