/*
 * st.h: the State Threads API, implemented by our own runtime (the .c files beside it).
 *
 * What the runtime guarantees:
 *  - All "threads" of this API are coroutines of the one OS thread that called st_init(). A
 *    coroutine runs until it blocks (I/O that would block, sleep, cond/mutex/join wait) or calls
 *    st_thread_yield(): there is no preemption, so code between two blocking calls is atomic with
 *    respect to other coroutines. Nothing here is safe to call from another OS thread.
 *  - The caller of st_init() (the primordial thread) is a coroutine like the others. If it calls
 *    st_thread_exit(), the others keep running and the process exits with status 0 when the last
 *    coroutine exits.
 *  - Blocking calls return -1 (NULL for st_accept) and set errno: ETIME when the timeout expired,
 *    EINTR when st_thread_interrupt() was called on the coroutine while it waited or before it
 *    started to wait (the interrupt is then consumed), EBADF when the netfd was closed by another
 *    coroutine while it waited.
 *  - Timeouts are relative, in microseconds, and apply to each wait inside a call (as in State
 *    Threads), not to the call as a whole. ST_UTIME_NO_TIMEOUT waits forever.
 *  - st_utime() is CLOCK_MONOTONIC in microseconds; only st_time() reads the wall clock.
 *  - Every netfd is registered once with epoll (edge-triggered); a call first tries the syscall and
 *    waits only after EAGAIN. Any number of coroutines may wait on one netfd at once (e.g. a reader
 *    and a writer). st_netfd_open*() put the fd in non-blocking mode.
 *  - After st_netfd_close()/st_netfd_free() the netfd handle is freed: no coroutine may use it
 *    again. Coroutines blocked on it at that moment return -1/EBADF and must drop the handle.
 *  - st_write/st_writev/st_write_resid/st_writev_resid and st_read_fully/st_read_resid/
 *    st_readv_resid loop over partial transfers; st_read_fully returns fewer bytes only at EOF.
 *  - Stacks are mmap'ed with a PROT_NONE guard page below them (an overflow faults); default size
 *    128 KiB (256 KiB under AddressSanitizer, which also doubles explicit sizes).
 */
#ifndef ST_H
#define ST_H

#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#ifndef ETIME
#define ETIME ETIMEDOUT
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define ST_VERSION "1.9-epoll"

typedef unsigned long long st_utime_t;
typedef struct _st_thread *st_thread_t;
typedef struct _st_cond *st_cond_t;
typedef struct _st_mutex *st_mutex_t;
typedef struct _st_netfd *st_netfd_t;

#define ST_UTIME_NO_TIMEOUT ((st_utime_t)-1LL)
#define ST_UTIME_NO_WAIT 0

/* Event systems: all of them are served by epoll here; the names exist for source compatibility. */
#define ST_EVENTSYS_DEFAULT 0
#define ST_EVENTSYS_SELECT 1
#define ST_EVENTSYS_POLL 2
#define ST_EVENTSYS_ALT 3

/* Same layout as Linux struct mmsghdr, so callers need not define _GNU_SOURCE. */
struct st_mmsghdr {
    struct msghdr msg_hdr;
    unsigned int msg_len;
};

/* Runtime. */
int st_init(void);
int st_set_eventsys(int eventsys);
int st_get_eventsys(void);
const char *st_get_eventsys_name(void);
int st_getfdlimit(void);

/* Threads (coroutines). stack_size <= 0 selects the default. */
st_thread_t st_thread_create(void *(*start)(void *arg), void *arg, int joinable, int stack_size);
void st_thread_exit(void *retval) __attribute__((noreturn));
int st_thread_join(st_thread_t thread, void **retvalp);
void st_thread_interrupt(st_thread_t thread);
st_thread_t st_thread_self(void);
void st_thread_yield(void);

/* Time. */
int st_usleep(st_utime_t usecs);
int st_sleep(int secs);
st_utime_t st_utime(void);
time_t st_time(void);
int st_timecache_set(int on);

