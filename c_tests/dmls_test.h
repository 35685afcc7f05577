/*
 * Small helpers shared by the C tests in c_tests/ (C11). Every check reports file and line and
 * the test goes on; main returns dmls_test_finish(), which is nonzero when any check failed.
 */
#ifndef DMLS_TEST_H
#define DMLS_TEST_H

#include "directml_subset.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int dmls_test_failures = 0;
static int dmls_test_checks = 0;

/* The name of an HRESULT the library returns ("E_INVALIDARG", ...); "an undocumented HRESULT"
 * for any other. */
static inline const char *dmls_test_hresult_name(HRESULT hr) {
    static const struct {
        HRESULT hr;
        const char *name;
    } names[] = {{S_OK, "S_OK"},
                 {E_INVALIDARG, "E_INVALIDARG"},
                 {E_POINTER, "E_POINTER"},
                 {E_OUTOFMEMORY, "E_OUTOFMEMORY"},
                 {E_NOTIMPL, "E_NOTIMPL"},
                 {E_FAIL, "E_FAIL"},
                 {DXGI_ERROR_UNSUPPORTED, "DXGI_ERROR_UNSUPPORTED"}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
        if (names[i].hr == hr) {
            return names[i].name;
        }
    }
    return "an undocumented HRESULT";
}

/* The calling thread's last error message ("" when there is none). */
static inline const char *dmls_test_message(void) {
    static char buffer[1024];
    buffer[0] = '\0';
    dmls_get_last_error_message(buffer, sizeof buffer);
    return buffer;
}

#define CHECK(cond)                                                                          \
    do {                                                                                     \
        ++dmls_test_checks;                                                                  \
        if (!(cond)) {                                                                       \
            ++dmls_test_failures;                                                            \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);         \
        }                                                                                    \
    } while (0)

