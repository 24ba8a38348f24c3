/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the doctor's parts share (rc-doctor.c: files, rules, profiles and the run; rc-doctor-near-miss.c;
 * rc-doctor-keys.c). Not for use outside the doctor. */

#include "rc-doctor.h"
#include "rc-resolve.h"
#include "rc-rule-id.h"

/* A finding, with what sorts it: its file's place in precedence order, then the order it was found. */
typedef struct Item {
        RcFinding finding;
        size_t file, seq;
} Item;

/* One run: the configuration, the options, and what is computed once for all the checks. */
typedef struct Doctor {
        const RcConfig *c;
        const RcDoctorOptions *o;
        RcEntryKind *kinds; /* per file, its entry of the search path; _RC_ENTRY_KIND_MAX: none */
        char (**ids)[RC_RULE_ID_LENGTH + 1]; /* per file, for loaded files */
        char **patterns; /* per rule of c->rules, as rc_pattern_format() writes it */
        RcMatchFacts *facts; /* per process of o->processes */
        size_t n_facts;
        Item *items;
        size_t n_items, allocated;
        uint64_t steps_left; /* the run's work bound (RcDoctorOptions.steps_max) */
        bool incomplete; /* ...was met */
} Doctor;

/* Takes steps from the run's work bound; false (and the run incomplete) when it is spent. */
bool doctor_spend(Doctor *d, uint64_t steps);

/* A command line built argument by argument, each quoted. */
typedef struct Command {
        char *text;
        bool oom;
} Command;

/* Where a setting lives, for its fix: a rule's inline profile, or a named profile. */
typedef struct Holder {
        size_t file;
        const RcRuleRef *ref; /* inline */
        const RcProfile *profile; /* named */
} Holder;

/* Adds a finding; takes message and fix (NULL message: -ENOMEM). */
int doctor_add_finding(
                Doctor *d, RcDoctorKind kind, size_t file, uint32_t line, uint32_t column, char *message, char *fix);
/* A formatted sentence, NULL on OOM. */
char *doctor_sentence(const char *fmt, ...) _printf_(1, 2);

void doctor_command_add(Command *c, const char *arg);
void doctor_command_addf(Command *c, const char *fmt, ...) _printf_(2, 3);
/* "nvprofilectl rules VERB ID", "nvprofilectl profiles VERB NAME". */
Command doctor_rule_command(Doctor *d, const RcRuleRef *ref, const char *verb);
Command doctor_profile_command(Doctor *d, const char *verb, const char *name);
/* The --file= that "profiles set/remove" needs to find file's profiles. */
void doctor_command_add_profile_file(Doctor *d, Command *c, size_t file);
/* Ends the command with whose files (--system, --home) and returns its text, NULL on OOM. */
char *doctor_command_finish(Doctor *d, Command *c, size_t file);

/* Whether two names are close enough to be one misspelt (edit distance in any case). */
bool doctor_names_close(const char *a, const char *b) _pure_;

/* What process p presents to rules (rc-resolve.h), for rc_pattern_matches(). */
int doctor_match_facts_init(const RcDoctorProcess *p, RcMatchFacts *ret);
/* A near miss of the rule, if it matches no process while one has a close name. */
int doctor_check_near_miss(Doctor *d, const RcRuleRef *ref);
/* Unknown, obsolete and wrong keys and values of the profile. */
int doctor_check_profile_settings(Doctor *d, const Holder *h, const RcProfile *p);
