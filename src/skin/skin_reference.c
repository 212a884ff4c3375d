/* The seed's two slow CPU skinning variants, kept as reference paths for tests:
 * per influence, build the skin matrix (two arrays) or skin transform (TRS combine),
 * transform the vertex, and sum the weighted results. */
#include "skin_internal.h"

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

static ossa_result run(const ossa_skin_job *job, const skin_xf *x) {
    static const ossa_mat4 unused = {{0}};
    ossa_skin_job j = *job;
    j.palette = &unused;
    ossa_result r = ossa_skin_job_validate(&j);
    if (r == OSSA_OK) r = ossa__skin_check_joints(&j);
    if (r != OSSA_OK) return r;
    j = ossa__skin_job_resolve(&j);
    const uint32_t k = j.influences;
    for (uint32_t v = j.begin; v < j.end; v++) {
        const float *p = ossa__skin_in(j.positions, j.positions_stride, v);
        const float *n = j.normals ? ossa__skin_in(j.normals, j.normals_stride, v) : NULL;
        const float *t = j.tangents ? ossa__skin_in(j.tangents, j.tangents_stride, v) : NULL;
        float *op = ossa__skin_out(j.out_positions, j.out_positions_stride, v);
        float *on = n ? ossa__skin_out(j.out_normals, j.out_normals_stride, v) : NULL;
        float *ot = t ? ossa__skin_out(j.out_tangents, j.out_tangents_stride, v) : NULL;
        float acc[9] = {0};
        if (ossa__skin_weight_sum(j.weights + (size_t)v * k, k) == 0.0f) {
            memcpy(op, p, 12);
            if (n) memcpy(on, n, 12);
            if (t) memcpy(ot, t, 16);
            continue;
        }
        for (uint32_t i = 0; i < k; i++)
            influence(x, j.joints[(size_t)v * k + i], p, n, t, j.weights[(size_t)v * k + i], acc);
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
    return OSSA_OK;
}

ossa_result ossa_skin_lbs_two_arrays(const ossa_skin_job *job, const ossa_mat4 *model, const ossa_mat4 *inverse_bind) {
    if (!job || !model || !inverse_bind) return OSSA_ERROR_INVALID_ARGUMENT;
    skin_xf x = {model, inverse_bind, NULL, NULL};
    return run(job, &x);
}

ossa_result ossa_skin_lbs_transforms(const ossa_skin_job *job, const ossa_transform *model,
                                     const ossa_transform *inverse_bind) {
    if (!job || !model || !inverse_bind) return OSSA_ERROR_INVALID_ARGUMENT;
    skin_xf x = {NULL, NULL, model, inverse_bind};
    return run(job, &x);
}
