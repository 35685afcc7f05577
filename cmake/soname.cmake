# The SONAME's version for a project version: libdirectml_subset.so.0.MINOR before 1.0 (a 0.x
# minor may break compatibility), libdirectml_subset.so.MAJOR from 1.0 on (docs/versioning.md).
# Used by the build (CMakeLists.txt) and by the install check (cmake/check_install.cmake).
function(dmls_soname_version version out)
  string(REGEX MATCH "^([0-9]+)\\.([0-9]+)" _ "${version}")
  if(CMAKE_MATCH_1 EQUAL 0)
    set(${out} "0.${CMAKE_MATCH_2}" PARENT_SCOPE)
  else()
    set(${out} "${CMAKE_MATCH_1}" PARENT_SCOPE)
  endif()
endfunction()
