/* Links against an installed tinytensor and checks that header and library agree. */
#include <stdio.h>
#include "tinytensor.h"

int main(void) {
    if (tensor_version_number() != TENSOR_VERSION_NUMBER) {
        fprintf(stderr, "consumer: header %d != library %d\n", TENSOR_VERSION_NUMBER, tensor_version_number());
        return 1;
    }
    int64_t shape[2] = {2, 3};
    tensor_t *t = tensor_ones(2, shape, TENSOR_FLOAT32, tensor_cpu());
    if (t == NULL) return 1;
    printf("consumer: tinytensor %s, numel %lld\n", tensor_version_string(), (long long)tensor_numel(t));
    tensor_release(t);
    return 0;
}
