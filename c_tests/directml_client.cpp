// A DirectML client written only with DirectML's own names, the way ONNX Runtime's DirectML
// provider writes its descs: NonZero into int64 coordinates through a UINT32 view with strides
// {2, 2*M}, Trilu and EyeLike as DML_OPERATOR_DIAGONAL_MATRIX1, EyeLike as
// DML_OPERATOR_DIAGONAL_MATRIX, and the feature queries. Built twice: against directml_subset.h
// alone, and with DMLS_CLIENT_BESIDE_DIRECTML after the (stand-in) DirectML.h, as a program with
// both a GPU and a CPU path includes them. Nothing here may change between the two builds but
// the includes and how a host pointer is put in DML_BUFFER_BINDING.Buffer.
#if defined(DMLS_CLIENT_BESIDE_DIRECTML)
#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/DirectML.h>
#endif
#include "directml_subset.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

// DirectML.h's version guard, as DirectML clients write it: DIAGONAL_MATRIX1 is there from
// 0x5100. directml_subset.h alone defines DML_TARGET_VERSION as DirectML.h does.
#if !defined(DML_TARGET_VERSION) || DML_TARGET_VERSION < 0x5100
#error "DML_TARGET_VERSION is not defined, or is below 0x5100"
#endif

#if defined(DMLS_CLIENT_BESIDE_DIRECTML)
#if !defined(DIRECTML_H)
#error "the DirectML.h stand-in was not included"
#endif
// DirectML.h's Buffer is an ID3D12Resource *: a host pointer goes in cast to that type.
#define HOST_BUFFER(p) reinterpret_cast<ID3D12Resource *>(p)
#else
#define HOST_BUFFER(p) static_cast<void *>(p)
#endif

static int failures = 0;
#define EXPECT(cond)                                                                         \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            std::fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #cond);          \
            ++failures;                                                                      \
        }                                                                                    \
    } while (0)

static void print_error(const char *what) {
    char msg[512];
    dmls_get_last_error_message(msg, sizeof msg);
    std::fprintf(stderr, "%s: %s\n", what, msg);
}

// Creates an operator; on failure prints the library's message, counts a failure and returns
// nullptr.
static dmls_operator *create_operator(dmls_device *device, const DML_OPERATOR_DESC &desc,
                                      const char *what) {
    dmls_operator *op = nullptr;
    if (FAILED(dmls_device_create_operator(device, &desc, &op))) {
        print_error(what);
        ++failures;
        return nullptr;
    }
    return op;
}

static DML_BUFFER_TENSOR_DESC buffer_desc(DML_TENSOR_DATA_TYPE type, const UINT *sizes, UINT dims,
                                          const UINT *strides, UINT64 total) {
    DML_BUFFER_TENSOR_DESC d;
    std::memset(&d, 0, sizeof d);
    d.DataType = type;
    d.Flags = DML_TENSOR_FLAG_NONE;
    // DirectML's constants are UINTs: std::min deduces one type from both.
    d.DimensionCount = std::min(dims, DML_TENSOR_DIMENSION_COUNT_MAX1);
    d.Sizes = sizes;
    d.Strides = strides;
    d.TotalTensorSizeInBytes = total;
    d.GuaranteedBaseOffsetAlignment = 0;
    return d;
}

static DML_BINDING_DESC bind(DML_BUFFER_BINDING *b, void *p, UINT64 size) {
    b->Buffer = HOST_BUFFER(p);
    b->Offset = 0;
    b->SizeInBytes = size;
    DML_BINDING_DESC d = {DML_BINDING_TYPE_BUFFER, b};
    return d;
}

static void feature_queries(dmls_device *device) {
    DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT q = {DML_TENSOR_DATA_TYPE_FLOAT32};
    DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT s = {0};
    EXPECT(SUCCEEDED(dmls_device_check_feature_support(device, DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT,
                                                       sizeof q, &q, sizeof s, &s)));
    EXPECT(s.IsSupported);
    q.DataType = DML_TENSOR_DATA_TYPE_UINT4;
    EXPECT(SUCCEEDED(dmls_device_check_feature_support(device, DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT,
                                                       sizeof q, &q, sizeof s, &s)));
    EXPECT(!s.IsSupported);

    DML_FEATURE_LEVEL levels[] = {DML_FEATURE_LEVEL_3_0, DML_FEATURE_LEVEL_5_1, DML_FEATURE_LEVEL_6_4};
    DML_FEATURE_QUERY_FEATURE_LEVELS lq = {3, levels};
    DML_FEATURE_DATA_FEATURE_LEVELS ls;
    ls.MaxSupportedFeatureLevel = DML_FEATURE_LEVEL_1_0;
    EXPECT(SUCCEEDED(dmls_device_check_feature_support(device, DML_FEATURE_FEATURE_LEVELS, sizeof lq,
                                                       &lq, sizeof ls, &ls)));
    EXPECT(ls.MaxSupportedFeatureLevel == DML_FEATURE_LEVEL_6_4);
}

