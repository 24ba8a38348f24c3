/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A library for a "dso" rule to match once the helper process dlopen()s it. */
int nvptest_dso_marker(void);
int nvptest_dso_marker(void)
{
        return 42;
}
