// The elementwise ops of ops/elementwise.h on the CUDA engine (cuda/loops.cuh): wrappers that
// turn the C functors of ops/functors/ew_*.h into engine ops, and the dtype -> instantiation
// switch shared by cuda/elementwise_*.cu. docs/elementwise.md is the contract (what a kernel
// computes per element); docs/cuda_elementwise.md says how this side meets it.
#pragma once

#include <type_traits>

#include "cuda/loops.cuh"
#include "contract/dispatch.h"
#include "ops/elementwise.h"
#include "ops/functors/ew_arith.h"
#include "ops/functors/ew_common.h"
#include "ops/functors/ew_compare.h"
#include "ops/functors/ew_logical.h"
#include "ops/functors/ew_unary.h"

namespace tt_ew {

using namespace tt_loops;

// Conversions of the dynamic-casting path, exactly the CPU backend's: an input goes to the
// common dtype's value set (`via`), then to the compute type A (tensor_ew_load_*); the result is
// stored with tensor_ew_store_*. WHERE reads its condition (input `bool_input`) as bool.
// An opmath input (bit i of `opmath`: a host scalar that ops/ holds as a float32 0-d CPU tensor
// for a float16/bfloat16 op, tensor_kernel_params.ew_opmath_inputs) is read as it is, without
// the rounding to `via`; it is always a 0-d CPU input, so only the host-side load sees it.
template <typename A, typename R> struct EwCasts {
    tensor_dtype via;
    int bool_input; // -1: none
    unsigned opmath;
    __host__ __device__ __forceinline__ A load(int i, const char *p, tensor_dtype dt) const {
        if (i == bool_input) return (A)tensor_ew_load_bool(dt, p);
        if constexpr (std::is_same<A, float>::value) {
            if ((opmath >> i) & 1u) return tensor_ew_read_f32(dt, p);
            return tensor_ew_load_f32(dt, p, via);
        }
        else if constexpr (std::is_same<A, double>::value) return tensor_ew_load_f64(dt, p, via);
        else return tensor_ew_load_i64(dt, p, via);
    }
    // A result bound for an out= or self of another dtype takes the common dtype's values
    // first (PyTorch computes in the common dtype, then casts), as the CPU backend.
    __device__ __forceinline__ void store(char *p, tensor_dtype dt, R r) const {
        if constexpr (std::is_same<R, bool>::value) tensor_ew_store_bool(dt, p, r);
        else if constexpr (std::is_same<R, float>::value)
            tensor_ew_store_f32(dt, p, dt != via && via != TENSOR_FLOAT32 ? tensor_ew_round_to_f32(via, r) : r);
        else if constexpr (std::is_same<R, double>::value) tensor_ew_store_f64(dt, p, r);
        else tensor_ew_store_i64(dt, p, dt != via && via != TENSOR_INT64 ? tensor_ew_wrap_i64(via, r) : r);
    }
};

// One engine op per (functor, compute type). `alpha` is read by ADD/SUB only.
#define TT_EW_OP1(NAME, FN, A, R)                                                                  \
    struct NAME : EwCasts<A, R> {                                                                  \
        using arg_t = A;                                                                           \
        using res_t = R;                                                                           \
        static constexpr int nin = 1;                                                              \
        A alpha;                                                                                   \
        __device__ __forceinline__ R operator()(A a) const { return FN(a); }                      \
    };
#define TT_EW_OP2(NAME, FN, A, R)                                                                  \
    struct NAME : EwCasts<A, R> {                                                                  \
        using arg_t = A;                                                                           \
        using res_t = R;                                                                           \
        static constexpr int nin = 2;                                                              \
        A alpha;                                                                                   \
        __device__ __forceinline__ R operator()(A a, A b) const { return FN(a, b); }              \
    };
// ADD/SUB: the functor takes alpha as its third argument.
#define TT_EW_OP2A(NAME, FN, A)                                                                    \
    struct NAME : EwCasts<A, A> {                                                                  \
        using arg_t = A;                                                                           \
        using res_t = A;                                                                           \
        static constexpr int nin = 2;                                                              \
        A alpha;                                                                                   \
        __device__ __forceinline__ A operator()(A a, A b) const { return FN(a, b, alpha); }       \
    };
#define TT_EW_OP3(NAME, EXPR, A, R)                                                                \
    struct NAME : EwCasts<A, R> {                                                                  \
        using arg_t = A;                                                                           \
        using res_t = R;                                                                           \
        static constexpr int nin = 3;                                                              \
        A alpha;                                                                                   \
        __device__ __forceinline__ R operator()(A a, A b, A c) const { return EXPR; }             \
    };

// The three compute types of a functor family: F32 (float16, bfloat16, float32), F64, I64.
// `void` marks a compute type the op does not have (TENSOR_ERR_INTERNAL: ops/ never sends it).
template <class F32, class F64, class I64> struct Family {
    using f32 = F32;
    using f64 = F64;
    using i64 = I64;
};

// Output storage for a storage type S of the common dtype: S itself, or bool for predicates.
template <class Op, typename S>
using out_storage = typename std::conditional<std::is_same<typename Op::res_t, bool>::value, Bool, S>::type;

template <class Op, typename S> tensor_status go(const tensor_iter_t *iter, const Op &op, const char *func) {
    return gpu_kernel<out_storage<Op, S>, S>(iter, op, func);
}

template <class Op> Op make_op(const tensor_kernel_params *p, int bool_input) {
    Op op{};
    op.via = (tensor_dtype)p->ew_dtype;
    op.bool_input = bool_input;
    op.opmath = p->ew_opmath_inputs;
    using A = typename Op::arg_t;
    if constexpr (std::is_same<A, float>::value) op.alpha = (float)p->scalar;
    else if constexpr (std::is_same<A, double>::value) op.alpha = p->scalar;
    else op.alpha = (A)p->scalar_i;
    return op;
}

// Instantiates typed (vectorisable) kernels for the common dtypes of each compute type, and
// lets every other dtype take the dynamic-casting kernel (operand dtypes then differ from the
// instantiated storage type: the engine converts through EwCasts).
template <class Fam>
tensor_status run(const tensor_iter_t *iter, const tensor_kernel_params *p, int bool_input, const char *func) {
    const tensor_dtype via = (tensor_dtype)p->ew_dtype;
    switch (tensor_ew_compute_kind(via)) {
    case TENSOR_EW_COMPUTE_F32:
        if constexpr (!std::is_void<typename Fam::f32>::value) {
            using Op = typename Fam::f32;
            const Op op = make_op<Op>(p, bool_input);
            if (via == TENSOR_FLOAT16) return go<Op, Half>(iter, op, func);
            if (via == TENSOR_BFLOAT16) return go<Op, BFloat16>(iter, op, func);
            return go<Op, float>(iter, op, func);
        }
        break;
    case TENSOR_EW_COMPUTE_F64:
        if constexpr (!std::is_void<typename Fam::f64>::value) {
            using Op = typename Fam::f64;
            return go<Op, double>(iter, make_op<Op>(p, bool_input), func);
        }
        break;
    case TENSOR_EW_COMPUTE_I64:
        if constexpr (!std::is_void<typename Fam::i64>::value) {
            using Op = typename Fam::i64;
            const Op op = make_op<Op>(p, bool_input);
            if (via == TENSOR_INT32) return go<Op, int32_t>(iter, op, func);
            return go<Op, int64_t>(iter, op, func); // int64 typed; other ints convert dynamically
        }
        break;
    }
    return tensor_error(TENSOR_ERR_INTERNAL, "%s: %s has no CUDA kernel for common dtype %s", func,
                        tensor_ew_op_name((tensor_ew_op)p->ew_op), tensor_dtype_name(via));
}

}  // namespace tt_ew

