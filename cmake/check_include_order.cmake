# cmake -P: including directml_subset.h (or .hpp) BEFORE DirectML.h (the test stand-in under
# c_tests/directml_standin) must fail to compile, and the first error must be the header's
# message naming the right order, not a wall of redefinitions.
# Arguments: CXX (the C++ compiler), SOURCE_DIR.
set(failures 0)
foreach(variant h hpp)
  set(defs "")
  if(variant STREQUAL "hpp")
    set(defs "-DDMLS_ORDER_TEST_HPP")
  endif()
  execute_process(
    COMMAND "${CXX}" -std=c++17 -Wall -Wextra -Wpedantic -Werror ${defs}
            "-I${SOURCE_DIR}/c_tests/directml_standin" "-I${SOURCE_DIR}/include"
            -fsyntax-only "${SOURCE_DIR}/c_tests/include_order_reversed.cpp"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(APPEND out "${err}")
  if(rc EQUAL 0)
    message(SEND_ERROR "directml_subset.${variant} before DirectML.h compiled; it must not")
    math(EXPR failures "${failures} + 1")
    continue()
  endif()
  string(REGEX MATCHALL "error[^\n]*" errors "${out}")
  list(LENGTH errors n)
  list(GET errors 0 first)
  if(NOT first MATCHES "include DirectML.h first, then directml_subset.h")
    message(SEND_ERROR "directml_subset.${variant}: first error is not the include-order message:\n${out}")
    math(EXPR failures "${failures} + 1")
  elseif(n GREATER 2)
    # The message, then (GCC) the stop that ends the compile; nothing else.
    message(SEND_ERROR "directml_subset.${variant}: ${n} errors, expected the message alone:\n${out}")
    math(EXPR failures "${failures} + 1")
  else()
    message(STATUS "directml_subset.${variant} before DirectML.h: ${first}")
  endif()
endforeach()
if(failures)
  message(FATAL_ERROR "${failures} include-order checks failed")
endif()
