/* Internal: the library's composition root. The stub table (contract/dispatch.h) names no
 * backend; this module is the one place that knows which backends the build has. It provides
 * tt_backends_install (declared in contract/dispatch.h), which the table calls once, on its
 * first use, and which calls each compiled backend's registration function. */
#ifndef TENSOR_BACKENDS_H
#define TENSOR_BACKENDS_H

#include "contract/dispatch.h"

#endif
