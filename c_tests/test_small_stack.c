/*
 * The library runs on a calling thread with a small stack: musl's threads get 128 KiB by
 * default, and coroutine and fiber libraries often give 64 KiB or less. Every entry point is
 * called here from a thread of STACK_KIB KiB (or the least the target allows): devices on the
 * process-wide pool, on one thread and on a pool of their own; NONZERO_COORDINATES on FLOAT32,
 * UINT8 and FLOAT16 inputs, packed, transposed and 3-D, with UINT32 and (with the extensions)
 * UINT64 coordinates, large enough for the parallel paths (ctest sets DMLS_PARALLEL=always) and
 * small; DIAGONAL_MATRIX1 with and without an input; DIAGONAL_MATRIX; the error paths and their
 * messages; the feature query and dmls_calc_buffer_tensor_size. The stack sits above an
 * inaccessible page, so an overflow kills the program (SIGSEGV) and fails the test. The
 * program prints how much of the stack the thread used (on Windows the thread's stack is
 * reserved by CreateThread, whose guard page ends the program on an overflow, and its depth is
 * not measured): on x86-64 Linux (glibc 2.36, GCC 12)
 * 21 KiB at every SIMD level, of which about 4 KiB are the C library's own (thread-local
 * storage and the thread's start) and 16 KiB the library's deepest path (NONZERO_COORDINATES
 * masking a transposed input, with 8 KiB of bit tiles), so the default of 64 KiB leaves three
 * times that.
 */
#define _GNU_SOURCE /* MAP_ANONYMOUS */
#include "dmls_test.h"

#include <limits.h>
#include <stdlib.h>
#ifdef _WIN32
#include <windows.h>
#else
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

#ifndef STACK_KIB
#if defined(__SANITIZE_ADDRESS__)
/* AddressSanitizer's red zones make every frame larger (scripts/check_sanitizers.sh). */
#define STACK_KIB 1024
#else
#define STACK_KIB 64
#endif
#endif

#define SIDE 1024u
#define ELEMENTS (SIDE * SIDE)

static int is_nonzero(uint32_t i) {
    return i % 3 == 1 || (i >> 10) % 7 == 2;
}

/* NONZERO_COORDINATES of `elements` elements of `type` (4, 2 or 1 bytes) shaped by `dims`
 * sizes and `strides` (NULL: packed) into `coord_type` coordinates; checks the count and the
 * first and last rows against the plain order of the logical elements. */
