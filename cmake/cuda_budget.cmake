# The CUDA build's budget, checked by the cuda_budget test (tests/CMakeLists.txt) on the built
# shared library, with or without a GPU:
#   - every row of cuda/reduce_table.h compiles to exactly four reduction kernels (the kernel at
#     output vector widths 1, 2, 4 and the short-rows kernel), each once: a count above that
#     means a kernel is instantiated in more than one unit;
#   - the reduction kernels stay within TENSOR_REDUCE_KERNEL_BUDGET, all kernels within
#     TENSOR_CUDA_KERNEL_BUDGET;
#   - a Release library stays within TENSOR_CUDA_LIBRARY_BUDGET_MB per target architecture.
# Usage: cmake -DLIB=<libtinytensor.so> -DNM=<nm> -DCUOBJDUMP=<cuobjdump or empty> -DROWS=<table rows>
#              -DARCHS=<n> -DCONFIG=<cfg> -P cuda_budget.cmake
set(TENSOR_REDUCE_KERNEL_BUDGET 1350)
set(TENSOR_CUDA_KERNEL_BUDGET 3780)
set(TENSOR_CUDA_LIBRARY_BUDGET_MB 50)

foreach(v LIB NM ROWS ARCHS CONFIG)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "cuda_budget: -D${v}= is required")
  endif()
endforeach()
# Kernels are counted with cuobjdump when the toolkit has it (one "Function" per kernel of each
# unit's cubin, so a kernel compiled in two units counts twice); else by the host launch stubs
# (nm), which only unoptimised host code keeps (Debug); else the test reports itself skipped.
if(CUOBJDUMP)
  execute_process(COMMAND ${CUOBJDUMP} -res-usage ${LIB} OUTPUT_VARIABLE out RESULT_VARIABLE rc ERROR_QUIET)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cuda_budget: ${CUOBJDUMP} failed on ${LIB}")
  endif()
  string(REGEX MATCHALL "Function [^\n]*" stubs "${out}")
  set(how "cuobjdump")
elseif(CONFIG STREQUAL "Debug")
  execute_process(COMMAND ${NM} -C ${LIB} OUTPUT_VARIABLE out RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cuda_budget: ${NM} failed on ${LIB}")
  endif()
  # One stub function per compiled kernel (code symbols, t/T; its static locals and guards
  # are data). Not deduplicated: a kernel compiled in two units with internal linkage has two
  # stubs of the same name, and must count twice.
  string(REGEX MATCHALL "[0-9a-f]+ [tT] __device_stub__[^\n]*" stubs "${out}")
  set(how "nm")
else()
  message("cuda_budget: skipped: no cuobjdump, and an optimised library keeps no launch stubs")
  return()
endif()
list(LENGTH stubs all)
list(FILTER stubs INCLUDE REGEX "reduce_kernel|short_rows_kernel")
list(LENGTH stubs reduce)
math(EXPR expected "4 * ${ROWS}")
file(SIZE ${LIB} bytes)
math(EXPR mb "${bytes} / 1048576")
math(EXPR lib_budget "${TENSOR_CUDA_LIBRARY_BUDGET_MB} * ${ARCHS}")
message(STATUS "cuda_budget (${how}): ${reduce} reduction kernels (table: ${ROWS} rows x 4 = ${expected}; budget ${TENSOR_REDUCE_KERNEL_BUDGET}), "
               "${all} kernels in all (budget ${TENSOR_CUDA_KERNEL_BUDGET}), library ${mb} MB (${CONFIG}; Release budget ${lib_budget} MB)")
set(failed "")
if(NOT reduce EQUAL expected)
  string(APPEND failed " reduction kernels ${reduce} != ${expected} (a kernel compiled in more than one unit, or a row not compiled);")
endif()
if(reduce GREATER TENSOR_REDUCE_KERNEL_BUDGET)
  string(APPEND failed " reduction kernels ${reduce} > ${TENSOR_REDUCE_KERNEL_BUDGET};")
endif()
if(all GREATER TENSOR_CUDA_KERNEL_BUDGET)
  string(APPEND failed " kernels ${all} > ${TENSOR_CUDA_KERNEL_BUDGET};")
endif()
if(CONFIG STREQUAL "Release" AND mb GREATER lib_budget)
  string(APPEND failed " library ${mb} MB > ${lib_budget} MB;")
endif()
if(failed)
  message(FATAL_ERROR "cuda_budget: over budget:${failed}")
endif()
