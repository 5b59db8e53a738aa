# Every public header compiles on its own, as C11 and as C++17, with nothing on the include path
# but the installed layout: a header that forgets one of its own includes, or reaches an internal
# header or a short module path ("runtime/..."), fails here rather than in a consumer's build.
# The `public_headers` test runs it over the build tree (generated/tinytensor/ forwards to the
# sources); scripts/check-install.sh over an installed prefix.
#   cmake -DCC=<c compiler> [-DCXX=<c++ compiler>] -DINCLUDES="<dir>;<dir>"
#         -DHEADERS="tinytensor.h;tinytensor/runtime/runtime.h;..." -DWORK=<scratch dir>
#         -P check_headers.cmake
foreach(v CC INCLUDES HEADERS WORK)
  if(NOT DEFINED ${v} OR "${${v}}" STREQUAL "")
    message(FATAL_ERROR "check_headers: -D${v}= is required")
  endif()
endforeach()
set(_inc)
foreach(d IN LISTS INCLUDES)
  list(APPEND _inc "-I${d}")
endforeach()
file(MAKE_DIRECTORY "${WORK}")
set(_tu "${WORK}/one_header.c")
set(_bad "")
set(_n 0)
foreach(h IN LISTS HEADERS)
  file(WRITE "${_tu}" "#include \"${h}\"\n")
  execute_process(COMMAND ${CC} -std=c11 -Wall -Wextra -Werror -fsyntax-only ${_inc} "${_tu}"
    RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out)
  if(NOT rc EQUAL 0)
    list(APPEND _bad "${h} (C11)")
    message("check_headers: ${h} does not compile on its own as C11:\n${out}${err}")
  endif()
  if(CXX)
    execute_process(COMMAND ${CXX} -std=c++17 -Wall -Wextra -Werror -fsyntax-only -x c++ ${_inc} "${_tu}"
      RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out)
    if(NOT rc EQUAL 0)
      list(APPEND _bad "${h} (C++17)")
      message("check_headers: ${h} does not compile on its own as C++17:\n${out}${err}")
    endif()
  endif()
  math(EXPR _n "${_n} + 1")
endforeach()
if(_bad)
  message(FATAL_ERROR "check_headers: ${_bad}")
endif()
if(CXX)
  message(STATUS "check_headers: ${_n} headers compile on their own as C11 and as C++17")
else()
  message(STATUS "check_headers: ${_n} headers compile on their own as C11 (no C++ compiler: C++17 not checked)")
endif()
