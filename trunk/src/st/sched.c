/*
 * sched.c: the runtime state, the run queue, switching, parking and the thread lifecycle.
 *
 * There is no idle coroutine: a thread that blocks runs the scheduler on its own stack, and when
 * nothing is runnable it waits in epoll (event.c) right there until a timer or an fd wakes
 * someone. This saves a switch per wakeup.
 */
#include "st_runtime.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef ST_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

struct st_runtime st__rt;

static void thread_main(void *arg);

/* Runs on the resumed side of every switch, before anything else. */
static void after_switch(struct _st_thread *me)
{
#ifdef ST_ASAN
    const void *from_bottom;
    size_t from_size;
    __sanitizer_finish_switch_fiber(me ? me->asan_fake_stack : NULL, &from_bottom, &from_size);
    /* The main stack's bounds are only known to ASAN: learn them on the first switch away. */
    if (st__rt.prev == &st__rt.primordial && st__rt.primordial.stack_bottom == NULL) {
        st__rt.primordial.stack_bottom = (void *)from_bottom;
        st__rt.primordial.stack_size = from_size;
    }
#else
    (void)me;
#endif
    /* An exited thread cannot free the stack it runs on: the next one to run does. */
    struct _st_thread *dead = st__rt.dead;
    if (dead) {
        st__rt.dead = NULL;
        st__stack_free(dead);
        if (!(dead->flags & ST_FL_JOINABLE))
            free(dead);
    }
}

static void switch_to(struct _st_thread *from, struct _st_thread *to)
{
    st__rt.current = to;
    st__rt.prev = from;
    to->state = ST_RUNNING;
#ifdef ST_ASAN
    /* An exited thread never comes back (main does, to call exit): NULL lets ASAN drop its
     * fake stack. */
    int gone = from->state == ST_ZOMBIE && !(from->flags & ST_FL_PRIMORDIAL);
    __sanitizer_start_switch_fiber(gone ? NULL : &from->asan_fake_stack, to->stack_bottom,
                                   to->stack_size);
#endif
    st__ctx_switch(&from->sp, to->sp);
    after_switch(from);
}

/*
 * Gives the CPU away until the current thread is scheduled again. The caller has already made
 * itself RUNNABLE (on the run queue), PARKED or a ZOMBIE.
 */
static void schedule(void)
{
    struct _st_thread *me = st__rt.current;
    for (;;) {
        if (!st__list_empty(&st__rt.runq)) {
            /* Threads that keep yielding must not starve I/O and timers. */
            if (++st__rt.streak >= ST_POLL_EVERY) {
                st__rt.streak = 0;
                st__event_poll(0);
            }
            struct st_link *l = st__rt.runq.next;
            st__list_remove(l);
            struct _st_thread *next = st__container_of(l, struct _st_thread, runq_link);
            if (next != me)
                switch_to(me, next);
            else
                me->state = ST_RUNNING;
            return;
        }
        st__rt.streak = 0;
        st__event_poll(1);
    }
}

static void runq_push(struct _st_thread *t)
{
    t->state = ST_RUNNABLE;
    st__list_append(&st__rt.runq, &t->runq_link);
}

static void detach_waiters(struct _st_thread *t)
{
    for (struct st_waiter *w = t->waiters; w; w = w->next)
        st__list_remove(&w->link);
    t->waiters = NULL;
}

int st__take_interrupt(void)
{
    struct _st_thread *me = st__rt.current;
    if (me->flags & ST_FL_INTERRUPT) {
        me->flags &= ~ST_FL_INTERRUPT;
        errno = EINTR;
        return -1;
    }
    return 0;
}

/*
 * Blocks the current thread, already linked on the lists of `waiters`, until st__wake() or the
 * timeout. Returns 0 when woken, else -1 with errno ETIME, EINTR or EBADF. A pending interrupt
 * returns EINTR at once.
 */
int st__park(struct st_waiter *waiters, st_utime_t timeout)
{
    struct _st_thread *me = st__rt.current;
    me->waiters = waiters;
    if (me->flags & ST_FL_INTERRUPT) {
        detach_waiters(me);
        return st__take_interrupt();
    }
    if (timeout != ST_UTIME_NO_TIMEOUT)
        st__timer_add(me, timeout);
    me->wake_reason = 0;
    me->state = ST_PARKED;
    schedule();
    if (st__take_interrupt() < 0)
        return -1;
    if (me->wake_reason) {
        errno = me->wake_reason;
        return -1;
    }
    return 0;
}

/* Makes a parked thread runnable; `reason` is what its st__park() reports. No-op otherwise. */
void st__wake(struct _st_thread *t, int reason)
{
    if (t->state != ST_PARKED)
        return;
    detach_waiters(t);
    if (t->heap_index != ST_NOT_IN_HEAP)
        st__timer_remove(t);
    t->wake_reason = reason;
    runq_push(t);
}

/*
 * Lays out a frame on the new stack that st__ctx_switch() will pop (see switch.S), so that the
 * first switch to the thread "returns" into st__ctx_entry, which calls thread_main(t).
 */
