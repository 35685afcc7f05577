/*
 * dmls_version() is "MAJOR.MINOR.PATCH" and equals the header's DMLS_VERSION_* macros (which
 * the install_version test compares with Cargo.toml, the CMake package and pkg-config).
 */
#include "dmls_test.h"

#include <stdio.h>
#include <string.h>

#define STR2(x) #x
#define STR(x) STR2(x)

_Static_assert(DMLS_VERSION_MAJOR >= 0 && DMLS_VERSION_MINOR >= 0 && DMLS_VERSION_PATCH >= 0,
               "the version macros are integer constants");

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
