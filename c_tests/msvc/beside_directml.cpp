// Compiled by clang-cl (MSVC's front end, no GNU extensions): directml_subset.h after the
// stand-in of DirectML.h (c_tests/directml_standin), as an MSVC program includes them, declares
// only what DirectML.h lacks and uses DirectML.h's constants (scripts/check_windows.sh).
#include <windows.h>
#include <directx/d3d12.h>
#include <directx/DirectML.h>
#include "directml_subset.h"

static_assert(DML_TENSOR_DIMENSION_COUNT_MAX1 == 8u, "DirectML.h's constant");
static_assert(sizeof(DML_BUFFER_BINDING) == 24, "DirectML.h's DML_BUFFER_BINDING");
static_assert(sizeof(dmls_device_desc) == 12, "directml_subset.h's own struct");

int main() { return 0; }
