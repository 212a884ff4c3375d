#include "job_check.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

void ot_assert_job_impl(ossa_result with_diag, ossa_result without_diag, const ossa_diagnostic *diag,
                        ossa_result expected, const char *field, const char *call, const char *file, int line) {
    if (with_diag != expected)
        fail_msg("%s:%d: %s gave %s (path \"%s\": %s), expected %s naming \"%s\"", file, line, call,
                 ossa_result_string(with_diag), diag->path, diag->message, ossa_result_string(expected), field);
    if (without_diag != with_diag)
        fail_msg("%s:%d: %s gave %s without a diagnostic, %s with one", file, line, call,
                 ossa_result_string(without_diag), ossa_result_string(with_diag));
    if (strcmp(diag->path, field) != 0)
        fail_msg("%s:%d: %s named \"%s\" (%s), expected \"%s\"", file, line, call, diag->path, diag->message, field);
    if (strncmp(diag->message, field, strlen(field)) != 0)
        fail_msg("%s:%d: %s message \"%s\" does not start with \"%s\"", file, line, call, diag->message, field);
    if (expected != OSSA_OK && diag->message[0] == '\0')
        fail_msg("%s:%d: %s failed without a message", file, line, call);
}
