/* The retarget rig (built once) and the run-time retarget job (docs/retargeting.md). */
#include <ossa/retarget.h>

#include <math.h>

#include "core/job.h"

ossa_result ossa_retarget_rig_create(const ossa_retarget_rig_desc *desc, const ossa_allocator *allocator,
                                     ossa_retarget_rig **out, ossa_diagnostic *diag) {
    (void)desc;
    (void)allocator;
    if (out) *out = NULL;
    return ossa__job_fail(diag, OSSA_ERROR_UNSUPPORTED, "desc", "retargeting is not implemented yet");
}

void ossa_retarget_rig_destroy(ossa_retarget_rig *rig) {
    (void)rig;
}

uint32_t ossa_retarget_scratch_count(const ossa_retarget_rig *rig) {
    return rig ? rig->source->joint_count + rig->target->joint_count : 0;
}

ossa_vec3 ossa_retarget_scale_translation(const ossa_retarget_rig *rig, ossa_vec3 source_translation) {
    return rig ? ossa_vec3_scale(source_translation, rig->translation_scale) : source_translation;
}

ossa_result ossa_retarget_job_validate(const ossa_retarget_job *job, ossa_diagnostic *diag) {
    if (!job) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "job", "is NULL");
    if (!job->rig) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "rig", "is NULL");
    if (!job->input) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "input", "is NULL");
    if (!job->output) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "output", "is NULL");
    if (!job->scratch) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "scratch", "is NULL");
    return ossa__job_fail(diag, OSSA_ERROR_UNSUPPORTED, "rig", "retargeting is not implemented yet");
}

ossa_result ossa_retarget_job_run(ossa_retarget_job *job) {
    return ossa_retarget_job_validate(job, NULL);
}
