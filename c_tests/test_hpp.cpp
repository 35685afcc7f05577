// The C++17 wrappers of directml_subset.hpp: tensor-desc builders (packed strides and
// TotalTensorSizeInBytes computed), operator-desc builders, bindings, RAII ownership and moves,
// dmls::error with the HRESULT and the library's message, feature queries, and the
// documentation examples run through the wrappers.
#include "directml_subset.hpp"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

int failures = 0;
int checks = 0;

#define CHECK(cond)                                                                            \
    do {                                                                                       \
        ++checks;                                                                              \
        if (!(cond)) {                                                                         \
            ++failures;                                                                        \
            std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);      \
        }                                                                                      \
    } while (0)

// Runs `f`, which must throw dmls::error with `code` and a message containing `needle`.
template <class F> void expect_error(F &&f, HRESULT code, const char *needle, int line) {
    ++checks;
    try {
        f();
        ++failures;
        std::fprintf(stderr, "line %d: no dmls::error thrown\n", line);
    } catch (const dmls::error &e) {
        if (e.code() != code) {
            ++failures;
            std::fprintf(stderr, "line %d: code 0x%08X, expected 0x%08X (%s)\n", line,
                         static_cast<unsigned>(e.code()), static_cast<unsigned>(code), e.what());
        } else if (e.message().empty()) {
            ++failures;
            std::fprintf(stderr, "line %d: dmls::error without a message\n", line);
        } else if (needle && e.message().find(needle) == std::string::npos) {
            ++failures;
            std::fprintf(stderr, "line %d: message \"%s\" lacks \"%s\"\n", line, e.message().c_str(),
                         needle);
        } else if (std::string(e.what()).find(e.message()) == std::string::npos ||
                   std::string(e.what()).find(dmls::hresult_name(code)) == std::string::npos) {
            ++failures;
            std::fprintf(stderr, "line %d: what() \"%s\" lacks the code name or message\n", line,
                         e.what());
        }
    }
}
#define EXPECT_ERROR(expr, code, needle) expect_error([&] { expr; }, (code), (needle), __LINE__)

const float seed_matrix[20] = {4, 7, 3, 7, 9, 1, 2, 8, 6, 9, 9, 4, 1, 8, 7, 4, 3, 4, 2, 4};

