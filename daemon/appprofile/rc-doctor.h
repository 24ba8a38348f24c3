/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdint.h>
#include <sys/types.h>

#include "rc-config.h"

/* The profile doctor: why a profile may not do what its author meant, with the nvprofilectl command that
 * fixes it. Pure: it reads a loaded configuration and the processes the caller may know of, nothing else.
 *
 * It speaks only about files of the entries the options select, never about the driver's shipped file,
 * whose rules and profiles still count (a rule naming an NVIDIA profile names an existing one). Kinds:
 *   near-miss        a procname/commname/cmdline that matches no process seen, while one with a close
 *                    name was seen (NixOS ".X-wrapped", a path, case, comm's 15 characters, a Flatpak
 *                    app id, a Wine argv[0]);
 *   duplicate-rule   the same pattern and profile as an earlier rule;
 *   dead-rule        every key it sets is set by an earlier rule that matches every process it can;
 *   missing-profile  it names a profile no file defines;
 *   unused-profile   a named profile no rule names;
 *   unknown-key      a key not in the known table (rc-settings.h), with the closest known one;
 *   wrong-value      a known key's value of the wrong type, out of range or not one of its values;
 *   obsolete-key     a key replaced by another (GLGSYNCAllowed);
 *   not-portable     what the driver reads but nvidia-settings (jansson) does not: accepted trailing
 *                    commas, single-quoted member names;
 *   broken-file      a file that contributes nothing, at its first error;
 *   installed-file   a file of an rc.d directory other than nvprofilectl's own (50-nvprofilectl): programs
 *                    and packages install these; their origin when known. Files of /etc's rc.d count as
 *                    well when system files are asked for: distributions ship theirs there.
 * Rules are named in fixes by their stable id (rc-rule-id.h), since running one fix moves the lines of
 * others. */

typedef enum RcDoctorKind {
        RC_DOCTOR_NEAR_MISS,
        RC_DOCTOR_DUPLICATE_RULE,
        RC_DOCTOR_DEAD_RULE,
        RC_DOCTOR_MISSING_PROFILE,
        RC_DOCTOR_UNUSED_PROFILE,
        RC_DOCTOR_UNKNOWN_KEY,
        RC_DOCTOR_WRONG_VALUE,
        RC_DOCTOR_OBSOLETE_KEY,
        RC_DOCTOR_NOT_PORTABLE,
        RC_DOCTOR_BROKEN_FILE,
        RC_DOCTOR_INSTALLED_FILE,
        _RC_DOCTOR_KIND_MAX,
        _RC_DOCTOR_KIND_INVALID = -EINVAL,
} RcDoctorKind;

const char *rc_doctor_kind_to_string(RcDoctorKind k) _const_;

typedef struct RcDoctorProcess {
        const char *procname, *comm, *cmdline, *flatpak_id; /* as SeenName; any may be NULL */
        pid_t pid; /* 0: not running now (remembered) */
        uint64_t last_seen_usec; /* CLOCK_REALTIME */
} RcDoctorProcess;

typedef struct RcDoctorOptions {
        const RcDoctorProcess *processes; /* only what the caller may see */
        size_t n_processes;
        bool user_files; /* speak about files of RC_ENTRY_USER_FILE/USER_DIR */
        bool system_files; /* speak about files of RC_ENTRY_SYSTEM_FILE/SYSTEM_DIR (never RC_ENTRY_SHIPPED) */
        const char *home_option; /* non-NULL: user-file fixes get "--home=<this>" */
        uint64_t steps_max; /* the run's work bound; 0: RC_DOCTOR_STEPS_MAX */
} RcDoctorOptions;

/* A caller makes the daemon run the doctor on a configuration that caller may write: comparing every rule
 * with every earlier one (duplicates, dead rules), nested patterns with each other (exponential in their
 * depth), and every rule with every remembered process costs steps, and a run stops comparing (saying
 * less, never a guess) at this bound: under 0.1 s of the single-threaded daemon's time in a debug build
 * for the worst files tests/appprofile/test-rc-doctor.c makes (/rc-doctor/bounded-work prints it), where
 * NVIDIA's 570 file with a user's takes under a millisecond. RcFindings.incomplete says so. */
#define RC_DOCTOR_STEPS_MAX (1000u * 1000u)

typedef struct RcFinding {
        RcDoctorKind kind;
        const char *path; /* borrowed from the config's RcFile */
        uint32_t line, column; /* 1-based; 0 = whole file */
        char *message; /* one sentence */
        char *fix; /* a shell command line "nvprofilectl ..." (arguments shell-quoted), NULL if none */
} RcFinding;

#define RC_FINDINGS_MAX 256u

typedef struct RcFindings {
        RcFinding *items; /* in precedence order of files, then line and column */
        size_t n_items;
        size_t n_dropped; /* findings beyond RC_FINDINGS_MAX */
        bool incomplete; /* the work bound was met: some rules were not compared, findings may be missing */
} RcFindings;

/* Returns 0 with *ret filled (possibly empty), negative only on OOM. */
int rc_doctor_run(const RcConfig *c, const RcDoctorOptions *o, RcFindings *ret);
void rc_findings_done(RcFindings *f);

/* Who installs files of that name into an rc.d directory, or NULL when we do not know. */
const char *rc_doctor_file_origin(const char *name) _pure_;

/* s quoted for a POSIX shell: as it is when it needs no quoting, else in single quotes. */
char *rc_doctor_shell_quote(const char *s);
