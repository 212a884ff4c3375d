/* Stride resolution, joint checks, the scratch copy and the scalar linear-blend-skinning
 * kernel (the one every SIMD kernel is tested against). Validation is in skin_job.c. */
#include "skin_internal.h"

#include <math.h>
#include <string.h>

ossa_skin_job ossa__skin_job_resolve(const ossa_skin_job *job) {
    ossa_skin_job j = *job;
    if (!j.positions_stride) j.positions_stride = 12;
    if (!j.out_positions_stride) j.out_positions_stride = 12;
    if (!j.normals_stride) j.normals_stride = 12;
    if (!j.out_normals_stride) j.out_normals_stride = 12;
    if (!j.tangents_stride) j.tangents_stride = 16;
    if (!j.out_tangents_stride) j.out_tangents_stride = 16;
    return j;
}

ossa_result ossa__skin_check_joints(const ossa_skin_job *job) {
    const uint16_t *j = job->joints + (size_t)job->begin * job->influences;
    size_t n = (size_t)(job->end - job->begin) * job->influences;
    uint16_t max = 0;
    for (size_t i = 0; i < n; i++) max = j[i] > max ? j[i] : max; /* vectorised max-reduction */
    return (n == 0 || max < job->palette_count) ? OSSA_OK : OSSA_ERROR_INVALID_DATA;
}

void ossa__skin_lbs_scalar(const ossa_skin_job *job) {
    const uint32_t k = job->influences;
    for (uint32_t v = job->begin; v < job->end; v++) {
        const uint16_t *jv = job->joints + (size_t)v * k;
        const float *wv = job->weights + (size_t)v * k;
        const float *p = ossa__skin_in(job->positions, job->positions_stride, v);
        float *op = ossa__skin_out(job->out_positions, job->out_positions_stride, v);
        if (ossa__skin_weight_sum(wv, k) == 0.0f) {
            ossa__skin_copy_vertex(job, v);
            continue;
        }
        float m[12] = {0}; /* blended upper 3x4, column-major */
        for (uint32_t i = 0; i < k; i++) {
            const float *pm = job->palette[jv[i]].m;
            const float w = wv[i];
            for (int c = 0; c < 4; c++)
                for (int r = 0; r < 3; r++) m[c * 3 + r] += w * pm[c * 4 + r];
        }
        float x = p[0], y = p[1], z = p[2];
        for (int r = 0; r < 3; r++) op[r] = m[r] * x + m[3 + r] * y + m[6 + r] * z + m[9 + r];
        if (job->normals) {
            const float *n = ossa__skin_in(job->normals, job->normals_stride, v);
            float *on = ossa__skin_out(job->out_normals, job->out_normals_stride, v);
            float o[3];
            for (int r = 0; r < 3; r++) o[r] = m[r] * n[0] + m[3 + r] * n[1] + m[6 + r] * n[2];
            ossa__skin_normalize3(o);
            memcpy(on, o, 12);
        }
        if (job->tangents) {
            const float *t = ossa__skin_in(job->tangents, job->tangents_stride, v);
            float *ot = ossa__skin_out(job->out_tangents, job->out_tangents_stride, v);
            float o[4];
            for (int r = 0; r < 3; r++) o[r] = m[r] * t[0] + m[3 + r] * t[1] + m[6 + r] * t[2];
            ossa__skin_normalize3(o);
            o[3] = t[3];
            memcpy(ot, o, 16);
        }
    }
}

ossa_skin_job ossa__skin_scratch_load(const ossa_skin_job *job, uint32_t b0, uint32_t v, uint32_t e,
                                      ossa__skin_scratch *s) {
    const uint32_t k = job->influences;
    memset(s->joints, 0, sizeof s->joints);
    memset(s->weights, 0, sizeof s->weights);
    memset(s->positions, 0, sizeof s->positions);
    memset(s->normals, 0, sizeof s->normals);
    memset(s->tangents, 0, sizeof s->tangents);
    for (uint32_t u = v; u < e; u++) {
        uint32_t l = u - b0;
        memcpy(s->joints + l * k, job->joints + (size_t)u * k, sizeof(uint16_t) * k);
        memcpy(s->weights + l * k, job->weights + (size_t)u * k, sizeof(float) * k);
        memcpy(s->positions + l * 3, ossa__skin_in(job->positions, job->positions_stride, u), 12);
        if (job->normals) memcpy(s->normals + l * 3, ossa__skin_in(job->normals, job->normals_stride, u), 12);
        if (job->tangents) memcpy(s->tangents + l * 4, ossa__skin_in(job->tangents, job->tangents_stride, u), 16);
    }
    ossa_skin_job j = *job;
    j.begin = 0, j.end = 16;
    j.joints = s->joints, j.weights = s->weights;
    j.positions = s->positions, j.positions_stride = 12;
    j.out_positions = s->out_positions, j.out_positions_stride = 12;
    j.normals = job->normals ? s->normals : NULL, j.normals_stride = 12;
    j.out_normals = job->normals ? s->out_normals : NULL, j.out_normals_stride = 12;
    j.tangents = job->tangents ? s->tangents : NULL, j.tangents_stride = 16;
    j.out_tangents = job->tangents ? s->out_tangents : NULL, j.out_tangents_stride = 16;
    return j;
}

void ossa__skin_scratch_store(const ossa_skin_job *job, uint32_t b0, uint32_t v, uint32_t e,
                              const ossa__skin_scratch *s) {
    for (uint32_t u = v; u < e; u++) {
        uint32_t l = u - b0;
        memcpy(ossa__skin_out(job->out_positions, job->out_positions_stride, u), s->out_positions + l * 3, 12);
        if (job->normals) memcpy(ossa__skin_out(job->out_normals, job->out_normals_stride, u), s->out_normals + l * 3, 12);
        if (job->tangents)
            memcpy(ossa__skin_out(job->out_tangents, job->out_tangents_stride, u), s->out_tangents + l * 4, 16);
    }
}
