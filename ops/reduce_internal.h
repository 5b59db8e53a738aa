/* Internal to ops/: the pieces of ops/reduce.c that other reduction files reuse (a new
 * reduction's public function, e.g. ops/sum_of_squares.c, is a few lines over these). */
#ifndef TENSOR_REDUCE_INTERNAL_H
#define TENSOR_REDUCE_INTERNAL_H

#include <stdbool.h>

#include "contract/dispatch.h"
#include "runtime/tensor_impl.h"

/* What an op does when the reduced dims are empty: fill the identity, or fail. */
typedef struct reduce_desc {
    const char *func;     /* our function name, for messages */
    const char *torch;    /* PyTorch's name in messages, e.g. "amax()" */
    tensor_op op;
    bool has_identity;
    double identity;
    bool all_if_empty; /* dims given as an empty list reduce all dims (false: none, as any/all) */
} reduce_desc;

/* The desc of a built-in reduction from its row (contract/reductions.h), for `func`. */
reduce_desc tensor_reduce_desc(tensor_op op, const char *func);

/* NULL check of the input, with the message "<func>: argument 't' is NULL". */
tensor_status tensor_reduce_check_input(const tensor_t *t, const char *func);

/* sum's output dtype: `requested` if given, else integers and bool -> int64, float8 ->
 * float32, other floats keep theirs. */
tensor_dtype tensor_reduce_sum_dtype(tensor_dtype in, tensor_dtype requested);

/* Plans, allocates the output (out_dtype), handles empty inputs (desc->identity) and runs the
 * kernel registered for desc->op on t's device. Returns a new reference or NULL. */
tensor_t *tensor_reduce_single(const reduce_desc *desc, const tensor_t *t, const int *dims, int ndims, bool keepdim,
                               tensor_dtype out_dtype, const tensor_kernel_params *params);

/* The end of an out= form computed by its plain form: r (a new reference, or NULL with the error
 * set; consumed) is checked against out (dtype, device), out is resized when its shape differs
 * (unless it shares t's storage: an error) and r is copied in. arg: out's name in messages. */
tensor_status tt_out_finish(const char *func, const char *arg, tensor_t *out, const tensor_t *t, tensor_t *r);

#endif
