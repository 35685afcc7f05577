/*
 * Bad-input suite (bad_input.h): the functions that take neither a device nor an operator:
 * dmls_calc_buffer_tensor_size and dmls_get_last_error_message.
 */
#include "bad_input.h"

static void helper_cases(void) {
    static const UINT sizes[2] = {2, 3};
    char small[4];
    size_t len;
    HRESULT hr;

    CASE("dmls_calc_buffer_tensor_size: unknown type, NULL sizes, 0 or 9 dimensions");
    check_true("unknown type", dmls_calc_buffer_tensor_size(0, 2, sizes, NULL) == 0);
    check_true("type 14", dmls_calc_buffer_tensor_size(14, 2, sizes, NULL) == 0);
    check_true("NULL sizes",
               dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_FLOAT32, 2, NULL, NULL) == 0);
    check_true("0 dims",
               dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_FLOAT32, 0, sizes, NULL) == 0);
    {
        UINT *two = (UINT *)malloc(2 * sizeof(UINT));
        two[0] = 2;
        two[1] = 3;
        check_true("9 dims (2-entry array)",
                   dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_FLOAT32, 9, two, two) == 0);
        check_true("2^32-1 dims (2-entry array)",
                   dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_FLOAT32, 0xFFFFFFFFu, two,
                                                NULL) == 0);
        check_true("valid control",
                   dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_FLOAT32, 2, two, NULL) == 24);
        free(two);
    }

    CASE("dmls_get_last_error_message: NULL buffer, size 0, truncation");
    hr = dmls_device_create(NULL, NULL);
    check_hr("make a message", hr, E_POINTER, NULL);
    len = dmls_get_last_error_message(NULL, 100);
    check_true("NULL buffer returns the length", len > 0);
    memset(small, 'x', sizeof small);
    check_true("size 0 copies nothing", dmls_get_last_error_message(small, 0) == len &&
                                            small[0] == 'x' && small[3] == 'x');
    check_true("truncates with a NUL",
               dmls_get_last_error_message(small, sizeof small) == len && small[3] == '\0' &&
                   strlen(small) == 3);
    check_true("a message stays until the next call", dmls_get_last_error_message(NULL, 0) == len);
}

int main(void) {
    printf("directml_subset %s: bad-input suite, helpers\n", dmls_version());

    helper_cases();

    return bad_input_finish("test_bad_input_helpers", 2);
}
