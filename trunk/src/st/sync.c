/*
 * sync.c: condition variables and mutexes.
 *
 * Waiters queue FIFO. A mutex is handed directly to its longest waiter on unlock, so a thread
 * that unlocks and relocks at once cannot barge ahead of the queue.
 */
#include "st_runtime.h"

#include <errno.h>
#include <stdlib.h>

st_cond_t st_cond_new(void)
{
    struct _st_cond *c = calloc(1, sizeof(*c));
    if (!c) {
        errno = ENOMEM;
        return NULL;
    }
    st__list_init(&c->waitq);
    return c;
}

int st_cond_destroy(st_cond_t c)
{
    if (!st__list_empty(&c->waitq)) {
        errno = EBUSY;
        return -1;
    }
    free(c);
    return 0;
}

/* Returns 0 when signalled, -1 with ETIME or EINTR otherwise. */
int st_cond_timedwait(st_cond_t c, st_utime_t timeout)
{
    struct st_waiter w;
    w.thread = st__rt.current;
    w.next = NULL;
    st__list_append(&c->waitq, &w.link);
    return st__park(&w, timeout);
}

int st_cond_wait(st_cond_t c)
{
    return st_cond_timedwait(c, ST_UTIME_NO_TIMEOUT);
}

static void cond_wake(st_cond_t c, int all)
{
    while (!st__list_empty(&c->waitq)) {
        struct st_waiter *w = st__container_of(c->waitq.next, struct st_waiter, link);
        st__wake(w->thread, 0); /* unlinks w */
        if (!all)
            break;
    }
}

int st_cond_signal(st_cond_t c)
{
    cond_wake(c, 0);
    return 0;
}

int st_cond_broadcast(st_cond_t c)
{
    cond_wake(c, 1);
    return 0;
}

st_mutex_t st_mutex_new(void)
{
    struct _st_mutex *m = calloc(1, sizeof(*m));
    if (!m) {
        errno = ENOMEM;
        return NULL;
    }
    st__list_init(&m->waitq);
    return m;
}

int st_mutex_destroy(st_mutex_t m)
{
    if (m->owner || !st__list_empty(&m->waitq)) {
        errno = EBUSY;
        return -1;
    }
    free(m);
    return 0;
}

int st_mutex_lock(st_mutex_t m)
{
    struct _st_thread *me = st__rt.current;
    if (st__take_interrupt() < 0)
        return -1;
    if (!m->owner) {
        m->owner = me;
        return 0;
    }
    if (m->owner == me) {
        errno = EDEADLK;
        return -1;
    }
    struct st_waiter w;
    w.thread = me;
    w.next = NULL;
    st__list_append(&m->waitq, &w.link);
    int rv = st__park(&w, ST_UTIME_NO_TIMEOUT);
    if (m->owner != me)
        return -1; /* EINTR */
    if (rv < 0)
        me->flags |= ST_FL_INTERRUPT; /* the lock came first; the interrupt stays pending */
    return 0;
}

int st_mutex_unlock(st_mutex_t m)
{
    if (m->owner != st__rt.current) {
        errno = EPERM;
        return -1;
    }
    if (st__list_empty(&m->waitq)) {
        m->owner = NULL;
        return 0;
    }
    struct st_waiter *w = st__container_of(m->waitq.next, struct st_waiter, link);
    m->owner = w->thread;
    st__wake(w->thread, 0); /* unlinks w */
    return 0;
}

int st_mutex_trylock(st_mutex_t m)
{
    if (m->owner) {
        errno = EBUSY;
        return -1;
    }
    m->owner = st__rt.current;
    return 0;
}