static void *ctx_init(struct _st_thread *t)
{
    uintptr_t top = ((uintptr_t)t->stack_bottom + t->stack_size) & ~(uintptr_t)15;
#if defined(__x86_64__)
    /* r15 r14 r13 r12 rbx rbp ret: after the 7 pops rsp = top - 16, aligned for the call. */
    void **sp = (void **)(top - 72);
    memset(sp, 0, 72);
    sp[2] = t;                          /* r13: argument */
    sp[3] = (void *)thread_main;        /* r12: function */
    sp[6] = (void *)st__ctx_entry;      /* return address */
#elif defined(__aarch64__)
    /* x19..x28 x29 x30 d8..d15: after the pop sp = top, aligned. */
    void **sp = (void **)(top - 160);
    memset(sp, 0, 160);
    sp[0] = (void *)thread_main;        /* x19: function */
    sp[1] = t;                          /* x20: argument */
    sp[11] = (void *)st__ctx_entry;     /* x30: return address */
#else
#error "st: unsupported architecture"
#endif
    return sp;
}

static void thread_main(void *arg)
{
    struct _st_thread *me = arg;
    after_switch(NULL);
    st_thread_exit(me->start(me->arg));
}

int st_init(void)
{
    if (st__rt.initialized)
        return 0;
    long page = sysconf(_SC_PAGESIZE);
    st__rt.page_size = page > 0 ? (size_t)page : 4096;
    st__list_init(&st__rt.runq);
    if (st__event_init() < 0)
        return -1;
    if (st__timer_reserve(64) < 0)
        return -1;

    struct _st_thread *me = &st__rt.primordial;
    memset(me, 0, sizeof(*me));
    me->state = ST_RUNNING;
    me->flags = ST_FL_PRIMORDIAL;
    me->heap_index = ST_NOT_IN_HEAP;
    st__list_init(&me->runq_link);
    st__rt.current = me;
    st__rt.nthreads = 1;
    st__rt.initialized = 1;
    return 0;
}

int st_set_eventsys(int eventsys)
{
    if (st__rt.initialized) {
        errno = EBUSY;
        return -1;
    }
    if (eventsys < ST_EVENTSYS_DEFAULT || eventsys > ST_EVENTSYS_ALT) {
        errno = EINVAL;
        return -1;
    }
    st__rt.eventsys = eventsys;
    return 0;
}

int st_get_eventsys(void)
{
    return st__rt.initialized ? ST_EVENTSYS_ALT : -1;
}

const char *st_get_eventsys_name(void)
{
    return "epoll";
}

st_thread_t st_thread_create(void *(*start)(void *arg), void *arg, int joinable, int stack_size)
{
    if (!st__rt.initialized || !start) {
        errno = EINVAL;
        return NULL;
    }
    /* Every thread can sit in the timer heap once: grow it now so waits never fail on it. */
    if (st__timer_reserve((size_t)st__rt.nthreads + 1) < 0)
        return NULL;
    struct _st_thread *t = calloc(1, sizeof(*t));
    if (!t) {
        errno = ENOMEM;
        return NULL;
    }
    size_t size = stack_size > 0 ? (size_t)stack_size : ST_DEFAULT_STACK_SIZE;
#ifdef ST_ASAN
    if (stack_size > 0)
        size *= 2;
#endif
    if (st__stack_alloc(t, size) < 0) {
        free(t);
        return NULL;
    }
    t->start = start;
    t->arg = arg;
    t->flags = joinable ? ST_FL_JOINABLE : 0;
    t->heap_index = ST_NOT_IN_HEAP;
    t->sp = ctx_init(t);
    st__rt.nthreads++;
    runq_push(t);
    return t;
}

void st_thread_exit(void *retval)
{
    struct _st_thread *me = st__rt.current;
    me->retval = retval;
    st__keys_run_destructors(me);
    if (me->joiner)
        st__wake(me->joiner, 0);
    me->state = ST_ZOMBIE;
    struct _st_thread *main_thread = &st__rt.primordial;
    if (!(me->flags & ST_FL_PRIMORDIAL))
        st__rt.dead = me;
    if (--st__rt.nthreads > 0)
        schedule(); /* never returns: a zombie is not scheduled again */
    /*
     * As in State Threads, the last thread out ends the process, with status 0. Exit on the main
     * stack: leak checkers (LSan, valgrind) scan that one and would miss what main's frames hold.
     */
    if (me != main_thread)
        switch_to(me, main_thread); /* resumes main's own st_thread_exit() below */
    exit(0);
}

int st_thread_join(st_thread_t t, void **retvalp)
{
    struct _st_thread *me = st__rt.current;
    if (t == me) {
        errno = EDEADLK;
        return -1;
    }
    if (!t || !(t->flags & ST_FL_JOINABLE) || t->joiner) {
        errno = EINVAL;
        return -1;
    }
    while (t->state != ST_ZOMBIE) {
        t->joiner = me;
        int rv = st__park(NULL, ST_UTIME_NO_TIMEOUT);
        t->joiner = NULL;
        if (rv < 0)
            return -1;
    }
    if (retvalp)
        *retvalp = t->retval;
    free(t); /* its stack went back when it exited */
    return 0;
}

void st_thread_interrupt(st_thread_t t)
{
    if (t->state == ST_ZOMBIE)
        return;
    t->flags |= ST_FL_INTERRUPT;
    if (t->state == ST_PARKED)
        st__wake(t, EINTR);
}

st_thread_t st_thread_self(void)
{
    return st__rt.current;
}

void st_thread_yield(void)
{
    struct _st_thread *me = st__rt.current;
    if (st__list_empty(&st__rt.runq)) {
        st__event_poll(0); /* nobody else wants the CPU: let I/O and timers catch up */
        if (st__list_empty(&st__rt.runq))
            return;
    }
    runq_push(me);
    schedule();
}
