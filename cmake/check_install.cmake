# cmake -P: installs the build tree into PREFIX (emptied first) and checks what is there.
# Arguments: SOURCE_DIR BUILD_DIR PREFIX LIBDIR INCLUDEDIR DOCDIR VERSION
# Without BUILD_DIR it checks PREFIX as it is (an unpacked binary package).

if(BUILD_DIR)
  file(REMOVE_RECURSE "${PREFIX}")
  execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${PREFIX}"
                  COMMAND_ERROR_IS_FATAL ANY)
endif()

# The SONAME's version: 0.MINOR before 1.0, MAJOR from 1.0 on.
include("${CMAKE_CURRENT_LIST_DIR}/soname.cmake")
dmls_soname_version("${VERSION}" SONAME_VERSION)

set(lib "${PREFIX}/${LIBDIR}")
set(failures 0)
macro(fail)
  message(SEND_ERROR ${ARGN})
  math(EXPR failures "${failures} + 1")
endmacro()

# Regular files, among them every part of directml_subset.hpp (include/directml_subset/*.hpp
# of the source tree) in INCLUDEDIR/directml_subset/.
file(GLOB hpp_parts RELATIVE "${SOURCE_DIR}/include" "${SOURCE_DIR}/include/directml_subset/*.hpp")
if(NOT hpp_parts)
  fail("no part headers in ${SOURCE_DIR}/include/directml_subset/")
endif()
list(TRANSFORM hpp_parts PREPEND "${PREFIX}/${INCLUDEDIR}/")
foreach(f "${lib}/libdirectml_subset.so.${VERSION}"
          "${lib}/libdirectml_subset.a"
          "${PREFIX}/${INCLUDEDIR}/directml_subset.h"
          "${PREFIX}/${INCLUDEDIR}/directml_subset.hpp"
          ${hpp_parts}
          "${lib}/cmake/directml_subset/directml_subset-config.cmake"
          "${lib}/cmake/directml_subset/directml_subset-config-version.cmake"
          "${lib}/pkgconfig/directml_subset.pc"
          "${PREFIX}/${DOCDIR}/LICENSE-MIT"
          "${PREFIX}/${DOCDIR}/LICENSE-APACHE"
          "${PREFIX}/${DOCDIR}/README.md"
          "${PREFIX}/${DOCDIR}/CHANGELOG.md")
  if(NOT EXISTS "${f}" OR IS_SYMLINK "${f}")
    fail("missing or not a regular file: ${f}")
  endif()
endforeach()

# libdirectml_subset.so -> .so.SONAME_VERSION -> .so.MAJOR.MINOR.PATCH
foreach(pair "libdirectml_subset.so=libdirectml_subset.so.${SONAME_VERSION}"
             "libdirectml_subset.so.${SONAME_VERSION}=libdirectml_subset.so.${VERSION}")
  string(REPLACE "=" ";" pair "${pair}")
  list(GET pair 0 link)
  list(GET pair 1 target)
  if(NOT IS_SYMLINK "${lib}/${link}")
    fail("${lib}/${link} is not a symlink")
  else()
    file(READ_SYMLINK "${lib}/${link}" points_to)
    if(NOT points_to STREQUAL target)
      fail("${lib}/${link} points to ${points_to}, expected ${target}")
    endif()
  endif()
endforeach()

# The SONAME.
find_program(READELF readelf)
find_program(OBJDUMP objdump)
if(READELF)
  execute_process(COMMAND "${READELF}" -d "${lib}/libdirectml_subset.so.${VERSION}"
                  OUTPUT_VARIABLE dynamic COMMAND_ERROR_IS_FATAL ANY)
elseif(OBJDUMP)
  execute_process(COMMAND "${OBJDUMP}" -p "${lib}/libdirectml_subset.so.${VERSION}"
                  OUTPUT_VARIABLE dynamic COMMAND_ERROR_IS_FATAL ANY)
else()
  message(FATAL_ERROR "neither readelf nor objdump found (binutils)")
endif()
string(REGEX MATCH "SONAME[^\n]*" soname_line "${dynamic}")
string(REGEX MATCH "libdirectml_subset[^] \n]*" soname "${soname_line}")
if(NOT soname STREQUAL "libdirectml_subset.so.${SONAME_VERSION}")
  fail("SONAME is '${soname}', expected libdirectml_subset.so.${SONAME_VERSION} ('${soname_line}')")
endif()

if(failures GREATER 0)
  message(FATAL_ERROR "${failures} problem(s) with the installed files in ${PREFIX}")
endif()
message(STATUS "checked ${PREFIX}; SONAME ${soname}")
