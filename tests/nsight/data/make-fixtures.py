#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Writes the synthetic .ncu-rep fixtures of tests/nsight (run from this folder; needs protoc).

nvtx.ncu-rep: five kernels with different NVTX states, for the actions_by_nvtx cases of test-report.c.
"""
import struct
import subprocess

PROTO = '../../../proto'


def encode(message: str, text: str) -> bytes:
    return subprocess.run(['protoc', '-I', PROTO, '--encode=NV.Profiler.Messages.' + message,
                           PROTO + '/ProfilerReport.proto'], input=text.encode(), check=True,
                          capture_output=True).stdout


def varint(v: int) -> bytes:
    out = b''
    while True:
        b, v = v & 0x7f, v >> 7
        if v:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def field(number: int, wire_type: int, payload: int | bytes) -> bytes:
    key = varint(number << 3 | wire_type)
    return key + (varint(payload) if wire_type == 0 else varint(len(payload)) + payload)


def block(entries: list[bytes], n_results: int, table: bytes = b'') -> bytes:
    payload = b''.join(struct.pack('<I', len(e)) + e for e in entries)
    header = field(2, 0, n_results) + field(4, 2, table) + field(5, 0, len(payload))
    return struct.pack('<I', len(header)) + header + payload


def stack(names: list[str]) -> str:
    return ''.join('Stack { Name: "%s" } ' % n for n in names)


def result(name: str, tid: int, nvtx: str) -> bytes:
    return encode('ProfileResult', '''
ThreadID: %d APICallID: 1 ProgramHandle: 1 KernelID: 1 KernelMangledName: "%s" KernelFunctionName: "%s"
KernelDemangledName: "%s" WorkDimensions: 3 GlobalWorkOffset { } GridSize { X: 1 } BlockSize { X: 1 }
Source { } MetricResults { NameId: 0 MetricValue { DoubleValue: 1 } } %s''' % (tid, name, name, name, nvtx))


DOMAINS = 'Domains { Id: 0 Name: "<default domain>" } Domains { Id: 7 Name: "D" } DefaultDomain: 0 '
kernels = [
    result('a0', 5, 'Nvtx { %s Threads { TID: 5 PushPopDomains { Id: 0 %s } } '
           'StartEndDomains { Id: 7 Ranges { Id: 1 Name: "phase" StartTID: 5 } } }' % (DOMAINS, stack(['outer', 'inner']))),
    result('a1', 5, 'Nvtx { %s Threads { TID: 5 PushPopDomains { Id: 0 %s } PushPopDomains { Id: 7 %s } } }'
           % (DOMAINS, stack(['outer']), stack(['x', 'y']))),
    result('a2', 5, 'Nvtx { %s Threads { TID: 5 PushPopDomains { Id: 0 %s } } }'
           % (DOMAINS, stack(['other', 'outer', 'mid', 'inner']))),
    result('a3', 5, ''),
    result('a4', 6, 'Nvtx { %s Threads { TID: 5 PushPopDomains { Id: 0 %s } } }' % (DOMAINS, stack(['outer']))),
]
header = field(1, 0, 7)
data = b'NVR\0' + struct.pack('<I', len(header)) + header
data += block(kernels, len(kernels), field(1, 2, b'gpu__time_duration.sum'))
with open('nvtx.ncu-rep', 'wb') as f:
    f.write(data)
