/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* client/usage-history.c: what the app's graphs and top's history line are drawn from. */

#include "test-util.h"
#include "usage-history.h"

#define SEC UINT64_C(1000000)

/* Samples older than the longest window are forgotten; the newest is the current value. */
static void test_keeps_ten_minutes(void)
{
        UsageHistory h = USAGE_HISTORY_INIT;
        for (uint64_t s = 0; s <= 900; s++)
                g_assert_cmpint(usage_history_push(&h, 1000 * SEC + s * SEC, (double) (s % 100)), ==, 0);

        g_assert_cmpuint(usage_history_size(&h), ==, 601);
        uint64_t t;
        double v;
        usage_history_get(&h, 0, &t, &v);
        g_assert_cmpuint(t, ==, 1300 * SEC);
        g_assert_cmpfloat(v, ==, 0);

        double current, peak;
        g_assert_true(usage_history_stats(&h, 1900 * SEC, 60 * SEC, &current, &peak));
        g_assert_cmpfloat(current, ==, 0); /* s = 900 */
        g_assert_cmpfloat(peak, ==, 99);
        g_assert_true(usage_history_stats(&h, 1899 * SEC, 2 * SEC, &current, &peak));
        g_assert_cmpfloat(current, ==, 99); /* s = 899; 897..899: 97..99 */
        g_assert_cmpfloat(peak, ==, 99);
        g_assert_true(usage_history_stats(&h, 1900 * SEC, 0, &current, &peak));
        g_assert_cmpfloat(peak, ==, 0); /* s = 900 alone */
        usage_history_done(&h);
}

/* However fast the samples come, memory stays bounded. */
static void test_sample_bound(void)
{
        UsageHistory h = USAGE_HISTORY_INIT;
        for (uint64_t i = 0; i < 3 * USAGE_HISTORY_MAX_SAMPLES; i++)
                g_assert_cmpint(usage_history_push(&h, SEC + i * 1000, 1), ==, 0);
        g_assert_cmpuint(usage_history_size(&h), ==, USAGE_HISTORY_MAX_SAMPLES);
        g_assert_cmpuint(h.capacity, ==, USAGE_HISTORY_MAX_SAMPLES);
        uint64_t t;
        usage_history_get(&h, usage_history_size(&h) - 1, &t, NULL);
        g_assert_cmpuint(t, ==, SEC + (3 * USAGE_HISTORY_MAX_SAMPLES - 1) * 1000);
        usage_history_done(&h);
}

/* A spike shorter than a column stays visible; a column with no sample is a gap; a break is a gap. */
static void test_columns_and_gaps(void)
{
        UsageHistory h = USAGE_HISTORY_INIT;
        g_assert_cmpint(usage_history_push(&h, 100 * SEC, 10), ==, 0);
        g_assert_cmpint(usage_history_push(&h, 101 * SEC, 80), ==, 0);
        g_assert_cmpint(usage_history_push(&h, 102 * SEC, 20), ==, 0);
        g_assert_cmpint(usage_history_break(&h, 103 * SEC), ==, 0);
        g_assert_cmpint(usage_history_break(&h, 104 * SEC), ==, 0); /* one gap is enough */
        g_assert_cmpuint(usage_history_size(&h), ==, 4);
        g_assert_cmpint(usage_history_push(&h, 110 * SEC, 50), ==, 0);
        g_assert_cmpint(usage_history_push(&h, 109 * SEC, 99), ==, 0); /* clock went back: dropped */
        g_assert_cmpuint(usage_history_size(&h), ==, 5);

        double cols[4];
        usage_history_columns(&h, 112 * SEC, 12 * SEC, cols, 4); /* 100..103, 103..106, 106..109, 109..112 */
        g_assert_cmpfloat(cols[0], ==, 80);
        g_assert_cmpfloat(cols[1], <, 0);
        g_assert_cmpfloat(cols[2], <, 0);
        g_assert_cmpfloat(cols[3], ==, 50);

        double current, peak;
        g_assert_true(usage_history_stats(&h, 112 * SEC, 5 * SEC, &current, &peak));
        g_assert_cmpfloat(current, ==, 50);
        g_assert_false(usage_history_stats(&h, 108 * SEC, 4 * SEC, &current, &peak));
        g_assert_cmpfloat(current, <, 0);
        usage_history_done(&h);
}

static void test_blocks(void)
{
        const double cols[] = { 0, 50, 100, -1, 25 };
        char buf[3 * 5 + 1];
        usage_history_blocks(cols, 5, 100, buf);
        g_assert_cmpstr(buf, ==, "\u2581\u2585\u2588 \u2583");
        usage_history_blocks(cols, 5, 0, buf);
        g_assert_cmpstr(buf, ==, "\u2581\u2585\u2588 \u2583");
        usage_history_blocks(cols, 0, 0, buf);
        g_assert_cmpstr(buf, ==, "");
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/usage-history/keeps-ten-minutes", test_keeps_ten_minutes);
        g_test_add_func("/usage-history/sample-bound", test_sample_bound);
        g_test_add_func("/usage-history/columns-and-gaps", test_columns_and_gaps);
        g_test_add_func("/usage-history/blocks", test_blocks);
        return g_test_run();
}