void tensor_descs() {
    dmls::tensor_desc t(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 2, 4});
    CHECK(t.dimension_count() == 4);
    CHECK(t.element_count() == 8);
    CHECK(t.element_size() == 4);
    CHECK(t.total_tensor_size_in_bytes() == 32);
    CHECK(!t.has_strides());
    CHECK((t.strides() == std::vector<std::uint32_t>{8, 8, 4, 1}));
    const DML_TENSOR_DESC *d = t.get();
    CHECK(d->Type == DML_TENSOR_TYPE_BUFFER);
    const auto *b = static_cast<const DML_BUFFER_TENSOR_DESC *>(d->Desc);
    CHECK(b->DataType == DML_TENSOR_DATA_TYPE_FLOAT32 && b->DimensionCount == 4);
    CHECK(b->Sizes == t.sizes().data() && b->Strides == nullptr);
    CHECK(b->TotalTensorSizeInBytes == 32 && b->GuaranteedBaseOffsetAlignment == 0);
    CHECK(b->Flags == DML_TENSOR_FLAG_NONE);

    // Sizes are rounded up to a multiple of 4 bytes, as DMLCalcBufferTensorSize does.
    CHECK(dmls::tensor_desc(DML_TENSOR_DATA_TYPE_UINT8, {3}).total_tensor_size_in_bytes() == 4);
    CHECK(dmls::tensor_desc(DML_TENSOR_DATA_TYPE_FLOAT16, {3, 3}).total_tensor_size_in_bytes() == 20);
    CHECK(dmls::tensor_desc(DML_TENSOR_DATA_TYPE_INT64, {2, 3}).total_tensor_size_in_bytes() == 48);

    // Strided: 1 + sum((size - 1) * stride) elements; ONNX Runtime's NonZero view.
    dmls::tensor_desc s(DML_TENSOR_DATA_TYPE_UINT32, {12, 2}, {2, 24});
    CHECK(s.has_strides());
    CHECK((s.strides() == std::vector<std::uint32_t>{2, 24}));
    CHECK(s.total_tensor_size_in_bytes() == (1 + 11 * 2 + 24) * 4);
    s.set_total_tensor_size_in_bytes(12 * 2 * 8).set_guaranteed_base_offset_alignment(8);
    b = s.buffer_desc();
    CHECK(b->Strides != nullptr && b->Strides[0] == 2 && b->Strides[1] == 24);
    CHECK(b->TotalTensorSizeInBytes == 192 && b->GuaranteedBaseOffsetAlignment == 8);

    // Broadcast.
    CHECK(dmls::tensor_desc(DML_TENSOR_DATA_TYPE_FLOAT32, {3, 4}, {0, 1}).total_tensor_size_in_bytes() == 16);
    CHECK((dmls::tensor_desc::packed_strides({2, 3, 4}) == std::vector<std::uint32_t>{12, 4, 1}));

    EXPECT_ERROR(dmls::tensor_desc bad(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 2}, {1}), E_INVALIDARG,
                 "one stride per size");
    // The helper checks the strides' count too (the library would read three from one).
    const std::vector<std::uint32_t> one_stride{1};
    EXPECT_ERROR(dmls::calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 3, 4}, &one_stride),
                 E_INVALIDARG, "3 sizes but 1 strides");
    const std::vector<std::uint32_t> three_strides{12, 4, 1};
    CHECK(dmls::calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 3, 4}, &three_strides) == 96);
    // A packed stride past 32 bits is refused, not cut (2 x 65536 x 65536 bytes: 2^32).
    EXPECT_ERROR(dmls::tensor_desc::packed_strides({2, 65536, 65536}), E_INVALIDARG,
                 "packed stride of dimension 0 is 4294967296");
    CHECK((dmls::tensor_desc::packed_strides({65536, 65536}) == std::vector<std::uint32_t>{65536, 1}));

    // Copies and moves point into themselves, never into the original.
    dmls::tensor_desc copy = s;
    const auto *cb = static_cast<const DML_BUFFER_TENSOR_DESC *>(copy.get()->Desc);
    CHECK(cb->Sizes == copy.sizes().data() && cb->Sizes != s.sizes().data());
    CHECK(cb->TotalTensorSizeInBytes == 192);
    dmls::tensor_desc moved = std::move(copy);
    const auto *mb = static_cast<const DML_BUFFER_TENSOR_DESC *>(moved.get()->Desc);
    CHECK(mb == moved.buffer_desc() && mb->Sizes == moved.sizes().data() && mb->Sizes[0] == 12);

    // Scalars.
    CHECK(dmls::scalar::of(7.0f).type == DML_TENSOR_DATA_TYPE_FLOAT32);
    CHECK(dmls::scalar::of(7.0f).value.Float32 == 7.0f);
    CHECK(dmls::scalar::of(std::int64_t{-5}).value.Int64 == -5);
    CHECK(dmls::scalar::of(std::uint8_t{200}).type == DML_TENSOR_DATA_TYPE_UINT8);
    CHECK(dmls::scalar::float16_bits(0x3C00).value.UInt16 == 0x3C00);
    CHECK(dmls::element_size(DML_TENSOR_DATA_TYPE_FLOAT16) == 2);
    CHECK(dmls::element_size(DML_TENSOR_DATA_TYPE_UINT4) == 0);
}

