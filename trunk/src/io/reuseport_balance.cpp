#include "io/reuseport_balance.hpp"

#include <linux/filter.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#ifndef SO_ATTACH_REUSEPORT_CBPF
#define SO_ATTACH_REUSEPORT_CBPF 51
#endif

namespace srs {

Error attach_reuseport_balance(int fd, int group_size) {
    if (group_size < 1 || group_size > 256) {
        return SRS_ERR(kErrorSocketSetReuse, "reuseport group size %d not in 1..256", group_size);
    }
    const uint32_t net = static_cast<uint32_t>(SKF_NET_OFF);
    sock_filter code[] = {
        // A = IP version (high nibble of the network header's first byte)
        BPF_STMT(BPF_LD | BPF_B | BPF_ABS, net),
        BPF_STMT(BPF_ALU | BPF_RSH | BPF_K, 4),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 4, 0, 2),
        // IPv4: X = 4 * IHL, the TCP header's offset
        BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, net),
        BPF_JUMP(BPF_JMP | BPF_JA, 1, 0, 0),
        // IPv6: X = 40 (extension headers are not expected before TCP)
        BPF_STMT(BPF_LDX | BPF_W | BPF_IMM, 40),
        // A = TCP source port, then (port / 2) mod group_size
        BPF_STMT(BPF_LD | BPF_H | BPF_IND, net),
        BPF_STMT(BPF_ALU | BPF_RSH | BPF_K, 1),
        BPF_STMT(BPF_ALU | BPF_MOD | BPF_K, static_cast<uint32_t>(group_size)),
        BPF_STMT(BPF_RET | BPF_A, 0),
    };
    sock_fprog prog;
    prog.len = sizeof(code) / sizeof(code[0]);
    prog.filter = code;
    if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF, &prog, sizeof(prog)) < 0) {
        return SRS_ERR(kErrorSocketSetReuse, "SO_ATTACH_REUSEPORT_CBPF: %s", strerror(errno));
    }
    return Error();
}

}  // namespace srs
