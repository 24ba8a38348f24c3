/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "top": GPU usage per device and per process, next to the profile that applied, refreshing like gputop
 * and nvtop. While it runs it holds a Usage.WatchUsage descriptor, so the daemon samples at the chosen
 * interval (otherwise it samples slowly or not at all), and it redraws after each sample the daemon
 * announces on that descriptor. --once prints one frame as plain text (after two samples, so that
 * utilisation has an interval to be computed over), --json one document per sample (or one, with
 * --once); --group= starts grouped by application or user. Everything from the daemon is escaped before it reaches the
 * terminal (verb-top-frame.c). */

#include <curses.h>
#include <fcntl.h>
#include <inttypes.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "fd-util.h"
#include "log.h"
#include "verb-top.h"

#define TOP_INTERVAL_DEFAULT_USEC (1000 * 1000)
/* Without a sample announced for this long past the interval, read anyway: the daemon may be busy. */
#define TOP_GRACE_USEC (2 * 1000 * 1000)

static volatile sig_atomic_t top_interrupted;
/* The signals top handles (SIGINT, SIGTERM, and SIGWINCH for ncurses) are blocked except inside
 * ppoll(), which unblocks them atomically with this mask: a signal then never lands in the middle of
 * another system call (sd_bus_call() of libsystemd 252 gives up with -EINTR when its poll is
 * interrupted; ncurses installs its SIGWINCH handler without SA_RESTART), it is handled where top
 * waits, and one that arrives just before the wait still wakes it. */
static sigset_t top_wait_mask;

static void on_signal(int sig)
{
        top_interrupted = 1;
}

static uint64_t now_usec(void)
{
        struct timespec ts;

        (void) clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
}

/* Reads whatever the daemon wrote: one byte per sample. False when the descriptor is done. */
static bool drain(int fd)
{
        char buf[64];

        for (;;) {
                ssize_t n = read(fd, buf, sizeof buf);

                if (n > 0)
                        continue;
                if (n < 0 && (errno == EAGAIN || errno == EINTR))
                        return true;
                return false; /* EOF or error: the daemon closed it */
        }
}

static int wait_usec(struct pollfd *p, nfds_t n, uint64_t usec)
{
        struct timespec ts = { .tv_sec = (time_t) (usec / 1000000), .tv_nsec = (long) (usec % 1000000) * 1000 };

        return ppoll(p, n, &ts, &top_wait_mask);
}

/* Waits until the daemon announced n samples, or until timeout; false when interrupted. */
static bool wait_samples(int watch_fd, unsigned n, uint64_t timeout_usec)
{
        uint64_t deadline = now_usec() + timeout_usec;
        unsigned seen = 0;

        while (seen < n && !top_interrupted) {
                struct pollfd p = { .fd = watch_fd, .events = POLLIN };
                uint64_t t = now_usec();
                int k;

                if (watch_fd < 0 || t >= deadline)
                        break;
                k = wait_usec(&p, 1, deadline - t);
                if (k < 0 && errno != EINTR)
                        break;
                if (k > 0) {
                        char buf[64];
                        ssize_t got = read(watch_fd, buf, sizeof buf);

                        if (got <= 0 && !(got < 0 && (errno == EAGAIN || errno == EINTR)))
                                break;
                        if (got > 0)
                                seen += (unsigned) got;
                }
        }
        return !top_interrupted;
}

static int terminal_columns(void)
{
        struct winsize ws;
        const char *e;

        if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) >= 0 && ws.ws_col > 0)
                return ws.ws_col;
        e = getenv("COLUMNS");
        if (e && atoi(e) > 0)
                return atoi(e);
        return 100;
}

static int print_once(struct json_object *reading, TopSort sort, TopGroup group, uint64_t interval_usec)
{
        _cleanup_(top_frame_done) TopFrame frame = { 0 };
        _cleanup_(top_history_done) TopHistory history = { 0 };
        uint64_t now = now_usec();
        int r;

        if (arg.json != JSON_OFF) {
                return top_print_document(reading);
        }
        /* One reading: its history line has one column, at the right end. */
        r = top_history_push(&history, reading, now);
        if (r < 0)
                return log_oom();
        r = top_frame_build(&frame, reading, &history, now, sort, group, interval_usec, terminal_columns(), 0);
        if (r < 0)
                return log_oom();
        for (size_t i = 0; i < frame.n_lines; i++) {
                const char *t = frame.lines[i].text;
                size_t len = strlen(t);

                /* The padding a screen needs is noise in a file. */
                while (len > 0 && t[len - 1] == ' ')
                        len--;
                printf("%.*s\n", (int) len, t);
        }
        return 0;
}

