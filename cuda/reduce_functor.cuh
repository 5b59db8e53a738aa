// The functor families of the FUNCTOR rows of contract/reductions.h, generated from the rows:
// <KERNEL>_F32 / _F64 / _I64 wrap tensor_<KERNEL>_{f32,f64,i64}_* of the row's functor header
// (included through tt_functor_headers.h, which CMake writes from the same rows). Their
// instance rows are generated too (cmake/functor_rows.cmake), and their entries are in
// cuda/reduce_entries.cu. Not part of what NVRTC compiles: user reductions never name them.
#pragma once

#include "contract/reductions.h"
#include "cuda/reduce_families.cuh"
#include "tt_functor_headers.h"

namespace tt_reduce {

#define TT_FUNCTOR_FAMILIES_(KERNEL)                                                               \
    TT_FAMILY(KERNEL##_F32, KERNEL, f32, float)                                                    \
    TT_FAMILY(KERNEL##_F64, KERNEL, f64, double)                                                   \
    TT_FAMILY(KERNEL##_I64, KERNEL, i64, int64_t)
#define TT_FUNCTOR_ROW_(ID, KERNEL, NAME, TORCH, NOUT, RULE, HAS_ID, IDENTITY, ALL, KIND) \
    TENSOR_REDUCTION_IF_FUNCTOR(KIND, TT_FUNCTOR_FAMILIES_(KERNEL))
TENSOR_BUILTIN_REDUCTIONS(TT_FUNCTOR_ROW_)
#undef TT_FUNCTOR_ROW_
#undef TT_FUNCTOR_FAMILIES_

}  // namespace tt_reduce
