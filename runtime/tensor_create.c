/* Creating tensors: empty/zeros/ones/full, ranges, random, and from caller memory. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/error.h"
#include "runtime/tensor_impl.h"

tensor_t *tensor_new_contiguous(int ndim, const int64_t *sizes, tensor_dtype dtype, tensor_device device,
                                const char *func) {
    if (!tensor_dtype_is_valid(dtype))
        return tensor_error_null(TENSOR_ERR_DTYPE, "%s: unknown dtype %d", func, (int)dtype);
    int64_t numel;
    if (tensor_check_shape(ndim, sizes, &numel, func) != TENSOR_OK) return NULL;
    int64_t nbytes;
    if (__builtin_mul_overflow(numel, (int64_t)tensor_dtype_size(dtype), &nbytes))
        return tensor_error_null(TENSOR_ERR_OVERFLOW, "%s: %lld elements of %s overflow the byte count", func,
                                 (long long)numel, tensor_dtype_name(dtype));
    tensor_storage *s = tensor_storage_new((size_t)nbytes, device, func);
    if (s == NULL) return NULL;
    int64_t strides[TENSOR_MAX_DIMS];
    tensor_contiguous_strides(ndim, sizes, strides);
    tensor_t *t = tensor_make(s, 0, ndim, sizes, strides, dtype, func);
    tensor_storage_release(s);
    return t;
}

tensor_t *tensor_empty(int ndim, const int64_t *sizes, tensor_dtype dtype, tensor_device device) {
    return tensor_new_contiguous(ndim, sizes, dtype, device, "tensor_empty");
}

/* Values are produced on the host and copied, so CPU and CUDA tensors hold identical bits.
 * fill(i, elem, ctx) writes element i in dtype at elem. */
typedef void (*fill_fn)(int64_t i, tensor_dtype dtype, void *elem, const void *ctx);

static tensor_t *make_filled(int ndim, const int64_t *sizes, tensor_dtype dtype, tensor_device device, fill_fn fill,
                             const void *ctx, const char *func) {
    tensor_t *t = tensor_new_contiguous(ndim, sizes, dtype, device, func);
    if (t == NULL) return NULL;
    int64_t numel = tensor_numel(t);
    size_t esize = tensor_dtype_size(dtype);
    char *host = device.type == TENSOR_DEVICE_CPU ? (char *)tensor_data(t) : tensor_host_alloc((size_t)numel * esize);
    if (host == NULL) {
        tensor_release(t);
        return tensor_error_null(TENSOR_ERR_OUT_OF_MEMORY, "%s: out of host memory for staging", func);
    }
    for (int64_t i = 0; i < numel; i++) fill(i, dtype, host + i * (int64_t)esize, ctx);
    if (device.type != TENSOR_DEVICE_CPU) {
        tensor_status st = tensor_memcpy(tensor_data(t), device, host, tensor_cpu(), (size_t)numel * esize, func);
        tensor_host_free(host);
        if (st != TENSOR_OK) {
            tensor_release(t);
            return NULL;
        }
    }
    return t;
}

static void fill_constant(int64_t i, tensor_dtype dtype, void *elem, const void *ctx) {
    (void)i;
    tensor_dtype_store_double(dtype, elem, *(const double *)ctx);
}

tensor_t *tensor_zeros(int ndim, const int64_t *sizes, tensor_dtype dtype, tensor_device device) {
    double v = 0.0;
    return make_filled(ndim, sizes, dtype, device, fill_constant, &v, "tensor_zeros");
}

tensor_t *tensor_ones(int ndim, const int64_t *sizes, tensor_dtype dtype, tensor_device device) {
    double v = 1.0;
    return make_filled(ndim, sizes, dtype, device, fill_constant, &v, "tensor_ones");
}

tensor_t *tensor_full(int ndim, const int64_t *sizes, double value, tensor_dtype dtype, tensor_device device) {
    return make_filled(ndim, sizes, dtype, device, fill_constant, &value, "tensor_full");
}

typedef struct {
    double start, step;
} affine_ctx;

static void fill_affine(int64_t i, tensor_dtype dtype, void *elem, const void *ctx) {
    const affine_ctx *a = ctx;
    tensor_dtype_store_double(dtype, elem, a->start + (double)i * a->step);
}

