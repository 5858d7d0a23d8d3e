/*
 * st_runtime.h: internals shared by the runtime's .c files. Not part of the API.
 *
 * Model: a thread is RUNNING (exactly one), RUNNABLE (on the run queue), PARKED (waiting) or a
 * ZOMBIE (exited). A parked thread sits on zero or more wait lists through st_waiter nodes that
 * live on its own stack, and maybe in the timer heap. st__wake() is the only way out of PARKED:
 * it unlinks all of the thread's waiters and its timer at once, so a wait list only ever holds
 * parked threads, and a signal or an I/O event never goes to a thread that already left.
 */
#ifndef ST_RUNTIME_H
#define ST_RUNTIME_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <stddef.h>
#include <sys/epoll.h>
#include <time.h>

#include "st.h"

#if defined(__SANITIZE_ADDRESS__)
#define ST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ST_ASAN 1
#endif
#endif

#ifdef ST_ASAN
/* ASAN frames are 2-3x larger than plain ones. */
#define ST_DEFAULT_STACK_SIZE (256 * 1024)
#else
#define ST_DEFAULT_STACK_SIZE (128 * 1024)
#endif

#define ST_KEYS_MAX 16
#define ST_STACK_CACHE_MAX 16  /* recycled default-size stacks */
#define ST_EPOLL_BATCH 512     /* events taken per epoll_wait */
#define ST_POLL_EVERY 1024     /* switches without idle before we peek at I/O and timers anyway */
#define ST_NOT_IN_HEAP ((size_t)-1)

/* Intrusive circular doubly linked list; a detached node points to itself. */
struct st_link {
    struct st_link *prev, *next;
};

static inline void st__list_init(struct st_link *l) { l->prev = l->next = l; }
static inline int st__list_empty(const struct st_link *l) { return l->next == l; }
static inline void st__list_append(struct st_link *head, struct st_link *n)
{
    n->prev = head->prev;
    n->next = head;
    head->prev->next = n;
    head->prev = n;
}
static inline void st__list_remove(struct st_link *n)
{
    n->prev->next = n->next;
    n->next->prev = n->prev;
    n->prev = n->next = n;
}

#define st__container_of(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))

enum st_state { ST_RUNNING, ST_RUNNABLE, ST_PARKED, ST_ZOMBIE };

#define ST_FL_PRIMORDIAL 0x1
#define ST_FL_JOINABLE 0x2
#define ST_FL_INTERRUPT 0x4 /* interrupt pending: the next (or current) wait returns EINTR */

/* One thread on one wait list; lives on the waiting thread's stack. */
struct st_waiter {
    struct st_link link;
    struct _st_thread *thread;
    struct st_waiter *next; /* the thread's other waiters (st_poll waits on many lists) */
};

struct _st_thread {
    void *sp; /* saved stack pointer while switched out (see switch.S) */
    enum st_state state;
    int flags;
    int wake_reason; /* 0 or the errno st__park() returns: ETIME, EINTR, EBADF */
    struct st_link runq_link;
    struct st_waiter *waiters; /* while PARKED */
    size_t heap_index;         /* in the timer heap, or ST_NOT_IN_HEAP */
    st_utime_t due;
    unsigned long long due_seq; /* orders equal due times FIFO */

    void *(*start)(void *);
    void *arg;
    void *retval;
    struct _st_thread *joiner;

    void *stack_map; /* mmap'ed region: guard page + stack */
    size_t stack_map_size;
    void *stack_bottom; /* lowest usable address */
    size_t stack_size;
    unsigned vg_stack_id;
    void *asan_fake_stack;

    void *key_data[ST_KEYS_MAX];
};

/* An fd known to epoll: a user netfd, or an fd that st_poll() watches for a while. */
struct _st_netfd {
    int osfd;
    int refs;       /* 1 for an open netfd + 1 per st_poll() call watching it */
    int owned;      /* opened through st_netfd_open*() and not yet freed */
    int in_epoll;   /* registered (regular files cannot be, and never block) */
    int detached;   /* removed from the fd table and epoll; freed when refs drops to 0 */
    /* A short read emptied the receive queue and no input edge came since: the next st_read()
     * waits first instead of spending a read() on EAGAIN. Cleared by every input edge. */
    int rd_drained;
    int rd_hup;     /* the peer hung up or the fd failed: data may remain with no edge to come */
    struct st_link readers, writers;
    void *private_data;
    void (*destructor)(void *);
};

struct _st_cond {
    struct st_link waitq;
};

struct _st_mutex {
    struct _st_thread *owner;
    struct st_link waitq;
};

struct st_stack_slot {
    void *map;
    size_t map_size;
    unsigned vg_stack_id;
};

/* The whole mutable state of the runtime: one per process (one OS thread runs it). */
struct st_runtime {
    int initialized;
    int eventsys;
    size_t page_size;

    /* scheduler */
    struct _st_thread *current;
    struct _st_thread *prev; /* the thread we switched away from (ASAN bookkeeping) */
    struct _st_thread *dead; /* exited; its stack is released by the next thread to run */
    struct _st_thread primordial;
    struct st_link runq;
    int nthreads; /* not yet exited, primordial included */
    unsigned streak;

    /* timers: binary min-heap of parked threads keyed by (due, due_seq) */
    struct _st_thread **heap;
    size_t heap_len, heap_cap;
    unsigned long long heap_seq;

    /* events */
    int epfd;
    struct _st_netfd **fdtab; /* indexed by osfd */
    int fdtab_size;
    struct epoll_event events[ST_EPOLL_BATCH];

    /* wake-up coalescing (st_set_wakeup_coalesce), off while coalesce_us is 0 */
    st_utime_t coalesce_us;
    int coalescing;          /* busy: naps before blocking waits */
    st_utime_t last_wake;    /* when the last blocking wait returned events */
    st_utime_t gap_avg;      /* not coalescing: moving average of the gaps between wake-ups */
    st_utime_t blocked_avg;  /* coalescing: moving average of what a wait still blocked */
    unsigned long long naps;

    /* time */
    int timecache_on;
    time_t cached_time;

    /* thread-specific data */
    int nkeys;
    void (*key_dtor[ST_KEYS_MAX])(void *);

    /* stacks */
    int ncached;
    struct st_stack_slot stack_cache[ST_STACK_CACHE_MAX];
};

extern struct st_runtime st__rt;

/* sched.c */
int st__park(struct st_waiter *waiters, st_utime_t timeout);
void st__wake(struct _st_thread *t, int reason);
int st__take_interrupt(void);

/* timer.c */
st_utime_t st__now(void);
int st__timer_reserve(size_t n);
void st__timer_add(struct _st_thread *t, st_utime_t timeout);
void st__timer_remove(struct _st_thread *t);
void st__timers_fire(st_utime_t now);
int st__timer_timeout_ms(st_utime_t now);

/* event.c */
int st__event_init(void);
void st__event_poll(int may_block);
struct _st_netfd *st__fd_attach(int osfd);
void st__fd_release(struct _st_netfd *nfd);
void st__fd_detach(struct _st_netfd *nfd);
int st__fd_wait(struct _st_netfd *nfd, int for_write, st_utime_t timeout);

/* stack.c */
int st__stack_alloc(struct _st_thread *t, size_t size);
void st__stack_free(struct _st_thread *t);

/* key.c */
void st__keys_run_destructors(struct _st_thread *t);

/* switch.S: save callee-saved registers on the current stack, store sp in *save_sp, load
 * load_sp, restore the registers saved there and return into that context. */
void st__ctx_switch(void **save_sp, void *load_sp);
void st__ctx_entry(void);

#endif /* ST_RUNTIME_H */
