# The Rust side of the test suite, run by ctest: cargo test of the workspace (the library's unit,
# integration and doc tests, the header check included, and test-support/'s own tests) and, when
# DMLS_RUST_LINTS is ON, clippy, rustfmt and rustdoc with warnings as errors (clippy and rustfmt
# also over the workspace), in the tier `test`; and in the tier `check`, the test and clippy of
# the library built with the benchmark's timestamps (the feature `trace`). Their timeouts allow
# for a first build.
# cargo_test builds in a target directory of its own inside the library build's,
# <build dir>/cargo/test: its library has the test-only feature `panic-test` (the crate's
# dev-dependency on itself), and cargo keeps one build of the library's .so and .a per target
# directory, whatever their features, so a test build and the library build in one directory
# would each rebuild the library after the other (about 30 s and 80 s on 2 cores). The lints use
# the library build's directory (they compile no .so). The two `trace` tests build in
# <build dir>/cargo/trace. They take the lock "cargo" so that ctest -j never runs
# two cargo commands on one target directory at once, and the environment of the library build
# (DMLS_CARGO_ENV), so that none of them rebuilds the crate.

set(_dmls_cargo_common --manifest-path "${CMAKE_SOURCE_DIR}/Cargo.toml"
                       --target-dir "${DMLS_CARGO_TARGET_DIR}")

# The benchmark's timestamps (the cargo feature `trace`, off in every other build): the test that
# a parallel execution records each step once, in order. Tier check. In a target directory of its
# own, since a build with the feature would replace the library the other tests load.
add_test(NAME cargo_trace
  COMMAND "${CARGO}" test --release --features trace --test trace
          --manifest-path "${CMAKE_SOURCE_DIR}/Cargo.toml"
          --target-dir "${DMLS_CARGO_TARGET_DIR}/trace"
  WORKING_DIRECTORY "${CMAKE_SOURCE_DIR}")
set_tests_properties(cargo_trace PROPERTIES RESOURCE_LOCK cargo
  ENVIRONMENT "${DMLS_CARGO_ENV};${DMLS_TEST_ENV}")
dmls_tier(check 900 cargo_trace)

add_test(NAME cargo_test
  COMMAND "${CARGO}" test --release --workspace --manifest-path "${CMAKE_SOURCE_DIR}/Cargo.toml"
          --target-dir "${DMLS_CARGO_TARGET_DIR}/test"
  WORKING_DIRECTORY "${CMAKE_SOURCE_DIR}")
set_tests_properties(cargo_test PROPERTIES RESOURCE_LOCK cargo
  ENVIRONMENT "${DMLS_CARGO_ENV};${DMLS_TEST_ENV}")
dmls_tier(test 900 cargo_test)

if(DMLS_RUST_LINTS)
  get_filename_component(_dmls_cargo_dir "${CARGO}" DIRECTORY)
  find_program(CARGO_CLIPPY cargo-clippy HINTS "${_dmls_cargo_dir}")
  find_program(CARGO_FMT cargo-fmt HINTS "${_dmls_cargo_dir}")

  if(CARGO_CLIPPY)
    add_test(NAME cargo_clippy
      COMMAND "${CARGO}" clippy --release --workspace --all-targets ${_dmls_cargo_common} -- -D warnings
      WORKING_DIRECTORY "${CMAKE_SOURCE_DIR}")
    set_tests_properties(cargo_clippy PROPERTIES RESOURCE_LOCK cargo
      ENVIRONMENT "${DMLS_CARGO_ENV}")
    dmls_tier(test 600 cargo_clippy)
    # And clippy over everything built with the feature `trace` (the benchmark's `trace` mode
    # among it), in the trace tests' target directory (see cargo_trace).
    add_test(NAME cargo_trace_clippy
      COMMAND "${CARGO}" clippy --release --all-targets --features trace
              --manifest-path "${CMAKE_SOURCE_DIR}/Cargo.toml"
              --target-dir "${DMLS_CARGO_TARGET_DIR}/trace" -- -D warnings
      WORKING_DIRECTORY "${CMAKE_SOURCE_DIR}")
    set_tests_properties(cargo_trace_clippy PROPERTIES RESOURCE_LOCK cargo
      ENVIRONMENT "${DMLS_CARGO_ENV}")
    dmls_tier(check 600 cargo_trace_clippy)
  else()
    message(STATUS "cargo clippy not found: the cargo_clippy test is not registered")
  endif()

  if(CARGO_FMT)
    add_test(NAME cargo_fmt
      COMMAND "${CARGO}" fmt --all --check --manifest-path "${CMAKE_SOURCE_DIR}/Cargo.toml"
      WORKING_DIRECTORY "${CMAKE_SOURCE_DIR}")
    dmls_tier(test 120 cargo_fmt)
  else()
    message(STATUS "cargo fmt not found: the cargo_fmt test is not registered")
  endif()

  # rustdoc of the crate only (no dependencies), private items too (their links are the
  # maintainers' map of the code), every warning an error.
  add_test(NAME cargo_doc
    COMMAND "${CMAKE_COMMAND}" -E env RUSTDOCFLAGS=-Dwarnings "${DMLS_CARGO_ENV}"
            "${CARGO}" doc --release --no-deps --lib --document-private-items ${_dmls_cargo_common}
    WORKING_DIRECTORY "${CMAKE_SOURCE_DIR}")
  set_tests_properties(cargo_doc PROPERTIES RESOURCE_LOCK cargo)
  dmls_tier(test 300 cargo_doc)
endif()