static void nonzero_case(const dmls_device *device, const char *what, DML_TENSOR_DATA_TYPE type,
                         UINT dims, const UINT *sizes, const UINT *strides,
                         DML_TENSOR_DATA_TYPE coord_type) {
    const size_t width = type == DML_TENSOR_DATA_TYPE_FLOAT32  ? 4
                         : type == DML_TENSOR_DATA_TYPE_FLOAT16 ? 2
                                                                : 1;
    uint64_t elements = 1;
    for (UINT d = 0; d < dims; ++d) {
        elements *= sizes[d];
    }
    const size_t coord_width = coord_type == DML_TENSOR_DATA_TYPE_UINT64 ? 8 : 4;
    dmls_test_nonzero n;
    dmls_test_owned_tensor_init(&n.in, type, dims, sizes, strides);
    const UINT one = 1, coord_sizes[2] = {(UINT)elements, dims};
    dmls_test_owned_tensor_init(&n.count, coord_type, 1, &one, NULL);
    dmls_test_owned_tensor_init(&n.coords, coord_type, 2, coord_sizes, NULL);
    dmls_test_nonzero_link(&n);
    dmls_operator *op = dmls_test_create(device, &n.op, what);
    if (op == NULL) {
        return;
    }
    const size_t in_bytes = (size_t)n.in.buf.TotalTensorSizeInBytes;
    unsigned char *input = calloc(in_bytes, 1);
    unsigned char *coords = malloc((size_t)elements * dims * coord_width);
    if (input == NULL || coords == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    /* Logical element i (row-major over sizes) lives at the offset its strides give. */
    uint32_t expected = 0, first = UINT32_MAX, last = 0;
    for (uint32_t i = 0; i < elements; ++i) {
        if (!is_nonzero(i)) {
            continue;
        }
        uint64_t rest = i, offset = 0, stride = 1;
        for (UINT d = dims; d-- > 0;) {
            const uint64_t s = strides != NULL ? strides[d] : stride;
            offset += (rest % sizes[d]) * s;
            rest /= sizes[d];
            stride *= sizes[d];
        }
        input[offset * width + (width > 1 ? width - 1 : 0)] = 0x3c; /* a nonzero bit pattern */
        ++expected;
        if (first == UINT32_MAX) {
            first = i;
        }
        last = i;
    }
    uint64_t count = 0; /* UINT32 or UINT64, as the coordinates (little- or big-endian) */
    uint32_t count32 = 0;
    DML_BUFFER_BINDING b_in, b_count, b_coords;
    const DML_BINDING_DESC inputs[] = {dmls_test_bind(&b_in, input, 0, in_bytes)};
    const DML_BINDING_DESC outputs[] = {
        coord_width == 8 ? dmls_test_bind(&b_count, &count, 0, sizeof count)
                         : dmls_test_bind(&b_count, &count32, 0, sizeof count32),
        dmls_test_bind(&b_coords, coords, 0, (UINT64)elements * dims * coord_width)};
    for (int round = 0; round < 3; ++round) {
        CHECK_HR(dmls_operator_execute(op, 1, inputs, 2, outputs), S_OK);
    }
    if (coord_width == 4) {
        count = count32;
    }
    CHECK_EQ_U64(count, expected);
    /* The last coordinate of the first and of the last row: the innermost index. */
    if (count > 0) {
        const size_t lo = (size_t)dims - 1, hi = ((size_t)count - 1) * dims + dims - 1;
        const uint64_t got_first = coord_width == 8 ? ((const uint64_t *)coords)[lo]
                                                    : ((const uint32_t *)coords)[lo];
        const uint64_t got_last = coord_width == 8 ? ((const uint64_t *)coords)[hi]
                                                   : ((const uint32_t *)coords)[hi];
        CHECK_EQ_U64(got_first, first % sizes[dims - 1]);
        CHECK_EQ_U64(got_last, last % sizes[dims - 1]);
    }
    free(input);
    free(coords);
    dmls_operator_release(op);
}

/* DIAGONAL_MATRIX1 over SIDE x SIDE FLOAT32, with an input (the upper triangle) or without (the
 * identity); checks two elements on each side of the band. */
static void diagonal_case(const dmls_device *device, int with_input) {
    const UINT sizes[2] = {SIDE, SIDE};
    dmls_test_owned_tensor in, out;
    dmls_test_owned_tensor_init(&in, DML_TENSOR_DATA_TYPE_FLOAT32, 2, sizes, NULL);
    dmls_test_owned_tensor_init(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 2, sizes, NULL);
    DML_DIAGONAL_MATRIX1_OPERATOR_DESC d =
        with_input ? dmls_test_diagonal1(&in.desc, &out.desc, DML_TENSOR_DATA_TYPE_FLOAT32,
                                         INT_MIN, 0)
                   : dmls_test_diagonal1(NULL, &out.desc, DML_TENSOR_DATA_TYPE_FLOAT32, 0, 1);
    d.Value.Float32 = with_input ? 0.0f : 1.0f;
    const DML_OPERATOR_DESC desc = {DML_OPERATOR_DIAGONAL_MATRIX1, &d};
    dmls_operator *op = dmls_test_create(device, &desc, "DIAGONAL_MATRIX1");
    if (op == NULL) {
        return;
    }
    float *input = malloc((size_t)ELEMENTS * sizeof(float));
    float *output = malloc((size_t)ELEMENTS * sizeof(float));
    if (input == NULL || output == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    for (uint32_t i = 0; i < ELEMENTS; ++i) {
        input[i] = (float)(i % 97 + 1);
    }
    DML_BUFFER_BINDING b_in, b_out;
    const DML_BINDING_DESC in_bind = dmls_test_bind(&b_in, input, 0, (UINT64)ELEMENTS * 4);
    DML_BINDING_DESC inputs[1];
    if (with_input) {
        inputs[0] = in_bind;
    } else {
        inputs[0].Type = DML_BINDING_TYPE_NONE;
        inputs[0].Desc = NULL;
    }
    const DML_BINDING_DESC outputs[] = {dmls_test_bind(&b_out, output, 0, (UINT64)ELEMENTS * 4)};
    CHECK_HR(dmls_operator_execute(op, 1, inputs, 1, outputs), S_OK);
    /* Row 5: columns 4 (below the diagonal) and 5 (on it). Upper (fill below): 0 and the
     * input; identity: 0 and 1. */
    const uint32_t below = 5 * SIDE + 4, on = 5 * SIDE + 5;
    CHECK(output[below] == 0.0f);
    CHECK(output[on] == (with_input ? input[on] : 1.0f));
    free(input);
    free(output);
    dmls_operator_release(op);
}

/* DIAGONAL_MATRIX (no input) on a feature level that has it. */
static void diagonal_matrix_case(const dmls_device *device) {
    const UINT sizes[4] = {1, 1, 64, 64};
    dmls_test_owned_tensor out;
    dmls_test_owned_tensor_init(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 4, sizes, NULL);
    const DML_DIAGONAL_MATRIX_OPERATOR_DESC d = {&out.desc, 0, 1.0f};
    const DML_OPERATOR_DESC desc = {DML_OPERATOR_DIAGONAL_MATRIX, &d};
    dmls_operator *op = dmls_test_create(device, &desc, "DIAGONAL_MATRIX");
    if (op == NULL) {
        return;
    }
    /* On the heap: this test's own frames stay small. */
    float *output = malloc(64 * 64 * sizeof(float));
    if (output == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    DML_BUFFER_BINDING b_out;
    const DML_BINDING_DESC outputs[] = {
        dmls_test_bind(&b_out, output, 0, 64 * 64 * sizeof(float))};
    CHECK_HR(dmls_operator_execute(op, 0, NULL, 1, outputs), S_OK);
    CHECK(output[3 * 64 + 3] == 1.0f && output[3 * 64 + 4] == 0.0f);
    free(output);
    dmls_operator_release(op);
}

/* The failures: each returns its code and leaves a message. */
static void error_cases(const dmls_device *device) {
    const UINT in_sizes[2] = {2, 4}, one = 1, bad_coords[2] = {8, 3};
    const DML_BUFFER_TENSOR_DESC in =
        dmls_test_buffer(DML_TENSOR_DATA_TYPE_FLOAT32, 2, in_sizes, NULL);
    const DML_BUFFER_TENSOR_DESC count =
        dmls_test_buffer(DML_TENSOR_DATA_TYPE_UINT32, 1, &one, NULL);
    const DML_BUFFER_TENSOR_DESC coords =
        dmls_test_buffer(DML_TENSOR_DATA_TYPE_UINT32, 2, bad_coords, NULL);
    const DML_TENSOR_DESC in_t = dmls_test_tensor(&in), count_t = dmls_test_tensor(&count),
                          coord_t = dmls_test_tensor(&coords);
    const DML_NONZERO_COORDINATES_OPERATOR_DESC nz = {&in_t, &count_t, &coord_t};
    const DML_OPERATOR_DESC desc = {DML_OPERATOR_NONZERO_COORDINATES, &nz};
    dmls_operator *op = NULL;
    CHECK_HR(dmls_device_create_operator(device, &desc, &op), E_INVALIDARG);
    CHECK_MESSAGE_HAS("OutputCoordinatesTensor");
    CHECK_HR(dmls_device_create_operator(device, NULL, &op), E_POINTER);
    const DML_OPERATOR_DESC unknown = {(DML_OPERATOR_TYPE)103, &nz};
    CHECK_HR(dmls_device_create_operator(device, &unknown, &op), E_NOTIMPL);
    CHECK(op == NULL);
    char small[8];
    CHECK(dmls_get_last_error_message(small, sizeof small) > sizeof small);
}

static void queries(const dmls_device *device) {
    DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT query = {DML_TENSOR_DATA_TYPE_FLOAT16};
    DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT data = {0};
    CHECK_HR(dmls_device_check_feature_support(device, DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT,
                                               sizeof query, &query, sizeof data, &data),
             S_OK);
    const UINT sizes[3] = {2, 3, 4};
    CHECK_EQ_U64(dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_UINT16, 3, sizes, NULL), 48);
    CHECK(dmls_version() != NULL);
}

static void run_device(uint32_t thread_count, uint32_t flags) {
    dmls_device_desc desc;
    desc.feature_level = DML_FEATURE_LEVEL_6_4;
    desc.thread_count = thread_count;
    desc.flags = flags;
    dmls_device *device = NULL;
    CHECK_HR(dmls_device_create(&desc, &device), S_OK);
    if (device == NULL) {
        return;
    }
    const UINT square[2] = {SIDE, SIDE}, wide[2] = {512, 2048}, cube[3] = {64, 128, 128};
    /* [SIDE, SIDE] read down its columns: strides {1, SIDE}. */
    const UINT transposed[2] = {1, SIDE}, seed[2] = {2, 4};
    nonzero_case(device, "NONZERO_COORDINATES f32", DML_TENSOR_DATA_TYPE_FLOAT32, 2, square,
                 NULL, DML_TENSOR_DATA_TYPE_UINT32);
    nonzero_case(device, "NONZERO_COORDINATES u8", DML_TENSOR_DATA_TYPE_UINT8, 2, wide, NULL,
                 DML_TENSOR_DATA_TYPE_UINT32);
    nonzero_case(device, "NONZERO_COORDINATES f16 3-D", DML_TENSOR_DATA_TYPE_FLOAT16, 3, cube,
                 NULL, DML_TENSOR_DATA_TYPE_UINT32);
    nonzero_case(device, "NONZERO_COORDINATES f32 transposed", DML_TENSOR_DATA_TYPE_FLOAT32, 2,
                 square, transposed, DML_TENSOR_DATA_TYPE_UINT32);
    nonzero_case(device, "NONZERO_COORDINATES 2x4", DML_TENSOR_DATA_TYPE_FLOAT32, 2, seed, NULL,
                 DML_TENSOR_DATA_TYPE_UINT32);
    if (flags & DMLS_DEVICE_FLAG_EXTENSIONS) {
        nonzero_case(device, "NONZERO_COORDINATES u64 coordinates", DML_TENSOR_DATA_TYPE_FLOAT32,
                     2, square, NULL, DML_TENSOR_DATA_TYPE_UINT64);
    }
    diagonal_case(device, 1);
    diagonal_case(device, 0);
    diagonal_matrix_case(device);
    error_cases(device);
    queries(device);
    dmls_device_release(device);
}

static void *body(void *arg) {
    (void)arg;
    run_device(0, 0);
    run_device(1, 0);
    run_device(2, DMLS_DEVICE_FLAG_EXTENSIONS);
    return NULL;
}

#ifdef _WIN32
static ULONG_PTR g_reserved; /* the thread's stack as Windows reserved it, in bytes */

static DWORD WINAPI win_body(LPVOID arg) {
    ULONG_PTR low = 0, high = 0;
    GetCurrentThreadStackLimits(&low, &high);
    g_reserved = high - low;
    body(arg);
    return 0;
}

int main(void) {
    /* A stack of STACK_KIB KiB asked for (not the executable's default of 1 MiB);
     * Windows puts a guard page below it, and an overflow ends the program. */
    const SIZE_T size = (SIZE_T)STACK_KIB * 1024;
    HANDLE thread = CreateThread(NULL, size, win_body, NULL, STACK_SIZE_PARAM_IS_A_RESERVATION, NULL);
    CHECK(thread != NULL);
    if (thread != NULL) {
        CHECK(WaitForSingleObject(thread, INFINITE) == WAIT_OBJECT_0);
        DWORD code = 1;
        CHECK(GetExitCodeThread(thread, &code) && code == 0);
        CloseHandle(thread);
    }
    printf("every entry point ran on a thread of %u KiB\n", (unsigned)(g_reserved / 1024));
    if (g_reserved > size) {
        /* Wine (8.0) reserves at least 1 MiB whatever is asked. */
        printf("NOTE: %u KiB were asked for: the small stack itself was not tested here\n",
               (unsigned)(size / 1024));
    }
    return dmls_test_finish("test_small_stack");
}
#else

#define PAINT 0xA5

/* The bytes of `stack` (`size` bytes) that a thread, now finished, wrote: those above the
 * lowest byte that lost its PAINT. (Valgrind reports these reads, since a finished thread's
 * stack is below every stack pointer: scripts/valgrind.supp names this function.) */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static size_t painted_depth(const unsigned char *stack, size_t size) {
    size_t untouched = 0;
    while (untouched < size && stack[untouched] == PAINT) {
        ++untouched;
    }
    return size - untouched;
}

int main(void) {
    /* The thread's stack: STACK_KIB KiB painted with PAINT above an inaccessible guard page,
     * so that an overflow faults instead of writing into other memory, and the deepest byte
     * written tells how much of the stack the calls used. */
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t size = (size_t)STACK_KIB * 1024;
    /* Some targets allow no less (glibc on aarch64: 128 KiB). */
    const long least = sysconf(_SC_THREAD_STACK_MIN);
    if (least > 0 && (size_t)least > size) {
        size = (size_t)least;
    }
    size = (size + page - 1) / page * page;
    unsigned char *map = mmap(NULL, size + page, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED || mprotect(map, page, PROT_NONE) != 0) {
        fprintf(stderr, "cannot map the thread's stack\n");
        return 1;
    }
    unsigned char *stack = map + page;
    memset(stack, PAINT, size);
    pthread_attr_t attr;
    CHECK(pthread_attr_init(&attr) == 0);
    CHECK(pthread_attr_setstack(&attr, stack, size) == 0);
    pthread_t thread;
    const int started = pthread_create(&thread, &attr, body, NULL);
    CHECK(started == 0);
    if (started == 0) {
        CHECK(pthread_join(thread, NULL) == 0);
    }
    pthread_attr_destroy(&attr);
    printf("every entry point ran on a thread of %zu KiB; the thread used %zu bytes of it "
           "(the C library's share and this test's frames included)\n",
           size / 1024, painted_depth(stack, size));
    munmap(map, size + page);
    return dmls_test_finish("test_small_stack");
}
#endif
