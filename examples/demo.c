/* The README demo: the seed's 2x3x4x5 tensor, on CUDA when a GPU is present, else on the CPU. */
#include <stdio.h>
#include <stdlib.h>

#include "tinytensor.h"

static int fail(const char *what) {
    fprintf(stderr, "demo: %s failed: %s (%s)\n", what, tensor_last_error(), tensor_status_name(tensor_last_status()));
    return 1;
}

int main(void) {
    tensor_device dev = tensor_cuda_device_count() > 0 ? tensor_cuda(0) : tensor_cpu();
    char devname[32];
    printf("tinytensor %s on %s\n\n", tensor_version_string(), tensor_device_format(dev, devname, sizeof devname));

    /* torch.arange(120.).reshape(2, 3, 4, 5) */
    tensor_t *flat = tensor_arange(0, 120, 1, TENSOR_FLOAT32, dev);
    if (!flat) return fail("tensor_arange");
    int64_t shape[4] = {2, 3, 4, 5};
    tensor_t *x = tensor_view(flat, 4, shape);
    tensor_release(flat);
    if (!x) return fail("tensor_view");

    printf("x = torch.arange(120.).reshape(2, 3, 4, 5)\n");
    tensor_print(x, stdout);

    int perm[4] = {0, 2, 1, 3};
    tensor_t *p = tensor_permute(x, perm);
    if (!p) return fail("tensor_permute");
    printf("\nx.permute(0, 2, 1, 3)[0]\n");
    tensor_t *p0 = tensor_select(p, 0, 0);
    if (!p0) return fail("tensor_select");
    tensor_print(p0, stdout);

    tensor_t *n = tensor_narrow(x, 3, 1, 2);
    if (!n) return fail("tensor_narrow");
    printf("\nx.narrow(3, 1, 2)[1]\n");
    tensor_t *n1 = tensor_select(n, 0, 1);
    if (!n1) return fail("tensor_select");
    tensor_print(n1, stdout);

    /* torch.sum(x, 1, keepdim=True), and how it runs: the iterator's plan and, on CUDA, the
     * kernel and its launch configuration (the same planning call as the launch). */
    int dim = 1;
    char plan[8192];
    if (tensor_reduce_explain("sum", x, &dim, 1, true, TENSOR_DTYPE_DEFAULT, plan, sizeof plan) < 0)
        return fail("tensor_reduce_explain");
    printf("\nThe plan of x.sum(1, keepdim=True):\n%s\n", plan);

    tensor_t *s = tensor_sum(x, 1, true);
    if (!s && dev.type == TENSOR_DEVICE_CUDA) {
        /* The CUDA reduction engine has not landed yet: say so and sum on the CPU instead. */
        printf("\n(on CUDA: %s; summing a CPU copy)\n", tensor_last_error());
        tensor_t *xc = tensor_to_device(x, tensor_cpu());
        if (!xc) return fail("tensor_to_device");
        s = tensor_sum(xc, 1, true);
        tensor_release(xc);
    }
    if (!s) return fail("tensor_sum");
    printf("\nx.sum(1, keepdim=True)\n");
    tensor_print(s, stdout);

    tensor_release(s);
    tensor_release(n1);
    tensor_release(n);
    tensor_release(p0);
    tensor_release(p);
    tensor_release(x);
    return 0;
}