static void draw(struct json_object *reading, const TopHistory *history, TopSort sort, TopGroup group,
                uint64_t interval_usec, bool color)
{
        _cleanup_(top_frame_done) TopFrame frame = { 0 };

        erase();
        if (top_frame_build(&frame, reading, history, now_usec(), sort, group, interval_usec, COLS, LINES) < 0) {
                mvaddstr(0, 0, "Out of memory.");
                refresh();
                return;
        }
        for (size_t i = 0; i < frame.n_lines && i < (size_t) LINES; i++) {
                const TopLine *l = &frame.lines[i];

                if (l->heading)
                        attron(A_BOLD);
                mvaddstr((int) i, 0, l->text);
                if (l->heading)
                        attroff(A_BOLD);
                if (l->bar_len > 0)
                        mvchgat((int) i, l->bar_start, l->bar_len, color ? A_BOLD : A_REVERSE, color ? 1 : 0, NULL);
        }
        refresh();
}

/* The refreshing view: redraws after each sample, on a key and on a resize; a and u group the rows by
 * application or user (the same key again: processes), which reads the daemon's totals at once; q quits. */
static int run_view(sd_bus *bus, int watch_fd, struct json_object *first, TopSort sort, TopGroup group,
                uint64_t interval_usec)
{
        _cleanup_(json_object_putp) struct json_object *reading = first;
        _cleanup_(top_history_done) TopHistory history = { 0 };
        bool color = false;
        int r = 0;

        r = top_history_push(&history, reading, now_usec());
        if (r < 0)
                return log_oom();

        (void) setlocale(LC_CTYPE, "");
        /* The terminal's size over $LINES and $COLUMNS, which do not follow a resize. */
        use_tioctl(TRUE);
        if (!initscr())
                return log_error_errno(EIO, "Cannot set up the terminal");
        cbreak();
        noecho();
        keypad(stdscr, TRUE);
        nodelay(stdscr, TRUE);
        (void) curs_set(0);
        if (has_colors() && start_color() != ERR) {
                (void) use_default_colors();
                color = init_pair(1, COLOR_GREEN, -1) != ERR;
        }
        draw(reading, &history, sort, group, interval_usec, color);

        for (uint64_t next = now_usec() + interval_usec + (watch_fd >= 0 ? TOP_GRACE_USEC : 0);;) {
                struct pollfd p[2] = {
                        { .fd = STDIN_FILENO, .events = POLLIN },
                        { .fd = watch_fd, .events = POLLIN },
                };
                bool reread = false, redraw = false, quit = false;
                uint64_t t = now_usec();
                int k, ch;

                k = wait_usec(p, watch_fd >= 0 ? 2 : 1, t < next ? next - t : 0);
                if (top_interrupted)
                        break;
                if (k < 0 && errno != EINTR) {
                        r = -errno;
                        break;
                }
                if (k > 0 && watch_fd >= 0 && p[1].revents) {
                        if (!drain(watch_fd))
                                watch_fd = safe_close(watch_fd); /* from now on, on our own timer */
                        reread = true;
                }
                if (now_usec() >= next)
                        reread = true;

                /* Keys, and KEY_RESIZE after SIGWINCH (which also interrupts ppoll()). */
                while ((ch = getch()) != ERR) {
                        int s;

                        if (ch == 'q' || ch == 'Q') {
                                quit = true;
                                break;
                        }
                        if (ch == KEY_RESIZE)
                                redraw = true;
                        else if ((s = top_sort_from_key(ch)) >= 0) {
                                sort = (TopSort) s;
                                redraw = true;
                        } else if ((s = top_group_from_key(group, ch)) >= 0) {
                                group = (TopGroup) s;
                                reread = true;
                        }
                }
                if (quit)
                        break;

                if (reread) {
                        struct json_object *fresh = NULL;

                        r = top_read(bus, group, &fresh);
                        if (r < 0)
                                break;
                        json_object_put(reading);
                        reading = fresh;
                        r = top_history_push(&history, reading, now_usec());
                        if (r < 0)
                                break;
                        redraw = true;
                        next = now_usec() + interval_usec + (watch_fd >= 0 ? TOP_GRACE_USEC : 0);
                }
                if (redraw)
                        draw(reading, &history, sort, group, interval_usec, color);
        }
        endwin();
        safe_close(watch_fd);
        /* top_read() said why on stderr, which the screen hid: say it again now that it is gone. */
        if (r < 0)
                log_error_errno(r, "top stopped");
        return r;
}

