/* The host allocation wrappers (runtime/alloc.h) and their fault-injection counter. */
#include "runtime/alloc.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

/* One armed counter per kind of memory. */
typedef struct fault_counter {
    atomic_int_fast64_t fail_at;  /* 0: off; else allocations left until the failing one */
    atomic_int_fast64_t attempts; /* since the hook was last called */
} fault_counter;
static fault_counter host, device;

static void arm(fault_counter *c, int64_t n) {
    atomic_store(&c->attempts, 0);
    atomic_store(&c->fail_at, n > 0 ? n : 0);
}

/* true when this allocation is the one to fail. */
static bool fails(fault_counter *c) {
    if (atomic_load_explicit(&c->fail_at, memory_order_relaxed) == 0) return false;
    atomic_fetch_add(&c->attempts, 1);
    return atomic_fetch_sub(&c->fail_at, 1) == 1;
}

void tt_fault_fail_nth_host_alloc(int64_t n) { arm(&host, n); }
int64_t tt_fault_host_allocs(void) { return (int64_t)atomic_load(&host.attempts); }
void tt_fault_fail_nth_device_alloc(int64_t n) { arm(&device, n); }
int64_t tt_fault_device_allocs(void) { return (int64_t)atomic_load(&device.attempts); }
bool tt_fault_device_alloc_injected(void) { return fails(&device); }

static bool injected(void) { return fails(&host); }

void *tt_malloc(size_t n) { return injected() ? NULL : malloc(n); }
void *tt_calloc(size_t count, size_t size) { return injected() ? NULL : calloc(count, size); }
void *tt_realloc(void *p, size_t n) { return injected() ? NULL : realloc(p, n); }
void *tt_aligned_alloc(size_t alignment, size_t n) { return injected() ? NULL : aligned_alloc(alignment, n); }
