// cummax and cummin on CUDA (one kernel per dtype; the direction is a kernel argument): values
// in the input's dtype, int64 indices.
#include "cuda/scan_run.cuh"

using namespace tt_scan;

extern "C" tensor_status tt_cuda_scan_extreme(const tt_scan_job *job) {
    if (job->in_dtype == job->out_dtype) {
        const bool is_max = job->kind == TENSOR_SCAN_CUMMAX;
        switch (job->in_dtype) {
#define EXT_(D, S)                                                                                                     \
    case D: return run<ExtremeOp<S>, S, S>(job, ExtremeOp<S>{is_max});
            TT_SCAN_FOR_EACH_DTYPE(EXT_)
#undef EXT_
        default: break;
        }
    }
    return unsupported(job, job->kind == TENSOR_SCAN_CUMMAX ? "cummax" : "cummin");
}