#define CHECK_EQ_U64(actual, expected)                                                       \
    do {                                                                                     \
        unsigned long long a_ = (unsigned long long)(actual);                                \
        unsigned long long e_ = (unsigned long long)(expected);                              \
        ++dmls_test_checks;                                                                  \
        if (a_ != e_) {                                                                      \
            ++dmls_test_failures;                                                            \
            fprintf(stderr, "%s:%d: %s is %llu (0x%llx), expected %llu (0x%llx)\n", __FILE__, \
                    __LINE__, #actual, a_, a_, e_, e_);                                      \
        }                                                                                    \
    } while (0)

/* Checks an HRESULT; on a failure it must leave a non-empty message, on success none. */
#define CHECK_HR(expr, expected)                                                              \
    do {                                                                                      \
        HRESULT hr_ = (expr);                                                                 \
        HRESULT want_ = (expected);                                                           \
        const char *msg_ = dmls_test_message();                                               \
        ++dmls_test_checks;                                                                   \
        if (hr_ != want_) {                                                                   \
            ++dmls_test_failures;                                                             \
            fprintf(stderr, "%s:%d: %s returned 0x%08X (%s), expected 0x%08X (%s); "          \
                            "message: \"%s\"\n",                                              \
                    __FILE__, __LINE__, #expr, (unsigned)hr_, dmls_test_hresult_name(hr_),    \
                    (unsigned)want_, dmls_test_hresult_name(want_), msg_);                    \
        } else if (FAILED(hr_) && msg_[0] == '\0') {                                          \
            ++dmls_test_failures;                                                             \
            fprintf(stderr, "%s:%d: %s failed with 0x%08X but left no message\n", __FILE__,   \
                    __LINE__, #expr, (unsigned)hr_);                                          \
        } else if (SUCCEEDED(hr_) && msg_[0] != '\0') {                                       \
            ++dmls_test_failures;                                                             \
            fprintf(stderr, "%s:%d: %s succeeded but left the message \"%s\"\n", __FILE__,    \
                    __LINE__, #expr, msg_);                                                   \
        }                                                                                     \
    } while (0)

/* Checks that the last error message contains `needle`. */
#define CHECK_MESSAGE_HAS(needle)                                                            \
    do {                                                                                     \
        const char *m_ = dmls_test_message();                                                \
        ++dmls_test_checks;                                                                  \
        if (strstr(m_, (needle)) == NULL) {                                                  \
            ++dmls_test_failures;                                                            \
            fprintf(stderr, "%s:%d: message \"%s\" does not contain \"%s\"\n", __FILE__,     \
                    __LINE__, m_, (needle));                                                 \
        }                                                                                    \
    } while (0)

static inline int dmls_test_finish(const char *name) {
    if (dmls_test_failures != 0) {
        fprintf(stderr, "%s: %d of %d checks failed\n", name, dmls_test_failures,
                dmls_test_checks);
        return 1;
    }
    printf("%s: all %d checks passed\n", name, dmls_test_checks);
    return 0;
}

/* A buffer tensor desc; TotalTensorSizeInBytes from dmls_calc_buffer_tensor_size. */
static inline DML_BUFFER_TENSOR_DESC dmls_test_buffer(DML_TENSOR_DATA_TYPE type, UINT dims,
                                                      const UINT *sizes, const UINT *strides) {
    const DML_BUFFER_TENSOR_DESC d = {
        .DataType = type,
        .Flags = DML_TENSOR_FLAG_NONE,
        .DimensionCount = dims,
        .Sizes = sizes,
        .Strides = strides,
        .TotalTensorSizeInBytes = dmls_calc_buffer_tensor_size(type, dims, sizes, strides),
        .GuaranteedBaseOffsetAlignment = 0,
    };
    return d;
}

static inline DML_TENSOR_DESC dmls_test_tensor(const DML_BUFFER_TENSOR_DESC *buffer) {
    DML_TENSOR_DESC t;
    t.Type = DML_TENSOR_TYPE_BUFFER;
    t.Desc = buffer;
    return t;
}

/* A buffer tensor desc that holds its own Sizes and Strides (up to 8 dimensions). It points into
 * itself: initialise it where it stays and do not copy it. NULL strides stay NULL (packed). */
typedef struct dmls_test_owned_tensor {
    UINT sizes[8];
    UINT strides[8];
    DML_BUFFER_TENSOR_DESC buf;
    DML_TENSOR_DESC desc;
} dmls_test_owned_tensor;

static inline void dmls_test_owned_tensor_init(dmls_test_owned_tensor *t,
                                               DML_TENSOR_DATA_TYPE type, UINT dims,
                                               const UINT *sizes, const UINT *strides) {
    memset(t, 0, sizeof *t);
    memcpy(t->sizes, sizes, dims * sizeof(UINT));
    if (strides != NULL) {
        memcpy(t->strides, strides, dims * sizeof(UINT));
    }
    t->buf = dmls_test_buffer(type, dims, t->sizes, strides != NULL ? t->strides : NULL);
    t->desc = dmls_test_tensor(&t->buf);
}

/* A NONZERO_COORDINATES operator desc over three owned tensors; also used in place. */
typedef struct dmls_test_nonzero {
    dmls_test_owned_tensor in, count, coords;
    DML_NONZERO_COORDINATES_OPERATOR_DESC nz;
    DML_OPERATOR_DESC op;
} dmls_test_nonzero;

/* Points n->nz at n's tensors and n->op at n->nz (after the tensors are initialised). */
static inline void dmls_test_nonzero_link(dmls_test_nonzero *n) {
    n->nz.InputTensor = &n->in.desc;
    n->nz.OutputCountTensor = &n->count.desc;
    n->nz.OutputCoordinatesTensor = &n->coords.desc;
    n->op.Type = DML_OPERATOR_NONZERO_COORDINATES;
    n->op.Desc = &n->nz;
}

static inline DML_BINDING_DESC dmls_test_bind(DML_BUFFER_BINDING *b, void *memory, UINT64 offset,
                                       UINT64 size) {
    b->Buffer = memory;
    b->Offset = offset;
    b->SizeInBytes = size;
    DML_BINDING_DESC d;
    d.Type = DML_BINDING_TYPE_BUFFER;
    d.Desc = b;
    return d;
}

/* A one-thread device of `level` with `flags`; NULL, counted as a failure, when creation fails. */
static inline dmls_device *dmls_test_device_flags(DML_FEATURE_LEVEL level, uint32_t flags) {
    dmls_device_desc desc;
    desc.feature_level = level;
    desc.thread_count = 1;
    desc.flags = flags;
    dmls_device *device = NULL;
    HRESULT hr = dmls_device_create(&desc, &device);
    if (FAILED(hr) || device == NULL) {
        fprintf(stderr, "dmls_device_create(0x%X, flags 0x%X) failed: 0x%08X %s\n",
                (unsigned)level, (unsigned)flags, (unsigned)hr, dmls_test_message());
        ++dmls_test_failures;
        return NULL;
    }
    return device;
}

static inline dmls_device *dmls_test_device(DML_FEATURE_LEVEL level) {
    return dmls_test_device_flags(level, 0);
}

/* Creates an operator from a valid desc: NULL, counted as a failure, when creation fails, and a
 * failure too when it succeeds but leaves a message (as CHECK_HR). `what` names it in reports. */
static inline dmls_operator *dmls_test_create(const dmls_device *device,
                                              const DML_OPERATOR_DESC *desc, const char *what) {
    dmls_operator *op = NULL;
    HRESULT hr = dmls_device_create_operator(device, desc, &op);
    ++dmls_test_checks;
    if (FAILED(hr) || op == NULL) {
        ++dmls_test_failures;
        fprintf(stderr, "creating %s failed: 0x%08X (%s) %s\n", what, (unsigned)hr,
                dmls_test_hresult_name(hr), dmls_test_message());
        return NULL;
    }
    if (dmls_test_message()[0] != '\0') {
        ++dmls_test_failures;
        fprintf(stderr, "creating %s succeeded but left the message \"%s\"\n", what,
                dmls_test_message());
    }
    return op;
}

/* Creates NONZERO_COORDINATES over three buffer tensor descs, as dmls_test_create does. */
static inline dmls_operator *dmls_test_create_nonzero(const dmls_device *device,
                                                      const DML_BUFFER_TENSOR_DESC *input,
                                                      const DML_BUFFER_TENSOR_DESC *count,
                                                      const DML_BUFFER_TENSOR_DESC *coordinates) {
    const DML_TENSOR_DESC in_t = dmls_test_tensor(input), count_t = dmls_test_tensor(count),
                          coord_t = dmls_test_tensor(coordinates);
    const DML_NONZERO_COORDINATES_OPERATOR_DESC nz = {&in_t, &count_t, &coord_t};
    const DML_OPERATOR_DESC desc = {DML_OPERATOR_NONZERO_COORDINATES, &nz};
    return dmls_test_create(device, &desc, "NONZERO_COORDINATES");
}

/* A DIAGONAL_MATRIX1 desc of `type` writing `output` (from `input`, or from nothing when it is
 * NULL) with the fill band [begin, end) and a Value of all zero bits; set Value after. */
static inline DML_DIAGONAL_MATRIX1_OPERATOR_DESC dmls_test_diagonal1(
    const DML_TENSOR_DESC *input, const DML_TENSOR_DESC *output, DML_TENSOR_DATA_TYPE type,
    INT begin, INT end) {
    const DML_DIAGONAL_MATRIX1_OPERATOR_DESC d = {
        .InputTensor = input,
        .OutputTensor = output,
        .ValueDataType = type,
        .Value = {.UInt64 = 0},
        .DiagonalFillBegin = begin,
        .DiagonalFillEnd = end,
    };
    return d;
}

#endif /* DMLS_TEST_H */