int verb_top(int argc, char *argv[])
{
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(json_object_putp) struct json_object *reading = NULL;
        _cleanup_close_ int watch_fd = -EBADF;
        uint64_t interval_usec = arg.interval_usec > 0 ? arg.interval_usec : TOP_INTERVAL_DEFAULT_USEC;
        TopSort sort = arg.top_sort >= 0 ? (TopSort) arg.top_sort : TOP_SORT_GPU;
        TopGroup group = arg.top_group >= 0 ? (TopGroup) arg.top_group : TOP_GROUP_PROCESS;
        struct sigaction sa = { .sa_handler = on_signal };
        sigset_t handled;
        bool interactive = !arg.once && arg.json == JSON_OFF;
        int r;

        if (interactive && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
                log_error("top needs a terminal; use --once or --json for output to a file or pipe.");
                return EXIT_USAGE;
        }

        /* Handled in ppoll() only (see top_wait_mask), from before the first bus call on. */
        (void) sigemptyset(&handled);
        (void) sigaddset(&handled, SIGINT);
        (void) sigaddset(&handled, SIGTERM);
        (void) sigaddset(&handled, SIGWINCH);
        (void) sigprocmask(SIG_BLOCK, &handled, &top_wait_mask);
        (void) sigdelset(&top_wait_mask, SIGINT);
        (void) sigdelset(&top_wait_mask, SIGTERM);
        (void) sigdelset(&top_wait_mask, SIGWINCH);
        (void) sigaction(SIGINT, &sa, NULL);
        (void) sigaction(SIGTERM, &sa, NULL);

        r = client_connect(&bus);
        if (r < 0)
                return r;

        /* Fast sampling for as long as we run. A daemon that refuses (too many watchers of this user) is
         * still read, at our own interval. */
        r = top_watch(bus, interval_usec, &watch_fd);
        if (r == -ENOTCONN)
                return r;
        if (r < 0)
                log_notice("Reading every %" PRIu64 " ms without a watch.", interval_usec / 1000);
        else
                (void) fcntl(watch_fd, F_SETFL, fcntl(watch_fd, F_GETFL) | O_NONBLOCK);

        if (arg.once) {
                /* Two samples: the first after the watch started may be the first of a client. */
                if (!wait_samples(watch_fd, 2, 2 * interval_usec + TOP_GRACE_USEC))
                        return 0;
        }
        r = top_read(bus, group, &reading);
        if (r < 0)
                return r;

        if (arg.once)
                return print_once(reading, sort, group, interval_usec);

        if (!interactive) {
                /* --json: one document per sample until interrupted. */
                for (;;) {
                        r = top_print_document(reading);
                        if (r < 0)
                                return r;
                        fflush(stdout);
                        if (watch_fd >= 0) {
                                if (!wait_samples(watch_fd, 1, interval_usec + TOP_GRACE_USEC))
                                        return 0;
                        } else {
                                (void) wait_usec(NULL, 0, interval_usec);
                                if (top_interrupted)
                                        return 0;
                        }
                        json_object_put(TAKE_PTR(reading));
                        r = top_read(bus, group, &reading);
                        if (r < 0)
                                return r;
                }
        }

        r = run_view(bus, TAKE_FD(watch_fd), TAKE_PTR(reading), sort, group, interval_usec);
        return r < 0 ? r : 0;
}
