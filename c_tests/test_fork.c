/*
 * fork() safety: a device whose worker threads ran in the parent must work in a forked child.
 *
 * For the process-wide pool (thread_count 0) and a device with its own pool (thread_count 2):
 * the parent runs NONZERO_COORDINATES on 2048 x 2048 FLOAT32 (4M elements) and DIAGONAL_MATRIX1
 * with a 4 MiB output, both large enough for the parallel paths, then forks. The child executes
 * the operators created before the fork, creates new operators on the same device and a new
 * device, forks a grandchild that does the same, and checks every result. The parent then runs
 * again. The same is done while another thread of the parent keeps executing on the device, so
 * that the fork happens in the middle of parallel executions.
 *
 * A child that hangs is killed after a deadline and counted as a failure, so a regression fails
 * the test instead of hanging it (the child also sets an alarm).
 */
#define _POSIX_C_SOURCE 200809L
#include "dmls_test.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SIDE 2048u
#define ELEMENTS (SIDE * SIDE)
#define DIAG_SIDE 1024u
/* Seconds a child may take before it counts as hung (generous: sanitizers and Valgrind). */
#ifndef CHILD_DEADLINE
#define CHILD_DEADLINE 120
#endif

static float *input;
static uint32_t expected_count;

static int is_nonzero(uint32_t i) {
    return i % 7 == 0 || i % 11 == 3 || (i >> 12) % 5 == 1;
}

