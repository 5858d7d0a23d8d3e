#!/usr/bin/env python3
"""Measures how the kernel spreads TCP connections over 3 sockets sharing a
port with SO_REUSEPORT: the default hash, and a classic BPF program picking
(source port / 2) mod N (the first design of `reuseport_balance`, rejected
because Linux >= 5.18 randomises connect() port steps: it measures no better
than the hash; the server now attaches an eBPF round-robin counter instead,
measured by test/test_multiprocess.py). Prints the per-socket counts of each run and how many runs stayed
within +-15 % of even. Usage: reuseport_spread.py [runs=20] [conns=300] [socks=3]"""
import ctypes
import socket
import sys

SO_ATTACH_REUSEPORT_CBPF = 51
SKF_NET_OFF = (-0x100000) & 0xFFFFFFFF


class SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]


class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_uint16), ("filter", ctypes.POINTER(SockFilter))]


def balance_program(n):
    # Opcodes from linux/filter.h (classic BPF); the same program as src/io/reuseport_balance.cpp.
    LD_B_ABS, RSH_K, JEQ_K, LDX_B_MSH, JA, LDX_IMM, LD_H_IND, MOD_K, RET_A = (
        0x30, 0x74, 0x15, 0xB1, 0x05, 0x01, 0x48, 0x94, 0x16)
    code = [(LD_B_ABS, 0, 0, SKF_NET_OFF), (RSH_K, 0, 0, 4), (JEQ_K, 0, 2, 4), (LDX_B_MSH, 0, 0, SKF_NET_OFF),
            (JA, 0, 0, 1), (LDX_IMM, 0, 0, 40), (LD_H_IND, 0, 0, SKF_NET_OFF), (RSH_K, 0, 0, 1), (MOD_K, 0, 0, n),
            (RET_A, 0, 0, 0)]
    arr = (SockFilter * len(code))(*[SockFilter(*c) for c in code])
    return arr, SockFprog(len(code), arr)


def one_run(conns, nsocks, balanced):
    first = socket.socket()
    first.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    first.bind(("127.0.0.1", 0))
    port = first.getsockname()[1]
    socks = [first]
    for _ in range(nsocks - 1):
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        s.bind(("127.0.0.1", port))
        socks.append(s)
    for s in socks:
        s.listen(conns)
        s.setblocking(False)
    if balanced:
        arr, prog = balance_program(nsocks)
        first.setsockopt(socket.SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF, bytes(prog))
    clients = []
    for _ in range(conns):
        c = socket.create_connection(("127.0.0.1", port))
        clients.append(c)
    counts = []
    for s in socks:
        n = 0
        while True:
            try:
                a, _ = s.accept()
                a.close()
                n += 1
            except BlockingIOError:
                break
        counts.append(n)
    for c in clients + socks:
        c.close()
    return counts


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    conns = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    nsocks = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    even = conns / nsocks
    for balanced in (False, True):
        inside = 0
        worst = 0.0
        for _ in range(runs):
            counts = one_run(conns, nsocks, balanced)
            dev = max(abs(c - even) / even for c in counts)
            worst = max(worst, dev)
            inside += dev <= 0.15
            print(("balanced" if balanced else "hash    "), counts)
        print(f"{'balanced' if balanced else 'hash'}: {inside}/{runs} runs within +-15 %, worst {worst * 100:.0f} %")


if __name__ == "__main__":
    main()
