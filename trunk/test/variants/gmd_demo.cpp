// The --gmd demo: two classic heap bugs, to show that tcmalloc's debug
// allocator with TCMALLOC_PAGE_FENCE=1 stops the program on the faulty
// line, not later. Test-only: built by test/variants/build.sh gmd, never
// part of the server.
//
//   env TCMALLOC_PAGE_FENCE=1 gdb -batch -ex run -ex bt --args objs/gmd_demo overrun
//   env TCMALLOC_PAGE_FENCE=1 gdb -batch -ex run -ex bt --args objs/gmd_demo use-after-free
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

namespace {

struct Packet {
    int size;
    char payload[60];
};

// Off by one: writes n + 1 bytes into an n-byte buffer.
__attribute__((noinline)) void fill_header(char* buf, int n) {
    for (int i = 0; i <= n; i++) {
        buf[i] = static_cast<char>(i);  // gmd: overrun
    }
}

__attribute__((noinline)) int read_size(const Packet* p) {
    return p->size;  // gmd: use-after-free
}

}  // namespace

int main(int argc, char** argv) {
    const char* bug = argc > 1 ? argv[1] : "";
    if (strcmp(bug, "overrun") == 0) {
        int n = 64;
        char* buf = static_cast<char*>(malloc(n));
        fill_header(buf, n);
        printf("overrun not caught: is TCMALLOC_PAGE_FENCE=1 set?\n");
        free(buf);
        return 1;
    }
    if (strcmp(bug, "use-after-free") == 0) {
        Packet* p = new Packet();
        p->size = 7;
        delete p;
        int size = read_size(p);
        printf("use-after-free not caught (read %d): is TCMALLOC_PAGE_FENCE=1 set?\n", size);
        return 1;
    }
    fprintf(stderr, "usage: %s overrun|use-after-free\n", argv[0]);
    return 2;
}
