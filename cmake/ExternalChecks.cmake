# Checks that live outside c_tests/ and are written by whoever owns them:
#
# - every executable scripts/check_*.sh is the ctest test check_<X>, run from the source
#   directory as   scripts/check_<X>.sh <source dir> <build dir>
#   in the tier and with the timeout that a line of the script declares,
#       # ctest: tier check, timeout 1800
#   (tier `test` or `check`, the timeout in seconds; see dmls_tier in CMakeLists.txt). A script
#   without that line is in the tier `test` with a timeout of 600 s. A script that cannot run
#   here prints a line starting "SKIP: " and exits 77; ctest reports it as skipped.
#   The line may end with the ctest resource locks the script holds, `, locks NAME...` (or
#   `, locks none`); without it, the lock `cargo`. The check tier runs two tests at a time
#   (CMakePresets.json), and no two tests that share a lock run at once:
#       cargo      the library build's target directory (<build dir>/cargo) and its environment
#       asan-cargo <build dir>/asan-cargo (the AddressSanitizer builds)
#       dist       scripts/dist.sh's x86_64 and aarch64 builds (<build dir>/dist*, the zigbuild
#                  target directory)
#   What a script installs on the machine or into a shared cache (apt-get, rustup, the tools
#   directory, .venv/) it installs under a lock of its own (scripts/lock.sh).
# - python/run_tests.sh, when it exists, is the ctest test "python", run from the source
#   directory as   python/run_tests.sh <path to libdirectml_subset.so>, and, with
#   DIRECTML_SUBSET_TEST_INSTALL=1 and tests/test_install.py alone, the test "python_install"
#   (python in the tier `test`, python_install, which runs pip and cargo, in the tier `check`)
#
# The globs are re-checked on every build, so a new script is registered by the next build.

file(GLOB DMLS_CHECK_SCRIPTS CONFIGURE_DEPENDS "${CMAKE_SOURCE_DIR}/scripts/check_*.sh")
list(SORT DMLS_CHECK_SCRIPTS)
foreach(script IN LISTS DMLS_CHECK_SCRIPTS)
  execute_process(COMMAND test -x "${script}" RESULT_VARIABLE _dmls_not_executable)
  get_filename_component(_dmls_script_name "${script}" NAME)
  if(_dmls_not_executable)
    message(WARNING "scripts/${_dmls_script_name} is not executable: not registered as a test")
    continue()
  endif()
  string(REGEX REPLACE "\\.sh$" "" _dmls_test_name "${_dmls_script_name}")
  add_test(NAME ${_dmls_test_name}
    COMMAND "${script}" "${CMAKE_SOURCE_DIR}" "${CMAKE_BINARY_DIR}"
    WORKING_DIRECTORY "${CMAKE_SOURCE_DIR}")
  # Such checks often run cargo on the shared target directory (with the library build's
  # environment, so that they do not rebuild the crate).
  # A script that cannot run here prints a line starting "SKIP: " and exits 77 (automake's
  # code for a skip): ctest then lists it as skipped, not passed, and a skip does not fail the
  # run. (An exit code, not the text: a script that printed such a line and then failed must
  # fail.)
  set_tests_properties(${_dmls_test_name} PROPERTIES
    SKIP_RETURN_CODE 77
    ENVIRONMENT "${DMLS_CARGO_ENV};${DMLS_TEST_ENV}")
  file(STRINGS "${script}" _dmls_tier_line REGEX "^# ctest: " LIMIT_COUNT 1)
  set(_dmls_locks cargo)
  if(_dmls_tier_line MATCHES
     "^# ctest: tier (test|check), timeout ([0-9]+)(, locks (none|[a-z-]+( [a-z-]+)*))?$")
    dmls_tier(${CMAKE_MATCH_1} ${CMAKE_MATCH_2} ${_dmls_test_name})
    if(CMAKE_MATCH_4 STREQUAL "none")
      set(_dmls_locks "")
    elseif(CMAKE_MATCH_4)
      string(REPLACE " " ";" _dmls_locks "${CMAKE_MATCH_4}")
    endif()
  elseif(_dmls_tier_line)
    message(FATAL_ERROR "scripts/${_dmls_script_name}: '${_dmls_tier_line}' is not "
                        "'# ctest: tier test|check, timeout SECONDS[, locks NAME...|none]'")
  else()
    dmls_tier(test 600 ${_dmls_test_name})
  endif()
  if(_dmls_locks)
    set_tests_properties(${_dmls_test_name} PROPERTIES RESOURCE_LOCK "${_dmls_locks}")
  endif()
endforeach()

file(GLOB DMLS_PYTHON_RUNNER CONFIGURE_DEPENDS "${CMAKE_SOURCE_DIR}/python/run_tests.sh")
if(DMLS_PYTHON_RUNNER)
  add_test(NAME python
    COMMAND "${CMAKE_SOURCE_DIR}/python/run_tests.sh" "${DMLS_LIB_DIR}/libdirectml_subset.so"
    WORKING_DIRECTORY "${CMAKE_SOURCE_DIR}")
  set_tests_properties(python PROPERTIES ENVIRONMENT "${DMLS_TEST_ENV}")
  dmls_tier(test 300 python)
  # `pip install ./python` into a temporary directory (python/tests/test_install.py, which the
  # test above skips), offline: no build isolation, no index, cargo offline. Its cargo build is
  # the library build's (same cargo, target directory and environment): no dependency is built
  # again, only the crate when `cargo test` (cargo_test) has built it since.
  add_test(NAME python_install
    COMMAND "${CMAKE_SOURCE_DIR}/python/run_tests.sh" "${DMLS_LIB_DIR}/libdirectml_subset.so"
            tests/test_install.py
    WORKING_DIRECTORY "${CMAKE_SOURCE_DIR}")
  set_tests_properties(python_install PROPERTIES RESOURCE_LOCK cargo
    # A skip would pass unseen.
    FAIL_REGULAR_EXPRESSION "[0-9]+ skipped"
    ENVIRONMENT "DIRECTML_SUBSET_TEST_INSTALL=1;CARGO=${CARGO};CARGO_TARGET_DIR=${DMLS_CARGO_TARGET_DIR};CARGO_NET_OFFLINE=true;${DMLS_CARGO_ENV};${DMLS_TEST_ENV}")
  dmls_tier(check 600 python_install)
endif()
