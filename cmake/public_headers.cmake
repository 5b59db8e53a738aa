# The public headers: the one list of what is installed under <prefix>/include/tinytensor/ (and
# include/tinytensor.h, which includes them, at <prefix>/include/). The build tree mirrors it:
# ${PROJECT_BINARY_DIR}/generated/tinytensor/<path> forwards to each, so that "tinytensor/<path>"
# resolves the same way in-tree and installed. Every other header is internal. Paths are
# relative to the source root; a public header includes another only as "tinytensor/<path>".
set(TENSOR_PUBLIC_HEADERS
  runtime/allocator.h
  runtime/device.h
  runtime/dtype.h
  runtime/dtype_convert.h
  runtime/export.h
  runtime/hostdevice.h
  runtime/runtime.h
  runtime/status.h
  runtime/tensor.h
  iterator/int_divider.h
  iterator/iterator.h
  contract/dispatch.h
  contract/reductions.h
  contract/user_reduction.h
  ops/elementwise.h
  ops/ops.h
  ops/reduction.h
  ops/reduction_kit.h
  ops/scan.h
  ops/functors/all.h
  ops/functors/amax.h
  ops/functors/aminmax.h
  ops/functors/any.h
  ops/functors/argmax.h
  ops/functors/common.h
  ops/functors/count_nonzero.h
  ops/functors/ew_arith.h
  ops/functors/ew_common.h
  ops/functors/ew_compare.h
  ops/functors/ew_logical.h
  ops/functors/ew_unary.h
  ops/functors/logsumexp.h
  ops/functors/max.h
  ops/functors/mean.h
  ops/functors/nansum.h
  ops/functors/norm.h
  ops/functors/prod.h
  ops/functors/sum.h
  ops/functors/sum_of_squares.h
  ops/functors/welford.h
  interop/dlpack.h
  interop/dlpack_abi.h
  interop/interop.h
  interop/npy.h
  dist/collectives.h
  dist/comm.h
  dist/dist.h
  dist/dtensor.h
  dist/reduce.h
)
