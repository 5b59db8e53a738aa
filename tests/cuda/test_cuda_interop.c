/* DLPack and .npy with CUDA tensors: export and import on the device (zero copy), the stream
 * protocol (a consumer on another stream sees our finished data), a foreign cudaMalloc'd
 * buffer whose deleter runs once after our work, refusals, and .npy through the host. Needs a
 * GPU: without one the executable exits 77 (skipped). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuda_test_util.h"

#if TENSOR_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

TENSOR_TEST_NEEDS_GPU()

static const tensor_dtype dtypes[] = {TENSOR_BOOL,    TENSOR_UINT8,   TENSOR_INT8,          TENSOR_INT16,
                                      TENSOR_INT32,   TENSOR_INT64,   TENSOR_FLOAT16,       TENSOR_BFLOAT16,
                                      TENSOR_FLOAT32, TENSOR_FLOAT64, TENSOR_FLOAT8_E4M3FN, TENSOR_FLOAT8_E5M2};

static void assert_same_contents(const tensor_t *a, const tensor_t *b, const char *what) {
    ct_assert_same_shape(a, b, what);
    size_t n = ct_nbytes(a);
    void *pa = ct_download(a), *pb = ct_download(b);
    if (n > 0 && memcmp(pa, pb, n) != 0) fail_msg("%s: contents differ", what);
    free(pa);
    free(pb);
}

static int foreign_deletes;

/* Another library's struct over one of our exports (so the import takes the general path). */
typedef struct {
    DLManagedTensorVersioned m;
    DLManagedTensorVersioned *inner;
    void *cuda_owned; /* cudaFree'd by the deleter */
} foreign;

static void foreign_delete(DLManagedTensorVersioned *self) {
    foreign *f = self->manager_ctx;
    foreign_deletes++;
    if (f->inner) f->inner->deleter(f->inner);
#if TENSOR_HAVE_CUDA
    if (f->cuda_owned) (void)cudaFree(f->cuda_owned);
#endif
    free(f);
}

static foreign *foreign_over(const DLTensor *dl) {
    foreign *f = calloc(1, sizeof *f);
    assert_non_null(f);
    f->m.version.major = 1;
    f->m.manager_ctx = f;
    f->m.deleter = foreign_delete;
    f->m.dl_tensor = *dl;
    return f;
}

/* Every dtype, contiguous and strided: the export points at the device memory itself, and the
 * import (general and own) is a zero-copy view of it on cuda:0. */
static void test_roundtrip(void **state) {
    (void)state;
    for (size_t k = 0; k < sizeof dtypes / sizeof dtypes[0]; k++) {
        tensor_t *h = ct_random_cpu(3, (const int64_t[]){5, 6, 7}, dtypes[k], 40 + k, ct_store_uniform, 0);
        tensor_t *g = ct_to_gpu(h);
        for (int v = 0; v < 3; v++) {
            tensor_t *view = v == 0 ? tensor_retain(g) : v == 1 ? tensor_transpose(g, 0, 2) : tensor_narrow(g, 1, 2, 3);
            assert_non_null(view);
            DLManagedTensorVersioned *m = NULL;
            assert_int_equal(tensor_to_dlpack_versioned(view, 0, TENSOR_DLPACK_STREAM_NONE, &m), TENSOR_OK);
            assert_int_equal(m->dl_tensor.device.device_type, kDLCUDA);
            assert_int_equal(m->dl_tensor.device.device_id, 0);
            assert_ptr_equal(m->dl_tensor.data, tensor_data(view));
            foreign_deletes = 0;
            foreign *f = foreign_over(&m->dl_tensor);
            f->inner = m;
            tensor_t *u = tensor_from_dlpack_versioned(&f->m);
            if (u == NULL) fail_msg("import: %s", tensor_last_error());
            assert_true(tensor_device_equal(tensor_get_device(u), tensor_cuda(0)));
            assert_ptr_equal(tensor_data(u), tensor_data(view));
            assert_false(tensor_shares_storage(u, view));
            assert_same_contents(view, u, tensor_dtype_name(dtypes[k]));
            tensor_release(u);
            assert_int_equal(foreign_deletes, 1);

            DLManagedTensor *lm = NULL;
            assert_int_equal(tensor_to_dlpack(view, TENSOR_DLPACK_STREAM_LEGACY, &lm), TENSOR_OK);
            tensor_t *w = tensor_from_dlpack(lm);
            assert_non_null(w);
            assert_true(tensor_shares_storage(w, view));
            tensor_release(w);
            tensor_release(view);
        }
        tensor_release(g);
        tensor_release(h);
    }
    assert_int_equal(ct_release_cached(), TENSOR_OK);
}

