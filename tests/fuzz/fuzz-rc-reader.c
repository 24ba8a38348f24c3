/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Fuzz target for the rc reader and model builder: any input must give a file record (loaded, broken)
 * without crashing, leaking or reading out of bounds, and resolving against it must be safe too. */

#include <stddef.h>
#include <stdint.h>

#include "rc-config.h"
#include "rc-resolve.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        static const char *const argv[] = { "C:\\x\\foo.exe", NULL };
        static const char *const dsos[] = { "/usr/lib/libmutter-15.so.0", "/usr/lib/libGL.so.1.7.0", NULL };
        static const char *const env[] = { "HOME=/root", "__GL_SYNC_TO_VBLANK=0", NULL };
        RcSyntaxOptions options = { .accept_trailing_commas = size > 0 && (data[0] & 1) };
        RcProcessFacts facts = {
                .exe = "/usr/bin/foo",
                .comm = "foo",
                .argv = (char **) argv,
                .dsos = (char **) dsos,
                .environ = (char **) env,
                .root_fd = -1,
        };
        RcConfig *c = NULL;
        RcResolution *r = NULL;
        RcFile *f = NULL;

        if (rc_file_parse("fuzz.rc", (const char *) data, size, &options, &f) < 0)
                return 0;
        if (rc_config_new_from_files(&f, 1, &c) >= 0) {
                if (rc_resolve(c, &facts, &r) >= 0)
                        rc_resolution_free(r);
                rc_config_unref(c);
        }
        rc_file_unref(f);
        return 0;
}
