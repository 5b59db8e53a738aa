# tinytensor_embed_source(<file> <variable> <output header>)
# Writes <output header>, which defines `static const char <variable>[]` holding the text of
# <file> (regenerated when <file> changes). Use it for a user reduction's functor header: the
# CPU compiles the header, the GPU compiles the string at run time
# (TENSOR_REDUCTION_FNS_SOURCE in tinytensor/ops/reduction_kit.h).
function(tinytensor_embed_source file variable output)
  get_filename_component(_in "${file}" ABSOLUTE)
  add_custom_command(OUTPUT "${output}"
    COMMAND "${CMAKE_COMMAND}" -DIN=${_in} -DOUT=${output} -DVAR=${variable}
            -P "${_TINYTENSOR_EMBED_SCRIPT}"
    DEPENDS "${_in}" VERBATIM)
  set_source_files_properties("${output}" PROPERTIES GENERATED TRUE)
endfunction()
set(_TINYTENSOR_EMBED_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/tinytensorEmbedScript.cmake")