tensor_t *tensor_arange(double start, double end, double step, tensor_dtype dtype, tensor_device device) {
    const char *func = "tensor_arange";
    if (!isfinite(start) || !isfinite(end))
        return tensor_error_null(TENSOR_ERR_INVALID_ARGUMENT, "%s: unsupported range: %g -> %g", func, start, end);
    if (step == 0 || !isfinite(step))
        return tensor_error_null(TENSOR_ERR_INVALID_ARGUMENT, "%s: step must be nonzero and finite, got %g", func, step);
    if ((step > 0 && end < start) || (step < 0 && end > start))
        return tensor_error_null(TENSOR_ERR_INVALID_ARGUMENT,
                                 "%s: upper bound and larger bound inconsistent with step sign (start %g, end %g, step %g)",
                                 func, start, end, step);
    double len = ceil((end - start) / step);
    if (!(len < 9.2e18))
        return tensor_error_null(TENSOR_ERR_OVERFLOW, "%s: %g elements is too many", func, len);
    int64_t n = (int64_t)len;
    affine_ctx a = {start, step};
    return make_filled(1, &n, dtype, device, fill_affine, &a, func);
}

typedef struct {
    double start, end, step;
    int64_t steps;
} linspace_ctx;

/* PyTorch fills the first half from start and the second half from end so both ends are exact. */
static void fill_linspace(int64_t i, tensor_dtype dtype, void *elem, const void *ctx) {
    const linspace_ctx *l = ctx;
    int64_t half = l->steps / 2;
    double v = i < half ? l->start + l->step * (double)i : l->end - l->step * (double)(l->steps - 1 - i);
    tensor_dtype_store_double(dtype, elem, v);
}

tensor_t *tensor_linspace(double start, double end, int64_t steps, tensor_dtype dtype, tensor_device device) {
    if (steps < 0)
        return tensor_error_null(TENSOR_ERR_INVALID_ARGUMENT, "tensor_linspace: number of steps must be non-negative, got %lld",
                                 (long long)steps);
    linspace_ctx l = {start, end, steps > 1 ? (end - start) / (double)(steps - 1) : 0.0, steps};
    /* One step is [start] (PyTorch fills start); the half-from-the-end rule would give end. */
    if (steps == 1) return make_filled(1, &steps, dtype, device, fill_constant, &start, "tensor_linspace");
    return make_filled(1, &steps, dtype, device, fill_linspace, &l, "tensor_linspace");
}

/* Counter-based generator: element i depends only on (seed, i), never on the device or the
 * order of generation, which is what makes CPU and CUDA agree. splitmix64's finaliser is a
 * good 64-bit mixer and is cheap. */
