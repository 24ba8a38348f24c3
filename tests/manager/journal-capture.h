/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

/* The journal entries the code under test hands journald, captured: a test binary linked with
 * journal-capture.c and -Wl,--wrap=sd_journal_sendv_with_location gets every entry that
 * sd_journal_sendv() (which <systemd/sd-journal.h> makes sd_journal_sendv_with_location()) would have
 * sent, while log.c's target is LOG_TARGET_JOURNAL. */

/* Each a GStrv of the entry's "NAME=value" fields, in the order sent (never NULL). */
extern GPtrArray *journal_capture_entries;

/* Forgets the entries captured so far. */
void journal_capture_clear(void);

/* The value of field name in entry e, or NULL. */
const char *journal_field(const char *const *e, const char *name);

/* The first entry with this MESSAGE_ID, or NULL. */
const char *const *journal_entry_with(const char *message_id);