static void make_input(void) {
    input = malloc((size_t)ELEMENTS * sizeof(float));
    if (input == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    expected_count = 0;
    for (uint32_t i = 0; i < ELEMENTS; ++i) {
        input[i] = is_nonzero(i) ? (float)(i % 100 + 1) : (i % 2 ? -0.0f : 0.0f);
        expected_count += (uint32_t)is_nonzero(i);
    }
}

/* The operators one round uses. */
typedef struct ops {
    dmls_test_nonzero nz;
    dmls_test_owned_tensor diag_out;
    DML_DIAGONAL_MATRIX1_OPERATOR_DESC diag;
    DML_OPERATOR_DESC diag_op;
    dmls_operator *nonzero;
    dmls_operator *diagonal;
} ops;

static void create_ops(dmls_device *device, ops *o) {
    const UINT in_sizes[2] = {SIDE, SIDE};
    const UINT count_sizes[1] = {1};
    const UINT coord_sizes[2] = {ELEMENTS, 2};
    dmls_test_owned_tensor_init(&o->nz.in, DML_TENSOR_DATA_TYPE_FLOAT32, 2, in_sizes, NULL);
    dmls_test_owned_tensor_init(&o->nz.count, DML_TENSOR_DATA_TYPE_UINT32, 1, count_sizes, NULL);
    dmls_test_owned_tensor_init(&o->nz.coords, DML_TENSOR_DATA_TYPE_UINT32, 2, coord_sizes, NULL);
    dmls_test_nonzero_link(&o->nz);
    o->nonzero = NULL;
    CHECK_HR(dmls_device_create_operator(device, &o->nz.op, &o->nonzero), S_OK);

    const UINT out_sizes[2] = {DIAG_SIDE, DIAG_SIDE};
    dmls_test_owned_tensor_init(&o->diag_out, DML_TENSOR_DATA_TYPE_FLOAT32, 2, out_sizes, NULL);
    memset(&o->diag, 0, sizeof o->diag);
    o->diag.InputTensor = NULL;
    o->diag.OutputTensor = &o->diag_out.desc;
    o->diag.ValueDataType = DML_TENSOR_DATA_TYPE_FLOAT32;
    o->diag.Value.Float32 = 2.5f;
    o->diag.DiagonalFillBegin = -1;
    o->diag.DiagonalFillEnd = 2;
    o->diag_op.Type = DML_OPERATOR_DIAGONAL_MATRIX1;
    o->diag_op.Desc = &o->diag;
    o->diagonal = NULL;
    CHECK_HR(dmls_device_create_operator(device, &o->diag_op, &o->diagonal), S_OK);
}

static void release_ops(ops *o) {
    dmls_operator_release(o->nonzero);
    dmls_operator_release(o->diagonal);
}

/* Runs both operators and checks every output element; returns the number of problems, each
 * reported on stderr. Uses no shared state, so several threads may call it at once. */
static int run_and_check(const ops *o) {
    int problems = 0;
    uint32_t count[1] = {0xDEADBEEF};
    uint32_t *coords = malloc((size_t)ELEMENTS * 2 * sizeof(uint32_t));
    float *diag = malloc((size_t)DIAG_SIDE * DIAG_SIDE * sizeof(float));
    if (coords == NULL || diag == NULL) {
        fprintf(stderr, "out of memory\n");
        free(coords);
        free(diag);
        return 1;
    }
    memset(coords, 0xA5, (size_t)ELEMENTS * 2 * sizeof(uint32_t));
    DML_BUFFER_BINDING b_in, b_count, b_coords, b_diag;
    DML_BINDING_DESC inputs[1] = {
        dmls_test_bind(&b_in, input, 0, (UINT64)ELEMENTS * sizeof(float))};
    DML_BINDING_DESC outputs[2] = {
        dmls_test_bind(&b_count, count, 0, sizeof count),
        dmls_test_bind(&b_coords, coords, 0, (UINT64)ELEMENTS * 2 * sizeof(uint32_t))};
    HRESULT hr = dmls_operator_execute(o->nonzero, 1, inputs, 2, outputs);
    if (hr != S_OK) {
        fprintf(stderr, "NONZERO_COORDINATES execute: 0x%08X\n", (unsigned)hr);
        ++problems;
    } else if (count[0] != expected_count) {
        fprintf(stderr, "count is %u, expected %u\n", count[0], expected_count);
        ++problems;
    } else {
        uint32_t row = 0;
        for (uint32_t i = 0; i < ELEMENTS && problems == 0; ++i) {
            if (!is_nonzero(i)) continue;
            if (coords[2 * row] != i / SIDE || coords[2 * row + 1] != i % SIDE) {
                fprintf(stderr, "coordinates row %u is (%u, %u), expected (%u, %u)\n", row,
                        coords[2 * row], coords[2 * row + 1], i / SIDE, i % SIDE);
                ++problems;
            }
            ++row;
        }
        for (uint32_t r = expected_count; r < ELEMENTS && problems == 0; ++r) {
            if (coords[2 * r] != 0xA5A5A5A5u || coords[2 * r + 1] != 0xA5A5A5A5u) {
                fprintf(stderr, "coordinates row %u past the count was written\n", r);
                ++problems;
            }
        }
    }

    DML_BINDING_DESC no_input[1] = {{DML_BINDING_TYPE_NONE, NULL}};
    DML_BINDING_DESC diag_out[1] = {
        dmls_test_bind(&b_diag, diag, 0, (UINT64)DIAG_SIDE * DIAG_SIDE * sizeof(float))};
    memset(diag, 0xA5, (size_t)DIAG_SIDE * DIAG_SIDE * sizeof(float));
    hr = dmls_operator_execute(o->diagonal, 1, no_input, 1, diag_out);
    if (hr != S_OK) {
        fprintf(stderr, "DIAGONAL_MATRIX1 execute: 0x%08X\n", (unsigned)hr);
        ++problems;
    } else {
        int bad = 0;
        for (uint32_t y = 0; y < DIAG_SIDE && !bad; ++y) {
            for (uint32_t x = 0; x < DIAG_SIDE && !bad; ++x) {
                int64_t d = (int64_t)x - (int64_t)y;
                float want = (d >= -1 && d < 2) ? 2.5f : 0.0f;
                if (diag[(size_t)y * DIAG_SIDE + x] != want) {
                    fprintf(stderr, "diagonal output (%u, %u) is %g, expected %g\n", y, x,
                            (double)diag[(size_t)y * DIAG_SIDE + x], (double)want);
                    bad = 1;
                }
            }
        }
        problems += bad;
    }
    free(coords);
    free(diag);
    return problems;
}

static dmls_device *make_device(uint32_t threads) {
    dmls_device_desc desc = {0, threads, 0};
    dmls_device *device = NULL;
    CHECK_HR(dmls_device_create(&desc, &device), S_OK);
    return device;
}

/* Waits for `pid` for at most CHILD_DEADLINE seconds; kills it after that. True when it exited
 * with status 0. */
static int wait_child(pid_t pid, const char *what) {
    struct timespec tick = {0, 20 * 1000 * 1000};
    for (long waited = 0; waited < CHILD_DEADLINE * 50L; ++waited) {
        int status = 0;
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid) {
            if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return 1;
            if (WIFSIGNALED(status)) {
                fprintf(stderr, "%s: child killed by signal %d%s\n", what, WTERMSIG(status),
                        WTERMSIG(status) == SIGALRM ? " (it hung: alarm)" : "");
            } else {
                fprintf(stderr, "%s: child exited with status %d\n", what,
                        WIFEXITED(status) ? WEXITSTATUS(status) : -1);
            }
            return 0;
        }
        if (r < 0 && errno != EINTR) {
            perror("waitpid");
            return 0;
        }
        nanosleep(&tick, NULL);
    }
    fprintf(stderr, "%s: child still running after %d s (hung): killed\n", what, CHILD_DEADLINE);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return 0;
}

