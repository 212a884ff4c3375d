/* Inertialization: the record and apply jobs (see ossa/inertialize.h for the formulas).
 * Neither job allocates; the state is plain per-joint data the caller owns. */
#include <ossa/inertialize.h>

#include <math.h>
#include <string.h>

#include "core/job.h"
#include "math/fast.h"

#define NCH OSSA_INERTIALIZE_CHANNELS

static bool finite_pos(float v) { return isfinite(v) && v > 0.0f; }

/* ---- rotation vectors ---- */

/* Rotation vector (axis * angle) of unit quaternion q; angle = 2 atan2(|v|, w), so a q with
 * w < 0 gives an angle above pi (the caller chooses the hemisphere). */
static void quat_log(ossa_quat q, float out[3]) {
    float s = sqrtf(q.x * q.x + q.y * q.y + q.z * q.z);
    float k = s > 1e-12f ? 2.0f * atan2f(s, q.w) / s : (q.w < 0.0f ? -2.0f : 2.0f);
    out[0] = k * q.x, out[1] = k * q.y, out[2] = k * q.z;
}

/* Unit quaternion of rotation vector r (inverse of quat_log) for angles up to pi (offsets
 * never exceed their start, itself on the short arc): sin(h)/h and cos(h) of the half angle
 * h <= pi/2 as Taylor polynomials in h^2 (truncation below 4e-8 there), no sqrt or libm call. */
static inline ossa_quat quat_exp(const float r[3]) {
    float h2 = 0.25f * (r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    float sinc = 1.0f + h2 * (-1.0f / 6 + h2 * (1.0f / 120 + h2 * (-1.0f / 5040 + h2 * (1.0f / 362880 +
                                                                                     h2 * (-1.0f / 39916800)))));
    float c = 1.0f + h2 * (-0.5f + h2 * (1.0f / 24 + h2 * (-1.0f / 720 + h2 * (1.0f / 40320 +
                                                                             h2 * (-1.0f / 3628800 +
                                                                                   h2 * (1.0f / 479001600))))));
    float k = 0.5f * sinc; /* sin(h) / (2h): the vector part is r * sin(h) / |r| */
    return (ossa_quat){k * r[0], k * r[1], k * r[2], c};
}

static ossa_quat quat_neg(ossa_quat q) { return (ossa_quat){-q.x, -q.y, -q.z, -q.w}; }

/* old * conj(new): the rotation taking the new pose's rotation to the old one. */
static ossa_quat delta_rotation(ossa_quat old_q, ossa_quat new_q) {
    return ossa__quat_mul(old_q, (ossa_quat){-new_q.x, -new_q.y, -new_q.z, new_q.w});
}

/* The 9 offset channels of `old` against `target`. `hemisphere` (may be NULL) picks the sign
 * of the rotation delta: on the side of *hemisphere, else w >= 0 (the short arc). The delta
 * quaternion used is returned in *dq. */
static void offsets(const ossa_transform *old, const ossa_transform *target, const ossa_quat *hemisphere, float x[NCH],
                    ossa_quat *dq) {
    x[0] = old->translation.x - target->translation.x;
    x[1] = old->translation.y - target->translation.y;
    x[2] = old->translation.z - target->translation.z;
    ossa_quat d = delta_rotation(old->rotation, target->rotation);
    float side = hemisphere ? d.x * hemisphere->x + d.y * hemisphere->y + d.z * hemisphere->z + d.w * hemisphere->w
                            : d.w;
    if (side < 0.0f) d = quat_neg(d);
    quat_log(d, &x[3]);
    x[6] = old->scale.x - target->scale.x;
    x[7] = old->scale.y - target->scale.y;
    x[8] = old->scale.z - target->scale.z;
    *dq = d;
}

/* ---- the quintic of one channel (Bollo) ---- */

/* Fills channel c of `s` from x0, the unclamped velocity v and the duration T > 0. */
static void fit_channel(ossa_inertialize_joint *s, int c, float x0, float v, float T) {
    if (x0 == 0.0f || !isfinite(x0)) {
        s->offset[c] = s->velocity[c] = s->acceleration[c] = s->duration[c] = 0.0f;
        return;
    }
    float sign = x0 > 0.0f ? 1.0f : -1.0f;
    float y0 = sign * x0, w0 = isfinite(v) ? sign * v : 0.0f; /* y0 > 0; w0 < 0 approaches 0 */
    if (w0 > 0.0f) w0 = 0.0f;                                   /* moving away: no overshoot */
    float t1 = T;
    if (w0 < 0.0f && -5.0f * y0 / w0 < t1) t1 = -5.0f * y0 / w0;
    float a0 = (-8.0f * w0 * t1 - 20.0f * y0) / (t1 * t1);
    if (a0 < 0.0f) a0 = 0.0f;
    s->offset[c] = x0;
    s->velocity[c] = sign * w0;
    s->acceleration[c] = sign * a0;
    s->duration[c] = t1;
}

/* x(t) of channel c (0 at and after its duration), as the same quintic written in the
 * remaining fraction u = 1 - t / T' (1 at the transition, 0 at the end), w = 1 - u:
 *   x = u^3 [ x0 (10 - 15 u + 6 u^2) + v0 T' w (4 - 3 u) + a0 T'^2 w^2 / 2 ].
 * The triple root at T' is explicit (no cancellation of A t^5 + ... + x0 near the end) and
 * at t = 0 it gives x0 exactly (u = 1, w = 0). */
static inline float eval_channel(const ossa_inertialize_joint *s, int c, float t) {
    float t1 = s->duration[c];
    /* Branch-free (max instructions), so the 9 channels of a joint vectorize: t >= T' gives
     * t / T' >= 1 (rounded division is monotonic), u = 0 and x = 0; a channel that is off
     * (T' = 0, every coefficient 0) gives 0 for any u. */
    float q = 1.0f - t / (t1 > 1e-30f ? t1 : 1e-30f);
    float u = q > 0.0f ? q : 0.0f, w = 1.0f - u;
    float vt = s->velocity[c] * t1, at2 = s->acceleration[c] * t1 * t1;
    float shape = s->offset[c] * (10.0f + u * (6.0f * u - 15.0f)) + w * (vt * (4.0f - 3.0f * u) + 0.5f * at2 * w);
    return u * u * u * shape;
}

/* ---- record ---- */

ossa_result ossa_inertialize_record_job_validate(const ossa_inertialize_record_job *job, ossa_diagnostic *diag) {
    if (!job) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "job", "NULL");
    if (!job->previous) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "previous", "NULL");
    if (!job->target) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "target", "NULL");
    if (!job->state) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "state", "NULL");
    if (!finite_pos(job->duration))
        return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "duration", "not > 0 or not finite");
    if (job->before && !finite_pos(job->dt))
        return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "dt", "not > 0 or not finite while before is given");
    uint32_t n = job->target_count;
    if (job->previous_count < n)
        return ossa__job_fail(diag, OSSA_ERROR_BUFFER_TOO_SMALL, "previous_count", "%u < target_count %u",
                              job->previous_count, n);
    if (job->before && job->before_count < n)
        return ossa__job_fail(diag, OSSA_ERROR_BUFFER_TOO_SMALL, "before_count", "%u < target_count %u",
                              job->before_count, n);
    if (job->state_count < n)
        return ossa__job_fail(diag, OSSA_ERROR_BUFFER_TOO_SMALL, "state_count", "%u < target_count %u",
                              job->state_count, n);
    return OSSA_OK;
}

