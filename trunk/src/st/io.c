/*
 * io.c: netfds and the I/O calls.
 *
 * Every call has the same shape: try the syscall; on EINTR (a signal) retry; on EAGAIN park on
 * the fd until epoll reports an edge in that direction, then retry; any other error returns -1.
 * The *_resid/fully/write variants loop over partial transfers.
 */
#include "st_runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define WAIT_READ 0
#define WAIT_WRITE 1
#define ST_LOCAL_IOV 16

static int would_block(void)
{
    return errno == EAGAIN || errno == EWOULDBLOCK;
}

/* Waits after `n < 0`: 0 to retry the syscall, -1 to fail with errno set. */
static int retry_or_wait(st_netfd_t fd, int dir, st_utime_t timeout)
{
    if (errno == EINTR)
        return 0;
    if (!would_block())
        return -1;
    return st__fd_wait(fd, dir, timeout);
}

static st_netfd_t netfd_new(int osfd, int set_nonblock)
{
    if (set_nonblock) {
        int flags = fcntl(osfd, F_GETFL);
        if (flags < 0)
            return NULL;
        if (!(flags & O_NONBLOCK) && fcntl(osfd, F_SETFL, flags | O_NONBLOCK) < 0)
            return NULL;
    }
    if (osfd < st__rt.fdtab_size && st__rt.fdtab[osfd] && st__rt.fdtab[osfd]->owned) {
        errno = EBUSY; /* already open as a netfd */
        return NULL;
    }
    struct _st_netfd *nfd = st__fd_attach(osfd);
    if (!nfd)
        return NULL;
    nfd->owned = 1;
    return nfd;
}

st_netfd_t st_netfd_open(int osfd)
{
    return netfd_new(osfd, 1);
}

st_netfd_t st_netfd_open_socket(int osfd)
{
    return netfd_new(osfd, 1);
}

st_netfd_t st_open(const char *path, int oflags, mode_t mode)
{
    int osfd;
    do {
        osfd = open(path, oflags | O_NONBLOCK, mode);
    } while (osfd < 0 && errno == EINTR);
    if (osfd < 0)
        return NULL;
    st_netfd_t fd = netfd_new(osfd, 0);
    if (!fd) {
        int saved = errno;
        close(osfd);
        errno = saved;
    }
    return fd;
}

/* Forgets the netfd without closing the OS fd. Threads blocked on it return EBADF. */
void st_netfd_free(st_netfd_t fd)
{
    if (fd->private_data && fd->destructor)
        fd->destructor(fd->private_data);
    fd->private_data = NULL;
    fd->owned = 0;
    st__fd_detach(fd);
    st__fd_release(fd);
}

int st_netfd_close(st_netfd_t fd)
{
    int osfd = fd->osfd;
    st_netfd_free(fd); /* out of epoll before the fd number can be reused */
    return close(osfd);
}

int st_netfd_fileno(st_netfd_t fd)
{
    return fd->osfd;
}

void st_netfd_setspecific(st_netfd_t fd, void *value, void (*destructor)(void *))
{
    if (value != fd->private_data && fd->private_data && fd->destructor)
        fd->destructor(fd->private_data);
    fd->private_data = value;
    fd->destructor = destructor;
}

void *st_netfd_getspecific(st_netfd_t fd)
{
    return fd->private_data;
}

st_netfd_t st_accept(st_netfd_t fd, struct sockaddr *addr, int *addrlen, st_utime_t timeout)
{
    for (;;) {
        socklen_t len = addrlen ? (socklen_t)*addrlen : 0;
        int osfd = accept4(fd->osfd, addr, addrlen ? &len : NULL, SOCK_NONBLOCK);
        if (osfd >= 0) {
            if (addrlen)
                *addrlen = (int)len;
            st_netfd_t client = netfd_new(osfd, 0);
            if (!client) {
                int saved = errno;
                close(osfd);
                errno = saved;
            }
            return client;
        }
        if (retry_or_wait(fd, WAIT_READ, timeout) < 0)
            return NULL;
    }
}

