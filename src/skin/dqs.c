/* Dual quaternions: the palette → unit dual quaternion job, and the scalar DQS kernel
 * (blend with hemisphere correction against the first influence, normalise, apply). */
#include "skin_internal.h"

#include "core/job.h"

#include <math.h>
#include <string.h>

static ossa_quat quat_from_rotation(const float c0[3], const float c1[3], const float c2[3]) {
    /* Shepperd: pick the largest of w, x, y, z for stability. m_rc = column c, row r. */
    float m00 = c0[0], m11 = c1[1], m22 = c2[2], tr = m00 + m11 + m22;
    ossa_quat q;
    if (tr > 0.0f) {
        float s = sqrtf(tr + 1.0f) * 2.0f;
        q.w = 0.25f * s;
        q.x = (c1[2] - c2[1]) / s;
        q.y = (c2[0] - c0[2]) / s;
        q.z = (c0[1] - c1[0]) / s;
    } else if (m00 > m11 && m00 > m22) {
        float s = sqrtf(1.0f + m00 - m11 - m22) * 2.0f;
        q.w = (c1[2] - c2[1]) / s;
        q.x = 0.25f * s;
        q.y = (c1[0] + c0[1]) / s;
        q.z = (c2[0] + c0[2]) / s;
    } else if (m11 > m22) {
        float s = sqrtf(1.0f + m11 - m00 - m22) * 2.0f;
        q.w = (c2[0] - c0[2]) / s;
        q.x = (c1[0] + c0[1]) / s;
        q.y = 0.25f * s;
        q.z = (c2[1] + c1[2]) / s;
    } else {
        float s = sqrtf(1.0f + m22 - m00 - m11) * 2.0f;
        q.w = (c0[1] - c1[0]) / s;
        q.x = (c2[0] + c0[2]) / s;
        q.y = (c2[1] + c1[2]) / s;
        q.z = 0.25f * s;
    }
    float l = sqrtf(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    if (!(l > 0.0f) || !isfinite(l)) return (ossa_quat){0, 0, 0, 1};
    return (ossa_quat){q.x / l, q.y / l, q.z / l, q.w / l};
}

static void unit3(const float *in, float out[3]) {
    float l = sqrtf(in[0] * in[0] + in[1] * in[1] + in[2] * in[2]);
    float s = l > 1e-12f ? 1.0f / l : 1.0f;
    out[0] = in[0] * s, out[1] = in[1] * s, out[2] = in[2] * s;
}

ossa_result ossa_dual_quat_job_validate(const ossa_dual_quat_job *job, ossa_diagnostic *diag) {
    if (!job) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "job", "NULL");
    if (!job->palette) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "palette", "required");
    if (!job->output) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "output", "required");
    if (job->output_count < job->palette_count)
        return ossa__job_fail(diag, OSSA_ERROR_BUFFER_TOO_SMALL, "output", "%u entries, palette_count is %u",
                              job->output_count, job->palette_count);
    return OSSA_OK;
}

ossa_result ossa_dual_quat_job_run(ossa_dual_quat_job *job) {
    ossa_result r = ossa_dual_quat_job_validate(job, NULL);
    if (r != OSSA_OK) return r;
    for (uint32_t i = 0; i < job->palette_count; i++) {
        const float *m = job->palette[i].m;
        float c0[3], c1[3], c2[3];
        unit3(m, c0), unit3(m + 4, c1), unit3(m + 8, c2);
        ossa_quat q = quat_from_rotation(c0, c1, c2);
        float tx = m[12], ty = m[13], tz = m[14];
        ossa_dual_quat *out = &job->output[i];
        out->real = q;
        out->dual = (ossa_quat){0.5f * (tx * q.w + ty * q.z - tz * q.y), 0.5f * (-tx * q.z + ty * q.w + tz * q.x),
                                0.5f * (tx * q.y - ty * q.x + tz * q.w), 0.5f * (-tx * q.x - ty * q.y - tz * q.z)};
    }
    return OSSA_OK;
}

