/* tinytensor: a small embeddable tensor runtime in C. Include this one header.
 * Every exported symbol starts with tensor_ / TENSOR_. See docs/api.md. */
#ifndef TINYTENSOR_H
#define TINYTENSOR_H

#include "tinytensor_version.h"
#include "runtime/runtime.h"
#include "iterator/iterator.h"
#include "ops/ops.h"
#include "ops/elementwise.h"
#include "ops/reduction.h"
#include "ops/scan.h"
#include "interop/interop.h"
#include "dist/dist.h"

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
