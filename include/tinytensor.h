/* tinytensor: a small embeddable tensor runtime in C. Include this one header.
 * Every exported symbol starts with tensor_ / TENSOR_. See docs/api.md. */
#ifndef TINYTENSOR_H
#define TINYTENSOR_H

#include "tinytensor_version.h"
#include "tinytensor/runtime/runtime.h"
#include "tinytensor/iterator/iterator.h"
#include "tinytensor/ops/ops.h"
#include "tinytensor/ops/elementwise.h"
#include "tinytensor/ops/reduction.h"
#include "tinytensor/ops/scan.h"
#include "tinytensor/interop/interop.h"
#include "tinytensor/dist/dist.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version, which may differ from the header's TENSOR_VERSION_* if the program
 * was built against other headers. Static storage. */
TENSOR_API const char *tensor_version_string(void);
TENSOR_API int tensor_version_number(void);

#ifdef __cplusplus
}
#endif
#endif
