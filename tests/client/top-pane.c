/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the top cases (test-top-tmux.c) share: nvprofilectl in a tmux pane of its own server, and its
 * output's lines. */

#include <stdarg.h>
#include <string.h>

#include "test-util.h"
#include "top-pane.h"

#define WAIT_USEC (30 * G_USEC_PER_SEC) /* a bound for slow (sanitizer) builds on a busy machine, not a timing */

const char *ctl_bin(void)
{
        const char *bin = g_getenv("NVPROFILECTL_BIN");

        if (!bin)
                g_error("NVPROFILECTL_BIN is not set; run this test through meson");
        return bin;
}

/* The line of text that contains needle, or NULL. */
char *line_with(const char *text, const char *needle)
{
        g_auto(GStrv) lines = g_strsplit(text, "\n", -1);

        for (size_t i = 0; lines[i]; i++)
                if (strstr(lines[i], needle))
                        return g_strdup(lines[i]);
        return NULL;
}

char *tmux(Pane *p, const char *first, ...)
{
        va_list ap;
        char *out;

        va_start(ap, first);
        out = test_run_tmuxv(p->socket, first, ap);
        va_end(ap);
        return out;
}

bool have_tmux(void)
{
        g_autofree char *path = g_find_program_in_path("tmux");

        if (!path)
                g_test_skip("tmux is not installed");
        return path != NULL;
}

/* Starts "nvprofilectl --bus=ADDRESS top ARGS" in a 100x30 pane. */
void pane_start(Pane *p, const char *dir, const char *bus_address, const char *args,
                void (*serve)(void *userdata, gint64 usec), void *userdata)
{
        g_autofree char *cmd = NULL;

        *p = (Pane){
                .socket = g_build_filename(dir, "tmux.sock", NULL),
                .status_file = g_build_filename(dir, "status", NULL),
                .serve = serve,
                .userdata = userdata,
        };
        cmd = g_strdup_printf("'%s' --bus='%s' top %s; echo \"exit status $?\" > '%s'; sleep 60", ctl_bin(),
                        bus_address, args, p->status_file);
        g_free(tmux(p, "-f", "/dev/null", "new-session", "-d", "-s", "top", "-x", "100", "-y", "30", "-e",
                        "LC_ALL=C.UTF-8", "-e", "TERM=screen", cmd, NULL));
}

/* Serves the daemon side until the pane shows every one of needles (NULL-terminated) at once (a frame
 * may come with the processes before the devices' figures); returns the pane. */
char *wait_pane_all(Pane *p, const char *const *needles)
{
        gint64 deadline = g_get_monotonic_time() + WAIT_USEC;

        for (;;) {
                const char *const *missing = needles;
                char *pane;

                p->serve(p->userdata, 50000);
                pane = tmux(p, "capture-pane", "-p", "-t", "top", NULL);
                while (*missing && strstr(pane, *missing))
                        missing++;
                if (!*missing)
                        return pane;
                if (g_get_monotonic_time() >= deadline)
                        g_error("the pane never showed \"%s\"; it shows:\n%s", *missing, pane);
                g_free(pane);
        }
}

/* Keeps the other side going until the pane shows needle; returns the pane. */
char *wait_pane(Pane *p, const char *needle)
{
        return wait_pane_all(p, (const char *const[]){ needle, NULL });
}

/* q, and top's exit status is 0. */
void pane_quit(Pane *p)
{
        g_autofree char *status = NULL;

        g_free(tmux(p, "send-keys", "-t", "top", "q", NULL));
        for (gint64 deadline = g_get_monotonic_time() + WAIT_USEC;; p->serve(p->userdata, 50000)) {
                if (g_file_get_contents(p->status_file, &status, NULL, NULL) && strstr(status, "\n"))
                        break;
                g_clear_pointer(&status, g_free);
                if (g_get_monotonic_time() >= deadline)
                        g_error("top did not quit on q");
        }
        g_assert_cmpstr(status, ==, "exit status 0\n");
}

void pane_stop(Pane *p)
{
        g_free(tmux(p, "kill-server", NULL));
        g_free(p->socket);
        g_free(p->status_file);
}