/* Condition variables and mutexes (FIFO: unlock hands the mutex to the longest waiter). */
st_cond_t st_cond_new(void);
int st_cond_destroy(st_cond_t cvar);
int st_cond_wait(st_cond_t cvar);
int st_cond_timedwait(st_cond_t cvar, st_utime_t timeout);
int st_cond_signal(st_cond_t cvar);
int st_cond_broadcast(st_cond_t cvar);
st_mutex_t st_mutex_new(void);
int st_mutex_destroy(st_mutex_t lock);
int st_mutex_lock(st_mutex_t lock);
int st_mutex_unlock(st_mutex_t lock);
int st_mutex_trylock(st_mutex_t lock);

/* Thread-specific data; destructors run when a thread exits. */
int st_key_create(int *keyp, void (*destructor)(void *));
int st_key_getlimit(void);
int st_thread_setspecific(int key, void *value);
void *st_thread_getspecific(int key);

/* Network file descriptors. */
st_netfd_t st_netfd_open(int osfd);
st_netfd_t st_netfd_open_socket(int osfd);
st_netfd_t st_open(const char *path, int oflags, mode_t mode);
int st_netfd_close(st_netfd_t fd);
void st_netfd_free(st_netfd_t fd);
int st_netfd_fileno(st_netfd_t fd);
void st_netfd_setspecific(st_netfd_t fd, void *value, void (*destructor)(void *));
void *st_netfd_getspecific(st_netfd_t fd);
int st_netfd_poll(st_netfd_t fd, int how, st_utime_t timeout);
/* Returns the number of ready descriptors, 0 on timeout, -1 on error. Works on any fd. */
int st_poll(struct pollfd *pds, int npds, st_utime_t timeout);

st_netfd_t st_accept(st_netfd_t fd, struct sockaddr *addr, int *addrlen, st_utime_t timeout);
int st_connect(st_netfd_t fd, const struct sockaddr *addr, int addrlen, st_utime_t timeout);
ssize_t st_read(st_netfd_t fd, void *buf, size_t nbyte, st_utime_t timeout);
ssize_t st_read_fully(st_netfd_t fd, void *buf, size_t nbyte, st_utime_t timeout);
int st_read_resid(st_netfd_t fd, void *buf, size_t *resid, st_utime_t timeout);
ssize_t st_readv(st_netfd_t fd, const struct iovec *iov, int iov_size, st_utime_t timeout);
int st_readv_resid(st_netfd_t fd, struct iovec **iov, int *iov_size, st_utime_t timeout);
ssize_t st_write(st_netfd_t fd, const void *buf, size_t nbyte, st_utime_t timeout);
int st_write_resid(st_netfd_t fd, const void *buf, size_t *resid, st_utime_t timeout);
ssize_t st_writev(st_netfd_t fd, const struct iovec *iov, int iov_size, st_utime_t timeout);
int st_writev_resid(st_netfd_t fd, struct iovec **iov, int *iov_size, st_utime_t timeout);
int st_recvfrom(st_netfd_t fd, void *buf, int len, struct sockaddr *from, int *fromlen,
                st_utime_t timeout);
int st_sendto(st_netfd_t fd, const void *msg, int len, const struct sockaddr *to, int tolen,
              st_utime_t timeout);
int st_recvmsg(st_netfd_t fd, struct msghdr *msg, int flags, st_utime_t timeout);
int st_sendmsg(st_netfd_t fd, const struct msghdr *msg, int flags, st_utime_t timeout);
/* Extension: receives up to vlen datagrams, waiting for the first one. A batch of fewer than
 * vlen emptied the socket, so the next call waits for new input before its recvmmsg. Returns
 * the number received, -1 with errno (ETIME on timeout). */
int st_recvmmsg(st_netfd_t fd, struct st_mmsghdr *msgvec, unsigned int vlen, int flags,
                st_utime_t timeout);
/* Extension: sends all vlen messages, waiting while the socket is full. Returns the number sent;
 * -1 only if none could be sent. */
int st_sendmmsg(st_netfd_t fd, struct st_mmsghdr *msgvec, unsigned int vlen, int flags,
                st_utime_t timeout);

/* Extension: wake-up coalescing. While the process is woken for I/O more often than every
 * interval_us / 2 on average, each wait that would block first sleeps out the rest of the
 * interval since the last wake-up, so events are taken in batches; it stops once events are
 * sparse again. 0 (the default) turns it off. st_wakeup_naps() counts those sleeps. */
void st_set_wakeup_coalesce(st_utime_t interval_us);
unsigned long long st_wakeup_naps(void);

#ifdef __cplusplus
}
#endif

#endif /* ST_H */
