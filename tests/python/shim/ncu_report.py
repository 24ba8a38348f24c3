# SPDX-License-Identifier: LGPL-2.1-or-later
"""``import ncu_report`` for scripts written for NVIDIA's module: with this
folder first on PYTHONPATH, the name is nvprofiled.ncu_report itself (the
same module object, not a copy of its names)."""

import sys

import nvprofiled.ncu_report

sys.modules[__name__] = nvprofiled.ncu_report
