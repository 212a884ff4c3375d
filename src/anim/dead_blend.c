/* Dead blending: the record and apply jobs (see ossa/graph.h for the formulas). Neither job
 * allocates; the state is plain per-joint data the caller owns. */
#include <ossa/graph.h>

#include <math.h>

#include "core/job.h"
#include "math/fast.h"

static bool finite_pos(float v) { return isfinite(v) && v > 0.0f; }

/* Rotation vector of q on the short arc (angle <= pi). */
static void quat_log_short(ossa_quat q, float out[3]) {
    if (q.w < 0.0f) q = (ossa_quat){-q.x, -q.y, -q.z, -q.w};
    float s = sqrtf(q.x * q.x + q.y * q.y + q.z * q.z);
    float k = s > 1e-12f ? 2.0f * atan2f(s, q.w) / s : 2.0f;
    out[0] = k * q.x, out[1] = k * q.y, out[2] = k * q.z;
}

static ossa_quat quat_exp(const float r[3]) {
    float angle = sqrtf(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    if (angle < 1e-12f) return (ossa_quat){0.5f * r[0], 0.5f * r[1], 0.5f * r[2], 1.0f};
    float k = sinf(0.5f * angle) / angle;
    return (ossa_quat){k * r[0], k * r[1], k * r[2], cosf(0.5f * angle)};
}

ossa_result ossa_dead_blend_record_job_validate(const ossa_dead_blend_record_job *job, ossa_diagnostic *diag) {
    if (!job) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "job", "is NULL");
    if (!job->previous) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "previous", "is NULL");
    if (!job->state) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "state", "is NULL");
    if (job->before && !finite_pos(job->dt))
        return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "dt", "must be > 0 and finite with `before`");
    if (job->before && job->before_count < job->previous_count)
        return ossa__job_fail(diag, OSSA_ERROR_BUFFER_TOO_SMALL, "before_count", "%u < previous_count %u",
                              job->before_count, job->previous_count);
    if (job->state_count < job->previous_count)
        return ossa__job_fail(diag, OSSA_ERROR_BUFFER_TOO_SMALL, "state_count", "%u < previous_count %u",
                              job->state_count, job->previous_count);
    return OSSA_OK;
}

/* v0 of one joint: finite differences of translation, rotation (short arc) and scale. */
static void record_velocity(const ossa_transform *now, const ossa_transform *before, float dt, float v[9]) {
    float inv = 1.0f / dt;
    v[0] = (now->translation.x - before->translation.x) * inv;
    v[1] = (now->translation.y - before->translation.y) * inv;
    v[2] = (now->translation.z - before->translation.z) * inv;
    ossa_quat b = before->rotation;
    ossa_quat d = ossa__quat_mul(now->rotation, (ossa_quat){-b.x, -b.y, -b.z, b.w});
    float r[3];
    quat_log_short(d, r);
    v[3] = r[0] * inv, v[4] = r[1] * inv, v[5] = r[2] * inv;
    v[6] = (now->scale.x - before->scale.x) * inv;
    v[7] = (now->scale.y - before->scale.y) * inv;
    v[8] = (now->scale.z - before->scale.z) * inv;
}

ossa_result ossa_dead_blend_record_job_run(ossa_dead_blend_record_job *job) {
    ossa_result r = ossa_dead_blend_record_job_validate(job, NULL);
    if (r != OSSA_OK) return r;
    for (uint32_t j = 0; j < job->previous_count; j++) {
        ossa_dead_blend_joint *s = &job->state[j];
        s->pose = job->previous[j];
        if (job->before) {
            record_velocity(&job->previous[j], &job->before[j], job->dt, s->velocity);
        } else {
            for (int c = 0; c < OSSA_INERTIALIZE_CHANNELS; c++) s->velocity[c] = 0.0f;
        }
    }
    return OSSA_OK;
}

ossa_result ossa_dead_blend_apply_job_validate(const ossa_dead_blend_apply_job *job, ossa_diagnostic *diag) {
    if (!job) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "job", "is NULL");
    if (!job->state) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "state", "is NULL");
    if (!job->target) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "target", "is NULL");
    if (!job->output) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "output", "is NULL");
    if (!isfinite(job->time) || job->time < 0.0f)
        return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "time", "must be >= 0 and finite");
    if (!finite_pos(job->duration))
        return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "duration", "must be > 0 and finite");
    if (!isfinite(job->halflife) || job->halflife < 0.0f)
        return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "halflife", "must be >= 0 (0: duration / 4) and finite");
    if (job->state_count < job->target_count)
        return ossa__job_fail(diag, OSSA_ERROR_BUFFER_TOO_SMALL, "state_count", "%u < target_count %u",
                              job->state_count, job->target_count);
    if (job->output_count < job->target_count)
        return ossa__job_fail(diag, OSSA_ERROR_BUFFER_TOO_SMALL, "output_count", "%u < target_count %u",
                              job->output_count, job->target_count);
    return OSSA_OK;
}

/* The extrapolated old pose e(t) of one joint; `travel` = (1 - exp(-lambda t)) / lambda. */
static ossa_transform extrapolate(const ossa_dead_blend_joint *s, float travel) {
    ossa_transform e = s->pose;
    const float *v = s->velocity;
    e.translation = (ossa_vec3){e.translation.x + v[0] * travel, e.translation.y + v[1] * travel,
                                e.translation.z + v[2] * travel};
    float r[3] = {v[3] * travel, v[4] * travel, v[5] * travel};
    e.rotation = ossa__quat_mul(quat_exp(r), e.rotation);
    e.scale = (ossa_vec3){e.scale.x + v[6] * travel, e.scale.y + v[7] * travel, e.scale.z + v[8] * travel};
    return e;
}

static ossa_transform mix(const ossa_transform *a, const ossa_transform *b, float w) {
    ossa_transform o;
    o.translation = ossa_vec3_lerp(a->translation, b->translation, w);
    o.scale = ossa_vec3_lerp(a->scale, b->scale, w);
    ossa_quat qb = b->rotation;
    if (ossa_quat_dot(a->rotation, qb) < 0.0f) qb = (ossa_quat){-qb.x, -qb.y, -qb.z, -qb.w};
    o.rotation = ossa_quat_normalize((ossa_quat){a->rotation.x + (qb.x - a->rotation.x) * w,
                                                 a->rotation.y + (qb.y - a->rotation.y) * w,
                                                 a->rotation.z + (qb.z - a->rotation.z) * w,
                                                 a->rotation.w + (qb.w - a->rotation.w) * w});
    return o;
}

ossa_result ossa_dead_blend_apply_job_run(ossa_dead_blend_apply_job *job) {
    ossa_result r = ossa_dead_blend_apply_job_validate(job, NULL);
    if (r != OSSA_OK) return r;
    uint32_t n = job->target_count;
    if (job->time >= job->duration) {
        if (job->output != job->target)
            for (uint32_t j = 0; j < n; j++) job->output[j] = job->target[j];
        return OSSA_OK;
    }
    float halflife = job->halflife > 0.0f ? job->halflife : 0.25f * job->duration;
    float lambda = 0.69314718f / halflife;
    float travel = -expm1f(-lambda * job->time) / lambda;
    float u = job->time / job->duration;
    float alpha = u * u * (3.0f - 2.0f * u);
    for (uint32_t j = 0; j < n; j++) {
        ossa_transform e = extrapolate(&job->state[j], travel);
        ossa_transform target = job->target[j];
        job->output[j] = mix(&e, &target, alpha);
    }
    return OSSA_OK;
}
