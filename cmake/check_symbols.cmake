# The `symbols` test: every global symbol a library defines (strong: T, D, B, R) carries one of
# our prefixes, so an application can define any name of its own without a clash:
#   tensor_ / TENSOR_   the API and its internals
#   tt_                 internal C functions, and the C++ namespaces of the CUDA code
# Compiler-made names are allowed: reserved ones (leading "__") and nvcc's per-unit anonymous
# namespaces (_GLOBAL__N_<hash>). Usage: cmake -DNM=<nm> -DLIBS="<lib>;<lib>" -P check_symbols.cmake
foreach(v NM LIBS)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "check_symbols: -D${v}= is required")
  endif()
endforeach()
set(bad "")
foreach(lib IN LISTS LIBS)
  execute_process(COMMAND ${NM} -g --defined-only ${lib} OUTPUT_VARIABLE out RESULT_VARIABLE rc ERROR_QUIET)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "check_symbols: ${NM} failed on ${lib}")
  endif()
  string(REGEX MATCHALL "[0-9a-f]+ [TDBR] [^\n]+" syms "${out}")
  set(n 0)
  foreach(line IN LISTS syms)
    string(REGEX REPLACE "^[0-9a-f]+ [TDBR] " "" name "${line}")
    math(EXPR n "${n} + 1")
    if(NOT name MATCHES "^(tensor_|TENSOR_|tt_|_ZN[0-9]+tt_|_ZN[0-9]+_GLOBAL__N_|__)")
      list(APPEND bad "${name}")
    endif()
  endforeach()
  message(STATUS "check_symbols: ${lib}: ${n} global symbols")
endforeach()
if(bad)
  list(REMOVE_DUPLICATES bad)
  list(LENGTH bad nbad)
  list(SUBLIST bad 0 20 shown)
  message(FATAL_ERROR "check_symbols: ${nbad} global symbols without our prefixes, e.g. ${shown}")
endif()
