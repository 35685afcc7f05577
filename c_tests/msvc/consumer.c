/*
 * An MSVC-built program (clang-cl, linked by lld-link) against the Windows package's DLL,
 * through its MSVC import library lib/directml_subset.lib (scripts/check_windows.sh). It has no
 * C library (none of MSVC's is here): it starts at `start`, writes with kernel32's WriteFile
 * and ends with ExitProcess. What it checks is what an MSVC program shares with the MinGW-w64
 * DLL: the nine functions by name, the structs' layouts as MSVC lays them out (DML_SCALAR_UNION
 * and 64-bit fields included), HRESULTs and the error message.
 */
#include <directml_subset.h>

static int failures = 0;

static void say(const char *text) {
    DWORD length = 0, written = 0;
    while (text[length]) ++length;
    WriteFile(GetStdHandle(STD_OUTPUT_HANDLE), text, length, &written, 0);
}

static void say_hex(uint64_t value) {
    char text[19] = "0x";
    for (int i = 0; i < 16; ++i) text[2 + i] = "0123456789ABCDEF"[(value >> (60 - 4 * i)) & 15];
    text[18] = 0;
    say(text);
}

static void check(int ok, const char *what) {
    if (!ok) {
        say("FAILED: ");
        say(what);
        say("\n");
        ++failures;
    }
}

static int same_text(const char *a, const char *b) {
    while (*a && *a == *b) ++a, ++b;
    return *a == *b;
}

#define STR2(x) #x
#define STR(x) STR2(x)

