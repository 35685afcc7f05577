// Must NOT compile: directml_subset.h before DirectML.h (the stand-in). The compile stops with
// the header's message naming the right order (checked by cmake/check_include_order.cmake).
#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#if defined(DMLS_ORDER_TEST_HPP)
#include "directml_subset.hpp"
#else
#include "directml_subset.h"
#endif
#include <directx/DirectML.h>

int main() { return 0; }