static void test_stream_values(void **state) {
    (void)state;
    tensor_t *g = tensor_zeros(1, (const int64_t[]){16}, TENSOR_FLOAT32, tensor_cuda(0));
    assert_non_null(g);
    const intptr_t ok[] = {TENSOR_DLPACK_STREAM_NONE, 0, TENSOR_DLPACK_STREAM_LEGACY,
                           TENSOR_DLPACK_STREAM_PER_THREAD};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        DLManagedTensorVersioned *m = NULL;
        if (tensor_to_dlpack_versioned(g, 0, ok[i], &m) != TENSOR_OK)
            fail_msg("stream %lld: %s", (long long)ok[i], tensor_last_error());
        m->deleter(m);
    }
    DLManagedTensorVersioned *m = NULL;
    assert_int_equal(tensor_to_dlpack_versioned(g, 0, -2, &m), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "is not a stream");
    assert_null(m);
    /* while exported, the storage cannot move */
    assert_int_equal(tensor_to_dlpack_versioned(g, 0, -1, &m), TENSOR_OK);
    assert_int_equal(tensor_resize_(g, 1, (const int64_t[]){1 << 20}), TENSOR_ERR_INVALID_ARGUMENT);
    m->deleter(m);
    tensor_release(g);
    assert_int_equal(ct_release_cached(), TENSOR_OK);
}

#if TENSOR_HAVE_CUDA
/* Our work on stream s1 (a long fill), exported to a consumer on s2: a copy the consumer
 * queues on s2 right away must see the finished values. Without the handoff s2 would not wait. */
static void test_consumer_stream_waits(void **state) {
    (void)state;
    cudaStream_t s1, s2;
    assert_int_equal(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking), cudaSuccess);
    assert_int_equal(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking), cudaSuccess);
    assert_int_equal(tensor_cuda_set_stream(0, s1), TENSOR_OK);
    const int64_t n = 1 << 24;
    tensor_t *g = tensor_zeros(1, &n, TENSOR_FLOAT32, tensor_cuda(0));
    assert_non_null(g);
    for (int i = 0; i < 20; i++) assert_int_equal(tensor_add_scalar_(g, tensor_scalar_float(1.0), tensor_scalar_int(1)), TENSOR_OK);
    DLManagedTensorVersioned *m = NULL;
    assert_int_equal(tensor_to_dlpack_versioned(g, 0, (intptr_t)s2, &m), TENSOR_OK);
    float *host = malloc((size_t)n * sizeof *host);
    assert_non_null(host);
    assert_int_equal(cudaMemcpyAsync(host, m->dl_tensor.data, (size_t)n * sizeof *host, cudaMemcpyDeviceToHost, s2),
                     cudaSuccess);
    assert_int_equal(cudaStreamSynchronize(s2), cudaSuccess);
    assert_true(host[0] == 20.0f && host[n / 2] == 20.0f && host[n - 1] == 20.0f);
    m->deleter(m);
    free(host);
    tensor_release(g);
    assert_int_equal(cudaStreamSynchronize(s1), cudaSuccess);
    assert_int_equal(tensor_cuda_set_stream(0, NULL), TENSOR_OK);
    assert_int_equal(ct_release_cached(), TENSOR_OK);
    assert_int_equal(cudaStreamDestroy(s1), cudaSuccess);
    assert_int_equal(cudaStreamDestroy(s2), cudaSuccess);
}

/* Memory from another allocator: ops run on it in place, and the deleter (cudaFree) runs once,
 * at the last release, after our queued work. */
