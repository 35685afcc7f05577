/*
 * The bad-input suite's shared machinery (c_tests/test_bad_input_*.c; C11). The suite checks
 * every kind of invalid call the C API can receive, each for its exact HRESULT, a non-empty
 * message from dmls_get_last_error_message (naming what is wrong), an untouched output
 * parameter, and canary-filled output buffers proven untouched. Its programs, one per part of
 * the API: _device (dmls_device_create and feature queries), _create (what every operator's
 * desc and tensors are checked for), _rules (NONZERO_COORDINATES', DIAGONAL_MATRIX1's and
 * DIAGONAL_MATRIX's rules, at every feature level), _execute (dmls_operator_execute's
 * bindings) and _helpers (dmls_calc_buffer_tensor_size, the message buffer).
 *
 * Arrays the library must not read past (Sizes with a wrong DimensionCount, ...) are heap
 * allocations of exactly the length a correct reader may touch, so AddressSanitizer and
 * Valgrind (scripts/check_sanitizers.sh, scripts/check_valgrind.sh) catch an over-read.
 *
 * Each CASE is one distinct kind of invalid call; a program fails unless it checked at least
 * the number of kinds it names to bad_input_finish. Here: the bookkeeping and checks, the
 * standard operator descs, devices and creation checks, and the kinds and options that the
 * tables of creation cases (bad_input_create.h) and execute cases share.
 */
#ifndef DMLS_BAD_INPUT_H
#define DMLS_BAD_INPUT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dmls_test.h"

/* ------------------------------------------------------------------------------------------ */
/* Bookkeeping                                                                                */

/* Checks and failed checks are counted in dmls_test_checks and dmls_test_failures
   (dmls_test.h); the suite reports them itself, with the kinds (bad_input_finish). */
static int g_kinds; /* distinct kinds of invalid call */
static const char *g_case = "";

#define CASE(name)                                                                                 \
    do {                                                                                           \
        g_case = (name);                                                                           \
        g_kinds++;                                                                                 \
    } while (0)

static inline void fail(const char *what, const char *detail) {
    dmls_test_failures++;
    fprintf(stderr, "FAIL [%s] %s: %s\n", g_case, what, detail);
}

/* Checks a returned HRESULT and the thread's message: on failure the message is non-empty,
   NUL-terminated, and contains `needle` (when given); on success it is empty. */
static inline void check_hr(const char *what, HRESULT got, HRESULT want, const char *needle) {
    char msg[1024];
    char detail[1400];
    size_t len;
    dmls_test_checks++;
    memset(msg, 0x7F, sizeof msg);
    len = dmls_get_last_error_message(msg, sizeof msg);
    if (got != want) {
        snprintf(detail, sizeof detail,
                 "returned 0x%08X (%s), expected 0x%08X (%s); message: %.900s", (unsigned)got,
                 dmls_test_hresult_name(got), (unsigned)want, dmls_test_hresult_name(want),
                 len ? msg : "(none)");
        fail(what, detail);
        return;
    }
    if (want == S_OK) {
        if (len != 0) {
            snprintf(detail, sizeof detail, "succeeded but left a message: %.900s", msg);
            fail(what, detail);
        }
        return;
    }
    if (len == 0 || msg[0] == '\0') {
        fail(what, "failed with the right code but no message");
        return;
    }
    if (strlen(msg) != (len < sizeof msg ? len : sizeof msg - 1)) {
        fail(what, "message length disagrees with dmls_get_last_error_message's return value");
        return;
    }
    if (needle != NULL && strstr(msg, needle) == NULL) {
        snprintf(detail, sizeof detail, "message does not mention \"%s\": %.900s", needle, msg);
        fail(what, detail);
    }
}

