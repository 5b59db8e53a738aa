/* Internal: every host allocation the library makes for itself goes through these wrappers, so
 * that the fault tests (tests/fault) can make the Nth one fail and check that each public call
 * then returns an error, leaks nothing and leaves the caller's tensors unchanged. The counter
 * costs one relaxed atomic load per allocation while no fault is armed. */
#ifndef TENSOR_ALLOC_H
#define TENSOR_ALLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

void *tt_malloc(size_t n);
void *tt_calloc(size_t count, size_t size);
void *tt_realloc(void *p, size_t n);
void *tt_aligned_alloc(size_t alignment, size_t n);

/* Test hook: the n-th host allocation from now fails (n >= 1); n == 0 disarms. Process-wide. */
void tt_fault_fail_nth_host_alloc(int64_t n);
/* Host allocations attempted since the hook was last called. */
int64_t tt_fault_host_allocs(void);

/* The same for device memory: a backend asks tt_fault_device_alloc_injected() before each
 * device allocation it makes (the caching allocator's requests, scratch buffers) and fails
 * that one with TENSOR_ERR_OUT_OF_MEMORY when it says so. */
void tt_fault_fail_nth_device_alloc(int64_t n);
int64_t tt_fault_device_allocs(void);
bool tt_fault_device_alloc_injected(void);

#endif
