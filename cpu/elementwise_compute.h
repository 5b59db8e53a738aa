/* Internal to cpu/elementwise*.c: the compute loops, one per (arity, compute type), over
 * arrays of the compute type. The CPU kernels call them either on stack tiles (converted
 * while loading) or, when every operand already has the compute type and unit stride, on the
 * tensors' memory directly (the fast path); gcc vectorises the simple ops in both cases.
 *
 * A predicate op writes its results to `ob` (0/1 bytes, the bool dtype's layout), every other
 * op to `o`. Outputs may alias inputs exactly (in place); no other overlap. */
#ifndef TENSOR_CPU_ELEMENTWISE_COMPUTE_H
#define TENSOR_CPU_ELEMENTWISE_COMPUTE_H

#include <stdbool.h>
#include <stdint.h>

#include "ops/elementwise.h"

/* true for ops whose result is bool (comparisons, logical ops, isnan/isinf/isfinite). */
bool tt_cpu_ew_is_predicate(tensor_ew_op op);

/* Scalars the loops need. */
typedef struct cpu_ew_args {
    float alpha_f32;
    double alpha_f64;
    int64_t alpha_i64;
    int zero_divisor; /* set to 1 by an i64 division / remainder that met a zero divisor */
} cpu_ew_args;

/* Each returns false for an op the compute type does not support (a bug in ops/). */
bool tt_cpu_ew_unary_f32(tensor_ew_op op, const float *a, float *o, uint8_t *ob, int64_t n);
bool tt_cpu_ew_unary_f64(tensor_ew_op op, const double *a, double *o, uint8_t *ob, int64_t n);
bool tt_cpu_ew_unary_i64(tensor_ew_op op, const int64_t *a, int64_t *o, uint8_t *ob, int64_t n);
bool tt_cpu_ew_binary_f32(tensor_ew_op op, const float *a, const float *b, float *o, uint8_t *ob, int64_t n,
                       cpu_ew_args *args);
bool tt_cpu_ew_binary_f64(tensor_ew_op op, const double *a, const double *b, double *o, uint8_t *ob, int64_t n,
                       cpu_ew_args *args);
bool tt_cpu_ew_binary_i64(tensor_ew_op op, const int64_t *a, const int64_t *b, int64_t *o, uint8_t *ob, int64_t n,
                       cpu_ew_args *args);
/* WHERE: a = cond (0/1 bytes); CLAMP: x, lo, hi. */
bool tt_cpu_ew_ternary_f32(tensor_ew_op op, const uint8_t *cond, const float *a, const float *b, const float *c,
                        float *o, int64_t n);
bool tt_cpu_ew_ternary_f64(tensor_ew_op op, const uint8_t *cond, const double *a, const double *b, const double *c,
                        double *o, int64_t n);
bool tt_cpu_ew_ternary_i64(tensor_ew_op op, const uint8_t *cond, const int64_t *a, const int64_t *b, const int64_t *c,
                        int64_t *o, int64_t n);

#endif
