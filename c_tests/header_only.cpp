// The header on its own in C++ (compiled as C++11 with -Wall -Wextra -Wpedantic -Werror): it is
// the first and only project include, its declarations are extern "C", and its structs are
// standard-layout types C++ code can aggregate-initialise the DirectML way.
#include "directml_subset.h"

#include <cstdio>
#include <cstring>
#include <type_traits>

static_assert(std::is_standard_layout<DML_BUFFER_TENSOR_DESC>::value, "standard layout");
static_assert(std::is_trivially_copyable<DML_DIAGONAL_MATRIX1_OPERATOR_DESC>::value, "POD");
static_assert(sizeof(DML_DIAGONAL_MATRIX1_OPERATOR_DESC) == 40, "same layout as in C");
static_assert(sizeof(DML_SCALAR_UNION) == 8 && alignof(DML_SCALAR_UNION) == 8, "union layout");

int main() {
    UINT sizes[2] = {2, 2};
    DML_BUFFER_TENSOR_DESC buffer = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 2, sizes,
                                     nullptr, 16, 0};
    DML_TENSOR_DESC tensor = {DML_TENSOR_TYPE_BUFFER, &buffer};
    DML_DIAGONAL_MATRIX1_OPERATOR_DESC eye{};
    eye.OutputTensor = &tensor;
    eye.ValueDataType = DML_TENSOR_DATA_TYPE_FLOAT32;
    eye.Value.Float32 = 3.0f;
    eye.DiagonalFillBegin = 0;
    eye.DiagonalFillEnd = 1;
    DML_OPERATOR_DESC desc = {DML_OPERATOR_DIAGONAL_MATRIX1, &eye};

    dmls_device *device = nullptr;
    dmls_operator *op = nullptr;
    HRESULT hr = dmls_device_create(nullptr, &device);
    if (SUCCEEDED(hr)) hr = dmls_device_create_operator(device, &desc, &op);
    float out[4] = {9, 9, 9, 9};
    DML_BUFFER_BINDING binding = {out, 0, sizeof out};
    DML_BINDING_DESC input = {DML_BINDING_TYPE_NONE, nullptr};
    DML_BINDING_DESC output = {DML_BINDING_TYPE_BUFFER, &binding};
    if (SUCCEEDED(hr)) hr = dmls_operator_execute(op, 1, &input, 1, &output);
    dmls_operator_release(op);
    dmls_device_release(device);

    const char *version = dmls_version();
    const bool ok = SUCCEEDED(hr) && out[0] == 3.0f && out[1] == 0.0f && out[2] == 0.0f &&
                    out[3] == 3.0f && version != nullptr && std::strlen(version) > 0;
    std::printf("header_only (C++ %ld): directml_subset %s: %s\n", static_cast<long>(__cplusplus),
                version, ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
