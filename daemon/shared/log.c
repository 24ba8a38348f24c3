/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <systemd/sd-journal.h>
#include <time.h>
#include <unistd.h>

#include "log-ratelimit.h"
#include "log.h"

static int max_level = LOG_INFO;
static LogTarget log_target = LOG_TARGET_CONSOLE; /* never AUTO: resolved when set */
static const char *log_ident = "nvprofiled";

static const char *const level_names[] = {
        [LOG_EMERG] = "emerg",
        [LOG_ALERT] = "alert",
        [LOG_CRIT] = "crit",
        [LOG_ERR] = "err",
        [LOG_WARNING] = "warning",
        [LOG_NOTICE] = "notice",
        [LOG_INFO] = "info",
        [LOG_DEBUG] = "debug",
};

/* systemd sets JOURNAL_STREAM to "dev:ino" of the stream it connected stderr to. */
static bool stderr_is_journal(void)
{
        const char *e = getenv("JOURNAL_STREAM");
        unsigned long long dev, ino;
        struct stat st;

        if (!e || sscanf(e, "%llu:%llu", &dev, &ino) != 2)
                return false;
        if (fstat(STDERR_FILENO, &st) < 0)
                return false;
        return (unsigned long long) st.st_dev == dev && (unsigned long long) st.st_ino == ino;
}

static const char *const target_names[_LOG_TARGET_MAX] = {
        [LOG_TARGET_AUTO] = "auto",
        [LOG_TARGET_CONSOLE] = "console",
        [LOG_TARGET_JOURNAL] = "journal",
        [LOG_TARGET_NULL] = "null",
};

void log_set_target(LogTarget target)
{
        assert(target >= 0 && target < _LOG_TARGET_MAX);
        if (target == LOG_TARGET_AUTO)
                target = stderr_is_journal() ? LOG_TARGET_JOURNAL : LOG_TARGET_CONSOLE;
        log_target = target;
}

LogTarget log_get_target(void)
{
        return log_target;
}

const char *log_target_to_string(LogTarget target)
{
        return target >= 0 && target < _LOG_TARGET_MAX ? target_names[target] : NULL;
}

LogTarget log_target_from_string(const char *s)
{
        for (size_t i = 0; i < ELEMENTSOF(target_names); i++)
                if (streq(target_names[i], s))
                        return (LogTarget) i;
        return _LOG_TARGET_INVALID;
}

const char *log_get_ident(void)
{
        return log_ident;
}

void log_setup(const char *ident, LogTarget target)
{
        if (ident)
                log_ident = ident;
        log_set_target(target);
}

void log_set_max_level(int level)
{
        assert(level >= LOG_EMERG && level <= LOG_DEBUG);
        max_level = level;
}

int log_get_max_level(void)
{
        return max_level;
}

int log_level_from_string(const char *s)
{
        for (size_t i = 0; i < ELEMENTSOF(level_names); i++)
                if (streq(level_names[i], s))
                        return (int) i;
        if (streq(s, "error"))
                return LOG_ERR;
        return -EINVAL;
}

const char *log_level_to_string(int level)
{
        return level >= 0 && (size_t) level < ELEMENTSOF(level_names) ? level_names[level] : NULL;
}

static int log_dispatch(int level, int error, const char *const *fields, const char *file, int line, const char *func,
                const char *format, va_list ap) _printf_(7, 0);
static int log_dispatch(int level, int error, const char *const *fields, const char *file, int line, const char *func,
                const char *format, va_list ap)
{
        char buf[2048];
        int len;

        len = vsnprintf(buf, sizeof(buf), format, ap);
        /* log_..._errno() says what went wrong after the message, as systemd's "%m" would (GCC's
         * -Wpedantic rejects %m, so we add it here rather than at every call). */
        if (error != 0 && len >= 0 && (size_t) len < sizeof(buf))
                (void) snprintf(buf + len, sizeof(buf) - (size_t) len, ": %s", strerror(abs(error)));

        switch (log_target) {
        case LOG_TARGET_JOURNAL: {
                char prio[16], errno_field[32], line_field[32];
                struct iovec iov[24];
                size_t n = 0;
                _cleanup_free_ char *message = NULL, *code_file = NULL, *code_func = NULL, *ident = NULL;

                if (asprintf(&message, "MESSAGE=%s", buf) < 0)
                        return -abs(error);
                snprintf(prio, sizeof(prio), "PRIORITY=%i", level);
                iov[n++] = (struct iovec){ message, strlen(message) };
                iov[n++] = (struct iovec){ prio, strlen(prio) };
                /* What LogControl1's SyslogIdentifier says, and what "journalctl -t" selects. */
                if (asprintf(&ident, "SYSLOG_IDENTIFIER=%s", log_ident) >= 0)
                        iov[n++] = (struct iovec){ ident, strlen(ident) };
                if (error != 0) {
                        snprintf(errno_field, sizeof(errno_field), "ERRNO=%i", abs(error));
                        iov[n++] = (struct iovec){ errno_field, strlen(errno_field) };
                }
                if (file && asprintf(&code_file, "CODE_FILE=%s", file) >= 0)
                        iov[n++] = (struct iovec){ code_file, strlen(code_file) };
                if (file) {
                        snprintf(line_field, sizeof(line_field), "CODE_LINE=%i", line);
                        iov[n++] = (struct iovec){ line_field, strlen(line_field) };
                }
                if (func && asprintf(&code_func, "CODE_FUNC=%s", func) >= 0)
                        iov[n++] = (struct iovec){ code_func, strlen(code_func) };
                for (const char *const *f = fields; f && *f && n < ELEMENTSOF(iov); f++)
                        iov[n++] = (struct iovec){ (void *) *f, strlen(*f) };
                (void) sd_journal_sendv(iov, (int) n);
                break;
        }
        case LOG_TARGET_CONSOLE:
                /* Messages quote what processes call themselves (comm, exe, paths): a terminal showing
                 * the log must not execute the escape sequences a process chose for its name. */
                fputs(log_ident, stderr);
                fputs(": ", stderr);
                for (const unsigned char *p = (const unsigned char *) buf; *p; p++)
                        if (*p < 0x20 || *p == 0x7f)
                                fprintf(stderr, "\\x%02x", *p);
                        else
                                fputc(*p, stderr);
                fputc('\n', stderr);
                break;
        case LOG_TARGET_NULL:
                break;
        case LOG_TARGET_AUTO:
        case _LOG_TARGET_MAX:
        case _LOG_TARGET_INVALID:
                assert_not_reached();
        }

        return -abs(error);
}

