/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Replays inputs through a libFuzzer-style target without libFuzzer, so every build runs the fuzz
 * corpus as a normal test (the idea of systemd's fuzz-main.c). Arguments are files or directories;
 * a directory contributes every regular file in it. */

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fd-util.h"
#include "fileio.h"
#include "macro.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define INPUT_SIZE_MAX (4u * 1024u * 1024u)

static int run_file(const char *path, unsigned *n)
{
        _cleanup_free_ char *buf = NULL;
        _cleanup_close_ int fd = -EBADF;
        size_t size;
        int r;

        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
                fprintf(stderr, "%s: %s\n", path, strerror(errno));
                return -errno;
        }
        r = read_full_fd(fd, INPUT_SIZE_MAX, &buf, &size);
        if (r < 0) {
                fprintf(stderr, "%s: %s\n", path, strerror(-r));
                return r;
        }
        /* Pass an exact-size copy so ASan catches any read past the end. */
        {
                _cleanup_free_ uint8_t *exact = malloc(MAX(size, (size_t) 1));
                if (!exact)
                        return -ENOMEM;
                memcpy(exact, buf, size);
                (void) LLVMFuzzerTestOneInput(exact, size);
        }
        printf("ok %u %s\n", ++*n, path);
        return 0;
}

static int compare(const void *a, const void *b)
{
        return strcmp(*(char *const *) a, *(char *const *) b);
}

static int run_path(const char *path, unsigned *n)
{
        _cleanup_closedir_ DIR *d = NULL;
        struct stat st;
        char **names = NULL;
        size_t n_names = 0, allocated = 0;
        struct dirent *de;
        int r = 0;

        if (stat(path, &st) < 0) {
                fprintf(stderr, "%s: %s\n", path, strerror(errno));
                return -errno;
        }
        if (!S_ISDIR(st.st_mode))
                return run_file(path, n);

        d = opendir(path);
        if (!d)
                return -errno;
        while ((de = readdir(d))) {
                char *p;
                if (de->d_name[0] == '.')
                        continue;
                if (asprintf(&p, "%s/%s", path, de->d_name) < 0 || GREEDY_REALLOC(names, allocated, n_names + 1) < 0)
                        return -ENOMEM;
                names[n_names++] = p;
        }
        qsort_safe(names, n_names, sizeof(char *), compare);
        for (size_t i = 0; i < n_names; i++) {
                if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
                        int k = run_file(names[i], n);
                        if (k < 0)
                                r = k;
                }
                free(names[i]);
        }
        free(names);
        return r;
}

int main(int argc, char *argv[])
{
        unsigned n = 0;
        int r = 0;

        if (argc < 2) {
                fprintf(stderr, "Usage: %s FILE|DIR...\n", argv[0]);
                return 2;
        }
        for (int i = 1; i < argc; i++) {
                int k = run_path(argv[i], &n);
                if (k < 0)
                        r = k;
        }
        if (n == 0) {
                fprintf(stderr, "no inputs found\n");
                return 1;
        }
        printf("1..%u\n", n);
        return r < 0 ? 1 : 0;
}
