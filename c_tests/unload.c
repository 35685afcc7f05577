/*
 * Unloading the library after use: a program loads the shared library at run time (dlopen,
 * LoadLibrary: a plugin host, Python's ctypes), runs operators that start worker threads
 * (the process-wide pool and a device's own), releases everything and unloads it. The workers
 * still wait or sleep, and a released pool's threads may still be leaving, so the library must
 * stay loaded: on ELF systems it is linked with `-z nodelete`, on Windows it pins itself when
 * its first pool starts. The program checks that the unload call succeeds, that the library is
 * still mapped after it, and that the process is still alive a second later (a worker running
 * unloaded code would have crashed it).
 *
 *   unload <path of libdirectml_subset.so or directml_subset.dll>
 *
 * (Not a test_*.c program: it takes the shared library's path, and links nothing of it.)
 */
#define _GNU_SOURCE /* RTLD_NOLOAD, setenv, nanosleep */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "directml_subset.h"

#ifdef _WIN32
#include <windows.h>
#else
#include <dlfcn.h>
#include <time.h>
#endif

typedef HRESULT (*create_device_fn)(const dmls_device_desc *, dmls_device **);
typedef void (*release_device_fn)(dmls_device *);
typedef HRESULT (*create_operator_fn)(const dmls_device *, const DML_OPERATOR_DESC *, dmls_operator **);
typedef HRESULT (*execute_fn)(const dmls_operator *, UINT, const DML_BINDING_DESC *, UINT,
                              const DML_BINDING_DESC *);
typedef void (*release_operator_fn)(dmls_operator *);

static struct {
    create_device_fn create_device;
    release_device_fn release_device;
    create_operator_fn create_operator;
    execute_fn execute;
    release_operator_fn release_operator;
} api;

static int failures = 0;

#define EXPECT(cond)                                                                         \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #cond);               \
            ++failures;                                                                      \
        }                                                                                    \
    } while (0)

#ifdef _WIN32
typedef HMODULE library;
static library load(const char *path) { return LoadLibraryA(path); }
static int unload(library lib) { return FreeLibrary(lib) ? 0 : -1; }
/* A function of the library, by name, into `out` (a function pointer's storage). */
static int symbol(library lib, const char *name, void *out) {
    FARPROC f = GetProcAddress(lib, name);
    memcpy(out, &f, sizeof f);
    return f != NULL;
}
/* Whether the module that holds `address` is still loaded. */
static int still_loaded(const char *path, const void *address) {
    HMODULE module = NULL;
    (void)path;
    return GetModuleHandleExA(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS |
                                  GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                              (LPCSTR)address, &module) != 0;
}
static void sleep_ms(unsigned ms) { Sleep(ms); }
static void parallel_always(void) { _putenv("DMLS_PARALLEL=always"); }
#else
typedef void *library;
static library load(const char *path) { return dlopen(path, RTLD_NOW | RTLD_LOCAL); }
static int unload(library lib) { return dlclose(lib); }
static int symbol(library lib, const char *name, void *out) {
    void *f = dlsym(lib, name);
    memcpy(out, &f, sizeof f);
    return f != NULL;
}
static int still_loaded(const char *path, const void *address) {
    library again = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
    (void)address;
    if (again == NULL) {
        return 0;
    }
    dlclose(again);
    return 1;
}
static void sleep_ms(unsigned ms) {
    struct timespec t = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}
static void parallel_always(void) { setenv("DMLS_PARALLEL", "always", 1); }
#endif

#define N (1u << 20)

/* A NONZERO_COORDINATES of N FLOAT32 elements, one in three nonzero, on a device of
 * `threads` threads (0: the process-wide pool), executed a few times. */
