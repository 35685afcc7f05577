# Tests of the installed library, registered with ctest:
#   install                  cmake --install into build/install-test, then check the layout
#                            (SONAME, version symlinks, headers and the parts of
#                            directml_subset.hpp, package files, license files)
#   install_exports          the shared library exports exactly the dmls_ functions of the API
#   install_version          Cargo.toml, the header macros, the CMake package version and the
#                            pkg-config version agree
#   consumer_find_package    consumer/ configured with find_package against the installed copy,
#                            built and its tests run (shared, static, fully static, C++ wrapper)
#   consumer_pkg_config      consumer/main.c built with cc $(pkg-config --cflags --libs ...),
#                            and fully static with cc -static ... --libs --static ...
# The last four need the first (fixture dmls_installed). All are in the tier `check`.

set(DMLS_TEST_PREFIX "${CMAKE_BINARY_DIR}/install-test")
set(DMLS_TEST_LIBDIR "${DMLS_TEST_PREFIX}/${CMAKE_INSTALL_LIBDIR}")

add_test(NAME install
  COMMAND "${CMAKE_COMMAND}"
          "-DSOURCE_DIR=${CMAKE_SOURCE_DIR}"
          "-DBUILD_DIR=${CMAKE_BINARY_DIR}"
          "-DPREFIX=${DMLS_TEST_PREFIX}"
          "-DLIBDIR=${CMAKE_INSTALL_LIBDIR}"
          "-DINCLUDEDIR=${CMAKE_INSTALL_INCLUDEDIR}"
          "-DDOCDIR=${CMAKE_INSTALL_DOCDIR}"
          "-DVERSION=${PROJECT_VERSION}"
          -P "${CMAKE_SOURCE_DIR}/cmake/check_install.cmake")
# (It copies <build dir>/cargo's library, which checks holding the lock cargo may build again.)
set_tests_properties(install PROPERTIES FIXTURES_SETUP dmls_installed RESOURCE_LOCK cargo)
dmls_tier(check 120 install)

add_test(NAME install_exports
  COMMAND "${CMAKE_SOURCE_DIR}/cmake/check_exports.sh"
          "${DMLS_TEST_LIBDIR}/libdirectml_subset.so"
          "${DMLS_TEST_PREFIX}/${CMAKE_INSTALL_INCLUDEDIR}/directml_subset.h")
set_tests_properties(install_exports PROPERTIES FIXTURES_REQUIRED dmls_installed)
dmls_tier(check 60 install_exports)

add_test(NAME install_version
  COMMAND "${CMAKE_COMMAND}"
          "-DSOURCE_DIR=${CMAKE_SOURCE_DIR}"
          "-DPREFIX=${DMLS_TEST_PREFIX}"
          "-DLIBDIR=${CMAKE_INSTALL_LIBDIR}"
          "-DINCLUDEDIR=${CMAKE_INSTALL_INCLUDEDIR}"
          "-DPROJECT_VERSION=${PROJECT_VERSION}"
          -P "${CMAKE_SOURCE_DIR}/cmake/check_version.cmake")
set_tests_properties(install_version PROPERTIES FIXTURES_REQUIRED dmls_installed)
dmls_tier(check 60 install_version)

add_test(NAME consumer_find_package
  COMMAND "${CMAKE_COMMAND}"
          "-DSOURCE_DIR=${CMAKE_SOURCE_DIR}/consumer"
          "-DBINARY_DIR=${CMAKE_BINARY_DIR}/consumer-find-package"
          "-DPREFIX=${DMLS_TEST_PREFIX}"
          "-DGENERATOR=${CMAKE_GENERATOR}"
          "-DC_COMPILER=${CMAKE_C_COMPILER}"
          "-DCXX_COMPILER=${CMAKE_CXX_COMPILER}"
          -P "${CMAKE_SOURCE_DIR}/cmake/check_consumer.cmake")
set_tests_properties(consumer_find_package PROPERTIES FIXTURES_REQUIRED dmls_installed)
dmls_tier(check 300 consumer_find_package)

find_program(PKG_CONFIG_EXECUTABLE NAMES pkg-config pkgconf)
if(PKG_CONFIG_EXECUTABLE)
  add_test(NAME consumer_pkg_config
    COMMAND "${CMAKE_SOURCE_DIR}/cmake/check_pkg_config.sh"
            "${CMAKE_SOURCE_DIR}/consumer/main.c"
            "${DMLS_TEST_LIBDIR}/pkgconfig"
            "${CMAKE_BINARY_DIR}/consumer-pkg-config"
            "${PROJECT_VERSION}"
            "${CMAKE_C_COMPILER}")
  set_tests_properties(consumer_pkg_config PROPERTIES
    FIXTURES_REQUIRED dmls_installed
    ENVIRONMENT "PKG_CONFIG=${PKG_CONFIG_EXECUTABLE}")
  dmls_tier(check 300 consumer_pkg_config)
else()
  message(WARNING "pkg-config not found: the consumer_pkg_config test is not registered")
endif()
