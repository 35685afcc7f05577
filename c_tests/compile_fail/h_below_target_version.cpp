// Must NOT compile: directml_subset.h beside a DirectML.h (the test stand-in) whose
// DML_TARGET_VERSION is below 0x2000, where DirectML.h declares no DML_FEATURE_LEVEL, stops with
// a message naming the fix. With -DDMLS_CONTROL the target is 0x2000 and it compiles.
#ifdef DMLS_CONTROL
#define DML_TARGET_VERSION 0x2000
#else
#define DML_TARGET_VERSION 0x1000
#endif
#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/DirectML.h>

#include "directml_subset.h"

int main() {
    dmls_device_desc desc = {};
    desc.feature_level = DML_FEATURE_LEVEL_2_0;
    return desc.thread_count == 0 ? 0 : 1;
}
