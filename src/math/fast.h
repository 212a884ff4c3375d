/* Internal inline helpers for hot paths (not installed): TRS -> affine matrix and
 * affine matrix products. Matrices are column-major float[16] (ossa_mat4). */
#ifndef OSSA_MATH_FAST_H
#define OSSA_MATH_FAST_H

#include <ossa/math.h>

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

/* out = a * b for affine a and b (last rows 0 0 0 1). out must not alias a or b. */
static inline void ossa__mat4_mul_affine(const ossa_mat4 *a, const ossa_mat4 *b, ossa_mat4 *out) {
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

/* out = a * b, general 4x4. out must not alias a or b. */
static inline void ossa__mat4_mul(const ossa_mat4 *a, const ossa_mat4 *b, ossa_mat4 *out) {
    const float *A = a->m, *B = b->m;
    float *o = out->m;
    for (int c = 0; c < 4; c++) {
        float b0 = B[c * 4 + 0], b1 = B[c * 4 + 1], b2 = B[c * 4 + 2], b3 = B[c * 4 + 3];
        for (int r = 0; r < 4; r++) o[c * 4 + r] = A[r] * b0 + A[4 + r] * b1 + A[8 + r] * b2 + A[12 + r] * b3;
    }
}

#endif