static inline void check_true(const char *what, int ok) {
    dmls_test_checks++;
    if (!ok) {
        fail(what, "condition false");
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Operator descs (always used in place: the structs point into themselves)                    */

/* A NONZERO_COORDINATES desc: FLOAT32 input {2,3}, count {1}, coordinates {6,2}. */
static inline void nz_init(dmls_test_nonzero *d) {
    static const UINT in_sizes[2] = {2, 3}, count_sizes[1] = {1}, coord_sizes[2] = {6, 2};
    dmls_test_owned_tensor_init(&d->in, DML_TENSOR_DATA_TYPE_FLOAT32, 2, in_sizes, NULL);
    dmls_test_owned_tensor_init(&d->count, DML_TENSOR_DATA_TYPE_UINT32, 1, count_sizes, NULL);
    dmls_test_owned_tensor_init(&d->coords, DML_TENSOR_DATA_TYPE_UINT32, 2, coord_sizes, NULL);
    dmls_test_nonzero_link(d);
}

/* The same with `dims`-dimensional tensors for feature level 3.x: input {1,..,1,2,3}, count
   {1,..,1}, coordinates {1,..,1,6,N}. */
static inline void nz_init_dims(dmls_test_nonzero *d, UINT dims) {
    UINT in_sizes[8], count_sizes[8], coord_sizes[8], i;
    for (i = 0; i < 8; i++) {
        in_sizes[i] = count_sizes[i] = coord_sizes[i] = 1;
    }
    in_sizes[dims - 2] = 2;
    in_sizes[dims - 1] = 3;
    coord_sizes[dims - 2] = 6;
    coord_sizes[dims - 1] = 2;
    nz_init(d);
    dmls_test_owned_tensor_init(&d->in, DML_TENSOR_DATA_TYPE_FLOAT32, dims, in_sizes, NULL);
    dmls_test_owned_tensor_init(&d->count, DML_TENSOR_DATA_TYPE_UINT32, dims, count_sizes, NULL);
    dmls_test_owned_tensor_init(&d->coords, DML_TENSOR_DATA_TYPE_UINT32, dims, coord_sizes, NULL);
}

/* A DIAGONAL_MATRIX1 desc: FLOAT32 input and output {3,4}, Value 7, fill [0, 1). */
typedef struct {
    dmls_test_owned_tensor in, out;
    DML_DIAGONAL_MATRIX1_OPERATOR_DESC dm;
    DML_OPERATOR_DESC op;
} dm1_desc;

static inline void dm1_init(dm1_desc *d, DML_TENSOR_DATA_TYPE type, UINT dims) {
    UINT sizes[4] = {1, 1, 1, 1};
    sizes[dims - 2] = 3;
    sizes[dims - 1] = 4;
    dmls_test_owned_tensor_init(&d->in, type, dims, sizes, NULL);
    dmls_test_owned_tensor_init(&d->out, type, dims, sizes, NULL);
    memset(&d->dm, 0, sizeof d->dm);
    d->dm.InputTensor = &d->in.desc;
    d->dm.OutputTensor = &d->out.desc;
    d->dm.ValueDataType = type;
    d->dm.Value.UInt64 = 0;
    if (type == DML_TENSOR_DATA_TYPE_FLOAT32) {
        d->dm.Value.Float32 = 7.0f;
    } else {
        d->dm.Value.UInt8 = 7;
    }
    d->dm.DiagonalFillBegin = 0;
    d->dm.DiagonalFillEnd = 1;
    d->op.Type = DML_OPERATOR_DIAGONAL_MATRIX1;
    d->op.Desc = &d->dm;
}

/* A DIAGONAL_MATRIX desc: output {1,1,3,4} (or `dims` dimensions ending in 3,4). */
typedef struct {
    dmls_test_owned_tensor out;
    DML_DIAGONAL_MATRIX_OPERATOR_DESC dm;
    DML_OPERATOR_DESC op;
} dm0_desc;

static inline void dm0_init(dm0_desc *d, DML_TENSOR_DATA_TYPE type, UINT dims) {
    UINT sizes[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    sizes[dims - 2] = 3;
    sizes[dims - 1] = 4;
    dmls_test_owned_tensor_init(&d->out, type, dims, sizes, NULL);
    d->dm.OutputTensor = &d->out.desc;
    d->dm.Offset = 1;
    d->dm.Value = 2.5f;
    d->op.Type = DML_OPERATOR_DIAGONAL_MATRIX;
    d->op.Desc = &d->dm;
}

/* ------------------------------------------------------------------------------------------ */
/* Devices and creation checks                                                                */

/* A one-thread device; the suite cannot go on without it. */
static inline dmls_device *make_device(DML_FEATURE_LEVEL level, uint32_t flags) {
    dmls_device *dev = dmls_test_device_flags(level, flags);
    if (dev == NULL) {
        exit(2);
    }
    return dev;
}

/* A pointer value the library must never write or dereference; used to prove an output
   parameter is left untouched on failure. */
static int g_sentinel_storage;
#define SENTINEL_OP ((dmls_operator *)(void *)&g_sentinel_storage)
#define SENTINEL_DEV ((dmls_device *)(void *)&g_sentinel_storage)

/* Creates an operator and checks the code, the message and that `*op` is untouched on
   failure. A success is released. */
static inline void expect_create(const char *what, const dmls_device *dev,
                                 const DML_OPERATOR_DESC *desc, HRESULT want,
                                 const char *needle) {
    dmls_operator *op = SENTINEL_OP;
    HRESULT hr = dmls_device_create_operator(dev, desc, &op);
    check_hr(what, hr, want, needle);
    if (hr == S_OK) {
        dmls_test_checks++;
        if (op == SENTINEL_OP || op == NULL) {
            fail(what, "succeeded without writing *op");
        } else {
            dmls_operator_release(op);
        }
    } else {
        dmls_test_checks++;
        if (op != SENTINEL_OP) {
            fail(what, "*op was written on failure");
        }
    }
}

static inline dmls_operator *create_ok(const dmls_device *dev, const DML_OPERATOR_DESC *desc) {
    dmls_operator *op = NULL;
    HRESULT hr = dmls_device_create_operator(dev, desc, &op);
    if (hr != S_OK || op == NULL) {
        char msg[512];
        dmls_get_last_error_message(msg, sizeof msg);
        fprintf(stderr, "cannot create a valid operator (%s): %s\n", g_case, msg);
        exit(2);
    }
    return op;
}

/* ------------------------------------------------------------------------------------------ */
/* Kinds of invalid call, and how a table row differs from the plain one                       */

/* The devices cases run on. */
typedef enum {
    KINDS_DEVICE = 0, /* the one its kind names */
    NEWEST,           /* level 0 (the newest), strict */
    NEWEST_EXT,       /* level 0 with DMLS_DEVICE_FLAG_EXTENSIONS */
    L3_0,
    L3_1,
    L4_0,
    L4_0_EXT,
    L5_1,
    NO_DEVICE, /* a NULL device */
    DEVICE_COUNT
} device_id;

/* How a case differs from the plain one (on its kind's device, from FLOAT32 descs, once). */
typedef struct {
    device_id device;
    DML_TENSOR_DATA_TYPE type; /* DIAGONAL_MATRIX and DIAGONAL_MATRIX1 descs of this type */
    UINT nz_dims; /* NONZERO_COORDINATES descs of this many dimensions (nz_init_dims) */
    const uint64_t *values; /* run once for each: it replaces the first edit's value */
    size_t value_count;
    UINT64 sizes[3]; /* execute: the binding sizes (input, output 0, output 1); 0s: the default */
} options;

/* A kind of invalid call (the suite's CASE) and the device its rows run on. */
typedef struct {
    const char *name;
    device_id device;
} kind;

/* Values a row runs with, one at a time: EACH(list), or EACH_ON(list, device) on another
   device than its kind's. */
#define LISTED 0 /* the value comes from the case's EACH list */
#define EACH_ON(list, dev)                                                                         \
    (&(const options){.device = dev, .values = list, .value_count = sizeof list / sizeof list[0]})
#define EACH(list) EACH_ON(list, KINDS_DEVICE)

/* Prints the program's totals; fails when a check failed or fewer than `min_kinds` kinds of
   invalid call were checked. */
static inline int bad_input_finish(const char *name, int min_kinds) {
    printf("%s: %d kinds of invalid call, %d checks, %d failed\n", name, g_kinds,
           dmls_test_checks, dmls_test_failures);
    if (g_kinds < min_kinds) {
        fprintf(stderr, "FAIL: %s checked only %d kinds of invalid call (at least %d required)\n",
                name, g_kinds, min_kinds);
        return 1;
    }
    return dmls_test_failures == 0 ? 0 : 1;
}

#endif /* DMLS_BAD_INPUT_H */