void nonzero_seed_example() {
    dmls::device device(DML_FEATURE_LEVEL_3_0);
    // The documentation example, with its own output descs ({1,1,8,3}).
    dmls::nonzero_coordinates_desc desc{
        dmls::tensor_desc(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 2, 4}),
        dmls::tensor_desc(DML_TENSOR_DATA_TYPE_UINT32, {1, 1, 1, 1}),
        dmls::tensor_desc(DML_TENSOR_DATA_TYPE_UINT32, {1, 1, 8, 3})};
    dmls::op op = device.create_operator(desc);
    CHECK(static_cast<bool>(op));
    const std::vector<float> input = {1.0f, 0.0f, 0.0f, 2.0f, -0.0f, 3.5f, 0.0f, -5.2f};
    std::uint32_t count = 0;
    std::vector<std::uint32_t> coords(24, 0xFFFFFFFFu);
    op.execute({dmls::binding::of(input)}, {dmls::binding::of(&count, 1), dmls::binding::of(coords)});
    CHECK(count == 4);
    const std::uint32_t expected[12] = {0, 0, 0, 0, 0, 3, 0, 1, 1, 0, 1, 3};
    for (int i = 0; i < 12; ++i) CHECK(coords[i] == expected[i]);
    for (int i = 12; i < 24; ++i) CHECK(coords[i] == 0xFFFFFFFFu);

    // Outputs derived from the input: count {1,1,1,1}, coordinates {1,1,8,4}.
    dmls::nonzero_coordinates_desc derived =
        dmls::nonzero_coordinates(dmls::tensor_desc(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 2, 4}));
    CHECK((derived.output_count.sizes() == std::vector<std::uint32_t>{1, 1, 1, 1}));
    CHECK((derived.output_coordinates.sizes() == std::vector<std::uint32_t>{1, 1, 8, 4}));
    CHECK(derived.output_coordinates.total_tensor_size_in_bytes() == 8 * 4 * 4);
    dmls::op op2 = device.create_operator(derived);
    std::vector<std::uint32_t> coords4(32, 7);
    count = 0;
    op2.execute({dmls::binding::of(input)}, {dmls::binding::of(&count, 1), dmls::binding::of(coords4)});
    CHECK(count == 4);
    const std::uint32_t expected4[16] = {0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 1, 1, 0, 0, 1, 3};
    for (int i = 0; i < 16; ++i) CHECK(coords4[i] == expected4[i]);
    for (int i = 16; i < 32; ++i) CHECK(coords4[i] == 7);

    // Past 2^32 - 1 rows (64-bit outputs, extensions): the rows spread over {A, B} with A × B = M
    // (here one dimension more than the input has). Only created: the input would be 4 GiB.
    dmls::nonzero_coordinates_desc wide = dmls::nonzero_coordinates(
        dmls::tensor_desc(DML_TENSOR_DATA_TYPE_UINT8, {65536, 65537}), DML_TENSOR_DATA_TYPE_UINT64);
    CHECK((wide.output_coordinates.sizes() == std::vector<std::uint32_t>{65536, 65537, 2}));
    dmls::device extended(static_cast<DML_FEATURE_LEVEL>(0), 1, DMLS_DEVICE_FLAG_EXTENSIONS);
    CHECK(static_cast<bool>(extended.create_operator(wide)));
    dmls::nonzero_coordinates_desc wide3 = dmls::nonzero_coordinates(
        dmls::tensor_desc(DML_TENSOR_DATA_TYPE_UINT8, {3, 65536, 65536}), DML_TENSOR_DATA_TYPE_UINT64);
    CHECK((wide3.output_coordinates.sizes() == std::vector<std::uint32_t>{3 * 65536, 65536, 3}));
    CHECK(static_cast<bool>(extended.create_operator(wide3)));

    // A 1-D input (feature level 4.0+): coordinates {M, 1}.
    dmls::device newer;
    dmls::nonzero_coordinates_desc one_d =
        dmls::nonzero_coordinates(dmls::tensor_desc(DML_TENSOR_DATA_TYPE_INT16, {5}));
    CHECK((one_d.output_coordinates.sizes() == std::vector<std::uint32_t>{5, 1}));
    dmls::op op3 = newer.create_operator(one_d);
    // 5 INT16 elements are 10 bytes; TotalTensorSizeInBytes rounds up to 12, so bind 12.
    const std::int16_t v[6] = {0, 3, 0, -1, 0, 0};
    std::uint32_t c[5] = {9, 9, 9, 9, 9};
    op3.execute({dmls::binding::of(v)}, {dmls::binding::of(&count, 1), dmls::binding::of(c)});
    CHECK(count == 2 && c[0] == 1 && c[1] == 3 && c[2] == 9);
}

