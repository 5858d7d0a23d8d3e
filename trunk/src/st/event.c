/*
 * event.c: epoll, the fd table, waiting on fds, st_poll().
 *
 * Each fd is added to epoll once, edge-triggered for input and output together, when it is
 * opened as a netfd (or while st_poll() watches an fd that is not one); there is no epoll_ctl
 * per wait. Edge-triggering is safe because a thread waits only after the syscall said EAGAIN:
 * any later change of readiness produces a new edge. An edge wakes every waiter of its
 * direction; each retries its syscall and parks again if it lost the race.
 *
 * Every input edge also clears the fd's rd_drained mark (io.c), waiter or not, so a short read
 * followed by new data is never mistaken for an empty socket.
 *
 * Wake-up coalescing (st_set_wakeup_coalesce(interval)): once wake-ups come less than half an
 * interval apart on average, a wait that would block first sleeps out the rest of the interval
 * since the last wake-up, outside epoll, so that one epoll_wait takes that time's events and
 * the reads behind them find batches (a UDP socket many peers send to, many publishers). It
 * stops once the waits after those naps still block for half an interval on average: the
 * events have become sparse. A process woken less often (one publisher, a few players) never
 * naps, so its events are served as they come.
 */
#include "st_runtime.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

int st__event_init(void)
{
    st__rt.epfd = epoll_create1(EPOLL_CLOEXEC);
    return st__rt.epfd < 0 ? -1 : 0;
}

static void wake_all(struct st_link *list)
{
    while (!st__list_empty(list)) {
        struct st_waiter *w = st__container_of(list->next, struct st_waiter, link);
        st__list_remove(&w->link); /* st__wake() unlinks it too; be sure the loop advances */
        st__wake(w->thread, 0);
    }
}

void st_set_wakeup_coalesce(st_utime_t interval_us)
{
    st__rt.coalesce_us = interval_us;
    st__rt.coalescing = 0;
    st__rt.last_wake = 0;
    st__rt.gap_avg = interval_us;
}

unsigned long long st_wakeup_naps(void)
{
    return st__rt.naps;
}

/* The rest of the interval since the last wake-up, but never past the next timer. */
static st_utime_t nap_length(st_utime_t now)
{
    st_utime_t since = now - st__rt.last_wake;
    if (since >= st__rt.coalesce_us)
        return 0;
    st_utime_t nap = st__rt.coalesce_us - since;
    if (st__rt.heap_len > 0) {
        st_utime_t due = st__rt.heap[0]->due;
        if (due <= now)
            return 0;
        if (due - now < nap)
            nap = due - now;
    }
    return nap;
}

/* Moves a moving average 1/8 of the way to a new sample. */
static st_utime_t ewma(st_utime_t avg, st_utime_t sample)
{
    return avg - avg / 8 + sample / 8;
}

/*
 * A blocking wait that began at `began` ended at `now`, with events or not: what it says about
 * the load. Without events it blocked until a timer: sparse, whatever the state.
 */
static void note_wait(st_utime_t began, st_utime_t now, int had_events)
{
    st_utime_t half = st__rt.coalesce_us / 2;
    if (st__rt.coalescing) {
        st__rt.blocked_avg = ewma(st__rt.blocked_avg, now - began);
        if (st__rt.blocked_avg > half) {
            st__rt.coalescing = 0;
            st__rt.gap_avg = st__rt.coalesce_us;
        }
    } else if (had_events) {
        if (st__rt.last_wake != 0)
            st__rt.gap_avg = ewma(st__rt.gap_avg, now - st__rt.last_wake);
        if (st__rt.gap_avg < half) {
            st__rt.coalescing = 1;
            st__rt.blocked_avg = 0;
        }
    } else {
        st__rt.gap_avg = ewma(st__rt.gap_avg, now - began);
    }
    if (had_events)
        st__rt.last_wake = now;
}

/*
 * Fires due timers, waits for fd events (at most until the nearest timer, and not at all unless
 * may_block and nothing is runnable) and makes their waiters runnable.
 */
