/* SSE pose kernels (built with -msse4.1; they use SSE2 operations only). The rotation-scale
 * terms are computed splatted (all four lanes equal), so the local matrix never goes through
 * memory and needs no shuffles, then multiply the parent's columns: out_c = (a0 * b0c + a1 * b1c)
 * + a2 * b2c (+ a3 for the translation), exactly the scalar operations of ossa__trs_to_mat4 +
 * ossa__mat4_mul_affine_scalar. A root's parent is the identity. The AVX2
 * and AVX-512 kernels are in pose_avx2.c and pose_avx512.c. */
#include <immintrin.h>

#include "anim/pose_columns.h"

/* model = parent (a) * local (t). Lanes never mix, so the w lanes (row 3) only feed w lanes:
 * a rotation column's is left as computed (the chain to a child is one product and two sums)
 * and cleared where the matrix is stored; the translation's is cleared before the parent's 1
 * is added, so memory gets exactly 0 0 0 1. */
static inline columns4 joint(const ossa_transform *t, const columns4 *a) {
    const __m128 one = _mm_set1_ps(1.0f);
    __m128 x = _mm_set1_ps(t->rotation.x), y = _mm_set1_ps(t->rotation.y), z = _mm_set1_ps(t->rotation.z),
           w = _mm_set1_ps(t->rotation.w);
    __m128 x2 = _mm_add_ps(x, x), y2 = _mm_add_ps(y, y), z2 = _mm_add_ps(z, z);
    __m128 xx = _mm_mul_ps(x, x2), yy = _mm_mul_ps(y, y2), zz = _mm_mul_ps(z, z2);
    __m128 xy = _mm_mul_ps(x, y2), xz = _mm_mul_ps(x, z2), yz = _mm_mul_ps(y, z2);
    __m128 wx = _mm_mul_ps(w, x2), wy = _mm_mul_ps(w, y2), wz = _mm_mul_ps(w, z2);
    __m128 sx = _mm_set1_ps(t->scale.x), sy = _mm_set1_ps(t->scale.y), sz = _mm_set1_ps(t->scale.z);
    /* b[k][c]: row k of local column c */
    __m128 b00 = _mm_mul_ps(_mm_sub_ps(one, _mm_add_ps(yy, zz)), sx), b10 = _mm_mul_ps(_mm_add_ps(xy, wz), sx),
           b20 = _mm_mul_ps(_mm_sub_ps(xz, wy), sx);
    __m128 b01 = _mm_mul_ps(_mm_sub_ps(xy, wz), sy), b11 = _mm_mul_ps(_mm_sub_ps(one, _mm_add_ps(xx, zz)), sy),
           b21 = _mm_mul_ps(_mm_add_ps(yz, wx), sy);
    __m128 b02 = _mm_mul_ps(_mm_add_ps(xz, wy), sz), b12 = _mm_mul_ps(_mm_sub_ps(yz, wx), sz),
           b22 = _mm_mul_ps(_mm_sub_ps(one, _mm_add_ps(xx, yy)), sz);
    const __m128 a0 = a->c[0], a1 = a->c[1], a2 = a->c[2];
    const __m128 xyz = _mm_castsi128_ps(_mm_set_epi32(0, -1, -1, -1));
    columns4 m;
    m.c[0] = _mm_add_ps(_mm_add_ps(_mm_mul_ps(a0, b00), _mm_mul_ps(a1, b10)), _mm_mul_ps(a2, b20));
    m.c[1] = _mm_add_ps(_mm_add_ps(_mm_mul_ps(a0, b01), _mm_mul_ps(a1, b11)), _mm_mul_ps(a2, b21));
    m.c[2] = _mm_add_ps(_mm_add_ps(_mm_mul_ps(a0, b02), _mm_mul_ps(a1, b12)), _mm_mul_ps(a2, b22));
    __m128 tr = _mm_add_ps(_mm_add_ps(_mm_mul_ps(a0, _mm_set1_ps(t->translation.x)), _mm_mul_ps(a1, _mm_set1_ps(t->translation.y))),
                           _mm_mul_ps(a2, _mm_set1_ps(t->translation.z)));
    m.c[3] = _mm_add_ps(_mm_and_ps(tr, xyz), a->c[3]);
    return m;
}

/* Bound by the parent chains' latency: a parent that is the joint just computed is taken from
 * registers (no store-to-load forward). */
void ossa__to_model_sse(const ossa_transform *locals, const int32_t *parents, uint32_t begin, uint32_t end,
                        ossa_mat4 *out) {
    columns4 prev = {{_mm_setzero_ps(), _mm_setzero_ps(), _mm_setzero_ps(), _mm_setzero_ps()}};
    for (uint32_t i = begin; i < end; i++) {
        columns4 a = parent_columns(&prev, parents, out, i, begin);
        prev = joint(&locals[i], &a);
        store_columns(&prev, out[i].m);
    }
}

/* out = a * b, the general 4x4 product in ossa__mat4_mul's order; b's entries splat from one
 * load of its column (in-register shuffles: faster than a load and a shuffle each). */
static inline void mul4(const float *A, const float *B, float *o) {
    __m128 a0 = _mm_loadu_ps(A), a1 = _mm_loadu_ps(A + 4), a2 = _mm_loadu_ps(A + 8), a3 = _mm_loadu_ps(A + 12);
    for (int c = 0; c < 4; c++) {
        __m128 b = _mm_loadu_ps(B + 4 * c);
        __m128 r = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(a0, _mm_shuffle_ps(b, b, 0x00)),
                                                    _mm_mul_ps(a1, _mm_shuffle_ps(b, b, 0x55))),
                                         _mm_mul_ps(a2, _mm_shuffle_ps(b, b, 0xAA))),
                              _mm_mul_ps(a3, _mm_shuffle_ps(b, b, 0xFF)));
        _mm_storeu_ps(o + c * 4, r);
    }
}

void ossa__palette_sse(const ossa_mat4 *model, const uint32_t *joints, const ossa_mat4 *inverse_bind, uint32_t count,
                       bool skin_layout, ossa_mat4 *out) {
    for (uint32_t i = 0; i < count; i++)
        mul4(model[joints[i]].m, inverse_bind[i].m, out[skin_layout ? i : joints[i]].m);
}
