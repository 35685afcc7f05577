# cmake --install: the shared library with its SONAME symlinks
# (libdirectml_subset.so -> .so.0.MINOR -> .so.0.MINOR.PATCH before 1.0, .so.MAJOR from 1.0 on;
# on Windows bin/directml_subset.dll, lib/libdirectml_subset.dll.a and, made with LLVM's
# llvm-dlltool, the MSVC import library lib/directml_subset.lib), the static library, the
# headers (directml_subset.h, directml_subset.hpp and its parts in directml_subset/), the CMake
# package (find_package(directml_subset CONFIG), with a version file), the pkg-config file
# lib/pkgconfig/directml_subset.pc, and the license files, README and CHANGELOG in
# CMAKE_INSTALL_DOCDIR (share/doc/directml_subset; the binary packages of scripts/dist.sh put
# them at their top).

include(CMakePackageConfigHelpers)

if(DMLS_WINDOWS)
  # Windows: the DLL beside the programs, in bin/; its import library in lib/.
  install(PROGRAMS "${DMLS_LIB_DIR}/${DMLS_SHARED_REAL}"
          DESTINATION "${CMAKE_INSTALL_BINDIR}" COMPONENT runtime)
  install(FILES "${DMLS_LIB_DIR}/${DMLS_IMPLIB}"
          DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT development)
  if(DMLS_MSVC_IMPLIB)
    install(FILES "${DMLS_LIB_DIR}/${DMLS_MSVC_IMPLIB}"
            DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT development)
  endif()
  set(DMLS_CONFIG_SHARED_LOCATION "\${PACKAGE_PREFIX_DIR}/${CMAKE_INSTALL_BINDIR}/${DMLS_SHARED_REAL}")
  # The import library that the consumer's compiler links: MSVC's or MinGW-w64's (below).
  set(DMLS_CONFIG_SHARED_LINK "IMPORTED_IMPLIB \"\${_directml_subset_implib}\"")
  set(DMLS_CONFIG_WINDOWS [=[
# Windows: MSVC (cl, clang-cl) links the DLL through lib/directml_subset.lib, MinGW-w64 through
# lib/libdirectml_subset.dll.a. The static library is MinGW-w64's alone (it needs MinGW-w64's
# runtime): with MSVC there is no directml_subset::static.
if(MSVC)
  set(_directml_subset_implib "${directml_subset_LIBRARY_DIR}/directml_subset.lib")
  if(NOT EXISTS "${_directml_subset_implib}")
    set(directml_subset_FOUND FALSE)
    set(directml_subset_NOT_FOUND_MESSAGE "this directml_subset has no MSVC import library "
        "(${_directml_subset_implib}): it was built without LLVM's llvm-dlltool; MinGW-w64 can link it")
    return()
  endif()
  set(_directml_subset_no_static TRUE)
else()
  set(_directml_subset_implib "${directml_subset_LIBRARY_DIR}/libdirectml_subset.dll.a")
  set(_directml_subset_no_static FALSE)
endif()
]=])
else()
  install(PROGRAMS "${DMLS_LIB_DIR}/${DMLS_SHARED_REAL}"
          DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT runtime)
  # The build tree holds these two as symlinks; install(FILES) installs a symlink as a symlink.
  install(FILES "${DMLS_LIB_DIR}/${DMLS_SONAME}"
          DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT runtime)
  install(FILES "${DMLS_LIB_DIR}/libdirectml_subset.so"
          DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT development)
  set(DMLS_CONFIG_SHARED_LOCATION "\${directml_subset_LIBRARY_DIR}/${DMLS_SHARED_REAL}")
  set(DMLS_CONFIG_SHARED_LINK "IMPORTED_SONAME \"${DMLS_SONAME}\"")
  set(DMLS_CONFIG_WINDOWS "")
endif()
install(FILES "${DMLS_LIB_DIR}/libdirectml_subset.a"
        DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT development)
install(FILES "${CMAKE_SOURCE_DIR}/include/directml_subset.h"
              "${CMAKE_SOURCE_DIR}/include/directml_subset.hpp"
        DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}" COMPONENT development)
# The parts of directml_subset.hpp, beside it as in the source tree (they reach the C header as
# ../directml_subset.h).
install(DIRECTORY "${CMAKE_SOURCE_DIR}/include/directml_subset"
        DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}" COMPONENT development
        FILES_MATCHING PATTERN "*.hpp")

# CMake package.
set(DMLS_CMAKE_PACKAGE_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/directml_subset")
configure_package_config_file(
  "${CMAKE_SOURCE_DIR}/cmake/directml_subset-config.cmake.in"
  "${CMAKE_BINARY_DIR}/package/directml_subset-config.cmake"
  INSTALL_DESTINATION "${DMLS_CMAKE_PACKAGE_DIR}"
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR)
# Compatible versions are those that share the SONAME: the same minor before 1.0, the same
# major from 1.0 on.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(_dmls_compatibility SameMinorVersion)
else()
  set(_dmls_compatibility SameMajorVersion)
endif()
write_basic_package_version_file(
  "${CMAKE_BINARY_DIR}/package/directml_subset-config-version.cmake"
  VERSION "${PROJECT_VERSION}"
  COMPATIBILITY ${_dmls_compatibility})
install(FILES "${CMAKE_BINARY_DIR}/package/directml_subset-config.cmake"
              "${CMAKE_BINARY_DIR}/package/directml_subset-config-version.cmake"
        DESTINATION "${DMLS_CMAKE_PACKAGE_DIR}" COMPONENT development)

# pkg-config. With relative install directories the file locates the prefix from its own
# place (${pcfiledir}), so a copy installed under any --prefix works as it is.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}" OR IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(DMLS_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  set(DMLS_PC_LIBDIR "${CMAKE_INSTALL_FULL_LIBDIR}")
  set(DMLS_PC_INCLUDEDIR "${CMAKE_INSTALL_FULL_INCLUDEDIR}")
else()
  file(RELATIVE_PATH _dmls_pc_up "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
  string(REGEX REPLACE "/$" "" _dmls_pc_up "${_dmls_pc_up}")
  set(DMLS_PC_PREFIX "\${pcfiledir}/${_dmls_pc_up}")
  set(DMLS_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
  set(DMLS_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
list(TRANSFORM DMLS_STATIC_DEPS PREPEND "-l" OUTPUT_VARIABLE _dmls_pc_libs)
string(JOIN " " DMLS_PC_LIBS_PRIVATE ${_dmls_pc_libs})
configure_file("${CMAKE_SOURCE_DIR}/cmake/directml_subset.pc.in"
               "${CMAKE_BINARY_DIR}/package/directml_subset.pc" @ONLY)
install(FILES "${CMAKE_BINARY_DIR}/package/directml_subset.pc"
        DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig" COMPONENT development)

# The license texts (the library is MIT OR Apache-2.0), the README and the changelog.
install(FILES "${CMAKE_SOURCE_DIR}/LICENSE-MIT" "${CMAKE_SOURCE_DIR}/LICENSE-APACHE"
              "${CMAKE_SOURCE_DIR}/README.md" "${CMAKE_SOURCE_DIR}/CHANGELOG.md"
        DESTINATION "${CMAKE_INSTALL_DOCDIR}" COMPONENT runtime)
