// Micro-benchmark of the coroutine runtime (src/st): context switch, create+join, and a 1-byte
// socket ping-pong. Prints one figure per line and exits. Not a test: numbers depend on the host.
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "st/st.h"

namespace {

const long kYields = 500000;       // per coroutine: 2 coroutines -> 1M switches
const long kCreates = 100000;
const long kRoundTrips = 100000;

void *yielder(void *)
{
    for (long i = 0; i < kYields; i++)
        st_thread_yield();
    return nullptr;
}

void *nothing(void *)
{
    return nullptr;
}

void *echo(void *arg)
{
    st_netfd_t fd = static_cast<st_netfd_t>(arg);
    char c;
    for (long i = 0; i < kRoundTrips; i++) {
        if (st_read(fd, &c, 1, ST_UTIME_NO_TIMEOUT) != 1 || st_write(fd, &c, 1, ST_UTIME_NO_TIMEOUT) != 1)
            abort();
    }
    return nullptr;
}

void check(bool ok, const char *what)
{
    if (!ok) {
        perror(what);
        exit(1);
    }
}

double context_switch_ns()
{
    st_thread_t a = st_thread_create(yielder, nullptr, 1, 0);
    st_thread_t b = st_thread_create(yielder, nullptr, 1, 0);
    check(a && b, "st_thread_create");
    st_utime_t start = st_utime();
    st_thread_join(a, nullptr);
    st_thread_join(b, nullptr);
    return (st_utime() - start) * 1000.0 / (2.0 * kYields);
}

double create_join_ns()
{
    st_utime_t start = st_utime();
    for (long i = 0; i < kCreates; i++) {
        st_thread_t t = st_thread_create(nothing, nullptr, 1, 0);
        check(t != nullptr, "st_thread_create");
        st_thread_join(t, nullptr);
    }
    return (st_utime() - start) * 1000.0 / kCreates;
}

double ping_pong_us()
{
    int fds[2];
    check(socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0, "socketpair");
    st_netfd_t a = st_netfd_open_socket(fds[0]), b = st_netfd_open_socket(fds[1]);
    check(a && b, "st_netfd_open_socket");
    st_thread_t server = st_thread_create(echo, b, 1, 0);
    check(server != nullptr, "st_thread_create");
    st_utime_t start = st_utime();
    char c = 'x';
    for (long i = 0; i < kRoundTrips; i++) {
        check(st_write(a, &c, 1, ST_UTIME_NO_TIMEOUT) == 1, "st_write");
        check(st_read(a, &c, 1, ST_UTIME_NO_TIMEOUT) == 1, "st_read");
    }
    double us = (st_utime() - start) / static_cast<double>(kRoundTrips);
    st_thread_join(server, nullptr);
    st_netfd_close(a);
    st_netfd_close(b);
    return us;
}

}  // namespace

int main()
{
    check(st_init() == 0, "st_init");
    printf("context switch: %.1f ns\n", context_switch_ns());
    printf("coroutine create+join: %.1f ns\n", create_join_ns());
    printf("socketpair ping-pong round trip: %.2f us\n", ping_pong_us());
    return 0;
}