static void test_foreign_cuda_memory(void **state) {
    (void)state;
    const int64_t n = 1 << 20;
    void *p = NULL;
    assert_int_equal(cudaMalloc(&p, (size_t)n * sizeof(float)), cudaSuccess);
    DLTensor dl = {p, {kDLCUDA, 0}, 1, {kDLFloat, 32, 1}, (int64_t *)&n, NULL, 0};
    foreign *f = foreign_over(&dl);
    f->cuda_owned = p;
    foreign_deletes = 0;
    tensor_t *t = tensor_from_dlpack_versioned(&f->m);
    if (t == NULL) fail_msg("%s", tensor_last_error());
    assert_int_equal(tensor_fill_(t, tensor_scalar_float(2.0)), TENSOR_OK);
    tensor_t *s = tensor_sum(t, 0, false);
    assert_non_null(s);
    float total = 0;
    assert_int_equal(tensor_to_buffer(s, &total, sizeof total), TENSOR_OK);
    assert_true(total == 2.0f * (float)n);
    tensor_t *half = tensor_narrow(t, 0, n / 2, n / 2);
    tensor_release(t);
    assert_int_equal(foreign_deletes, 0);
    assert_int_equal(tensor_fill_(half, tensor_scalar_float(3.0)), TENSOR_OK); /* queued, then released */
    tensor_release(half);
    assert_int_equal(foreign_deletes, 1);
    tensor_release(s);

    /* refused: a device that is not there; the deleter still runs */
    void *q = NULL;
    assert_int_equal(cudaMalloc(&q, 64), cudaSuccess);
    DLTensor bad = {q, {kDLCUDA, 99}, 1, {kDLFloat, 32, 1}, (int64_t *)&n, NULL, 0};
    f = foreign_over(&bad);
    f->cuda_owned = q;
    assert_null(tensor_from_dlpack_versioned(&f->m));
    assert_error(TENSOR_ERR_DEVICE, "cuda:99");
    assert_int_equal(foreign_deletes, 2);
    /* and managed memory is a device type we do not take */
    assert_int_equal(cudaMalloc(&q, 64), cudaSuccess);
    bad.data = q;
    bad.device.device_type = kDLCUDAManaged;
    bad.device.device_id = 0;
    f = foreign_over(&bad);
    f->cuda_owned = q;
    assert_null(tensor_from_dlpack_versioned(&f->m));
    assert_error(TENSOR_ERR_DEVICE, "type 13");
    assert_int_equal(foreign_deletes, 3);
    assert_int_equal(ct_release_cached(), TENSOR_OK);
}
#endif

/* .npy with CUDA tensors: saved through the host (any layout), loaded onto the device,
 * Fortran order included. */
static void test_npy_on_cuda(void **state) {
    (void)state;
    char path[64];
    snprintf(path, sizeof path, "/tmp/tt_cuda_npy_%ld.npy", (long)getpid());
    tensor_t *h = ct_random_cpu(2, (const int64_t[]){33, 17}, TENSOR_FLOAT32, 9, ct_store_uniform, 0);
    tensor_t *g = ct_to_gpu(h);
    tensor_t *gt = tensor_transpose(g, 0, 1);
    assert_int_equal(tensor_save_npy(gt, path), TENSOR_OK);
    tensor_t *back = tensor_load_npy(path, tensor_cuda(0));
    if (back == NULL) fail_msg("%s", tensor_last_error());
    assert_true(tensor_device_equal(tensor_get_device(back), tensor_cuda(0)));
    assert_same_contents(gt, back, "cuda npy");
    tensor_release(back);
    /* a column-major file (a transposed CPU tensor) onto the device */
    tensor_t *ht = tensor_transpose(h, 0, 1);
    assert_int_equal(tensor_save_npy(ht, path), TENSOR_OK);
    back = tensor_load_npy(path, tensor_cuda(0));
    assert_non_null(back);
    assert_int_equal(tensor_stride(back, 0), 1);
    assert_same_contents(ht, back, "cuda npy fortran");
    tensor_release(back);
    remove(path);
    tensor_release(ht);
    tensor_release(gt);
    tensor_release(g);
    tensor_release(h);
    assert_int_equal(ct_release_cached(), TENSOR_OK);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_roundtrip),
    cmocka_unit_test(test_stream_values),
#if TENSOR_HAVE_CUDA
    cmocka_unit_test(test_consumer_stream_waits),
    cmocka_unit_test(test_foreign_cuda_memory),
#endif
    cmocka_unit_test(test_npy_on_cuda),
};

TENSOR_TEST_GROUP(cuda_interop, tests, NULL, NULL)
