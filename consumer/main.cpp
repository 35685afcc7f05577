// A C++17 consumer of an installed directml_subset, through the RAII wrappers of
// directml_subset.hpp: ONNX-style Trilu (upper) as DIAGONAL_MATRIX1, and an error as an exception.
#include <directml_subset.hpp>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

int main() {
#ifdef DMLS_EXPECTED_VERSION
    if (std::strcmp(dmls::version(), DMLS_EXPECTED_VERSION) != 0) {
        std::printf("version mismatch: library %s, build system %s\n", dmls::version(),
                    DMLS_EXPECTED_VERSION);
        return 1;
    }
#endif
    try {
        dmls::device device;
        // Trilu(upper=1, k=0): keep x - y >= 0, i.e. fill x - y < 0 with 0.
        const dmls::tensor_desc m(DML_TENSOR_DATA_TYPE_INT64, {3, 3});
        dmls::op trilu = device.create_operator(
            dmls::diagonal_matrix1(m, dmls::scalar::of(std::int64_t{0}), INT32_MIN, 0, m));
        const std::vector<std::int64_t> in = {1, 2, 3, 4, 5, 6, 7, 8, 9};
        std::vector<std::int64_t> out(9, -1);
        trilu.execute({dmls::binding::of(in)}, {dmls::binding::of(out)});
        const std::vector<std::int64_t> want = {1, 2, 3, 0, 5, 6, 0, 0, 9};
        if (out != want) {
            std::printf("wrong Trilu result\n");
            return 1;
        }
        try {
            dmls::device old_device(DML_FEATURE_LEVEL_5_0);
            old_device.create_operator(
                dmls::diagonal_matrix1(m, dmls::scalar::of(std::int64_t{0}), 0, 1));
            std::printf("DIAGONAL_MATRIX1 at feature level 5_0 did not fail\n");
            return 1;
        } catch (const dmls::error &e) {
            if (e.code() != E_INVALIDARG || e.message().empty()) {
                std::printf("unexpected error: %s\n", e.what());
                return 1;
            }
        }
    } catch (const dmls::error &e) {
        std::printf("failed: %s\n", e.what());
        return 1;
    }
    std::printf("directml_subset %s (C++): consumer ok\n", dmls::version());
    return 0;
}
