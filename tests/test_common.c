/* Results and versions (src/core). */
#include "test_support.h"

#include <string.h>

static void result_strings_are_distinct_and_named(void **state) {
    (void)state;
    for (int i = 0; i < OSSA_RESULT_COUNT; i++) {
        const char *a = ossa_result_string((ossa_result)i);
        assert_non_null(a);
        assert_int_equal(strncmp(a, "OSSA_", 5), 0);
        for (int j = 0; j < i; j++) assert_string_not_equal(a, ossa_result_string((ossa_result)j));
    }
    assert_string_equal(ossa_result_string(OSSA_RESULT_COUNT), "OSSA_RESULT_UNKNOWN");
}

static void version_matches_header(void **state) {
    (void)state;
    assert_string_equal(ossa_version(), OSSA_VERSION_STRING);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(result_strings_are_distinct_and_named),
        cmocka_unit_test(version_matches_header),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
