// directml_subset.hpp on its own (the first and only project include), compiled as C++17 with
// -Wall -Wextra -Wpedantic -Werror; the program links and calls the library through it.
#include "directml_subset.hpp"

#include <cstdio>

int main() {
    dmls::device device(DML_FEATURE_LEVEL_5_1, 1);
    dmls::op eye = device.create_operator(
        dmls::diagonal_matrix(dmls::tensor_desc(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 2})));
    float out[4] = {9, 9, 9, 9};
    eye.execute({}, {dmls::binding::of(out)});
    const bool ok = out[0] == 1.0f && out[1] == 0.0f && out[2] == 0.0f && out[3] == 1.0f;
    std::printf("header_only_hpp (C++ %ld): directml_subset %s: %s\n",
                static_cast<long>(__cplusplus), dmls::version(), ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
