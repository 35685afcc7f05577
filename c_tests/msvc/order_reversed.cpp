// Must NOT compile: directml_subset.h before the stand-in of DirectML.h, compiled by clang-cl,
// which is not GCC or Clang in GNU mode: the header's C++ branch for other compilers stops the
// compile with a static_assert that names the right order (scripts/check_windows.sh).
#include <windows.h>
#include <directx/d3d12.h>
#include "directml_subset.h"
#include <directx/DirectML.h>

int main() { return 0; }
