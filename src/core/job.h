/* Job validation's diagnostics (internal; the job shape is in ossa/common.h). */
#ifndef OSSA_CORE_JOB_H
#define OSSA_CORE_JOB_H

#include <ossa/common.h>

/* Fails a job's validation: when diag is not NULL, names `field` in diag->path and writes
 * "<field>: <printf(fmt, ...)>" to diag->message. Returns result (never OSSA_OK). */
ossa_result ossa__job_fail(ossa_diagnostic *diag, ossa_result result, const char *field, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

#endif
