// Balanced SO_REUSEPORT: by default the kernel picks, for each new TCP
// connection, a socket of the port's reuseport group by a hash of the 4-tuple,
// so N processes get Binomial(connections, 1/N) each. attach_reuseport_balance()
// attaches a classic BPF program to the group (SO_ATTACH_REUSEPORT_CBPF) that
// picks socket index (client source port / 2) mod group_size instead.
//
// Why port / 2: Linux hands out connect() source ports in steps of 2 (even
// ports for connect, odd ones kept for bind), so the connections of one client
// machine or NAT cycle through the indexes in turn; clients with random ports
// spread as evenly as with the hash. The index is the socket's position in the
// group (order of binding, a closed socket's slot taken by the last one); an
// index >= the group's size (fewer sockets than group_size) makes the kernel
// fall back to the hash, so a wrong size never refuses a connection.
//
// The program reads the TCP header through SKF_NET_OFF (relative to the
// network header: IPv4 with its IHL, or IPv6's fixed 40 bytes), because when
// it runs the packet's data pointer is already past the TCP header.
#pragma once

#include "core/error.hpp"

namespace srs {

// group_size 1..256; the program is shared by every socket of the group, so
// each process attaching the same one is harmless.
Error attach_reuseport_balance(int fd, int group_size);

}  // namespace srs