void st__event_poll(int may_block)
{
    st_utime_t now = st__now();
    st__timers_fire(now);
    int timeout = 0;
    if (may_block && st__list_empty(&st__rt.runq)) {
        st_utime_t nap = st__rt.coalescing ? nap_length(now) : 0;
        if (nap > 0) {
            struct timespec ts = {(time_t)(nap / 1000000), (long)(nap % 1000000) * 1000};
            nanosleep(&ts, NULL); /* a signal cuts it short: fine */
            st__rt.naps++;
            now = st__now();
            st__timers_fire(now);
        }
        if (st__list_empty(&st__rt.runq))
            timeout = st__timer_timeout_ms(now);
    }

    int n = epoll_wait(st__rt.epfd, st__rt.events, ST_EPOLL_BATCH, timeout);
    if (timeout != 0 && st__rt.coalesce_us > 0 && n >= 0)
        note_wait(now, st__now(), n > 0);
    if (n < 0 && errno != EINTR) {
        /* Only a corrupted epoll fd gets here; carrying on would spin or hang silently. */
        perror("st: epoll_wait");
        abort();
    }
    for (int i = 0; i < n; i++) {
        int fd = st__rt.events[i].data.fd;
        uint32_t ev = st__rt.events[i].events;
        struct _st_netfd *nfd = fd < st__rt.fdtab_size ? st__rt.fdtab[fd] : NULL;
        if (!nfd)
            continue;
        if (ev & (EPOLLIN | EPOLLPRI | EPOLLRDHUP | EPOLLERR | EPOLLHUP)) {
            nfd->rd_drained = 0;
            if (ev & (EPOLLRDHUP | EPOLLERR | EPOLLHUP))
                nfd->rd_hup = 1;
            wake_all(&nfd->readers);
        }
        if (ev & (EPOLLOUT | EPOLLERR | EPOLLHUP))
            wake_all(&nfd->writers);
    }
    if (timeout != 0) /* we may have slept: timers may be due now */
        st__timers_fire(st__now());
    if (st__rt.timecache_on)
        st__rt.cached_time = time(NULL);
}

static int fdtab_reserve(int osfd)
{
    if (osfd < st__rt.fdtab_size)
        return 0;
    int size = st__rt.fdtab_size ? st__rt.fdtab_size : 1024;
    while (size <= osfd)
        size *= 2;
    struct _st_netfd **tab = realloc(st__rt.fdtab, (size_t)size * sizeof(*tab));
    if (!tab) {
        errno = ENOMEM;
        return -1;
    }
    memset(tab + st__rt.fdtab_size, 0, (size_t)(size - st__rt.fdtab_size) * sizeof(*tab));
    st__rt.fdtab = tab;
    st__rt.fdtab_size = size;
    return 0;
}

/* Returns the fd's entry with one more reference, registering it with epoll if it is new. */
struct _st_netfd *st__fd_attach(int osfd)
{
    if (osfd < 0) {
        errno = EBADF;
        return NULL;
    }
    if (fdtab_reserve(osfd) < 0)
        return NULL;
    struct _st_netfd *nfd = st__rt.fdtab[osfd];
    if (nfd) {
        nfd->refs++;
        return nfd;
    }
    nfd = calloc(1, sizeof(*nfd));
    if (!nfd) {
        errno = ENOMEM;
        return NULL;
    }
    nfd->osfd = osfd;
    nfd->refs = 1;
    st__list_init(&nfd->readers);
    st__list_init(&nfd->writers);
    struct epoll_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLPRI | EPOLLET;
    ev.data.fd = osfd;
    if (epoll_ctl(st__rt.epfd, EPOLL_CTL_ADD, osfd, &ev) == 0) {
        nfd->in_epoll = 1;
    } else if (errno != EPERM) { /* EPERM: a regular file, which is always ready */
        free(nfd);
        return NULL;
    }
    st__rt.fdtab[osfd] = nfd;
    return nfd;
}

/*
 * Takes the fd out of epoll and the fd table and wakes its waiters with EBADF. The entry lives on
 * until its last reference is released, so st_poll() callers can still let go of it.
 */
void st__fd_detach(struct _st_netfd *nfd)
{
    if (nfd->detached)
        return;
    nfd->detached = 1;
    if (nfd->in_epoll)
        epoll_ctl(st__rt.epfd, EPOLL_CTL_DEL, nfd->osfd, NULL); /* fails if already closed */
    st__rt.fdtab[nfd->osfd] = NULL;
    while (!st__list_empty(&nfd->readers) || !st__list_empty(&nfd->writers)) {
        struct st_link *l = st__list_empty(&nfd->readers) ? nfd->writers.next : nfd->readers.next;
        struct st_waiter *w = st__container_of(l, struct st_waiter, link);
        st__list_remove(&w->link);
        st__wake(w->thread, EBADF);
    }
}

