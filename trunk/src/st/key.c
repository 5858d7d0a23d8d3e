/*
 * key.c: thread-specific data. Keys are process-wide (at most ST_KEYS_MAX, never deleted, as in
 * State Threads); values are per thread; destructors run when the thread exits.
 */
#include "st_runtime.h"

#include <errno.h>

int st_key_create(int *keyp, void (*destructor)(void *))
{
    if (st__rt.nkeys >= ST_KEYS_MAX) {
        errno = EAGAIN;
        return -1;
    }
    *keyp = st__rt.nkeys;
    st__rt.key_dtor[st__rt.nkeys++] = destructor;
    return 0;
}

int st_key_getlimit(void)
{
    return ST_KEYS_MAX;
}

/* Replacing a value runs the destructor on the old one (as State Threads does). */
int st_thread_setspecific(int key, void *value)
{
    if (key < 0 || key >= st__rt.nkeys) {
        errno = EINVAL;
        return -1;
    }
    struct _st_thread *me = st__rt.current;
    void *old = me->key_data[key];
    if (value != old) {
        me->key_data[key] = value;
        if (old && st__rt.key_dtor[key])
            st__rt.key_dtor[key](old);
    }
    return 0;
}

void *st_thread_getspecific(int key)
{
    if (key < 0 || key >= st__rt.nkeys)
        return NULL;
    return st__rt.current->key_data[key];
}

/* A destructor may set new values; like POSIX threads, give up after a few rounds. */
void st__keys_run_destructors(struct _st_thread *t)
{
    for (int round = 0; round < 4; round++) {
        int ran = 0;
        for (int k = 0; k < st__rt.nkeys; k++) {
            void *v = t->key_data[k];
            if (!v)
                continue;
            t->key_data[k] = NULL;
            if (st__rt.key_dtor[k]) {
                st__rt.key_dtor[k](v);
                ran = 1;
            }
        }
        if (!ran)
            break;
    }
}
