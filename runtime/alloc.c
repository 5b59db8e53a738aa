/* The host allocation wrappers (runtime/alloc.h) and their fault-injection counter. */
#include "runtime/alloc.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

static atomic_int_fast64_t fail_at;  /* 0: off; else allocations left until the failing one */
static atomic_int_fast64_t attempts; /* since the hook was last called */

void tt_fault_fail_nth_host_alloc(int64_t n) {
    atomic_store(&attempts, 0);
    atomic_store(&fail_at, n > 0 ? n : 0);
}

int64_t tt_fault_host_allocs(void) { return (int64_t)atomic_load(&attempts); }

/* true when this allocation is the one to fail. */
static bool injected(void) {
    if (atomic_load_explicit(&fail_at, memory_order_relaxed) == 0) return false;
    atomic_fetch_add(&attempts, 1);
    return atomic_fetch_sub(&fail_at, 1) == 1;
}

void *tt_malloc(size_t n) { return injected() ? NULL : malloc(n); }
void *tt_calloc(size_t count, size_t size) { return injected() ? NULL : calloc(count, size); }
void *tt_realloc(void *p, size_t n) { return injected() ? NULL : realloc(p, n); }
void *tt_aligned_alloc(size_t alignment, size_t n) { return injected() ? NULL : aligned_alloc(alignment, n); }
