/* The CPU thread count used by the iterator's parallel loops. */
#include <stdatomic.h>

#include "iterator/iter_impl.h"
#include "runtime/error.h"

#if TENSOR_HAVE_OPENMP
#include <omp.h>
#endif

/* 0: follow OpenMP's default (omp_get_max_threads, i.e. OMP_NUM_THREADS). */
static atomic_int num_threads_override;

tensor_status tensor_set_num_threads(int n) {
    if (n < 0)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_set_num_threads: n must be >= 0 (0 = default), got %d",
                            n);
    if (n > TENSOR_MAX_THREADS)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT,
                            "tensor_set_num_threads: n is %d, more than TENSOR_MAX_THREADS (%d)", n, TENSOR_MAX_THREADS);
    atomic_store(&num_threads_override, n);
    return TENSOR_OK;
}

int tensor_get_num_threads(void) {
#if TENSOR_HAVE_OPENMP
    int n = atomic_load(&num_threads_override);
    if (n > 0) return n;
    n = omp_get_max_threads(); /* OMP_NUM_THREADS may ask for any number */
    return n < 1 ? 1 : n > TENSOR_MAX_THREADS ? TENSOR_MAX_THREADS : n;
#else
    return 1;
#endif
}

bool tt_iter_in_parallel(void) {
#if TENSOR_HAVE_OPENMP
    return omp_in_parallel() != 0;
#else
    return false;
#endif
}
