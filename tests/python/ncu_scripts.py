# SPDX-License-Identifier: LGPL-2.1-or-later
"""Running scripts written for NVIDIA's module against ours: the corpus
reports by name, and a process whose ``import ncu_report`` is
nvprofiled.ncu_report (the shim folder first on PYTHONPATH)."""

from __future__ import annotations

import os
import subprocess
import sys

SHIM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "shim")


def report_names(reports: str) -> list[str]:
    """Every report of the corpus folder by name (without .ncu-rep). The C
    tests list them (tests/nsight/report-test-util.c) and fail when the
    folder holds another set; these tests run for each one found there."""
    return sorted(f[:-len(".ncu-rep")] for f in os.listdir(reports)
                  if f.endswith(".ncu-rep"))


def shim_env() -> dict[str, str]:
    """The environment that makes ``import ncu_report`` ours."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (SHIM, env.get("PYTHONPATH", "")) if p)
    return env


def run_script(script: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, script, *args], env=shim_env(),
                          capture_output=True, check=False)
