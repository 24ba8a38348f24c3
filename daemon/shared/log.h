/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <syslog.h>

#include "macro.h"

/* Logging for the daemon and the client: to the journal (structured, with MESSAGE_ID where an event has
 * one) when running under systemd, to stderr otherwise. Library code (appprofile/, procwatch/) does not
 * log; it returns errors and diagnostics. */

typedef enum LogTarget {
        LOG_TARGET_AUTO, /* journal if stderr is connected to it or we run under systemd */
        LOG_TARGET_CONSOLE, /* stderr */
        LOG_TARGET_JOURNAL,
        LOG_TARGET_NULL, /* nothing */
        _LOG_TARGET_MAX,
        _LOG_TARGET_INVALID = -EINVAL,
} LogTarget;

/* Stable ids of the events admins grep for: journalctl MESSAGE_ID=... */
#define LOG_MESSAGE_PROFILE_APPLIED "8603d37240a74c31a51d7b41ddc7cde3"
#define LOG_MESSAGE_RC_FILE_BROKEN "9b394dbd7e9e4b3c8014e5bb34c85918"
#define LOG_MESSAGE_RC_RELOADED "24225ab1414645b59510fee7bf99c32e"
#define LOG_MESSAGE_EXPORT_FAILED "5c0f6d2e8a4b4f7e9d13a6b2c47e0f91"
#define LOG_MESSAGE_GPU_SUSPENDED "add28ba9eec54d77b553b406e8323d85"
#define LOG_MESSAGE_USER_SUPPRESSED "f682d7c3093a4050a19205aa410bb5ef"
#define LOG_MESSAGE_WATCH_DEGRADED "3303c4e011da4100ba1a1c7b8013d813"
#define LOG_MESSAGE_CONFIG_RELOADED "f0a9a160d5284de2a194e26a0b897a76"
#define LOG_MESSAGE_PROFILE_EDITED "325620354de543efa6fd363ad5015be2"
#define LOG_MESSAGE_PROCESS_ACCESS_DENIED "308f953e0c414f5b9efa90e0efd253a3"

void log_setup(const char *ident, LogTarget target);
/* Where messages go now: LOG_TARGET_AUTO is resolved when set, so this is console, journal or null. */
void log_set_target(LogTarget target);
LogTarget log_get_target(void) _pure_;
const char *log_target_to_string(LogTarget target) _const_;
LogTarget log_target_from_string(const char *s) _pure_; /* -EINVAL if unknown */
const char *log_get_ident(void) _pure_;
void log_set_max_level(int level);
int log_get_max_level(void);
int log_level_from_string(const char *s);
const char *log_level_to_string(int level);

/* Logs and returns -abs(error) (or 0 for error == 0), so "return log_error_errno(r, ...)" works. A non-zero
 * error's text is appended to the message (": No such file or directory"), the way systemd's tools write
 * "...: %m"; so messages never spell it out themselves. */
int log_internal(int level, int error, const char *file, int line, const char *func, const char *format, ...)
                _printf_(6, 7);

/* Like log_internal() with extra journal fields ("KEY=value" strings, NULL-terminated), e.g. MESSAGE_ID. */
int log_struct_internal(int level, int error, const char *const *fields, const char *format, ...) _printf_(4, 5);

#define log_full_errno(level, error, ...)                                                                           \
        (log_get_max_level() >= (level) ? log_internal((level), (error), __FILE__, __LINE__, __func__, __VA_ARGS__) \
                                        : -abs(error))
#define log_full(level, ...) (void) log_full_errno((level), 0, __VA_ARGS__)

#define log_debug(...) log_full(LOG_DEBUG, __VA_ARGS__)
#define log_info(...) log_full(LOG_INFO, __VA_ARGS__)
#define log_notice(...) log_full(LOG_NOTICE, __VA_ARGS__)
#define log_warning(...) log_full(LOG_WARNING, __VA_ARGS__)
#define log_error(...) log_full(LOG_ERR, __VA_ARGS__)

#define log_debug_errno(error, ...) log_full_errno(LOG_DEBUG, (error), __VA_ARGS__)
#define log_info_errno(error, ...) log_full_errno(LOG_INFO, (error), __VA_ARGS__)
#define log_notice_errno(error, ...) log_full_errno(LOG_NOTICE, (error), __VA_ARGS__)
#define log_warning_errno(error, ...) log_full_errno(LOG_WARNING, (error), __VA_ARGS__)
#define log_error_errno(error, ...) log_full_errno(LOG_ERR, (error), __VA_ARGS__)

#define log_oom() log_error_errno(ENOMEM, "Out of memory.")

/* Messages that a user's action causes (a process of theirs matched, their rc file is broken, their
 * call failed) are logged with log_user_...(uid, ...), and count against that uid's rate limit (see
 * log-ratelimit.h): what one user makes the daemon log must not drown the rest of its log, nor make
 * journald drop it. LOG_UID_NONE: the message is nobody's doing (logged like log_...()). */
#define LOG_UID_NONE ((uid_t) -1)

/* Sets the limits (interval 0: none, the default; burst per uid, total_burst for all uids together; 0:
 * no such limit), after logging the summary of every window that dropped messages, ended or not. notify(when,
 * userdata), if given, is called when a message is first dropped in a window, with the CLOCK_MONOTONIC time in
 * microseconds at which its summary ("Suppressed N messages caused by uid U in the last T s", MESSAGE_ID
 * LOG_MESSAGE_USER_SUPPRESSED) is due: the caller runs log_user_flush() then. */
void log_set_user_ratelimit(uint64_t interval_usec, unsigned burst, unsigned total_burst,
                void (*notify)(uint64_t when, void *userdata), void *userdata);

/* Logs the summaries due now; returns when the next is due (CLOCK_MONOTONIC usec), or UINT64_MAX. */
uint64_t log_user_flush(void);

/* log_internal() and log_struct_internal() for a message uid caused: logged unless that uid's limit
 * dropped it (returns -abs(error) either way). */
int log_user_internal(uid_t uid, int level, int error, const char *const *fields, const char *file, int line,
                const char *func, const char *format, ...) _printf_(8, 9);

#define log_user_full_errno(uid, level, error, fields, ...)                                                        \
        (log_get_max_level() >= (level) ? log_user_internal((uid), (level), (error), (fields), __FILE__, __LINE__, \
                                                          __func__, __VA_ARGS__)                                   \
                                        : -abs(error))
#define log_user_struct(uid, level, fields, ...) (void) log_user_full_errno((uid), (level), 0, (fields), __VA_ARGS__)

#define log_user_debug(uid, ...) (void) log_user_full_errno((uid), LOG_DEBUG, 0, NULL, __VA_ARGS__)
#define log_user_info(uid, ...) (void) log_user_full_errno((uid), LOG_INFO, 0, NULL, __VA_ARGS__)
#define log_user_warning(uid, ...) (void) log_user_full_errno((uid), LOG_WARNING, 0, NULL, __VA_ARGS__)

#define log_user_debug_errno(uid, error, ...) log_user_full_errno((uid), LOG_DEBUG, (error), NULL, __VA_ARGS__)
#define log_user_warning_errno(uid, error, ...) log_user_full_errno((uid), LOG_WARNING, (error), NULL, __VA_ARGS__)
