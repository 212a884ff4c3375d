/* Reference skinners for the tests (see skin_reference.h): slow and obvious, written
 * against the public API only so they check the library rather than share its code. */
#include "skin_reference.h"

#include <math.h>
#include <string.h>

typedef struct skin_xf {
    const ossa_mat4 *model, *ibm;        /* two-array variant */
    const ossa_transform *tmodel, *tibm; /* transform variant */
} skin_xf;

static void influence(const skin_xf *x, uint32_t j, const float *p, const float *n, const float *t, float w,
                      float acc[9]) {
    ossa_vec3 vp = {p[0], p[1], p[2]}, rp, rn = {0, 0, 0}, rt = {0, 0, 0};
    if (x->model) {
        ossa_mat4 s = ossa_mat4_mul(&x->model[j], &x->ibm[j]);
        rp = ossa_mat4_transform_point(&s, vp);
        if (n) rn = ossa_mat4_transform_vector(&s, (ossa_vec3){n[0], n[1], n[2]});
        if (t) rt = ossa_mat4_transform_vector(&s, (ossa_vec3){t[0], t[1], t[2]});
    } else {
        ossa_transform s = ossa_transform_combine(x->tmodel[j], x->tibm[j]);
        rp = ossa_transform_point(s, vp);
        if (n) rn = ossa_transform_vector(s, (ossa_vec3){n[0], n[1], n[2]});
        if (t) rt = ossa_transform_vector(s, (ossa_vec3){t[0], t[1], t[2]});
    }
    acc[0] += w * rp.x, acc[1] += w * rp.y, acc[2] += w * rp.z;
    acc[3] += w * rn.x, acc[4] += w * rn.y, acc[5] += w * rn.z;
    acc[6] += w * rt.x, acc[7] += w * rt.y, acc[8] += w * rt.z;
}

static void normalize3(float *v) {
    float l2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    if (l2 > 1e-24f) {
        float s = 1.0f / sqrtf(l2);
        v[0] *= s, v[1] *= s, v[2] *= s;
    }
}

/* Stream element of vertex v: base + v * stride bytes (stride 0 = packed `size`). */
static const float *in_at(const float *base, uint32_t stride, uint32_t size, uint32_t v) {
    return base ? (const float *)(const void *)((const char *)base + (size_t)v * (stride ? stride : size)) : NULL;
}
static float *out_at(float *base, uint32_t stride, uint32_t size, uint32_t v) {
    return base ? (float *)(void *)((char *)base + (size_t)v * (stride ? stride : size)) : NULL;
}

/* Weight sum tested against 0 in the library's pairwise order (skin.h). */
static float weight_sum(const float *w, uint32_t k) {
    float s = (w[0] + w[1]) + (w[2] + w[3]);
    if (k == 8) s += (w[4] + w[5]) + (w[6] + w[7]);
    return s;
}

static void skin_vertex(const ossa_skin_job *j, const skin_xf *x, uint32_t v) {
    const uint32_t k = j->influences;
    const float *p = in_at(j->positions, j->positions_stride, 12, v);
    const float *n = in_at(j->normals, j->normals_stride, 12, v);
    const float *t = in_at(j->tangents, j->tangents_stride, 16, v);
    float *op = out_at(j->out_positions, j->out_positions_stride, 12, v);
    float *on = out_at(j->out_normals, j->out_normals_stride, 12, v);
    float *ot = out_at(j->out_tangents, j->out_tangents_stride, 16, v);
    if (weight_sum(j->weights + (size_t)v * k, k) == 0.0f) {
        memcpy(op, p, 12);
        if (n) memcpy(on, n, 12);
        if (t) memcpy(ot, t, 16);
        return;
    }
    float acc[9] = {0};
    for (uint32_t i = 0; i < k; i++)
        influence(x, j->joints[(size_t)v * k + i], p, n, t, j->weights[(size_t)v * k + i], acc);
    memcpy(op, acc, 12);
    if (n) {
        normalize3(acc + 3);
        memcpy(on, acc + 3, 12);
    }
    if (t) {
        normalize3(acc + 6);
        memcpy(ot, acc + 6, 12);
        ot[3] = t[3];
    }
}

static ossa_result run(const ossa_skin_job *job, const skin_xf *x, const void *transforms) {
    ossa_skin_job j = *job; /* validate everything but the joint transforms, which are ours */
    j.method = OSSA_SKIN_LBS, j.kernel = OSSA_SKIN_KERNEL_AUTO;
    j.palette = (const ossa_mat4 *)transforms;
    ossa_result r = ossa_skin_job_validate(&j, NULL);
    if (r != OSSA_OK) return r;
    for (size_t i = (size_t)j.begin * j.influences; i < (size_t)j.end * j.influences; i++)
        if (j.joints[i] >= j.palette_count) return OSSA_ERROR_INVALID_DATA;
    for (uint32_t v = j.begin; v < j.end; v++) skin_vertex(&j, x, v);
    return OSSA_OK;
}

ossa_result ot_skin_lbs_two_arrays(const ossa_skin_job *job, const ossa_mat4 *model, const ossa_mat4 *inverse_bind) {
    if (!job || !model || !inverse_bind) return OSSA_ERROR_INVALID_ARGUMENT;
    skin_xf x = {model, inverse_bind, NULL, NULL};
    return run(job, &x, model);
}

ossa_result ot_skin_lbs_transforms(const ossa_skin_job *job, const ossa_transform *model,
                                   const ossa_transform *inverse_bind) {
    if (!job || !model || !inverse_bind) return OSSA_ERROR_INVALID_ARGUMENT;
    skin_xf x = {NULL, NULL, model, inverse_bind};
    return run(job, &x, model);
}