/* One joint: offsets against the target, velocities by finite difference, then the fits. */
static void record_joint(const ossa_inertialize_record_job *job, uint32_t j, ossa_inertialize_joint *s) {
    float x[NCH], xb[NCH], v[NCH];
    ossa_quat dq, dqb;
    offsets(&job->previous[j], &job->target[j], NULL, x, &dq);
    if (job->before) {
        offsets(&job->before[j], &job->target[j], &dq, xb, &dqb);
        float inv_dt = 1.0f / job->dt;
        for (int c = 0; c < NCH; c++) v[c] = (x[c] - xb[c]) * inv_dt;
    } else {
        memset(v, 0, sizeof v);
    }
    for (int c = 0; c < NCH; c++) fit_channel(s, c, x[c], v[c], job->duration);
}

ossa_result ossa_inertialize_record_job_run(ossa_inertialize_record_job *job) {
    ossa_result r = ossa_inertialize_record_job_validate(job, NULL);
    if (r != OSSA_OK) return r;
    for (uint32_t j = 0; j < job->target_count; j++) record_joint(job, j, &job->state[j]);
    return OSSA_OK;
}

/* ---- apply ---- */

ossa_result ossa_inertialize_apply_job_validate(const ossa_inertialize_apply_job *job, ossa_diagnostic *diag) {
    if (!job) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "job", "NULL");
    if (!job->state) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "state", "NULL");
    if (!job->target) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "target", "NULL");
    if (!job->output) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "output", "NULL");
    if (!(isfinite(job->time) && job->time >= 0.0f))
        return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "time", "negative or not finite");
    uint32_t n = job->target_count;
    if (job->state_count < n)
        return ossa__job_fail(diag, OSSA_ERROR_BUFFER_TOO_SMALL, "state_count", "%u < target_count %u",
                              job->state_count, n);
    if (job->output_count < n)
        return ossa__job_fail(diag, OSSA_ERROR_BUFFER_TOO_SMALL, "output_count", "%u < target_count %u",
                              job->output_count, n);
    return OSSA_OK;
}

/* out = x(t) (+) target for one joint; out may be target. */
static void apply_joint(const ossa_inertialize_joint *s, const ossa_transform *target, float t, ossa_transform *out) {
    float x[NCH];
    for (int c = 0; c < NCH; c++) x[c] = eval_channel(s, c, t);
    bool any = false;
    for (int c = 0; c < NCH; c++) any |= x[c] != 0.0f;
    ossa_transform o = *target;
    if (any) {
        o.translation.x += x[0], o.translation.y += x[1], o.translation.z += x[2];
        o.rotation = ossa__quat_mul(quat_exp(&x[3]), o.rotation);
        o.scale.x += x[6], o.scale.y += x[7], o.scale.z += x[8];
    }
    *out = o;
}

ossa_result ossa_inertialize_apply_job_run(ossa_inertialize_apply_job *job) {
    ossa_result r = ossa_inertialize_apply_job_validate(job, NULL);
    if (r != OSSA_OK) return r;
    for (uint32_t j = 0; j < job->target_count; j++)
        apply_joint(&job->state[j], &job->target[j], job->time, &job->output[j]);
    return OSSA_OK;
}
