/* The program NVRTC compiles for a user reduction (cuda/jit.h): the engine's headers, the
 * user's functor source, a family wrapping its five functions for the engine, and the four
 * kernels named by name expressions. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/jit.h"
#include "runtime/alloc.h"
#include "runtime/error.h"

/* The engine's storage type of a dtype (cuda/convert.cuh). */
static const char *storage_type(tensor_dtype d) {
    switch (d) {
    case TENSOR_BOOL: return "tt_cvt::Bool";
    case TENSOR_UINT8: return "uint8_t";
    case TENSOR_INT8: return "int8_t";
    case TENSOR_INT16: return "int16_t";
    case TENSOR_INT32: return "int32_t";
    case TENSOR_INT64: return "int64_t";
    case TENSOR_FLOAT16: return "tt_cvt::Half";
    case TENSOR_BFLOAT16: return "tt_cvt::BFloat16";
    case TENSOR_FLOAT32: return "float";
    case TENSOR_FLOAT64: return "double";
    case TENSOR_FLOAT8_E4M3FN: return "tt_cvt::E4M3";
    case TENSOR_FLOAT8_E5M2: return "tt_cvt::E5M2";
    default: return NULL;
    }
}

static const char *const value_types[] = {"float", "double", "int64_t"};

void tt_jit_program_clear(tt_jit_program *prog) {
    if (prog == NULL) return;
    free(prog->text);
    for (int k = 0; k < TT_JIT_KERNELS; k++) free(prog->names[k]);
    memset(prog, 0, sizeof *prog);
}

tensor_status tt_jit_program_make(const tensor_reduction_source *src, int nin, tensor_reduction_value value,
                                  tensor_dtype in, tensor_dtype out, size_t acc_size, int variant,
                                  tt_jit_program *prog, const char *func) {
    memset(prog, 0, sizeof *prog);
    if (variant < 0 || variant >= TT_JIT_KERNELS)
        return tensor_error(TENSOR_ERR_INTERNAL, "%s: kernel variant %d out of range", func, variant);
    prog->variant = variant;
    const char *in_t = storage_type(in), *out_t = storage_type(out);
    if (in_t == NULL || out_t == NULL || (unsigned)value >= TENSOR_REDUCTION_NUM_VALUES)
        return tensor_error(TENSOR_ERR_DTYPE, "%s: no CUDA storage type for %s -> %s", func, tensor_dtype_name(in),
                            tensor_dtype_name(out));
    if (src == NULL || src->code == NULL || src->acc_type == NULL || src->identity == NULL || src->map == NULL ||
        src->reduce == NULL || src->combine == NULL || src->project == NULL)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: the reduction's source lacks a field", func);
    const char *v = value_types[value];
    /* The user's functions take the value type and their accumulator; the family gives them
     * the engine's interface. map receives the values of all inputs (x[k]: input k's). */
    static const char fmt[] =
        "#define TENSOR_REDUCE_ELEM_ROWS %d\n"
        "#include \"cuda/reduce_op.cuh\"\n"
        "#include \"cuda/reduce_kernel.cuh\"\n"
        "#line 1 \"user functor\"\n"
        "%s\n"
        "#line 1 \"tinytensor jit wrapper\"\n"
        "namespace tt_jit {\n"
        "struct Family {\n"
        "    using val_t = %s;\n"
        "    using acc_t = %s;\n"
        "    static_assert(sizeof(acc_t) == %zu, \"the accumulator's size on the GPU differs from acc_size\");\n"
        "    static constexpr int nin = %d;\n"
        "    static constexpr bool maps = true;\n"
        "    static __device__ __forceinline__ acc_t identity() { return %s(); }\n"
        "    static __device__ __forceinline__ acc_t reduce(acc_t a, val_t x, int64_t, double) { return %s(a, x); }\n"
        "    static __device__ __forceinline__ acc_t combine(acc_t a, acc_t b) { return %s(a, b); }\n"
        "    static __device__ __forceinline__ val_t project(acc_t a, int64_t n, double) { return %s(a, n); }\n"
        "    template <typename In> static __device__ __forceinline__ val_t map(const val_t (&x)[nin]) { return %s(x); }\n"
        "};\n"
        "}  // namespace tt_jit\n";
    int n = snprintf(NULL, 0, fmt, TT_JIT_ELEM_ROWS, src->code, v, src->acc_type, acc_size, nin, src->identity,
                     src->reduce, src->combine, src->project, src->map);
    prog->text = n >= 0 ? tt_malloc((size_t)n + 1) : NULL;
    if (prog->text == NULL) return tensor_error(TENSOR_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    snprintf(prog->text, (size_t)n + 1, fmt, TT_JIT_ELEM_ROWS, src->code, v, src->acc_type, acc_size, nin,
             src->identity, src->reduce, src->combine, src->project, src->map);
    char op[160];
    snprintf(op, sizeof op, "tt_reduce::Op<tt_jit::Family, %s, %s>", in_t, out_t);
    char name[256];
    if (variant < 3) snprintf(name, sizeof name, "tt_reduce::reduce_kernel<%s, %d>", op, 1 << variant);
    else if (variant == 3) snprintf(name, sizeof name, "tt_reduce::short_rows_kernel<%s>", op);
    else if (variant == 4) snprintf(name, sizeof name, "tt_reduce::lean_rows_kernel<%s>", op);
    else snprintf(name, sizeof name, "tt_reduce::rtiles_kernel<%s>", op);
    prog->names[variant] = tt_malloc(strlen(name) + 1);
    if (prog->names[variant] == NULL) {
        tt_jit_program_clear(prog);
        return tensor_error(TENSOR_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    }
    memcpy(prog->names[variant], name, strlen(name) + 1);
    return TENSOR_OK;
}

void tt_jit_binary_clear(tt_jit_binary *bin) {
    if (bin == NULL) return;
    free(bin->cubin);
    for (int k = 0; k < TT_JIT_KERNELS; k++) free(bin->lowered[k]);
    memset(bin, 0, sizeof *bin);
}

uint64_t tt_jit_hash(const void *data, size_t n, uint64_t h) {
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}
