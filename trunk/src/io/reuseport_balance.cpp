#include "io/reuseport_balance.hpp"

#include <linux/bpf.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#ifndef SO_ATTACH_REUSEPORT_EBPF
#define SO_ATTACH_REUSEPORT_EBPF 52
#endif

namespace srs {

namespace {

long bpf_call(int cmd, bpf_attr* attr) { return syscall(__NR_bpf, cmd, attr, sizeof(*attr)); }

bpf_insn insn(uint8_t code, uint8_t dst, uint8_t src, int16_t off, int32_t imm) {
    bpf_insn i;
    memset(&i, 0, sizeof(i));
    i.code = code;
    i.dst_reg = dst;
    i.src_reg = src;
    i.off = off;
    i.imm = imm;
    return i;
}

// Closes an fd when it goes out of scope.
struct FdGuard {
    int fd;
    ~FdGuard() {
        if (fd >= 0) ::close(fd);
    }
};

}  // namespace

Error attach_reuseport_balance(int fd, int group_size) {
    if (group_size < 1 || group_size > 256) {
        return SRS_ERR(kErrorSocketSetReuse, "reuseport group size %d not in 1..256", group_size);
    }
    // The counter: a BPF array with one u64.
    bpf_attr attr;
    memset(&attr, 0, sizeof(attr));
    attr.map_type = BPF_MAP_TYPE_ARRAY;
    attr.key_size = 4;
    attr.value_size = 8;
    attr.max_entries = 1;
    FdGuard map{static_cast<int>(bpf_call(BPF_MAP_CREATE, &attr))};
    if (map.fd < 0) return SRS_ERR(kErrorSocketSetReuse, "bpf map create: %s (needs CAP_BPF or root)", strerror(errno));

    const bpf_insn prog[] = {
        insn(BPF_ST | BPF_MEM | BPF_W, BPF_REG_10, 0, -4, 0),              // key = 0 on the stack
        insn(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, BPF_PSEUDO_MAP_FD, 0, map.fd),  // r1 = the map
        insn(0, 0, 0, 0, 0),                                                // (second half of ld_imm64)
        insn(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, BPF_REG_10, 0, 0),    // r2 = &key
        insn(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, -4),
        insn(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem),       // r0 = &counter or NULL
        insn(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 5, 0),               // NULL: return 0
        insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_1, 0, 0, 1),
        insn(BPF_STX | BPF_DW | BPF_ATOMIC, BPF_REG_0, BPF_REG_1, 0, BPF_ADD | BPF_FETCH),  // r1 = counter++
        insn(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_0, BPF_REG_1, 0, 0),
        insn(BPF_ALU64 | BPF_MOD | BPF_K, BPF_REG_0, 0, 0, group_size),    // the socket index
        insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
        insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0),
        insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
    };
    static const char kLicense[] = "Dual MIT/GPL";
    char log[4096] = {0};
    memset(&attr, 0, sizeof(attr));
    attr.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
    attr.insns = reinterpret_cast<uint64_t>(prog);
    attr.insn_cnt = sizeof(prog) / sizeof(prog[0]);
    attr.license = reinterpret_cast<uint64_t>(kLicense);
    attr.log_buf = reinterpret_cast<uint64_t>(log);
    attr.log_size = sizeof(log);
    attr.log_level = 1;
    FdGuard program{static_cast<int>(bpf_call(BPF_PROG_LOAD, &attr))};
    if (program.fd < 0) {
        return SRS_ERR(kErrorSocketSetReuse, "bpf prog load: %s (needs CAP_BPF or root): %.300s", strerror(errno), log);
    }
    // The group holds the program, the program holds the map: both fds can go.
    if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_REUSEPORT_EBPF, &program.fd, sizeof(program.fd)) < 0) {
        return SRS_ERR(kErrorSocketSetReuse, "SO_ATTACH_REUSEPORT_EBPF: %s", strerror(errno));
    }
    return Error();
}

}  // namespace srs
