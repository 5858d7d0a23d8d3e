/*
 * stack.c: coroutine stacks.
 *
 * Each stack is its own mmap with a PROT_NONE guard page below it, so an overflow faults instead
 * of corrupting a neighbour. A few default-size stacks are kept for reuse, since mmap + mprotect +
 * munmap cost more than a whole coroutine's life when coroutines are short.
 *
 * Valgrind (SRS_VALGRIND): every stack is registered, so switching stacks is not taken for a huge
 * frame. Stacks are not cached there: a dead coroutine's frames would keep stale pointers in
 * scanned memory and hide leaks from the leak checker.
 * ASAN: a coroutine that exits leaves its frames' redzones poisoned; unpoison before reuse.
 */
#include "st_runtime.h"

#include <errno.h>
#include <sys/mman.h>

#ifdef SRS_VALGRIND
#include <valgrind/valgrind.h>
#define ST_CACHE_STACKS 0
#else
#define ST_CACHE_STACKS 1
#endif

#ifdef ST_ASAN
#include <sanitizer/asan_interface.h>
#endif

int st__stack_alloc(struct _st_thread *t, size_t size)
{
    size_t page = st__rt.page_size;
    size = (size + page - 1) & ~(page - 1);
    size_t map_size = size + page;

    if (ST_CACHE_STACKS && st__rt.ncached > 0 &&
        st__rt.stack_cache[st__rt.ncached - 1].map_size == map_size) {
        struct st_stack_slot *s = &st__rt.stack_cache[--st__rt.ncached];
        t->stack_map = s->map;
        t->vg_stack_id = s->vg_stack_id;
    } else {
        void *map = mmap(NULL, map_size, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
        if (map == MAP_FAILED) {
            errno = ENOMEM;
            return -1;
        }
        if (mprotect(map, page, PROT_NONE) < 0) {
            munmap(map, map_size);
            errno = ENOMEM;
            return -1;
        }
        t->stack_map = map;
#ifdef SRS_VALGRIND
        t->vg_stack_id = VALGRIND_STACK_REGISTER((char *)map + page, (char *)map + map_size - 1);
#endif
    }
    t->stack_map_size = map_size;
    t->stack_bottom = (char *)t->stack_map + page;
    t->stack_size = size;
    return 0;
}

void st__stack_free(struct _st_thread *t)
{
    if (!t->stack_map)
        return;
#ifdef ST_ASAN
    __asan_unpoison_memory_region(t->stack_bottom, t->stack_size);
#endif
    if (ST_CACHE_STACKS && t->stack_size == ST_DEFAULT_STACK_SIZE &&
        st__rt.ncached < ST_STACK_CACHE_MAX) {
        struct st_stack_slot *s = &st__rt.stack_cache[st__rt.ncached++];
        s->map = t->stack_map;
        s->map_size = t->stack_map_size;
        s->vg_stack_id = t->vg_stack_id;
    } else {
#ifdef SRS_VALGRIND
        VALGRIND_STACK_DEREGISTER(t->vg_stack_id);
#endif
        munmap(t->stack_map, t->stack_map_size);
    }
    t->stack_map = NULL;
    t->stack_bottom = NULL;
    t->stack_size = 0;
}