// ONNX Runtime's NonZero: coordinates land transposed in the low halves of int64s.
static void nonzero_onnxruntime(dmls_device *device) {
    const UINT M = 6, rank = 2;
    const float input[6] = {0.0f, 1.5f, 0.0f, -2.0f, -0.0f, 3.0f};
    UINT in_sizes[2] = {2, 3};
    UINT count_sizes[2] = {1, 1};
    UINT coord_sizes[2] = {M, rank};
    UINT coord_strides[2] = {2, 2 * M};
    DML_BUFFER_TENSOR_DESC in_b = buffer_desc(DML_TENSOR_DATA_TYPE_FLOAT32, in_sizes, 2, nullptr, 24);
    DML_BUFFER_TENSOR_DESC count_b = buffer_desc(DML_TENSOR_DATA_TYPE_UINT32, count_sizes, 2, nullptr, 4);
    DML_BUFFER_TENSOR_DESC coord_b = buffer_desc(DML_TENSOR_DATA_TYPE_UINT32, coord_sizes, 2,
                                                 coord_strides, UINT64(M) * rank * sizeof(int64_t));
    DML_TENSOR_DESC in_t = {DML_TENSOR_TYPE_BUFFER, &in_b};
    DML_TENSOR_DESC count_t = {DML_TENSOR_TYPE_BUFFER, &count_b};
    DML_TENSOR_DESC coord_t = {DML_TENSOR_TYPE_BUFFER, &coord_b};
    DML_NONZERO_COORDINATES_OPERATOR_DESC nz = {&in_t, &count_t, &coord_t};
    DML_OPERATOR_DESC op_desc = {DML_OPERATOR_NONZERO_COORDINATES, &nz};
    dmls_operator *op = create_operator(device, op_desc, "NonZero");
    if (op == nullptr) return;
    std::vector<int64_t> coords(M * rank, 0);
    uint32_t count = 0;
    DML_BUFFER_BINDING bi, bc, bk;
    DML_BINDING_DESC inputs[1] = {bind(&bi, const_cast<float *>(input), sizeof input)};
    DML_BINDING_DESC outputs[2] = {bind(&bc, &count, sizeof count),
                                   bind(&bk, coords.data(), coords.size() * sizeof(int64_t))};
    EXPECT(SUCCEEDED(dmls_operator_execute(op, 1, inputs, 2, outputs)));
    EXPECT(count == 3);
    // Nonzero elements 1 (0,1), 3 (1,0), 5 (1,2); -0.0 is zero. coords is [rank][M].
    const int64_t want_rows[3] = {0, 1, 1}, want_cols[3] = {1, 0, 2};
    for (UINT i = 0; i < 3; ++i) {
        EXPECT(coords[i] == want_rows[i]);
        EXPECT(coords[M + i] == want_cols[i]);
    }
    dmls_operator_release(op);
}

static bool in_band(int64_t x, int64_t y, int32_t begin, int32_t end) {
    int64_t top = x - y;
    return (end >= begin) ^ (top >= begin) ^ (top < end);
}

