# SPDX-License-Identifier: LGPL-2.1-or-later
"""nvprofiled's Python side: NVIDIA's report interface (ncu_report) and rule
system (NvRules) over nvprofiled's own .ncu-rep reader, without NVIDIA's
binaries."""