void diagonal_examples() {
    dmls::device device(DML_FEATURE_LEVEL_5_1, 1);
    const dmls::tensor_desc m45(DML_TENSOR_DATA_TYPE_FLOAT32, {4, 5});

    // Default identity matrix (Value 1 gives the page's picture; the pseudocode writes Value).
    dmls::op eye = device.create_operator(dmls::diagonal_matrix1(m45, dmls::scalar::of(1.0f), 0, 1));
    std::vector<float> out(20, -1.0f);
    eye.execute({dmls::binding::none()}, {dmls::binding::of(out)});
    for (int i = 0; i < 20; ++i) CHECK(out[i] == ((i % 5) == (i / 5) ? 1.0f : 0.0f));

    // Strip of 3, Value 7.
    dmls::op strip = device.create_operator(dmls::diagonal_matrix1(m45, dmls::scalar::of(7.0f), 0, 3));
    strip.execute({dmls::binding()}, {dmls::binding::of(out)});
    for (int i = 0; i < 20; ++i) {
        const int d = i % 5 - i / 5;
        CHECK(out[i] == (d >= 0 && d < 3 ? 7.0f : 0.0f));
    }

    // Strictly upper triangle, in place.
    dmls::op upper =
        device.create_operator(dmls::diagonal_matrix1(m45, dmls::scalar::of(0.0f), INT32_MIN, 1, m45));
    std::vector<float> m(seed_matrix, seed_matrix + 20);
    upper.execute({dmls::binding::of(m)}, {dmls::binding::of(m)});
    const float want_upper[20] = {0, 7, 3, 7, 9, 0, 0, 8, 6, 9, 0, 0, 0, 8, 7, 0, 0, 0, 0, 4};
    for (int i = 0; i < 20; ++i) CHECK(m[i] == want_upper[i]);

    // Only the diagonal.
    dmls::op diag = device.create_operator(dmls::diagonal_matrix1(m45, dmls::scalar::of(0.0f), 1, 0, m45));
    diag.execute({dmls::binding::of(seed_matrix)}, {dmls::binding::of(out)});
    const float want_diag[20] = {4, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 2, 0};
    for (int i = 0; i < 20; ++i) CHECK(out[i] == want_diag[i]);

    // DIAGONAL_MATRIX (EyeLike) on INT32: 10.6 truncates to 10.
    dmls::op eye_like = device.create_operator(
        dmls::diagonal_matrix(dmls::tensor_desc(DML_TENSOR_DATA_TYPE_INT32, {3, 3}), -1, 10.6f));
    std::array<std::int32_t, 9> e{};
    eye_like.execute({}, {dmls::binding::of(e)});
    for (int i = 0; i < 9; ++i) CHECK(e[i] == ((i / 3) - 1 == (i % 3) ? 10 : 0));

    // A binding with an offset.
    alignas(16) std::uint8_t bytes[16 + 36] = {};
    eye_like.execute({}, {dmls::binding::bytes(bytes, 36, 16)});
    std::int32_t first_row1;
    std::memcpy(&first_row1, bytes + 16 + 12, 4);
    CHECK(first_row1 == 10);
    CHECK(bytes[0] == 0 && bytes[15] == 0);
}

void errors() {
    EXPECT_ERROR(dmls::device d(static_cast<DML_FEATURE_LEVEL>(0x6500)), DXGI_ERROR_UNSUPPORTED, "6_5");
    EXPECT_ERROR(dmls::device d(static_cast<DML_FEATURE_LEVEL>(0x1234)), E_INVALIDARG, nullptr);
    EXPECT_ERROR(dmls::device d(static_cast<DML_FEATURE_LEVEL>(0), 0, 0x80), E_INVALIDARG, "flags");

    dmls::device device(DML_FEATURE_LEVEL_5_0);
    // DIAGONAL_MATRIX1 needs 5.1.
    EXPECT_ERROR(device.create_operator(dmls::diagonal_matrix1(
                     dmls::tensor_desc(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 2}), dmls::scalar::of(1.0f), 0, 1)),
                 E_INVALIDARG, "5_1");
    // M does not match the input.
    dmls::nonzero_coordinates_desc bad{dmls::tensor_desc(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 4}),
                                       dmls::tensor_desc(DML_TENSOR_DATA_TYPE_UINT32, {1}),
                                       dmls::tensor_desc(DML_TENSOR_DATA_TYPE_UINT32, {6, 2})};
    EXPECT_ERROR(device.create_operator(bad), E_INVALIDARG, "OutputCoordinatesTensor");
    // ValueDataType must equal the output type.
    dmls::device d51(DML_FEATURE_LEVEL_5_1);
    EXPECT_ERROR(d51.create_operator(dmls::diagonal_matrix1(
                     dmls::tensor_desc(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 2}), dmls::scalar::of(1.0), 0, 1)),
                 E_INVALIDARG, "ValueDataType");
    // An operator type DirectML has and this library lacks.
    DML_OPERATOR_DESC fill{DML_OPERATOR_FILL_VALUE_CONSTANT, nullptr};
    EXPECT_ERROR(device.create_operator(fill), E_NOTIMPL, nullptr);

    // Execution errors.
    dmls::op eye = device.create_operator(
        dmls::diagonal_matrix(dmls::tensor_desc(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 2})));
    float small[3];
    EXPECT_ERROR(eye.execute({}, {dmls::binding::of(small)}), E_INVALIDARG, "SizeInBytes");
    float out[4];
    EXPECT_ERROR(eye.execute({dmls::binding::of(out)}, {dmls::binding::of(out)}), E_INVALIDARG,
                 "input_count");
    EXPECT_ERROR(eye.execute({}, {dmls::binding::none()}), E_INVALIDARG, nullptr);

    // A moved-from operator is empty; using it is E_POINTER.
    dmls::op moved = std::move(eye);
    CHECK(!eye && moved);
    EXPECT_ERROR(eye.execute({}, {dmls::binding::of(out)}), E_POINTER, nullptr);
    moved.execute({}, {dmls::binding::of(out)});
    CHECK(out[0] == 1.0f && out[1] == 0.0f);
    CHECK(dmls::last_error_message().empty()); // the success cleared it
}

