// The C++ wrapper's whole test (test_hpp.cpp) again, this time in a program that includes the
// (stand-in) DirectML.h first, as one with a GPU path does: the wrapper must compile and behave
// the same with DirectML.h's own types.
#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/DirectML.h>

#include "test_hpp.cpp"
