/* Internal inline helpers for hot paths (not installed): TRS -> affine matrix and
 * affine matrix products. Matrices are column-major float[16] (ossa_mat4). */
#ifndef OSSA_MATH_FAST_H
#define OSSA_MATH_FAST_H

#include <math.h>

#include <ossa/math.h>

/* The Hamilton product a * b (ossa_quat_mul, inline for the jobs' per-joint loops). */
static inline ossa_quat ossa__quat_mul(ossa_quat a, ossa_quat b) {
    return (ossa_quat){a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                       a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}

/* out = T * R * S of t (last row 0 0 0 1). Rotation is used as given (unit expected). */
static inline void ossa__trs_to_mat4(const ossa_transform *t, ossa_mat4 *out) {
    float x = t->rotation.x, y = t->rotation.y, z = t->rotation.z, w = t->rotation.w;
    float x2 = x + x, y2 = y + y, z2 = z + z;
    float xx = x * x2, yy = y * y2, zz = z * z2;
    float xy = x * y2, xz = x * z2, yz = y * z2;
    float wx = w * x2, wy = w * y2, wz = w * z2;
    float sx = t->scale.x, sy = t->scale.y, sz = t->scale.z;
    float *m = out->m;
    m[0] = (1.0f - (yy + zz)) * sx;
    m[1] = (xy + wz) * sx;
    m[2] = (xz - wy) * sx;
    m[3] = 0.0f;
    m[4] = (xy - wz) * sy;
    m[5] = (1.0f - (xx + zz)) * sy;
    m[6] = (yz + wx) * sy;
    m[7] = 0.0f;
    m[8] = (xz + wy) * sz;
    m[9] = (yz - wx) * sz;
    m[10] = (1.0f - (xx + yy)) * sz;
    m[11] = 0.0f;
    m[12] = t->translation.x;
    m[13] = t->translation.y;
    m[14] = t->translation.z;
    m[15] = 1.0f;
}

/* out = a * b for affine a and b (last rows 0 0 0 1). out must not alias a or b.
 * Scalar reference form; the SSE2 form below performs the same operations in the same
 * order (no FMA contraction), so both give bit-identical results. */
static inline void ossa__mat4_mul_affine_scalar(const ossa_mat4 *a, const ossa_mat4 *b, ossa_mat4 *out) {
    const float *A = a->m, *B = b->m;
    float *o = out->m;
    for (int c = 0; c < 4; c++) {
        float b0 = B[c * 4 + 0], b1 = B[c * 4 + 1], b2 = B[c * 4 + 2];
        o[c * 4 + 0] = A[0] * b0 + A[4] * b1 + A[8] * b2;
        o[c * 4 + 1] = A[1] * b0 + A[5] * b1 + A[9] * b2;
        o[c * 4 + 2] = A[2] * b0 + A[6] * b1 + A[10] * b2;
    }
    o[12] += A[12];
    o[13] += A[13];
    o[14] += A[14];
    o[3] = o[7] = o[11] = 0.0f;
    o[15] = 1.0f;
}

#if defined(__SSE2__)
#include <emmintrin.h>
static inline void ossa__mat4_mul_affine(const ossa_mat4 *a, const ossa_mat4 *b, ossa_mat4 *out) {
    const float *A = a->m, *B = b->m;
    /* Columns of a; the w lanes are 0 0 0 1 for an affine a, so the products keep them. */
    __m128 a0 = _mm_loadu_ps(A), a1 = _mm_loadu_ps(A + 4), a2 = _mm_loadu_ps(A + 8), a3 = _mm_loadu_ps(A + 12);
    for (int c = 0; c < 3; c++) {
        __m128 r = _mm_add_ps(_mm_add_ps(_mm_mul_ps(a0, _mm_set1_ps(B[c * 4 + 0])), _mm_mul_ps(a1, _mm_set1_ps(B[c * 4 + 1]))),
                              _mm_mul_ps(a2, _mm_set1_ps(B[c * 4 + 2])));
        _mm_storeu_ps(out->m + c * 4, r);
    }
    __m128 t = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(a0, _mm_set1_ps(B[12])), _mm_mul_ps(a1, _mm_set1_ps(B[13]))),
                                     _mm_mul_ps(a2, _mm_set1_ps(B[14]))),
                          a3);
    _mm_storeu_ps(out->m + 12, t);
    out->m[3] = out->m[7] = out->m[11] = 0.0f;
    out->m[15] = 1.0f;
}
#else
static inline void ossa__mat4_mul_affine(const ossa_mat4 *a, const ossa_mat4 *b, ossa_mat4 *out) {
    ossa__mat4_mul_affine_scalar(a, b, out);
}
#endif