void feature_queries() {
    dmls::device device(DML_FEATURE_LEVEL_4_1);
    CHECK(device.supports_data_type(DML_TENSOR_DATA_TYPE_FLOAT16));
    CHECK(device.supports_data_type(DML_TENSOR_DATA_TYPE_UINT64));
    CHECK(!device.supports_data_type(DML_TENSOR_DATA_TYPE_INT4));
    CHECK(!device.supports_data_type(static_cast<DML_TENSOR_DATA_TYPE>(77)));
    CHECK(device.max_supported_feature_level({DML_FEATURE_LEVEL_3_0, DML_FEATURE_LEVEL_4_1,
                                              DML_FEATURE_LEVEL_6_0}) == DML_FEATURE_LEVEL_4_1);
    CHECK(device.max_supported_feature_level({DML_FEATURE_LEVEL_2_0}) == DML_FEATURE_LEVEL_2_0);
    EXPECT_ERROR(device.max_supported_feature_level({DML_FEATURE_LEVEL_5_0, DML_FEATURE_LEVEL_6_4}),
                 DXGI_ERROR_UNSUPPORTED, nullptr);
    EXPECT_ERROR(device.max_supported_feature_level({}), E_INVALIDARG, nullptr);
}

void ownership_and_threads() {
    // An operator outlives its device.
    dmls::op op;
    {
        dmls::device device(static_cast<DML_FEATURE_LEVEL>(0), 2);
        op = device.create_operator(dmls::nonzero_coordinates(
            dmls::tensor_desc(DML_TENSOR_DATA_TYPE_UINT8, {64, 64})));
    }
    CHECK(static_cast<bool>(op));

    // execute() from several threads at once on one operator.
    std::vector<std::uint8_t> input(64 * 64);
    std::uint32_t expected = 0;
    for (std::size_t i = 0; i < input.size(); ++i) {
        input[i] = static_cast<std::uint8_t>((i * 7) % 5 == 0 ? 0 : i);
        expected += input[i] != 0;
    }
    std::atomic<int> good{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&] {
            std::uint32_t count = 0;
            std::vector<std::uint32_t> coords(64 * 64 * 2);
            for (int round = 0; round < 10; ++round) {
                op.execute({dmls::binding::of(input)},
                           {dmls::binding::of(&count, 1), dmls::binding::of(coords)});
                if (count == expected && coords[0] == 0 && coords[1] == 1) ++good;
            }
        });
    }
    for (auto &t : threads) t.join();
    CHECK(good == 40);

    // release() hands the handle over.
    dmls_operator *raw = op.release();
    CHECK(raw != nullptr && !op);
    dmls_operator_release(raw);
}

