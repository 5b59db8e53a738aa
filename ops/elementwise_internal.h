/* Internal to ops/elementwise*.c: the dtype rules and the one runner behind every public
 * elementwise function. Not installed. */
#ifndef TENSOR_ELEMENTWISE_INTERNAL_H
#define TENSOR_ELEMENTWISE_INTERNAL_H

#include "contract/dispatch.h"
#include "ops/elementwise.h"
#include "runtime/dtype.h"

/* Arity of an op: 0 (fill), 1, 2 or 3; -1 for an unknown code. */
int tt_ew_op_arity(tensor_ew_op op);
/* The dispatch slot of an op (TENSOR_NUM_OPS for an unknown code). */
tensor_op tt_ew_op_slot(tensor_ew_op op);

/* PyTorch's canCast without complex: no floating -> integral, no non-bool -> bool. */
bool tt_ew_can_cast(tensor_dtype from, tensor_dtype to);

/* PyTorch's rules: from the operands (dtype and kind: dimensioned, 0-d or host scalar), the
 * common dtype the op computes in and the dtype of its result; the op-specific errors
 * (bool subtraction, bitwise on floats, float8 arithmetic, where's cond, ...). *op may be
 * rewritten (bitwise_not of bool becomes logical_not). Errors name func. */
tensor_status tt_ew_decide_types(const char *func, tensor_ew_op *op, const tensor_result_type_operand *operands, int n,
                              tensor_dtype *common, tensor_dtype *result);

/* One elementwise call. Inputs are either tensors (in[k]) or host scalars (scalar[k], then
 * in[k] is NULL): a scalar becomes a 0-d CPU tensor of the common dtype, or of float32 for
 * PyTorch's opmath cases (docs/elementwise.md §6), whatever the op's device. */
typedef struct ew_call {
    const char *func;            /* the public function's name, for messages */
    tensor_ew_op op;
    tensor_t *out;               /* out= or in-place target (borrowed), or NULL: allocate */
    bool in_place;               /* out is also input 0 */
    int nin;
    const tensor_t *in[3];
    const char *in_names[3];     /* argument names for NULL messages */
    const tensor_scalar *scalar[3];
    tensor_scalar alpha;         /* ADD/SUB */
} ew_call;

/* Runs the call. Returns a NEW reference to the result (the allocated output, or out
 * retained), or NULL with the last error set. */
tensor_t *tt_ew_run(const ew_call *call);

/* tt_ew_run for the forms that return a status (out=, in place): releases the reference. */
tensor_status tt_ew_run_status(const ew_call *call);

#endif