/* out = a * b, general 4x4. out must not alias a or b. */
static inline void ossa__mat4_mul(const ossa_mat4 *a, const ossa_mat4 *b, ossa_mat4 *out) {
    const float *A = a->m, *B = b->m;
    float *o = out->m;
    for (int c = 0; c < 4; c++) {
        float b0 = B[c * 4 + 0], b1 = B[c * 4 + 1], b2 = B[c * 4 + 2], b3 = B[c * 4 + 3];
        for (int r = 0; r < 4; r++) o[c * 4 + r] = A[r] * b0 + A[4 + r] * b1 + A[8 + r] * b2 + A[12 + r] * b3;
    }
}

/* ---- quaternions as float[4] (x y z w), shared by ossa_quat_* and the track sampler ---- */

/* q / |q| in place; identity for a zero quaternion or a NaN / infinite component. */
static inline void ossa__quat_normalize4(float q[4]) {
    float len = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(len > 0.0f) || !isfinite(len)) {
        /* rare path: the squares overflowed (|q| > ~1.8e19) or underflowed (< ~1e-19)
         * although the direction is well defined: rescale by the largest component */
        float m = fmaxf(fmaxf(fabsf(q[0]), fabsf(q[1])), fmaxf(fabsf(q[2]), fabsf(q[3])));
        if (m > 0.0f && isfinite(m) && isfinite(q[0]) && isfinite(q[1]) && isfinite(q[2]) && isfinite(q[3])) {
            float s[4] = {q[0] / m, q[1] / m, q[2] / m, q[3] / m};
            float l = sqrtf(s[0] * s[0] + s[1] * s[1] + s[2] * s[2] + s[3] * s[3]);
            q[0] = s[0] / l; q[1] = s[1] / l; q[2] = s[2] / l; q[3] = s[3] / l;
            return;
        }
        q[0] = q[1] = q[2] = 0.0f;
        q[3] = 1.0f;
        return;
    }
    float inv = 1.0f / len;
    q[0] *= inv; q[1] *= inv; q[2] *= inv; q[3] *= inv;
}

/* Slerp weights sin((1-t)θ)/sinθ and sin(tθ)/sinθ for cos θ = x >= 0.7 (θ <= 45.6°), from
 * their series in (x - 1) (Eberly, "A fast and accurate algorithm for computing SLERP"):
 * eight terms are accurate to 5e-9 there, i.e. to float rounding, with no transcendentals
 * and no special case as x -> 1 (the weights tend to 1-t and t). Fewer terms suffice closer
 * to 1 (measured in double: 6 terms for x >= 0.85 and 4 for x >= 0.95 stay below 2e-9). */
static inline void ossa__slerp_series(float x, float t, float *wa, float *wb) {
    static const float u[8] = {1.0f / 3, 1.0f / 10, 1.0f / 21, 1.0f / 36, 1.0f / 55, 1.0f / 78, 1.0f / 105, 1.0f / 136};
    static const float v[8] = {1.0f / 3, 2.0f / 5, 3.0f / 7, 4.0f / 9, 5.0f / 11, 6.0f / 13, 7.0f / 15, 8.0f / 17};
    float xm1 = x - 1.0f, s = 1.0f - t, tt = t * t, ss = s * s;
    float at = 1.0f, as = 1.0f;
    int terms = x >= 0.95f ? 4 : (x >= 0.85f ? 6 : 8);
    for (int i = terms - 1; i >= 0; i--) {
        at = 1.0f + (u[i] * tt - v[i]) * xm1 * at;
        as = 1.0f + (u[i] * ss - v[i]) * xm1 * as;
    }
    *wa = s * as;
    *wb = t * at;
}

/* Slerp of unit a and b along the shorter arc, normalised; out may alias a or b. */
static inline void ossa__slerp4(const float *a, const float *b, float t, float *out) {
    float d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    float sign = 1.0f;
    if (d < 0.0f) {
        d = -d;
        sign = -1.0f;
    }
    float wa, wb;
    if (d >= 0.7f) {
        ossa__slerp_series(d, t, &wa, &wb);
    } else {
        float theta = acosf(d);
        float inv_sin = 1.0f / sqrtf(1.0f - d * d);
        wa = sinf((1.0f - t) * theta) * inv_sin;
        wb = sinf(t * theta) * inv_sin;
    }
    wb *= sign;
    float r[4] = {a[0] * wa + b[0] * wb, a[1] * wa + b[1] * wb, a[2] * wa + b[2] * wb, a[3] * wa + b[3] * wb};
    ossa__quat_normalize4(r);
    out[0] = r[0]; out[1] = r[1]; out[2] = r[2]; out[3] = r[3];
}

#endif
