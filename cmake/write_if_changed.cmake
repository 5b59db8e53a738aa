# tensor_write_if_changed(file text): writes text to file unless the file already holds exactly
# that, so that a reconfigure leaves generated files (and what compiles them) untouched.
function(tensor_write_if_changed file text)
  set(_old "")
  if(EXISTS ${file})
    file(READ ${file} _old)
  endif()
  if(NOT _old STREQUAL text)
    file(WRITE ${file} "${text}")
  endif()
endfunction()
