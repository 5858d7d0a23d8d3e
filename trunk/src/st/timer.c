/*
 * timer.c: the monotonic clock, the timer heap and sleeping.
 *
 * Parked threads with a timeout sit in a binary min-heap keyed by (due time, sequence), so the
 * nearest timeout is at the root and equal due times expire in the order they were set. Each
 * thread remembers its heap index, so a thread woken early leaves the heap in O(log n).
 */
#include "st_runtime.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <time.h>

st_utime_t st__now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (st_utime_t)ts.tv_sec * 1000000ULL + (st_utime_t)ts.tv_nsec / 1000ULL;
}

/* Makes room for n entries, so that st__timer_add() never fails. */
int st__timer_reserve(size_t n)
{
    if (n <= st__rt.heap_cap)
        return 0;
    size_t cap = st__rt.heap_cap ? st__rt.heap_cap : 64;
    while (cap < n)
        cap *= 2;
    struct _st_thread **heap = realloc(st__rt.heap, cap * sizeof(*heap));
    if (!heap) {
        errno = ENOMEM;
        return -1;
    }
    st__rt.heap = heap;
    st__rt.heap_cap = cap;
    return 0;
}

static int earlier(const struct _st_thread *a, const struct _st_thread *b)
{
    return a->due < b->due || (a->due == b->due && a->due_seq < b->due_seq);
}

static void place(size_t i, struct _st_thread *t)
{
    st__rt.heap[i] = t;
    t->heap_index = i;
}

static void sift_up(size_t i)
{
    struct _st_thread *t = st__rt.heap[i];
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!earlier(t, st__rt.heap[parent]))
            break;
        place(i, st__rt.heap[parent]);
        i = parent;
    }
    place(i, t);
}

static void sift_down(size_t i)
{
    struct _st_thread *t = st__rt.heap[i];
    size_t n = st__rt.heap_len;
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= n)
            break;
        if (child + 1 < n && earlier(st__rt.heap[child + 1], st__rt.heap[child]))
            child++;
        if (!earlier(st__rt.heap[child], t))
            break;
        place(i, st__rt.heap[child]);
        i = child;
    }
    place(i, t);
}

/* Arms a timer `timeout` microseconds from now (saturating, so huge timeouts never wrap). */
void st__timer_add(struct _st_thread *t, st_utime_t timeout)
{
    st_utime_t now = st__now();
    t->due = timeout < (st_utime_t)-1 - now ? now + timeout : (st_utime_t)-1;
    t->due_seq = st__rt.heap_seq++;
    size_t i = st__rt.heap_len++;
    place(i, t);
    sift_up(i);
}

void st__timer_remove(struct _st_thread *t)
{
    size_t i = t->heap_index;
    size_t last = --st__rt.heap_len;
    t->heap_index = ST_NOT_IN_HEAP;
    if (i == last)
        return;
    place(i, st__rt.heap[last]);
    /* The moved entry may belong above or below its new slot. */
    if (i > 0 && earlier(st__rt.heap[i], st__rt.heap[(i - 1) / 2]))
        sift_up(i);
    else
        sift_down(i);
}

void st__timers_fire(st_utime_t now)
{
    while (st__rt.heap_len > 0 && st__rt.heap[0]->due <= now)
        st__wake(st__rt.heap[0], ETIME); /* removes it from the heap */
}

/* epoll_wait() timeout until the nearest timer: rounded up, -1 when there is none. */
int st__timer_timeout_ms(st_utime_t now)
{
    if (st__rt.heap_len == 0)
        return -1;
    st_utime_t due = st__rt.heap[0]->due;
    if (due <= now)
        return 0;
    st_utime_t ms = (due - now + 999) / 1000;
    return ms > INT_MAX ? INT_MAX : (int)ms;
}

st_utime_t st_utime(void)
{
    return st__now();
}

time_t st_time(void)
{
    if (st__rt.timecache_on)
        return st__rt.cached_time;
    return time(NULL);
}

/* With the cache on, st_time() is refreshed each time the scheduler polls for events. */
int st_timecache_set(int on)
{
    int was = st__rt.timecache_on;
    st__rt.timecache_on = on ? 1 : 0;
    if (on)
        st__rt.cached_time = time(NULL);
    return was;
}

int st_usleep(st_utime_t usecs)
{
    if (usecs == 0) {
        if (st__take_interrupt() < 0)
            return -1;
        st_thread_yield();
        return 0;
    }
    int saved = errno;
    if (st__park(NULL, usecs) < 0 && errno != ETIME)
        return -1; /* EINTR; with no timeout this is the only way out */
    errno = saved;
    return 0;
}

int st_sleep(int secs)
{
    return st_usleep(secs >= 0 ? (st_utime_t)secs * 1000000ULL : ST_UTIME_NO_TIMEOUT);
}
