// logcumsumexp on CUDA: floating dtypes, the output in the input's dtype.
#include "cuda/scan_run.cuh"

using namespace tt_scan;

extern "C" tensor_status tt_cuda_scan_logcumsumexp(const tt_scan_job *job) {
    if (job->in_dtype == job->out_dtype) {
        switch (job->in_dtype) {
#define FLOAT_(D, S)                                                                                                   \
    case D: return run<LogAddExpOp<S>, S, S>(job, LogAddExpOp<S>{});
            FLOAT_(TENSOR_FLOAT16, tt_cvt::Half)
            FLOAT_(TENSOR_BFLOAT16, tt_cvt::BFloat16)
            FLOAT_(TENSOR_FLOAT32, float)
            FLOAT_(TENSOR_FLOAT64, double)
            FLOAT_(TENSOR_FLOAT8_E4M3FN, tt_cvt::E4M3)
            FLOAT_(TENSOR_FLOAT8_E5M2, tt_cvt::E5M2)
#undef FLOAT_
        default: break;
        }
    }
    return unsupported(job, "logcumsumexp");
}