// Families: F32, F64, I64 forms of one functor (void where the functor has none).
#define TT_EW_FAMILY1(NAME, FNBASE, R32, R64, RI)                                                   \
    TT_EW_OP1(NAME##F32, FNBASE##_f32, float, R32)                                                  \
    TT_EW_OP1(NAME##F64, FNBASE##_f64, double, R64)                                                 \
    TT_EW_OP1(NAME##I64, FNBASE##_i64, int64_t, RI)                                                 \
    using NAME = Family<NAME##F32, NAME##F64, NAME##I64>;
#define TT_EW_FAMILY1_F(NAME, FNBASE)                                                               \
    TT_EW_OP1(NAME##F32, FNBASE##_f32, float, float)                                                \
    TT_EW_OP1(NAME##F64, FNBASE##_f64, double, double)                                              \
    using NAME = Family<NAME##F32, NAME##F64, void>;
#define TT_EW_FAMILY2(NAME, FNBASE, R)                                                              \
    TT_EW_OP2(NAME##F32, FNBASE##_f32, float, R)                                                    \
    TT_EW_OP2(NAME##F64, FNBASE##_f64, double, R)                                                   \
    TT_EW_OP2(NAME##I64, FNBASE##_i64, int64_t, R)                                                  \
    using NAME = Family<NAME##F32, NAME##F64, NAME##I64>;
#define TT_EW_FAMILY2_T(NAME, FNBASE)                                                               \
    TT_EW_OP2(NAME##F32, FNBASE##_f32, float, float)                                                \
    TT_EW_OP2(NAME##F64, FNBASE##_f64, double, double)                                              \
    TT_EW_OP2(NAME##I64, FNBASE##_i64, int64_t, int64_t)                                            \
    using NAME = Family<NAME##F32, NAME##F64, NAME##I64>;

// One op's entry (cuda/elementwise_ops.h lists them; cuda/elementwise_entry.c's tables point at
// them): runs family FAM; BOOL_INPUT is the input loaded as bool (where's condition) or -1.
#define TT_EW_ENTRY(NAME, FAM, ARITY, BOOL_INPUT)                                                   \
    extern "C" tensor_status tensor_cuda_ew_##NAME(tensor_iter_t *iter, const tensor_kernel_params *p) { \
        return tt_ew::run<FAM>(iter, p, BOOL_INPUT, "tensor_" ARITY " (CUDA)");                       \
    }