static uint64_t mix64(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

static double uniform53(uint64_t seed, uint64_t counter) {
    return (double)(mix64(mix64(seed) ^ counter) >> 11) * 0x1.0p-53;
}

/* Mantissa bits (with the implicit one) of a floating dtype: uniform values are cut to this
 * precision so that rounding to the dtype can never produce 1.0. */
static int precision_bits(tensor_dtype dtype) {
    switch (dtype) {
    case TENSOR_FLOAT16: return 11;
    case TENSOR_BFLOAT16: return 8;
    case TENSOR_FLOAT32: return 24;
    case TENSOR_FLOAT8_E4M3FN: return 4;
    case TENSOR_FLOAT8_E5M2: return 3;
    default: return 53;
    }
}

static void fill_uniform(int64_t i, tensor_dtype dtype, void *elem, const void *ctx) {
    double u = uniform53(*(const uint64_t *)ctx, 2 * (uint64_t)i);
    double scale = ldexp(1.0, precision_bits(dtype));
    tensor_dtype_store_double(dtype, elem, floor(u * scale) / scale);
}

static void fill_normal(int64_t i, tensor_dtype dtype, void *elem, const void *ctx) {
    uint64_t seed = *(const uint64_t *)ctx;
    /* Box-Muller; 1 - u keeps the log argument in (0, 1]. */
    double u1 = 1.0 - uniform53(seed, 2 * (uint64_t)i);
    double u2 = uniform53(seed, 2 * (uint64_t)i + 1);
    tensor_dtype_store_double(dtype, elem, sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
}

static tensor_t *random_tensor(int ndim, const int64_t *sizes, uint64_t seed, tensor_dtype dtype, tensor_device device,
                               fill_fn fill, const char *func) {
    if (tensor_dtype_is_valid(dtype) && !tensor_dtype_is_floating(dtype))
        return tensor_error_null(TENSOR_ERR_DTYPE, "%s: expected a floating point dtype, got %s", func,
                                 tensor_dtype_name(dtype));
    return make_filled(ndim, sizes, dtype, device, fill, &seed, func);
}

tensor_t *tensor_rand(int ndim, const int64_t *sizes, uint64_t seed, tensor_dtype dtype, tensor_device device) {
    return random_tensor(ndim, sizes, seed, dtype, device, fill_uniform, "tensor_rand");
}

tensor_t *tensor_randn(int ndim, const int64_t *sizes, uint64_t seed, tensor_dtype dtype, tensor_device device) {
    return random_tensor(ndim, sizes, seed, dtype, device, fill_normal, "tensor_randn");
}

tensor_t *tensor_from_buffer(const void *data, int ndim, const int64_t *sizes, tensor_dtype dtype,
                             tensor_device device) {
    const char *func = "tensor_from_buffer";
    int64_t numel;
    if (tensor_check_shape(ndim, sizes, &numel, func) != TENSOR_OK) return NULL;
    /* As tensor_from_blob and tensor_to_buffer: data may be NULL when there is nothing to copy. */
    if (numel > 0) TENSOR_CHECK_NOT_NULL_P(data, func, "data");
    tensor_t *t = tensor_new_contiguous(ndim, sizes, dtype, device, func);
    if (t == NULL) return NULL;
    size_t nbytes = (size_t)tensor_numel(t) * tensor_dtype_size(dtype);
    if (tensor_memcpy(tensor_data(t), device, data, tensor_cpu(), nbytes, func) != TENSOR_OK) {
        tensor_release(t);
        return NULL;
    }
    return t;
}

tensor_t *tensor_from_blob(void *data, int ndim, const int64_t *sizes, const int64_t *strides, tensor_dtype dtype,
                           tensor_device device, void (*deleter)(void *data, void *ctx), void *deleter_ctx) {
    const char *func = "tensor_from_blob";
    int64_t numel;
    if (tensor_check_shape(ndim, sizes, &numel, func) != TENSOR_OK) return NULL;
    if (!tensor_dtype_is_valid(dtype)) return tensor_error_null(TENSOR_ERR_DTYPE, "%s: unknown dtype %d", func, (int)dtype);
    if (tensor_device_check(device, func) != TENSOR_OK) return NULL;
    if (data == NULL && numel > 0) return tensor_error_null(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'data' is NULL", func);
    int64_t st[TENSOR_MAX_DIMS];
    if (strides) {
        for (int i = 0; i < ndim; i++) {
            if (strides[i] < 0)
                return tensor_error_null(TENSOR_ERR_INVALID_ARGUMENT,
                                         "%s: negative stride %lld at dim %d (negative strides are not supported)", func,
                                         (long long)strides[i], i);
            st[i] = strides[i];
        }
    } else {
        tensor_contiguous_strides(ndim, sizes, st);
    }
    /* The extent the view can reach, so bounds are known (and overflow is caught) up front. */
    int64_t last = 0;
    if (numel > 0) {
        for (int i = 0; i < ndim; i++) {
            int64_t term;
            if (__builtin_mul_overflow(sizes[i] - 1, st[i], &term) || __builtin_add_overflow(last, term, &last))
                return tensor_error_null(TENSOR_ERR_OVERFLOW, "%s: strides and sizes overflow int64 at dim %d", func, i);
        }
    }
    int64_t nbytes;
    if (__builtin_mul_overflow(numel > 0 ? last + 1 : 0, (int64_t)tensor_dtype_size(dtype), &nbytes))
        return tensor_error_null(TENSOR_ERR_OVERFLOW, "%s: byte extent overflows int64", func);
    tensor_storage *s = tensor_storage_wrap(data, (size_t)nbytes, device, NULL, NULL, func);
    if (s == NULL) return NULL;
    tensor_t *t = tensor_make(s, 0, ndim, sizes, st, dtype, func);
    if (t == NULL) {
        tensor_storage_release(s); /* deleter not yet attached: the caller keeps ownership */
        return NULL;
    }
    /* Attach the deleter only once nothing can fail any more. */
    s->deleter = deleter;
    s->deleter_ctx = deleter_ctx;
    tensor_storage_release(s);
    return t;
}
