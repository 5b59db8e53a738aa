/* An application with its own ops/ops.h and runtime/tensor.h earlier on its include path
 * (app_include/) than the installed tinytensor: its headers and tinytensor's must not mix. */
#include <stdio.h>

#include "tinytensor.h"
#include "tinytensor/ops/reduction_kit.h"

#define APP_OWN_HEADERS 1
#include "ops/ops.h"
#include "runtime/tensor.h"

int main(void) {
    app_tensor mine = {app_op_count()};
    int64_t shape[2] = {2, 3};
    tensor_t *t = tensor_ones(2, shape, TENSOR_FLOAT32, tensor_cpu());
    tensor_t *s = t ? tensor_sum(t, 1, false) : NULL;
    float out[2] = {0, 0};
    int ok = s != NULL && tensor_to_buffer(s, out, sizeof out) == TENSOR_OK && out[0] == 3.0f && out[1] == 3.0f;
    tensor_release(s);
    tensor_release(t);
    if (!ok || mine.rank != 2) {
        fprintf(stderr, "consumer_capture: wrong result (%s)\n", tensor_last_error());
        return 1;
    }
    printf("consumer_capture: the application's ops/ops.h and runtime/tensor.h coexist with tinytensor\n");
    return 0;
}
