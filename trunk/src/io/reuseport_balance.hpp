// Balanced SO_REUSEPORT. By default the kernel picks, for each new TCP
// connection, a socket of the port's reuseport group by a hash of the 4-tuple,
// so N processes get Binomial(connections, 1/N) each (300 over 3: sd ~8, so
// +-15 % of even fails ~1 run in 7). attach_reuseport_balance() attaches a tiny
// eBPF program to the group (SO_ATTACH_REUSEPORT_EBPF) that hands the
// connections out in turn: index = (atomic counter++) mod group_size.
//
// Why a counter and not the client's port: a first version picked
// (source port / 2) mod N with classic BPF, expecting connect() ports in steps
// of 2; since Linux 5.18 the steps are randomised, and 20 runs measured no
// better than the hash (test/bench/reuseport_spread.py).
//
// The group keeps one program: the last process to attach wins, and its
// counter (a one-slot BPF array, referenced by the program) serves everyone.
// The index is a socket's position in the group (order of binding; a closed
// socket's slot is taken by the last one); an index >= the group's size
// (fewer processes than group_size) makes the kernel fall back to the hash,
// so a wrong size never refuses a connection.
//
// Loading a BPF program needs CAP_BPF (or root) where unprivileged BPF is off
// (Debian's default): without it this fails with kErrorSocketSetReuse and the
// caller keeps the hash.
#pragma once

#include "core/error.hpp"

namespace srs {

// group_size 1..256.
Error attach_reuseport_balance(int fd, int group_size);

}  // namespace srs
