// Included by the units CMake generates from cuda/reduce_table.h: each row in the unit becomes
// the one instantiation of its kernel set, behind a function that reduce_entries.cu's lookup
// table points at. The names come from reduce_run.cuh (TT_REDUCE_TYPED_NAME, TT_REDUCE_DYN_NAME).
#pragma once

#include "cuda/reduce_functor.cuh"
#include "cuda/reduce_run.cuh"

#define TT_REDUCE_TYPED(T, F, IN, OUT)                                                             \
    namespace tt_reduce {                                                                          \
    tensor_status TT_REDUCE_TYPED_NAME(T, F, IN, OUT)(tensor_iter_t * iter, Act & a) {             \
        return act<Op<F, IN, OUT>>(iter, a);                                                       \
    }                                                                                              \
    }
#define TT_REDUCE_DYN(T, F, N)                                                                     \
    namespace tt_reduce {                                                                          \
    tensor_status TT_REDUCE_DYN_NAME(T, F, N)(tensor_iter_t * iter, Act & a) {                    \
        return act<DynOp<F, N>>(iter, a);                                                          \
    }                                                                                              \
    }
