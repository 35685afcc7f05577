/*
 * dmls_version() is "MAJOR.MINOR.PATCH" and equals the header's DMLS_VERSION_* macros (which
 * the install_version test compares with Cargo.toml, the CMake package and pkg-config).
 */
#include "dmls_test.h"

#include <stdio.h>
#include <string.h>

#define STR2(x) #x
#define STR(x) STR2(x)

/* The macros are plain integers the preprocessor can compare (as users' #if checks do), the
 * version is not the placeholder 0.0.0, and MINOR and PATCH stay below 1000 so that
 * MAJOR * 10^6 + MINOR * 10^3 + PATCH orders versions. */
#if !defined(DMLS_VERSION_MAJOR) || !defined(DMLS_VERSION_MINOR) || !defined(DMLS_VERSION_PATCH)
#error "the header must define DMLS_VERSION_MAJOR, _MINOR and _PATCH"
#endif
#define DMLS_TEST_VERSION_NUMBER                                                                   \
    (DMLS_VERSION_MAJOR * 1000000L + DMLS_VERSION_MINOR * 1000L + DMLS_VERSION_PATCH)
#if DMLS_TEST_VERSION_NUMBER <= 0
#error "the version macros say 0.0.0 (or less)"
#endif
_Static_assert(DMLS_VERSION_MINOR < 1000 && DMLS_VERSION_PATCH < 1000,
               "MINOR and PATCH below 1000, so the version number orders versions");
_Static_assert(DMLS_TEST_VERSION_NUMBER > 0, "not the placeholder version 0.0.0");

int main(void) {
    const char *v = dmls_version();
    CHECK(v != NULL);
    if (v) {
        char expected[64];
        snprintf(expected, sizeof expected, "%d.%d.%d", DMLS_VERSION_MAJOR, DMLS_VERSION_MINOR,
                 DMLS_VERSION_PATCH);
        if (strcmp(v, expected) != 0) {
            fprintf(stderr, "dmls_version() is \"%s\", the header macros say \"%s\"\n", v, expected);
        }
        CHECK(strcmp(v, expected) == 0);
        CHECK(strcmp(v, STR(DMLS_VERSION_MAJOR) "." STR(DMLS_VERSION_MINOR) "." STR(
                            DMLS_VERSION_PATCH)) == 0);
        /* A static string: the same pointer every time. */
        CHECK(dmls_version() == v);
        printf("dmls_version() = %s\n", v);
    }
    return dmls_test_finish("test_version");
}