// Trilu (input, Value 0) and EyeLike (no input, Value 1) as DIAGONAL_MATRIX1.
static void diagonal_matrix1(dmls_device *device, bool has_input, int32_t begin, int32_t end,
                             float value) {
    const UINT H = 3, W = 4;
    UINT sizes[2] = {H, W};
    DML_BUFFER_TENSOR_DESC b = buffer_desc(DML_TENSOR_DATA_TYPE_FLOAT32, sizes, 2, nullptr, H * W * 4);
    DML_TENSOR_DESC t = {DML_TENSOR_TYPE_BUFFER, &b};
    DML_DIAGONAL_MATRIX1_OPERATOR_DESC d;
    d.InputTensor = has_input ? &t : nullptr;
    d.OutputTensor = &t;
    d.ValueDataType = DML_TENSOR_DATA_TYPE_FLOAT32;
    d.Value.Float32 = value; // only the member the type names is set
    d.DiagonalFillBegin = begin;
    d.DiagonalFillEnd = end;
    DML_OPERATOR_DESC op_desc = {DML_OPERATOR_DIAGONAL_MATRIX1, &d};
    dmls_operator *op = create_operator(device, op_desc, "DIAGONAL_MATRIX1");
    if (op == nullptr) return;
    std::vector<float> in(H * W), out(H * W, -1.0f);
    for (UINT i = 0; i < H * W; ++i) in[i] = float(i + 1);
    DML_BUFFER_BINDING bi, bo;
    DML_BINDING_DESC inputs[1];
    if (has_input) {
        inputs[0] = bind(&bi, in.data(), in.size() * 4);
    } else {
        inputs[0].Type = DML_BINDING_TYPE_NONE;
        inputs[0].Desc = nullptr;
    }
    DML_BINDING_DESC outputs[1] = {bind(&bo, out.data(), out.size() * 4)};
    EXPECT(SUCCEEDED(dmls_operator_execute(op, 1, inputs, 1, outputs)));
    for (UINT y = 0; y < H; ++y)
        for (UINT x = 0; x < W; ++x) {
            float other = has_input ? in[y * W + x] : 0.0f;
            float want = in_band(x, y, begin, end) ? value : other;
            EXPECT(out[y * W + x] == want);
        }
    dmls_operator_release(op);
}

// EyeLike as DIAGONAL_MATRIX: Out = (y + Offset == x) ? Value : 0.
static void diagonal_matrix(dmls_device *device, int32_t offset) {
    const UINT H = 4, W = 3;
    UINT sizes[2] = {H, W};
    DML_BUFFER_TENSOR_DESC b = buffer_desc(DML_TENSOR_DATA_TYPE_INT32, sizes, 2, nullptr, H * W * 4);
    DML_TENSOR_DESC t = {DML_TENSOR_TYPE_BUFFER, &b};
    DML_DIAGONAL_MATRIX_OPERATOR_DESC d = {&t, offset, 1.0f};
    DML_OPERATOR_DESC op_desc = {DML_OPERATOR_DIAGONAL_MATRIX, &d};
    dmls_operator *op = create_operator(device, op_desc, "DIAGONAL_MATRIX");
    if (op == nullptr) return;
    std::vector<int32_t> out(H * W, -7);
    DML_BUFFER_BINDING bo;
    DML_BINDING_DESC outputs[1] = {bind(&bo, out.data(), out.size() * 4)};
    EXPECT(SUCCEEDED(dmls_operator_execute(op, 0, nullptr, 1, outputs)));
    for (UINT y = 0; y < H; ++y)
        for (UINT x = 0; x < W; ++x) EXPECT(out[y * W + x] == (int32_t(y) + offset == int32_t(x) ? 1 : 0));
    dmls_operator_release(op);
}

// An operator type DirectML has and this library lacks: E_NOTIMPL, named as DirectML names it.
static void lacking_operator(dmls_device *device) {
    DML_OPERATOR_DESC op_desc = {DML_OPERATOR_FILL_VALUE_CONSTANT, &op_desc};
    dmls_operator *op = nullptr;
    EXPECT(dmls_device_create_operator(device, &op_desc, &op) == E_NOTIMPL);
    EXPECT(op == nullptr);
    char msg[512];
    dmls_get_last_error_message(msg, sizeof msg);
    EXPECT(std::strstr(msg, "DML_OPERATOR_FILL_VALUE_CONSTANT") != nullptr);
}

int main() {
    static_assert(DML_TENSOR_DIMENSION_COUNT_MAX1 == 8, "DirectML's constant");
    static_assert(sizeof(DML_BUFFER_BINDING) == 24, "DirectML's layout");
    dmls_device_desc desc = {DML_FEATURE_LEVEL_6_4, 1, 0};
    dmls_device *device = nullptr;
    if (FAILED(dmls_device_create(&desc, &device))) {
        print_error("device");
        return 1;
    }
    feature_queries(device);
    nonzero_onnxruntime(device);
    diagonal_matrix1(device, true, INT32_MIN, 1, 0.0f);  // Trilu upper, k = 1
    diagonal_matrix1(device, true, 0, INT32_MAX, 0.0f);  // Trilu lower, k = -1 (Begin k + 1)
    diagonal_matrix1(device, false, 1, 2, 1.0f);         // EyeLike, k = 1
    diagonal_matrix(device, 0);                           // EyeLike
    diagonal_matrix(device, -1);
    lacking_operator(device);
    dmls_device_release(device);
    if (failures) {
        std::fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    std::puts("directml_client: ok");
    return 0;
}