/* In a child: everything a forked process may do with a device from its parent. Returns the
 * child's exit status. */
static int child_body(dmls_device *device, ops *old, uint32_t threads, int depth) {
    alarm(CHILD_DEADLINE - 10 * (unsigned)depth);
    /* The parent's failure count came along with the fork: count this process's own. */
    dmls_test_failures = 0;
    int failures = run_and_check(old);
    ops fresh;
    create_ops(device, &fresh);
    failures += run_and_check(&fresh);
    dmls_device *other = make_device(threads);
    if (other != NULL) {
        ops on_other;
        create_ops(other, &on_other);
        failures += run_and_check(&on_other);
        release_ops(&on_other);
        dmls_device_release(other);
    }
    if (depth == 1) {
        /* A grandchild: the device has now crossed two forks. */
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) {
            _exit(child_body(device, &fresh, threads, 2));
        }
        CHECK(pid > 0);
        if (pid > 0 && !wait_child(pid, "grandchild")) {
            ++dmls_test_failures;
            ++failures;
        }
        failures += run_and_check(old);
    }
    release_ops(&fresh);
    release_ops(old);
    dmls_device_release(device);
    return failures == 0 && dmls_test_failures == 0 ? 0 : 1;
}

/* depth 1: the child also forks a grandchild; depth 2: it does not. */
static void fork_once(dmls_device *device, ops *o, uint32_t threads, int depth, const char *what) {
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        _exit(child_body(device, o, threads, depth));
    }
    CHECK(pid > 0);
    if (pid > 0 && !wait_child(pid, what)) {
        ++dmls_test_failures;
    }
}

typedef struct busy {
    const ops *o;
    atomic_int stop;
    int runs;
    int failures;
} busy;

static void *busy_thread(void *arg) {
    busy *b = arg;
    while (!atomic_load(&b->stop)) {
        b->failures += run_and_check(b->o);
        ++b->runs;
    }
    return NULL;
}

static void fork_round(uint32_t threads) {
    char what[96];
    dmls_device *device = make_device(threads);
    if (device == NULL) return;
    ops o;
    create_ops(device, &o);

    /* Fork after a parallel execution. */
    CHECK(run_and_check(&o) == 0);
    snprintf(what, sizeof what, "thread_count %u: fork after an execution", threads);
    fork_once(device, &o, threads, 1, what);
    CHECK(run_and_check(&o) == 0); /* The parent is unaffected. */

    /* Fork while another thread is executing on the same device. */
    busy b;
    b.o = &o;
    atomic_init(&b.stop, 0);
    b.runs = 0;
    b.failures = 0;
    pthread_t t;
    CHECK(pthread_create(&t, NULL, busy_thread, &b) == 0);
    struct timespec pause = {0, 30 * 1000 * 1000};
    for (int i = 0; i < 3; ++i) {
        nanosleep(&pause, NULL);
        snprintf(what, sizeof what, "thread_count %u: fork %d during executions", threads, i);
        fork_once(device, &o, threads, 2, what);
    }
    atomic_store(&b.stop, 1);
    pthread_join(t, NULL);
    CHECK(b.failures == 0);
    CHECK(b.runs > 0);
    CHECK(run_and_check(&o) == 0);

    release_ops(&o);
    dmls_device_release(device);
    printf("thread_count %u: forks done (%d executions by the busy thread)\n", threads, b.runs);
}

int main(void) {
    make_input();
    fork_round(0);
    fork_round(2);
    free(input);
    return dmls_test_finish("test_fork");
}
