/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The compiled schema: every listed post-2024.1.1 addition names a real field or enum value (so the
 * strict 2024.1.1 view cannot silently go stale), aliases and field numbers are the documented ones,
 * and a section survives a binary round trip. */

#include <glib.h>
#include <string.h>

#include "ProfilerReport.pb-c.h"
#include "ProfilerSection.pb-c.h"
#include "nvproto-schema.h"

static const ProtobufCMessageDescriptor *const all_messages[] = {
        &nv__profiler__profiler_section__descriptor,
        &nv__profiler__profiler_section_metric__descriptor,
        &nv__profiler__profiler_section_metric_group__descriptor,
        &nv__profiler__profiler_section_roofline_options__descriptor,
        &nv__profiler__messages__metric_option_filter__descriptor,
        &nv__profiler__messages__profile_result__descriptor,
};

static void test_additions_exist(void)
{
        for (const char *const *p = nv_schema_added_fields; *p; p++) {
                bool found = false;
                for (size_t i = 0; i < G_N_ELEMENTS(all_messages); i++) {
                        const ProtobufCMessageDescriptor *m = all_messages[i];
                        size_t n = strlen(m->name);
                        if (strncmp(*p, m->name, n) != 0 || (*p)[n] != '.')
                                continue;
                        const ProtobufCFieldDescriptor *f =
                                        protobuf_c_message_descriptor_get_field_by_name(m, *p + n + 1);
                        g_assert_nonnull(f);
                        g_assert_false(nv_schema_has_field(NV_SCHEMA_2024_1_1, m, f));
                        g_assert_true(nv_schema_has_field(NV_SCHEMA_EXTENDED, m, f));
                        found = true;
                }
                g_assert_true(found);
        }

        const ProtobufCEnumDescriptor *arch = &nv__profiler__messages__gpu_arch__descriptor;
        for (const char *const *p = nv_schema_added_enum_values; *p; p++) {
                g_assert_true(g_str_has_prefix(*p, "NV.Profiler.Messages.GpuArch."));
                const ProtobufCEnumValue *v = protobuf_c_enum_descriptor_get_value_by_name(
                                arch, *p + strlen("NV.Profiler.Messages.GpuArch."));
                g_assert_nonnull(v);
                g_assert_false(nv_schema_has_enum_value(NV_SCHEMA_2024_1_1, arch, v));
        }
        /* Old values stay in both. */
        const ProtobufCEnumValue *cc90 = protobuf_c_enum_descriptor_get_value_by_name(arch, "CC_90");
        g_assert_nonnull(cc90);
        g_assert_true(nv_schema_has_enum_value(NV_SCHEMA_2024_1_1, arch, cc90));
}

static void test_numbers(void)
{
        const ProtobufCEnumDescriptor *arch = &nv__profiler__messages__gpu_arch__descriptor;
        g_assert_cmpint(protobuf_c_enum_descriptor_get_value_by_name(arch, "MinArch")->value, ==, 50);
        g_assert_cmpint(protobuf_c_enum_descriptor_get_value_by_name(arch, "MaxArch")->value, ==, 90);
        g_assert_cmpint(protobuf_c_enum_descriptor_get_value_by_name(arch, "CC_121")->value, ==, 121);

        const ProtobufCMessageDescriptor *item = &nv__profiler__profiler_section_body_item__descriptor;
        g_assert_cmpint(protobuf_c_message_descriptor_get_field_by_name(item, "Filter")->id, ==, 200);
        g_assert_cmpint(protobuf_c_message_descriptor_get_field_by_name(item, "Timeline")->id, ==, 113);
        const ProtobufCMessageDescriptor *pr = &nv__profiler__messages__profile_result__descriptor;
        g_assert_cmpint(protobuf_c_message_descriptor_get_field_by_name(pr, "UsesGreenContext")->id, ==, 30);
        g_assert_cmpint(protobuf_c_message_descriptor_get_field_by_name(pr, "GridSize")->label, ==,
                        PROTOBUF_C_LABEL_REQUIRED);
        g_assert_cmpstr(nv__profiler__messages__block_header__descriptor.name, ==, "NV.Profiler.Messages.BlockHeader");
        g_assert_cmpstr(nv__rule_system__rule_result__descriptor.name, ==, "NV.RuleSystem.RuleResult");

        NvSchema s;
        g_assert_cmpint(nv_schema_from_string("2024.1.1", &s), ==, 0);
        g_assert_cmpint(s, ==, NV_SCHEMA_2024_1_1);
        g_assert_cmpint(nv_schema_from_string("2025", &s), ==, -EINVAL);
        g_assert_cmpstr(nv_schema_to_string(NV_SCHEMA_EXTENDED), ==, "extended");
}

static void test_binary_round_trip(void)
{
        NV__Profiler__ProfilerSection s = NV__PROFILER__PROFILER_SECTION__INIT;
        NV__Profiler__ProfilerSet set = NV__PROFILER__PROFILER_SET__INIT;
        NV__Profiler__ProfilerSet *sets[] = { &set };
        s.identifier = (char *) "LaunchStats";
        s.displayname = (char *) "Launch Statistics";
        s.has_order = true;
        s.order = 70;
        set.identifier = (char *) "basic";
        s.n_sets = 1;
        s.sets = sets;

        size_t len = protobuf_c_message_get_packed_size(&s.base);
        g_autofree uint8_t *buf = g_malloc(len);
        g_assert_cmpuint(protobuf_c_message_pack(&s.base, buf), ==, len);
        /* Field 1 (Identifier), length-delimited: tag 0x0a. */
        g_assert_cmpuint(buf[0], ==, 0x0a);

        NV__Profiler__ProfilerSection *d = nv__profiler__profiler_section__unpack(NULL, len, buf);
        g_assert_nonnull(d);
        g_assert_cmpstr(d->identifier, ==, "LaunchStats");
        g_assert_cmpuint(d->order, ==, 70);
        g_assert_cmpuint(d->n_sets, ==, 1);
        g_assert_cmpstr(d->sets[0]->identifier, ==, "basic");
        nv__profiler__profiler_section__free_unpacked(d, NULL);
}

int main(int argc, char **argv)
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/nvproto/additions-exist", test_additions_exist);
        g_test_add_func("/nvproto/numbers", test_numbers);
        g_test_add_func("/nvproto/binary-round-trip", test_binary_round_trip);
        return g_test_run();
}
