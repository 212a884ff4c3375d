/* Root motion at run time (runtime library, ossa): sampling an extracted motion track and the
 * per-frame delta job (see ossa/root_motion.h). Extraction is offline: src/build/root_motion_extract.c. */
#include <ossa/root_motion.h>

#include <math.h>

#include <ossa/pose.h>

#include "core/alloc.h"
#include "core/job.h"

static ossa_transform planar(const ossa_root_motion *m, ossa_vec3 p, float yaw) {
    ossa_vec3 up = m->up;
    if (up.x == 0.0f && up.y == 0.0f && up.z == 0.0f) up = ossa_vec3_make(0, 1, 0); /* a hand-made track */
    ossa_transform t = ossa_transform_identity();
    t.translation = p;
    t.rotation = ossa_quat_from_axis_angle(up, yaw);
    return t;
}

/* Rigid transforms only (unit scale): exact inverse and product. */
static ossa_transform rigid_inverse(ossa_transform t) { return ossa_transform_inverse(t); }
static ossa_transform rigid_mul(ossa_transform a, ossa_transform b) {
    ossa_transform r = ossa_transform_combine(a, b);
    r.rotation = ossa_quat_normalize(r.rotation);
    r.scale = ossa_vec3_make(1, 1, 1);
    return r;
}

void ossa_root_motion_destroy(ossa_root_motion *motion) {
    if (!motion) return;
    ossa_allocator a = motion->allocator;
    ossa__free(&a, motion);
}

ossa_transform ossa_root_motion_sample(const ossa_root_motion *motion, float t) {
    if (!motion || motion->key_count == 0) return ossa_transform_identity();
    const float *T = motion->times;
    uint32_t n = motion->key_count;
    if (!(t > T[0])) return planar(motion, motion->positions[0], motion->yaws[0]);
    if (t >= T[n - 1]) return planar(motion, motion->positions[n - 1], motion->yaws[n - 1]);
    uint32_t lo = 0, hi = n - 1; /* T[lo] <= t < T[hi] */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (T[mid] <= t) lo = mid;
        else hi = mid;
    }
    float u = (t - T[lo]) / (T[hi] - T[lo]);
    ossa_vec3 p = ossa_vec3_lerp(motion->positions[lo], motion->positions[hi], u);
    float yaw = motion->yaws[lo] + (motion->yaws[hi] - motion->yaws[lo]) * u;
    return planar(motion, p, yaw);
}

ossa_result ossa_root_motion_job_validate(const ossa_root_motion_job *job, ossa_diagnostic *diag) {
    const ossa_result bad = OSSA_ERROR_INVALID_ARGUMENT;
    if (!job) return ossa__job_fail(diag, bad, "job", "NULL");
    if (!job->motion) return ossa__job_fail(diag, bad, "motion", "NULL");
    if (!job->delta) return ossa__job_fail(diag, bad, "delta", "NULL");
    if (!isfinite(job->from)) return ossa__job_fail(diag, bad, "from", "not finite");
    if (!isfinite(job->advance)) return ossa__job_fail(diag, bad, "advance", "not finite");
    return OSSA_OK;
}

/* c^k for a rigid transform (k any sign), by squaring. */
static ossa_transform rigid_pow(ossa_transform c, double k) {
    if (k < 0) {
        c = rigid_inverse(c);
        k = -k;
    }
    ossa_transform r = ossa_transform_identity();
    uint64_t e = k > 1e18 ? (uint64_t)1e18 : (uint64_t)k;
    while (e) {
        if (e & 1u) r = rigid_mul(r, c);
        c = rigid_mul(c, c);
        e >>= 1;
    }
    return r;
}

ossa_result ossa_root_motion_job_run(ossa_root_motion_job *job) {
    ossa_result res = ossa_root_motion_job_validate(job, NULL);
    if (res != OSSA_OK) return res;
    const ossa_root_motion *m = job->motion;
    double a = job->from, b = (double)job->from + job->advance;
    double s = m->start, d = (double)m->end - m->start;
    if (!job->loop || !(d > 0.0)) {
        float fa = (float)(a < s ? s : (a > m->end ? m->end : a));
        float fb = (float)(b < s ? s : (b > m->end ? m->end : b));
        *job->delta = rigid_mul(rigid_inverse(ossa_root_motion_sample(m, fa)), ossa_root_motion_sample(m, fb));
        return OSSA_OK;
    }
    double na = floor((a - s) / d), nb = floor((b - s) / d);
    float ra = (float)(a - na * d), rb = (float)(b - nb * d);
    ossa_transform m0 = rigid_inverse(ossa_root_motion_sample(m, m->start));
    ossa_transform cycle = rigid_mul(m0, ossa_root_motion_sample(m, m->end));
    ossa_transform wa = rigid_mul(m0, ossa_root_motion_sample(m, ra));
    ossa_transform wb = rigid_mul(m0, ossa_root_motion_sample(m, rb));
    *job->delta = rigid_mul(rigid_inverse(wa), rigid_mul(rigid_pow(cycle, nb - na), wb));
    return OSSA_OK;
}