int st_connect(st_netfd_t fd, const struct sockaddr *addr, int addrlen, st_utime_t timeout)
{
    if (connect(fd->osfd, addr, (socklen_t)addrlen) == 0)
        return 0;
    /* EINTR: the connection goes on asynchronously, as with EINPROGRESS. */
    if (errno != EINPROGRESS && errno != EINTR)
        return -1;
    for (;;) {
        if (st__fd_wait(fd, WAIT_WRITE, timeout) < 0)
            return -1;
        int err = 0;
        socklen_t len = sizeof(err);
        if (getsockopt(fd->osfd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
            return -1;
        if (err) {
            errno = err;
            return -1;
        }
        /* Writable means connected, unless the edge came before the handshake finished. */
        struct sockaddr_storage peer;
        socklen_t plen = sizeof(peer);
        if (getpeername(fd->osfd, (struct sockaddr *)&peer, &plen) == 0)
            return 0;
        if (errno != ENOTCONN)
            return -1;
    }
}

/*
 * A stream read that returned less than asked for emptied the receive queue (as nginx assumes
 * with its ready flag): until epoll reports a new input edge the next read would only say
 * EAGAIN, so it waits first. A publisher's every message would otherwise cost two read()s.
 * Not after a hangup or error, which may leave data behind with no edge to follow.
 */
static int wait_if_drained(st_netfd_t fd, st_utime_t timeout)
{
    if (!fd->rd_drained || !fd->in_epoll)
        return 0;
    if (timeout == 0) { /* a poll for input known not to be there */
        errno = ETIME;
        return -1;
    }
    return st__fd_wait(fd, WAIT_READ, timeout);
}

static void note_read(st_netfd_t fd, ssize_t n, size_t asked)
{
    if (n > 0 && (size_t)n < asked && !fd->rd_hup)
        fd->rd_drained = 1;
}

ssize_t st_read(st_netfd_t fd, void *buf, size_t nbyte, st_utime_t timeout)
{
    if (wait_if_drained(fd, timeout) < 0)
        return -1;
    for (;;) {
        ssize_t n = read(fd->osfd, buf, nbyte);
        if (n >= 0) {
            note_read(fd, n, nbyte);
            return n;
        }
        if (retry_or_wait(fd, WAIT_READ, timeout) < 0)
            return -1;
    }
}

/* Reads until *resid is 0 or EOF; *resid is what is left to read. 0 on success. */
int st_read_resid(st_netfd_t fd, void *buf, size_t *resid, st_utime_t timeout)
{
    char *p = buf;
    while (*resid > 0) {
        ssize_t n = read(fd->osfd, p, *resid);
        if (n > 0) {
            p += n;
            *resid -= (size_t)n;
        } else if (n == 0) {
            break;
        } else if (retry_or_wait(fd, WAIT_READ, timeout) < 0) {
            return -1;
        }
    }
    return 0;
}

ssize_t st_read_fully(st_netfd_t fd, void *buf, size_t nbyte, st_utime_t timeout)
{
    size_t resid = nbyte;
    if (st_read_resid(fd, buf, &resid, timeout) < 0)
        return -1;
    return (ssize_t)(nbyte - resid);
}

ssize_t st_readv(st_netfd_t fd, const struct iovec *iov, int iov_size, st_utime_t timeout)
{
    for (;;) {
        ssize_t n = readv(fd->osfd, iov, iov_size);
        if (n >= 0)
            return n;
        if (retry_or_wait(fd, WAIT_READ, timeout) < 0)
            return -1;
    }
}

/* Moves (*iov, *cnt) past n transferred bytes, skipping empty entries. */
static void iov_advance(struct iovec **iov, int *cnt, size_t n)
{
    while (*cnt > 0 && n >= (*iov)->iov_len) {
        n -= (*iov)->iov_len;
        (*iov)++;
        (*cnt)--;
    }
    if (n > 0) {
        (*iov)->iov_base = (char *)(*iov)->iov_base + n;
        (*iov)->iov_len -= n;
    }
}

static int iov_chunk(int cnt)
{
    return cnt > IOV_MAX ? IOV_MAX : cnt;
}

int st_readv_resid(st_netfd_t fd, struct iovec **iov, int *iov_size, st_utime_t timeout)
{
    iov_advance(iov, iov_size, 0);
    while (*iov_size > 0) {
        ssize_t n = readv(fd->osfd, *iov, iov_chunk(*iov_size));
        if (n > 0)
            iov_advance(iov, iov_size, (size_t)n);
        else if (n == 0)
            break;
        else if (retry_or_wait(fd, WAIT_READ, timeout) < 0)
            return -1;
    }
    return 0;
}

int st_writev_resid(st_netfd_t fd, struct iovec **iov, int *iov_size, st_utime_t timeout)
{
    iov_advance(iov, iov_size, 0);
    while (*iov_size > 0) {
        ssize_t n = writev(fd->osfd, *iov, iov_chunk(*iov_size));
        if (n >= 0)
            iov_advance(iov, iov_size, (size_t)n);
        else if (retry_or_wait(fd, WAIT_WRITE, timeout) < 0)
            return -1;
    }
    return 0;
}

int st_write_resid(st_netfd_t fd, const void *buf, size_t *resid, st_utime_t timeout)
{
    const char *p = buf;
    while (*resid > 0) {
        ssize_t n = write(fd->osfd, p, *resid);
        if (n >= 0) {
            p += n;
            *resid -= (size_t)n;
        } else if (retry_or_wait(fd, WAIT_WRITE, timeout) < 0) {
            return -1;
        }
    }
    return 0;
}

ssize_t st_write(st_netfd_t fd, const void *buf, size_t nbyte, st_utime_t timeout)
{
    size_t resid = nbyte;
    if (st_write_resid(fd, buf, &resid, timeout) < 0)
        return -1;
    return (ssize_t)nbyte;
}

/* Writes everything; the caller's vector is left untouched (copied if a write comes up short). */
ssize_t st_writev(st_netfd_t fd, const struct iovec *iov, int iov_size, st_utime_t timeout)
{
    size_t total = 0;
    for (int i = 0; i < iov_size; i++)
        total += iov[i].iov_len;

    ssize_t n = 0;
    if (iov_size <= IOV_MAX) { /* usually the only syscall */
        n = writev(fd->osfd, iov, iov_size);
        if (n >= 0 && (size_t)n == total)
            return (ssize_t)total;
        if (n < 0) {
            if (errno != EINTR && !would_block())
                return -1;
            n = 0;
        }
    }

    /* Skip what went out, then copy the rest into a vector we may modify. */
    int first = 0;
    size_t offset = (size_t)n;
    while (first < iov_size && offset >= iov[first].iov_len)
        offset -= iov[first++].iov_len;
    int cnt = iov_size - first;
    struct iovec local[ST_LOCAL_IOV];
    struct iovec *copy = local;
    if (cnt > ST_LOCAL_IOV && !(copy = malloc((size_t)cnt * sizeof(*copy)))) {
        errno = ENOMEM;
        return -1;
    }
    if (cnt > 0) {
        memcpy(copy, iov + first, (size_t)cnt * sizeof(*copy));
        copy[0].iov_base = (char *)copy[0].iov_base + offset;
        copy[0].iov_len -= offset;
    }
    struct iovec *p = copy;
    int rv = st_writev_resid(fd, &p, &cnt, timeout);
    if (copy != local) {
        int saved = errno;
        free(copy);
        errno = saved;
    }
    return rv < 0 ? -1 : (ssize_t)total;
}

int st_recvfrom(st_netfd_t fd, void *buf, int len, struct sockaddr *from, int *fromlen,
                st_utime_t timeout)
{
    for (;;) {
        socklen_t flen = fromlen ? (socklen_t)*fromlen : 0;
        ssize_t n = recvfrom(fd->osfd, buf, (size_t)len, 0, from, fromlen ? &flen : NULL);
        if (n >= 0) {
            if (fromlen)
                *fromlen = (int)flen;
            return (int)n;
        }
        if (retry_or_wait(fd, WAIT_READ, timeout) < 0)
            return -1;
    }
}

int st_sendto(st_netfd_t fd, const void *msg, int len, const struct sockaddr *to, int tolen,
              st_utime_t timeout)
{
    for (;;) {
        ssize_t n = sendto(fd->osfd, msg, (size_t)len, 0, to, (socklen_t)tolen);
        if (n >= 0)
            return (int)n;
        if (retry_or_wait(fd, WAIT_WRITE, timeout) < 0)
            return -1;
    }
}

int st_recvmsg(st_netfd_t fd, struct msghdr *msg, int flags, st_utime_t timeout)
{
    for (;;) {
        ssize_t n = recvmsg(fd->osfd, msg, flags);
        if (n >= 0)
            return (int)n;
        if (retry_or_wait(fd, WAIT_READ, timeout) < 0)
            return -1;
    }
}

int st_sendmsg(st_netfd_t fd, const struct msghdr *msg, int flags, st_utime_t timeout)
{
    for (;;) {
        ssize_t n = sendmsg(fd->osfd, msg, flags);
        if (n >= 0)
            return (int)n;
        if (retry_or_wait(fd, WAIT_WRITE, timeout) < 0)
            return -1;
    }
}

int st_recvmmsg(st_netfd_t fd, struct st_mmsghdr *msgvec, unsigned int vlen, int flags,
                st_utime_t timeout)
{
    if (wait_if_drained(fd, timeout) < 0)
        return -1;
    for (;;) {
        int n = recvmmsg(fd->osfd, (struct mmsghdr *)msgvec, vlen, flags | MSG_DONTWAIT, NULL);
        if (n >= 0) {
            /* A datagram is never split: a short batch is a short read. */
            note_read(fd, n, vlen);
            return n;
        }
        if (retry_or_wait(fd, WAIT_READ, timeout) < 0)
            return -1;
    }
}

int st_sendmmsg(st_netfd_t fd, struct st_mmsghdr *msgvec, unsigned int vlen, int flags,
                st_utime_t timeout)
{
    /* struct st_mmsghdr mirrors struct mmsghdr: the kernel writes msg_len into it. */
    _Static_assert(sizeof(struct st_mmsghdr) == sizeof(struct mmsghdr), "st_mmsghdr layout");
    unsigned int sent = 0;
    while (sent < vlen) {
        int n = sendmmsg(fd->osfd, (struct mmsghdr *)(msgvec + sent), vlen - sent, flags);
        if (n >= 0) {
            sent += (unsigned int)n;
        } else if (retry_or_wait(fd, WAIT_WRITE, timeout) < 0) {
            if (sent == 0)
                return -1;
            break;
        }
    }
    return (int)sent;
}
