/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* An amdgpu card's hwmon files as node renderD128's (for a script): temperatures edge 45 and junction 52.5 °C,
 * power PPT 120 W of a 255 W cap, clocks sclk 2100 and mclk 1000 MHz, fan 1250 rpm. */
#define USAGE_FIXTURE_HWMON_AMDGPU                    \
        "hwmon renderD128 temp1_input 45000\n"        \
        "hwmon renderD128 temp1_label edge\n"         \
        "hwmon renderD128 temp2_input 52500\n"        \
        "hwmon renderD128 temp2_label junction\n"     \
        "hwmon renderD128 power1_average 120000000\n" \
        "hwmon renderD128 power1_label PPT\n"         \
        "hwmon renderD128 power1_cap 255000000\n"     \
        "hwmon renderD128 freq1_input 2100000000\n"   \
        "hwmon renderD128 freq1_label sclk\n"         \
        "hwmon renderD128 freq2_input 1000000000\n"   \
        "hwmon renderD128 freq2_label mclk\n"         \
        "hwmon renderD128 fan1_input 1250\n"

/* Builds the GPU part of fixture /proc and /sys trees for nvprofiled's --proc and --sys, from a script of
 * device nodes, file descriptors and fdinfo contents (corpus dumps, or scripted keys), in steps: step N
 * applies everything up to and including "step N", so a test moves the tree from one sample to the next.
 *
 * Script lines ('#' starts a comment):
 *   node NAME TARGET pci SLOT VENDOR DEVICE DRIVER   a PCI device node: sys/dev/char/MAJ:MIN (the numbers
 *   node NAME TARGET platform DEVNAME DRIVER           of TARGET, an existing char device such as
 *   node NAME TARGET none                              /dev/full) resolves to it
 *   power NAME active|suspended                      power/runtime_status of the node's device
 *   hwmon NAME FILE VALUE                            hwmon/hwmon0/FILE of the node's device (temp1_input,
 *                                                    temp1_label, ...) holds VALUE ('_' for a blank)
 *   fd PID FD TARGET                                 proc/PID/fd/FD -> TARGET
 *   close PID FD                                     the fd and its fdinfo go
 *   fdinfo PID FD corpus FILE                        proc/PID/fdinfo/FD is a copy of CORPUS/fdinfo/FILE
 *   fdinfo PID FD keys K=V K=V ...                   ... is "K:\tV" lines (V may hold '_' for a blank:
 *                                                    drm-engine-gfx=100_ns)
 *   unreadable PID FD                                reading proc/PID/fdinfo/FD fails (it is a directory:
 *                                                    what EACCES is for an unprivileged reader)
 *   denied PID FD                                    proc/PID/fdinfo/FD (written before) gets mode 0000: EACCES
 *                                                    for a reader without CAP_DAC_OVERRIDE
 *   clock USEC                                       the daemon's fixture clock for the reads that follow
 *   step N                                           what follows belongs to step N
 *   process PID UID START COMM EXE ROOT             what the daemon reads to track a process (stat,
 *                                                    status, comm, cmdline, environ, maps, exe, root)
 *   cgroup PID PATH                                  proc/PID/cgroup is "0::PATH", the cgroup v2 line
 * Files are replaced by rename, so a reader never sees half of one.
 *
 * Returns 0, or -1 with *ret_error naming the line. */
int usage_fixture_apply(const char *script, const char *proc, const char *sys, const char *corpus, unsigned step,
                char **ret_error);
