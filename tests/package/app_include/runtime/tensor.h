/* The application's own runtime/tensor.h, on its include path before tinytensor's: tinytensor.h
 * must never include it. A tensor type of the application's own, to show the names coexist. */
#ifndef APP_RUNTIME_TENSOR_H
#define APP_RUNTIME_TENSOR_H
#ifndef APP_OWN_HEADERS
#error "tinytensor's headers included the application's runtime/tensor.h"
#endif
typedef struct app_tensor {
    int rank;
} app_tensor;
#endif
