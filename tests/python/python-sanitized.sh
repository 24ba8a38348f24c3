#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# python3 for an ASan build's extension module: the ASan runtime (NVPROFILED_TEST_LIBASAN) loaded first,
# the interpreter's own allocations at exit not reported. The tests of the report verbs use it as
# NVPROFILED_PYTHON. The interpreter is the one meson configured (NVPROFILED_TEST_PYTHON), which has the
# package's dependencies, not whichever python3 comes first on PATH.
LD_PRELOAD=$NVPROFILED_TEST_LIBASAN ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 exec "${NVPROFILED_TEST_PYTHON:-python3}" "$@"
