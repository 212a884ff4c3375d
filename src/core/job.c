#include "core/job.h"

#include <stdarg.h>
#include <stdio.h>

ossa_result ossa__job_fail(ossa_diagnostic *diag, ossa_result result, const char *field, const char *fmt, ...) {
    if (diag) {
        snprintf(diag->path, sizeof diag->path, "%s", field);
        char why[sizeof diag->message];
        va_list args;
        va_start(args, fmt);
        vsnprintf(why, sizeof why, fmt, args);
        va_end(args);
        snprintf(diag->message, sizeof diag->message, "%s: %.*s", field, (int)(sizeof diag->message / 2), why);
    }
    return result;
}
