# cmake -P: one version everywhere. Cargo.toml's [package] version must equal the header's
# DMLS_VERSION_MAJOR/MINOR/PATCH (in the source tree and as installed), the CMake project
# version, the installed CMake package version and the installed pkg-config Version.
# (dmls_version() is checked against the header macros by c_tests/test_version.c and by the
# consumer programs, which are built against the installed copy.)
# Arguments: SOURCE_DIR PREFIX LIBDIR INCLUDEDIR PROJECT_VERSION

set(failures 0)
macro(expect what value)
  if(NOT "${value}" STREQUAL "${cargo_version}")
    message(SEND_ERROR "${what} is '${value}', Cargo.toml says '${cargo_version}'")
    math(EXPR failures "${failures} + 1")
  else()
    message(STATUS "${what}: ${value}")
  endif()
endmacro()

# Cargo.toml: the first top-level `version = "..."` line (the [package] table's).
file(STRINGS "${SOURCE_DIR}/Cargo.toml" line REGEX "^version *= *\"" LIMIT_COUNT 1)
string(REGEX REPLACE "^version *= *\"([^\"]*)\".*" "\\1" cargo_version "${line}")
if(NOT cargo_version MATCHES "^[0-9]+\\.[0-9]+\\.[0-9]+$")
  message(FATAL_ERROR "could not read a MAJOR.MINOR.PATCH version from Cargo.toml: '${line}'")
endif()
message(STATUS "Cargo.toml: ${cargo_version}")

function(header_version path out)
  file(READ "${path}" text)
  foreach(part MAJOR MINOR PATCH)
    if(NOT text MATCHES "#define DMLS_VERSION_${part} ([0-9]+)")
      message(SEND_ERROR "${path} has no DMLS_VERSION_${part}")
      set(${out} "missing" PARENT_SCOPE)
      return()
    endif()
    set(${part} "${CMAKE_MATCH_1}")
  endforeach()
  set(${out} "${MAJOR}.${MINOR}.${PATCH}" PARENT_SCOPE)
endfunction()

header_version("${SOURCE_DIR}/include/directml_subset.h" v)
expect("include/directml_subset.h DMLS_VERSION_*" "${v}")
header_version("${PREFIX}/${INCLUDEDIR}/directml_subset.h" v)
expect("installed directml_subset.h DMLS_VERSION_*" "${v}")

expect("CMake project version" "${PROJECT_VERSION}")

# The package version file sets PACKAGE_VERSION (and judges compatibility with a request).
set(PACKAGE_FIND_VERSION "${cargo_version}")
string(REGEX REPLACE "\\..*" "" PACKAGE_FIND_VERSION_MAJOR "${cargo_version}")
include("${PREFIX}/${LIBDIR}/cmake/directml_subset/directml_subset-config-version.cmake")
expect("installed CMake package version" "${PACKAGE_VERSION}")
if(NOT PACKAGE_VERSION_COMPATIBLE)
  message(SEND_ERROR "the CMake package says it is not compatible with its own version")
  math(EXPR failures "${failures} + 1")
endif()

file(STRINGS "${PREFIX}/${LIBDIR}/pkgconfig/directml_subset.pc" line REGEX "^Version:")
string(REGEX REPLACE "^Version: *" "" pc_version "${line}")
expect("installed pkg-config Version" "${pc_version}")

if(failures GREATER 0)
  message(FATAL_ERROR "${failures} version(s) disagree with Cargo.toml")
endif()