static void run(UINT threads, const float *input, uint32_t *coords) {
    dmls_device_desc dd;
    memset(&dd, 0, sizeof dd);
    dd.thread_count = threads;
    dmls_device *device = NULL;
    EXPECT(api.create_device(&dd, &device) == S_OK);
    if (device == NULL) {
        return;
    }
    UINT in_sizes[] = {N}, count_sizes[] = {1}, xy_sizes[] = {N, 1};
    DML_BUFFER_TENSOR_DESC in = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 1, in_sizes, NULL, 4ull * N, 0};
    DML_BUFFER_TENSOR_DESC count = {DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_FLAG_NONE, 1, count_sizes, NULL, 4, 0};
    DML_BUFFER_TENSOR_DESC xy = {DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_FLAG_NONE, 2, xy_sizes, NULL, 4ull * N, 0};
    DML_TENSOR_DESC in_t = {DML_TENSOR_TYPE_BUFFER, &in}, count_t = {DML_TENSOR_TYPE_BUFFER, &count},
                    xy_t = {DML_TENSOR_TYPE_BUFFER, &xy};
    DML_NONZERO_COORDINATES_OPERATOR_DESC nz = {&in_t, &count_t, &xy_t};
    DML_OPERATOR_DESC desc = {DML_OPERATOR_NONZERO_COORDINATES, &nz};
    dmls_operator *op = NULL;
    EXPECT(api.create_operator(device, &desc, &op) == S_OK);
    if (op != NULL) {
        uint32_t n = 0;
        DML_BUFFER_BINDING b_in = {(void *)input, 0, 4ull * N}, b_n = {&n, 0, 4}, b_xy = {coords, 0, 4ull * N};
        DML_BINDING_DESC inputs[] = {{DML_BINDING_TYPE_BUFFER, &b_in}};
        DML_BINDING_DESC outputs[] = {{DML_BINDING_TYPE_BUFFER, &b_n}, {DML_BINDING_TYPE_BUFFER, &b_xy}};
        for (int i = 0; i < 8; ++i) {
            EXPECT(api.execute(op, 1, inputs, 2, outputs) == S_OK);
        }
        EXPECT(n == (N + 2) / 3);
        EXPECT(coords[0] == 0 && coords[1] == 3 && coords[n - 1] == 3 * (n - 1));
        api.release_operator(op);
    }
    api.release_device(device);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: unload <path of the shared library>\n");
        return 2;
    }
    /* Every execution large enough goes parallel, whatever this machine measures. */
    parallel_always();
    library lib = load(argv[1]);
    if (lib == NULL) {
        fprintf(stderr, "cannot load %s\n", argv[1]);
        return 1;
    }
    int found = symbol(lib, "dmls_device_create", &api.create_device) &&
                symbol(lib, "dmls_device_release", &api.release_device) &&
                symbol(lib, "dmls_device_create_operator", &api.create_operator) &&
                symbol(lib, "dmls_operator_execute", &api.execute) &&
                symbol(lib, "dmls_operator_release", &api.release_operator);
    EXPECT(found);
    if (!found) {
        return 1;
    }
    float *input = (float *)malloc(4ull * N);
    uint32_t *coords = (uint32_t *)malloc(4ull * N);
    if (input == NULL || coords == NULL) {
        fprintf(stderr, "out of memory\n");
        return 2;
    }
    for (uint32_t i = 0; i < N; ++i) {
        input[i] = i % 3 == 0 ? 1.0f : 0.0f;
    }
    run(0, input, coords); /* the process-wide pool */
    run(2, input, coords); /* a pool of its own, released with its device */

    void *code = NULL;
    memcpy(&code, &api.execute, sizeof code);
    EXPECT(unload(lib) == 0);
    EXPECT(still_loaded(argv[1], code));
    /* Past the workers' hot window and their sleep: a worker in unloaded code ends the process
     * before this returns. */
    sleep_ms(1000);
    free(input);
    free(coords);
    if (failures == 0) {
        printf("unload: the library was unloaded after its pools ran, stayed mapped, and the "
               "process lived on\n");
    }
    return failures == 0 ? 0 : 1;
}