void st__fd_release(struct _st_netfd *nfd)
{
    if (--nfd->refs > 0)
        return;
    st__fd_detach(nfd);
    free(nfd);
}

/* Parks until the fd may be readable (or writable). Call only after the syscall said EAGAIN. */
int st__fd_wait(struct _st_netfd *nfd, int for_write, st_utime_t timeout)
{
    if (!nfd->in_epoll)
        return 0; /* never blocks */
    struct st_waiter w;
    w.thread = st__rt.current;
    w.next = NULL;
    st__list_append(for_write ? &nfd->writers : &nfd->readers, &w.link);
    return st__park(&w, timeout);
}

/* One pollfd being watched: its entry and up to one waiter per direction. */
struct poll_slot {
    struct _st_netfd *nfd;
    struct st_waiter rd, wr;
};

#define ST_POLL_LOCAL 8

int st_poll(struct pollfd *pds, int npds, st_utime_t timeout)
{
    if (npds < 0) {
        errno = EINVAL;
        return -1;
    }
    if (st__take_interrupt() < 0)
        return -1;
    /* The edge for readiness that is already there may be long gone: ask the kernel first. */
    int n = poll(pds, (nfds_t)npds, 0);
    if (n != 0 || timeout == 0)
        return n;

    struct poll_slot local[ST_POLL_LOCAL];
    struct poll_slot *slots = local;
    if (npds > ST_POLL_LOCAL) {
        slots = calloc((size_t)npds, sizeof(*slots));
        if (!slots) {
            errno = ENOMEM;
            return -1;
        }
    }
    st_utime_t deadline = 0;
    if (timeout != ST_UTIME_NO_TIMEOUT)
        deadline = st__now() + timeout;

    int attached = 0;
    for (; attached < npds; attached++) {
        slots[attached].nfd = NULL;
        if (pds[attached].fd >= 0 && !(slots[attached].nfd = st__fd_attach(pds[attached].fd)))
            break;
    }
    if (attached < npds) {
        n = -1;
        goto out;
    }

    for (;;) {
        struct st_waiter *chain = NULL;
        struct _st_thread *me = st__rt.current;
        for (int i = 0; i < npds; i++) {
            struct poll_slot *s = &slots[i];
            if (!s->nfd || s->nfd->detached)
                continue;
            short ev = pds[i].events;
            /* With neither direction asked for, still wake on errors and hangups (readers). */
            if ((ev & (POLLIN | POLLPRI | POLLRDHUP)) || !(ev & POLLOUT)) {
                s->rd.thread = me;
                s->rd.next = chain;
                chain = &s->rd;
                st__list_append(&s->nfd->readers, &s->rd.link);
            }
            if (ev & POLLOUT) {
                s->wr.thread = me;
                s->wr.next = chain;
                chain = &s->wr;
                st__list_append(&s->nfd->writers, &s->wr.link);
            }
        }
        st_utime_t wait = ST_UTIME_NO_TIMEOUT;
        if (timeout != ST_UTIME_NO_TIMEOUT) {
            st_utime_t now = st__now();
            wait = deadline > now ? deadline - now : 0;
        }
        if (st__park(chain, wait) < 0) {
            if (errno == ETIME) {
                n = 0;
                break;
            }
            if (errno != EBADF) { /* EINTR */
                n = -1;
                break;
            }
            /* EBADF: a watched netfd was closed; poll() below reports POLLNVAL. */
        }
        n = poll(pds, (nfds_t)npds, 0);
        if (n != 0)
            break;
        /* An edge we were not interested in (e.g. writable while waiting to read): wait on. */
    }

out:
    for (int i = 0; i < attached; i++)
        if (slots[i].nfd)
            st__fd_release(slots[i].nfd);
    if (slots != local) {
        int saved = errno;
        free(slots);
        errno = saved;
    }
    return n;
}

int st_netfd_poll(st_netfd_t fd, int how, st_utime_t timeout)
{
    struct pollfd pd;
    pd.fd = fd->osfd;
    pd.events = (short)how;
    pd.revents = 0;
    int n = st_poll(&pd, 1, timeout);
    if (n < 0)
        return -1;
    if (n == 0) {
        errno = ETIME;
        return -1;
    }
    if (pd.revents & POLLNVAL) {
        errno = EBADF;
        return -1;
    }
    return 0;
}

int st_getfdlimit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
        return -1;
    return rl.rlim_cur > INT_MAX ? INT_MAX : (int)rl.rlim_cur;
}
