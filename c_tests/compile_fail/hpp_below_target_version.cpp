// Must NOT compile: the C++ wrapper beside a DirectML.h (the test stand-in) whose
// DML_TARGET_VERSION is below 0x5100, where DirectML.h declares no DIAGONAL_MATRIX1, stops with a
// message naming the fix. With -DDMLS_CONTROL the target is 0x5100, which has no UINT4 or INT4
// (those come at 0x6300), and the wrapper compiles.
#ifdef DMLS_CONTROL
#define DML_TARGET_VERSION 0x5100
#else
#define DML_TARGET_VERSION 0x5000
#endif
#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/DirectML.h>

#include "directml_subset.hpp"

int main() {
    return dmls::data_type_name(DML_TENSOR_DATA_TYPE_FLOAT32)[0] == 'D' ? 0 : 1;
}