void ossa__skin_dqs_scalar(const ossa_skin_job *job, const ossa_dual_quat *dq) {
    const ossa_skin_job j = *job;
    const uint32_t k = j.influences;
    for (uint32_t v = j.begin; v < j.end; v++) {
        const uint16_t *jv = j.joints + (size_t)v * k;
        const float *wv = j.weights + (size_t)v * k;
        if (ossa__skin_weight_sum(wv, k) == 0.0f) {
            ossa__skin_copy_vertex(&j, v);
            continue;
        }
        const ossa_quat r0 = dq[jv[0]].real;
        float b[8] = {0};
        for (uint32_t i = 0; i < k; i++) {
            const ossa_dual_quat *d = &dq[jv[i]];
            const float dot = r0.x * d->real.x + r0.y * d->real.y + r0.z * d->real.z + r0.w * d->real.w;
            const float w = dot < 0.0f ? -wv[i] : wv[i]; /* hemisphere correction (branch-free select) */
            b[0] += w * d->real.x, b[1] += w * d->real.y, b[2] += w * d->real.z, b[3] += w * d->real.w;
            b[4] += w * d->dual.x, b[5] += w * d->dual.y, b[6] += w * d->dual.z, b[7] += w * d->dual.w;
        }
        /* Rotation matrix and translation of the normalised blend b / |b.real| without a
         * square root: both scale by 1 / |b.real|² (L). */
        const float qx = b[0], qy = b[1], qz = b[2], qw = b[3], dx = b[4], dy = b[5], dz = b[6], dw = b[7];
        const float L = qx * qx + qy * qy + qz * qz + qw * qw;
        if (!(L > 1e-24f)) { /* influences cancel out: no rotation to apply */
            ossa__skin_copy_vertex(&j, v);
            continue;
        }
        const float s = 2.0f / L;
        const float xx = qx * qx * s, yy = qy * qy * s, zz = qz * qz * s;
        const float xy = qx * qy * s, xz = qx * qz * s, yz = qy * qz * s;
        const float wx = qw * qx * s, wy = qw * qy * s, wz = qw * qz * s;
        const float m[9] = {1.0f - (yy + zz), xy + wz, xz - wy,  /* column 0 */
                            xy - wz, 1.0f - (xx + zz), yz + wx,  /* column 1 */
                            xz + wy, yz - wx, 1.0f - (xx + yy)}; /* column 2 */
        const float t0 = s * (qw * dx - dw * qx + qy * dz - qz * dy);
        const float t1 = s * (qw * dy - dw * qy + qz * dx - qx * dz);
        const float t2 = s * (qw * dz - dw * qz + qx * dy - qy * dx);
        float o[4];
        const float *p = ossa__skin_in(j.positions, j.positions_stride, v);
        for (int r = 0; r < 3; r++) o[r] = m[r] * p[0] + m[3 + r] * p[1] + m[6 + r] * p[2];
        o[0] += t0, o[1] += t1, o[2] += t2;
        memcpy(ossa__skin_out(j.out_positions, j.out_positions_stride, v), o, 12);
        if (j.normals) {
            const float *n = ossa__skin_in(j.normals, j.normals_stride, v);
            for (int r = 0; r < 3; r++) o[r] = m[r] * n[0] + m[3 + r] * n[1] + m[6 + r] * n[2];
            ossa__skin_normalize3(o);
            memcpy(ossa__skin_out(j.out_normals, j.out_normals_stride, v), o, 12);
        }
        if (j.tangents) {
            const float *t = ossa__skin_in(j.tangents, j.tangents_stride, v);
            for (int r = 0; r < 3; r++) o[r] = m[r] * t[0] + m[3 + r] * t[1] + m[6 + r] * t[2];
            ossa__skin_normalize3(o);
            o[3] = t[3];
            memcpy(ossa__skin_out(j.out_tangents, j.out_tangents_stride, v), o, 16);
        }
    }
}