int log_internal(int level, int error, const char *file, int line, const char *func, const char *format, ...)
{
        va_list ap;
        int r;

        va_start(ap, format);
        r = log_dispatch(level, error, NULL, file, line, func, format, ap);
        va_end(ap);
        return r;
}

int log_struct_internal(int level, int error, const char *const *fields, const char *format, ...)
{
        va_list ap;
        int r;

        if (max_level < level)
                return -abs(error);
        va_start(ap, format);
        r = log_dispatch(level, error, fields, NULL, 0, NULL, format, ap);
        va_end(ap);
        return r;
}

static LogRatelimit user_ratelimit = { .earliest_end_usec = UINT64_MAX };
static void (*user_ratelimit_notify)(uint64_t when, void *userdata);
static void *user_ratelimit_userdata;

static uint64_t now_usec(void)
{
        struct timespec ts = { 0 };

        (void) clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * UINT64_C(1000000) + (uint64_t) ts.tv_nsec / 1000;
}

static void log_summary(const LogRatelimitSummary *s, void *userdata)
{
        char uid_field[64], count_field[64], who[64];
        const char *fields[] = { "MESSAGE_ID=" LOG_MESSAGE_USER_SUPPRESSED, count_field, uid_field, NULL };

        snprintf(count_field, sizeof(count_field), "NVPROFILED_SUPPRESSED=%" PRIu64, s->n_suppressed);
        if (s->uid == LOG_RATELIMIT_OTHER_UIDS) {
                fields[2] = NULL;
                snprintf(who, sizeof(who), "users beyond the first %u", LOG_RATELIMIT_UIDS_MAX);
        } else {
                snprintf(uid_field, sizeof(uid_field), "NVPROFILED_UID=%u", (unsigned) s->uid);
                snprintf(who, sizeof(who), "uid %u", (unsigned) s->uid);
        }
        (void) log_struct_internal(LOG_WARNING, 0, fields,
                        "Suppressed %" PRIu64 " messages caused by %s in the last %" PRIu64 " s.", s->n_suppressed, who,
                        (s->elapsed_usec + 999999) / 1000000);
}

void log_set_user_ratelimit(uint64_t interval_usec, unsigned burst, unsigned total_burst,
                void (*notify)(uint64_t when, void *userdata), void *userdata)
{
        /* What the old limits dropped is said before they go (at the daemon's stop too). */
        log_ratelimit_flush_all(&user_ratelimit, now_usec(), log_summary, NULL);
        log_ratelimit_done(&user_ratelimit);
        log_ratelimit_init(&user_ratelimit, interval_usec, burst, total_burst);
        user_ratelimit_notify = notify;
        user_ratelimit_userdata = userdata;
}

uint64_t log_user_flush(void)
{
        log_ratelimit_flush(&user_ratelimit, now_usec(), log_summary, NULL);
        return log_ratelimit_next_flush(&user_ratelimit);
}

int log_user_internal(uid_t uid, int level, int error, const char *const *fields, const char *file, int line,
                const char *func, const char *format, ...)
{
        bool first_suppressed;
        va_list ap;
        int r;

        if (max_level < level)
                return -abs(error);
        if (uid != LOG_UID_NONE &&
                        !log_ratelimit_allow(&user_ratelimit, uid, now_usec(), log_summary, NULL, &first_suppressed)) {
                if (first_suppressed && user_ratelimit_notify)
                        user_ratelimit_notify(log_ratelimit_next_flush(&user_ratelimit), user_ratelimit_userdata);
                return -abs(error);
        }
        va_start(ap, format);
        r = log_dispatch(level, error, fields, file, line, func, format, ap);
        va_end(ap);
        return r;
}
