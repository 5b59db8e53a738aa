/* The application's own ops/ops.h, on its include path before tinytensor's: tinytensor.h must
 * never include it (tinytensor's headers include each other as "tinytensor/..."). */
#ifndef APP_OPS_OPS_H
#define APP_OPS_OPS_H
#ifndef APP_OWN_HEADERS
#error "tinytensor's headers included the application's ops/ops.h"
#endif
static inline int app_op_count(void) { return 2; }
#endif