int start(void) {
    const char *version = dmls_version();
    say("msvc consumer: library ");
    say(version);
    say(", header " STR(DMLS_VERSION_MAJOR) "." STR(DMLS_VERSION_MINOR) "." STR(DMLS_VERSION_PATCH) "\n");
    check(same_text(version, DMLS_EXPECTED_VERSION), "dmls_version() is the version CMake found");

    dmls_device_desc device_desc = {DML_FEATURE_LEVEL_6_4, 1, 0};
    dmls_device *device = 0;
    HRESULT hr = dmls_device_create(&device_desc, &device);
    check(hr == S_OK && device != 0, "dmls_device_create");

    /* DML_FEATURE_FEATURE_LEVELS: the highest of the levels asked for. */
    DML_FEATURE_LEVEL asked[2] = {DML_FEATURE_LEVEL_5_0, DML_FEATURE_LEVEL_6_4};
    DML_FEATURE_QUERY_FEATURE_LEVELS query = {2, asked};
    DML_FEATURE_DATA_FEATURE_LEVELS levels = {DML_FEATURE_LEVEL_1_0};
    hr = dmls_device_check_feature_support(device, DML_FEATURE_FEATURE_LEVELS, sizeof query, &query,
                                           sizeof levels, &levels);
    check(hr == S_OK && levels.MaxSupportedFeatureLevel == DML_FEATURE_LEVEL_6_4,
          "dmls_device_check_feature_support");

    /* NONZERO_COORDINATES on {2, 4} FLOAT32. */
    UINT in_sizes[2] = {2, 4}, count_sizes[1] = {1}, xy_sizes[2] = {8, 2};
    DML_BUFFER_TENSOR_DESC in = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 2, in_sizes, 0, 32, 0};
    DML_BUFFER_TENSOR_DESC count = {DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_FLAG_NONE, 1, count_sizes, 0, 4, 0};
    DML_BUFFER_TENSOR_DESC xy = {DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_FLAG_NONE, 2, xy_sizes, 0, 64, 0};
    DML_TENSOR_DESC in_t = {DML_TENSOR_TYPE_BUFFER, &in}, count_t = {DML_TENSOR_TYPE_BUFFER, &count},
                    xy_t = {DML_TENSOR_TYPE_BUFFER, &xy};
    DML_NONZERO_COORDINATES_OPERATOR_DESC nz = {&in_t, &count_t, &xy_t};
    DML_OPERATOR_DESC nz_desc = {DML_OPERATOR_NONZERO_COORDINATES, &nz};
    dmls_operator *op = 0;
    hr = dmls_device_create_operator(device, &nz_desc, &op);
    check(hr == S_OK, "create NONZERO_COORDINATES");
    float input[8] = {1.0f, 0.0f, 0.0f, 2.0f, -0.0f, 3.5f, 0.0f, -5.2f};
    uint32_t n = 0, coords[8][2] = {{0}};
    DML_BUFFER_BINDING b_in = {input, 0, sizeof input}, b_n = {&n, 0, sizeof n},
                       b_xy = {coords, 0, sizeof coords};
    DML_BINDING_DESC inputs[1] = {{DML_BINDING_TYPE_BUFFER, &b_in}};
    DML_BINDING_DESC outputs[2] = {{DML_BINDING_TYPE_BUFFER, &b_n}, {DML_BINDING_TYPE_BUFFER, &b_xy}};
    hr = dmls_operator_execute(op, 1, inputs, 2, outputs);
    check(hr == S_OK && n == 4 && coords[0][0] == 0 && coords[0][1] == 0 && coords[1][1] == 3 &&
              coords[2][0] == 1 && coords[2][1] == 1 && coords[3][0] == 1 && coords[3][1] == 3,
          "NONZERO_COORDINATES: count 4, (0,0) (0,3) (1,1) (1,3)");
    dmls_operator_release(op);

    /* DIAGONAL_MATRIX1 on {3, 4} INT32: Value (a DML_SCALAR_UNION) 7 where 1 <= x - y < 3,
       else 0: its layout and the INTs after it as MSVC lays them out. */
    UINT d_sizes[2] = {3, 4};
    DML_BUFFER_TENSOR_DESC d = {DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_FLAG_NONE, 2, d_sizes, 0, 48, 0};
    DML_TENSOR_DESC d_t = {DML_TENSOR_TYPE_BUFFER, &d};
    DML_DIAGONAL_MATRIX1_OPERATOR_DESC diag = {0, &d_t, DML_TENSOR_DATA_TYPE_INT32, {{0}}, 1, 3};
    diag.Value.Int32 = 7;
    DML_OPERATOR_DESC diag_desc = {DML_OPERATOR_DIAGONAL_MATRIX1, &diag};
    op = 0;
    hr = dmls_device_create_operator(device, &diag_desc, &op);
    check(hr == S_OK, "create DIAGONAL_MATRIX1");
    int32_t out[12];
    for (int i = 0; i < 12; ++i) out[i] = -1;
    DML_BUFFER_BINDING b_out = {out, 0, sizeof out};
    DML_BINDING_DESC no_input = {DML_BINDING_TYPE_NONE, 0}; /* InputTensor is NULL */
    DML_BINDING_DESC output = {DML_BINDING_TYPE_BUFFER, &b_out};
    hr = dmls_operator_execute(op, 1, &no_input, 1, &output);
    int right = hr == S_OK;
    for (int i = 0; i < 12; ++i) {
        int k = i % 4 - i / 4;
        right = right && out[i] == (k >= 1 && k < 3 ? 7 : 0);
    }
    check(right, "DIAGONAL_MATRIX1: 7 on the two diagonals above the main one");
    dmls_operator_release(op);

    /* A 64-bit result: the bytes of {2, 3, 5} UINT16 with strides {15, 5, 1}. */
    UINT sizes3[3] = {2, 3, 5}, strides3[3] = {15, 5, 1};
    check(dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_UINT16, 3, sizes3, strides3) == 60,
          "dmls_calc_buffer_tensor_size");

    /* A bad desc: E_INVALIDARG, and a message. */
    in.DimensionCount = 9;
    op = 0;
    hr = dmls_device_create_operator(device, &nz_desc, &op);
    char message[256] = {0};
    size_t length = dmls_get_last_error_message(message, sizeof message);
    check(hr == E_INVALIDARG && op == 0 && length > 0 && message[0] != 0,
          "a rank of 9: E_INVALIDARG and a message");
    say("  rank 9: ");
    say_hex((uint64_t)(uint32_t)hr);
    say(" ");
    say(message);
    say("\n");

    dmls_device_release(device);
    say(failures ? "msvc consumer FAILED\n" : "msvc consumer ok\n");
    ExitProcess(failures ? 1 : 0);
}
