/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <unistd.h>

#include "report-test-util.h"
#include "test-util.h"

const char *const report_corpus_names[REPORT_CORPUS_N] = {
        REPORT_ARMLETH,
        REPORT_EXTRAP,
        REPORT_ADD3,
        REPORT_SOBEL,
        REPORT_SYSWEA,
        "2388612861_GPU-DEMO_occupancy_ncu2025.2.1",
        "BrennenTaylor_Twisty_profile_ncu2019.x",
        "HadiKhansaa_BBAStar_profile_output_ncu2024.3.2",
        "MgMap_Hyper-Spec-M_profile_ncu2024.3.2",
        "NVIDIA_nsight-training_manual_nvtx_ncu2022.3.0",
        "RottenFishbone_rs-wfc_profile_ncu2022.3.0",
        "anuragdogra2192_MultipleNodesScaling_report_ncu2020.1.x",
        "bobschreiner_NuKEXC_profile_ncu2025.2.1",
        "bwcurless_FaSTED_Mode44_ncu2023.2.0",
        "bwd29_self-join-MiSTIC_profile4_ncu2021.2.2",
        "eschnett_IndexSpaces.jl_profile_ncu2022.1.1",
        "evozone96_matrixMul_profile_ncu2019.x",
        "iamcoleman_monte-carlo-pi_profile_ncu2020.2.1",
        "panjd123_cutlass_report-s8-persist_ncu2024.1.1",
        "trevorgloe_GPUAcceleratedNetworkSim_profile_ncu2024.3.1",
        "wtzhang23_gpu-ray-tracer_report_ncu2021.1.0",
};

const size_t report_corpus_n_actions[REPORT_CORPUS_N] = {
        1,
        6,
        1,
        1,
        3,
        45,
        2,
        2,
        8,
        3,
        5,
        1,
        1,
        3,
        4,
        2,
        8,
        2,
        2,
        1,
        3,
};

char *report_corpus_path(const char *name)
{
        g_autofree char *file = g_strconcat("reports/", name, ".ncu-rep", NULL);
        return test_corpus_path(file);
}

NcuReport *report_corpus_load(const char *name)
{
        g_autofree char *path = report_corpus_path(name);
        NcuReportError err;
        NcuReport *r = NULL;
        int fd, k;

        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                g_error("%s: %s", path, g_strerror(errno));
        k = ncu_report_load_fd(fd, NULL, &r, &err);
        close(fd);
        if (k < 0)
                g_error("%s: offset %" G_GUINT64_FORMAT ": %s (%s)", path, err.offset, err.message, g_strerror(-k));
        return r;
}

const NcuMetric *report_metric(const NcuAction *a, const char *name)
{
        const NcuMetric *m = ncu_action_metric_by_name(a, name);
        if (!m)
                g_error("no metric %s", name);
        return m;
}

double report_metric_double(const NcuAction *a, const char *name)
{
        const NcuMetric *m = report_metric(a, name);
        g_assert_cmpint(m->value.kind, ==, NCU_VALUE_DOUBLE);
        return m->value.d;
}

uint64_t report_metric_u64(const NcuAction *a, const char *name)
{
        uint64_t u;
        g_assert_true(ncu_value_as_uint64(&report_metric(a, name)->value, &u));
        return u;
}

json_object *json_get(json_object *o, const char *key)
{
        json_object *v = NULL;

        return json_object_object_get_ex(o, key, &v) ? v : NULL;
}
