/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The one definition of the reply signatures that more than one program reads: the daemon appends them
 * (daemon/bus), nvprofilectl reads them with sd-bus (client/resolution.c), the app with GVariant
 * (client/gtk/dialog-explain.c), and the tests hold the daemon to them. dbus/io.github.nvprofiled.NvProfiled1.xml
 * documents them; the daemon's introspection is compared with it (tests/integration/test-daemon.c).
 *
 * The *_FIELDS are a struct's contents without its parentheses, as sd_bus_message_enter_container(m, 'r', ...)
 * and the struct-array helpers take them. */

/* A rule in precedence order: file, line, column, pattern, profile, whether it matched. */
#define BUS_RULE_RESULT_FIELDS "suussb"

/* A value that a later rule set and lost: value, profile, file, line, column. */
#define BUS_SHADOWED_FIELDS "vssuu"

/* An effective setting: key, value, profile, file, line, column of the rule, the environment variable
 * that overrides it and its value ("" when none), what it shadowed. */
#define BUS_SETTING_FIELDS \
        "svssuuss"         \
        "a(" BUS_SHADOWED_FIELDS ")"

/* A process's resolution (Explain, ExplainProcess, GetProcess, ExplainProcessByPidfd, Resolve): the
 * profiles' state, the facts matched against, the rules, the effective settings, notes. */
#define BUS_RESOLUTION_FIELDS           \
        "s"                             \
        "a{sv}"                         \
        "a(" BUS_RULE_RESULT_FIELDS ")" \
        "a(" BUS_SETTING_FIELDS ")"     \
        "as"
#define BUS_RESOLUTION_SIGNATURE "(" BUS_RESOLUTION_FIELDS ")"

/* A tracked process (ListProcesses): object path, pid, start time, uid, comm, executable ("" when not
 * shown to the caller), profiles, number of settings. */
#define BUS_PROCESS_ENTRY_FIELDS "outussasu"

/* An rc file (the RcFiles property): path, state, errors, warnings. */
#define BUS_RC_FILE_FIELDS "ssuu"

/* Sections: a section (ListSections) id, display name, enabled, order, sets, file, warning, error; a set (ListSets)
 * name, enabled, sections; a metric (GetMetrics) name, label, unit, where, pattern, required, the derived metric it
 * serves. */
#define BUS_SECTION_FIELDS "ssbuassss"
#define BUS_SECTION_SET_FIELDS "sbas"
#define BUS_SECTION_METRIC_FIELDS "sssssbs"
