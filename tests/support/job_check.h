/* The job validity check every job's test uses (ozz style: a zeroed job fails, then each
 * field set in turn until it passes). Not part of the library. */
#ifndef OSSA_TEST_JOB_CHECK_H
#define OSSA_TEST_JOB_CHECK_H

#include <string.h>

#include <ossa/common.h>

/* Validates `job` with `validate` twice, with a diagnostic and with NULL: both must return
 * `expected`. When expected is not OSSA_OK, diag.path must be exactly `field` and
 * diag.message must start with it; when it is OSSA_OK the diagnostic must stay untouched. */
#define ot_assert_job(validate, job, expected, field)                                                            \
    do {                                                                                                         \
        ossa_diagnostic ot_diag_;                                                                                \
        memset(&ot_diag_, 0, sizeof ot_diag_);                                                                   \
        ossa_result ot_with_ = (validate)((job), &ot_diag_);                                                     \
        ossa_result ot_without_ = (validate)((job), NULL);                                                       \
        ot_assert_job_impl(ot_with_, ot_without_, &ot_diag_, (expected), (field), #validate, __FILE__, __LINE__); \
    } while (0)
/* The same for a job that must pass. */
#define ot_assert_job_ok(validate, job) ot_assert_job(validate, job, OSSA_OK, "")

void ot_assert_job_impl(ossa_result with_diag, ossa_result without_diag, const ossa_diagnostic *diag,
                        ossa_result expected, const char *field, const char *call, const char *file, int line);

#endif