// Typed bindings (binding::of) are checked against the operator's tensors at execute; untyped
// ones (binding::bytes) are not.
void typed_bindings() {
    dmls::device device;
    const dmls::tensor_desc m22(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 2});
    dmls::op upper =
        device.create_operator(dmls::diagonal_matrix1(m22, dmls::scalar::of(0.0f), INT32_MIN, 1, m22));
    CHECK(upper.slots().op_name != nullptr);

    // double on a FLOAT32 input: nothing runs, the output keeps its bytes.
    std::vector<double> xs = {1, 2, 3, 4};
    std::vector<float> ys = {-1, -1, -1, -1};
    EXPECT_ERROR(upper.execute({dmls::binding::of(xs)}, {dmls::binding::of(ys)}), E_INVALIDARG,
                 "DIAGONAL_MATRIX1: InputTensor (input 0) is bound to double elements "
                 "(DML_TENSOR_DATA_TYPE_FLOAT64), but the tensor is DML_TENSOR_DATA_TYPE_FLOAT32");
    for (float y : ys) CHECK(y == -1.0f);
    // The same on the output.
    std::vector<float> x = {1, 2, 3, 4};
    std::vector<std::int32_t> yi(4, 9);
    EXPECT_ERROR(upper.execute({dmls::binding::of(x)}, {dmls::binding::of(yi)}), E_INVALIDARG,
                 "OutputTensor (output 0) is bound to std::int32_t elements");
    for (std::int32_t y : yi) CHECK(y == 9);
    // The right types run.
    upper.execute({dmls::binding::of(x)}, {dmls::binding::of(ys)});
    CHECK(ys[0] == 0 && ys[1] == 2 && ys[2] == 0 && ys[3] == 0);
    // Untyped memory is not checked.
    std::vector<double> raw(2, 0.0);
    upper.execute({dmls::binding::of(x)}, {dmls::binding::bytes(raw.data(), 16)});
    float first;
    std::memcpy(&first, raw.data(), 4);
    CHECK(first == 0.0f);

    // NONZERO_COORDINATES: the count must be UINT32 too; ONNX Runtime's int64 coordinates go
    // through binding::bytes.
    dmls::op nonzero = device.create_operator(dmls::nonzero_coordinates(m22));
    std::uint64_t count64 = 0;
    std::vector<std::uint32_t> coords(8, 0);
    EXPECT_ERROR(nonzero.execute({dmls::binding::of(x)}, {dmls::binding::of(&count64, 1),
                                                          dmls::binding::of(coords)}),
                 E_INVALIDARG, "OutputCountTensor (output 0) is bound to std::uint64_t elements");
    std::uint32_t count = 0;
    nonzero.execute({dmls::binding::of(x)}, {dmls::binding::of(&count, 1), dmls::binding::of(coords)});
    CHECK(count == 4);

    // FLOAT16 tensors bind uint16_t storage.
    dmls::op eye16 = device.create_operator(
        dmls::diagonal_matrix(dmls::tensor_desc(DML_TENSOR_DATA_TYPE_FLOAT16, {2, 2})));
    std::vector<std::uint16_t> h(4, 0xFFFF);
    eye16.execute({}, {dmls::binding::of(h)});
    CHECK(h[0] == 0x3C00 && h[1] == 0 && h[3] == 0x3C00);
    // A wrong slot count is left to the library, whose message names the slots.
    EXPECT_ERROR(eye16.execute({dmls::binding::of(xs)}, {dmls::binding::of(h)}), E_INVALIDARG,
                 "input_count");

    // Const memory is read-only: an input, never an output (it may be in read-only pages).
    const std::vector<float> const_out = {5, 5, 5, 5};
    EXPECT_ERROR(upper.execute({dmls::binding::of(x)}, {dmls::binding::of(const_out)}), E_INVALIDARG,
                 "OutputTensor (output 0) is bound to const memory");
    static const float table[4] = {5, 5, 5, 5};
    EXPECT_ERROR(eye16.execute({}, {dmls::binding::bytes(static_cast<const void *>(table), 16)}),
                 E_INVALIDARG, "(output 0) is bound to const memory");
    for (float y : const_out) CHECK(y == 5.0f);
    const std::vector<float> const_in = {1, 2, 3, 4};
    upper.execute({dmls::binding::of(const_in)}, {dmls::binding::of(ys)});  // an input: fine
    CHECK(ys[0] == 0 && ys[1] == 2);

    // An operator adopted from a raw handle has no slot types: nothing to check against.
    dmls::op adopted(upper.release());
    CHECK(adopted.slots().op_name == nullptr);
    std::vector<std::int32_t> same_bytes(4, 0);
    adopted.execute({dmls::binding::of(x)}, {dmls::binding::of(same_bytes)});
}

} // namespace

int main() {
    try {
        tensor_descs();
        nonzero_seed_example();
        diagonal_examples();
        errors();
        feature_queries();
        ownership_and_threads();
        typed_bindings();
    } catch (const std::exception &e) {
        std::fprintf(stderr, "unexpected exception: %s\n", e.what());
        return 1;
    }
    if (failures) {
        std::fprintf(stderr, "test_hpp: %d of %d checks failed\n", failures, checks);
        return 1;
    }
    std::printf("test_hpp: all %d checks passed (directml_subset %s)\n", checks, dmls::version());
    return 0;
}
