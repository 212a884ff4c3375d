/* AVX2 pose kernels: 256-bit products, two matrix columns per step (built with -mavx2
 * -mfma; the ISO C mode keeps -ffp-contract=off, so no FMA: the values equal the scalar
 * path's, see anim/pose_internal.h). */
#include <immintrin.h>

#include "anim/pose_internal.h"

/* (A 512-bit form, one whole product per step, measured slower here: 86 vs 62 ns for
 * Woman's 41 entries, so the AVX-512 hosts run these AVX2 kernels too.)
 * out = a * b (4x4, ossa__mat4_mul's order), two columns per 256-bit step: a's columns
 * repeated in both halves, b's elements splat within each half (one in-lane shuffle). */
static inline void mul4_x2(const float *A, const float *B, float *o) {
    __m256 a0 = _mm256_broadcast_ps((const __m128 *)A), a1 = _mm256_broadcast_ps((const __m128 *)(A + 4)),
           a2 = _mm256_broadcast_ps((const __m128 *)(A + 8)), a3 = _mm256_broadcast_ps((const __m128 *)(A + 12));
    for (int h = 0; h < 2; h++) {
        __m256 b = _mm256_loadu_ps(B + 8 * h); /* columns 2h and 2h + 1 */
        __m256 r = _mm256_add_ps(
            _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(a0, _mm256_permute_ps(b, 0x00)), _mm256_mul_ps(a1, _mm256_permute_ps(b, 0x55))),
                          _mm256_mul_ps(a2, _mm256_permute_ps(b, 0xAA))),
            _mm256_mul_ps(a3, _mm256_permute_ps(b, 0xFF)));
        _mm256_storeu_ps(o + 8 * h, r);
    }
}

void ossa__palette_avx2(const ossa_mat4 *model, const uint32_t *joints, const ossa_mat4 *inverse_bind, uint32_t count,
                        bool skin_layout, ossa_mat4 *out) {
    if (skin_layout) {
        for (uint32_t i = 0; i < count; i++) mul4_x2(model[joints[i]].m, inverse_bind[i].m, out[i].m);
    } else {
        for (uint32_t i = 0; i < count; i++) {
            uint32_t j = joints[i];
            mul4_x2(model[j].m, inverse_bind[i].m, out[j].m);
        }
    }
}

/* Measured on Woman (43 joints): building each local matrix in registers (AoS shuffles) and
 * multiplying two columns per 256-bit step took 214 ns; gathering the SoA fields 280 ns;
 * this (transposes + SoA terms + broadcast loads) ~200 ns. Carrying a child's parent in
 * registers instead of reloading it was slower: the pass is throughput-bound. */
/* ozz-style: the local matrices' terms of 8 joints at once in SoA form (the scalar path's
 * operations, one joint per lane), parked in a small stack block, then each joint's
 * parent * local with the terms broadcast from it (loads, no shuffles). */
enum { BLOCK = 8, TERMS = 12 }; /* b00 b10 b20 b01 b11 b21 b02 b12 b22 tx ty tz */

static inline void soa_terms(const ossa_transform *t, uint32_t count, float b[TERMS][BLOCK]) {
    /* AoS -> SoA: three 4x4 transposes of 4-float windows (lanes past count repeat the last
     * joint, so nothing past the range is read): (tx ty tz qx), (qx qy qz qw), (qw sx sy sz) */
    __m256 r[3][4];
    for (int g = 0; g < 4; g++) {
        const ossa_transform *lo = &t[g < (int)count ? g : (int)count - 1];
        const ossa_transform *hi = &t[g + 4 < (int)count ? g + 4 : (int)count - 1];
        r[0][g] = _mm256_set_m128(_mm_loadu_ps(&hi->translation.x), _mm_loadu_ps(&lo->translation.x));
        r[1][g] = _mm256_set_m128(_mm_loadu_ps(&hi->rotation.x), _mm_loadu_ps(&lo->rotation.x));
        r[2][g] = _mm256_set_m128(_mm_loadu_ps(&hi->rotation.w), _mm_loadu_ps(&lo->rotation.w));
    }
    __m256 f[3][4];
    for (int m = 0; m < 3; m++) {
        __m256 t0 = _mm256_unpacklo_ps(r[m][0], r[m][1]), t1 = _mm256_unpacklo_ps(r[m][2], r[m][3]);
        __m256 t2 = _mm256_unpackhi_ps(r[m][0], r[m][1]), t3 = _mm256_unpackhi_ps(r[m][2], r[m][3]);
        f[m][0] = _mm256_shuffle_ps(t0, t1, _MM_SHUFFLE(1, 0, 1, 0));
        f[m][1] = _mm256_shuffle_ps(t0, t1, _MM_SHUFFLE(3, 2, 3, 2));
        f[m][2] = _mm256_shuffle_ps(t2, t3, _MM_SHUFFLE(1, 0, 1, 0));
        f[m][3] = _mm256_shuffle_ps(t2, t3, _MM_SHUFFLE(3, 2, 3, 2));
    }
    __m256 x = f[1][0], y = f[1][1], z = f[1][2], w = f[1][3];
    __m256 sx = f[2][1], sy = f[2][2], sz = f[2][3];
    _mm256_storeu_ps(b[9], f[0][0]);
    _mm256_storeu_ps(b[10], f[0][1]);
    _mm256_storeu_ps(b[11], f[0][2]);
    const __m256 one = _mm256_set1_ps(1.0f);
    __m256 x2 = _mm256_add_ps(x, x), y2 = _mm256_add_ps(y, y), z2 = _mm256_add_ps(z, z);
    __m256 xx = _mm256_mul_ps(x, x2), yy = _mm256_mul_ps(y, y2), zz = _mm256_mul_ps(z, z2);
    __m256 xy = _mm256_mul_ps(x, y2), xz = _mm256_mul_ps(x, z2), yz = _mm256_mul_ps(y, z2);
    __m256 wx = _mm256_mul_ps(w, x2), wy = _mm256_mul_ps(w, y2), wz = _mm256_mul_ps(w, z2);
    _mm256_storeu_ps(b[0], _mm256_mul_ps(_mm256_sub_ps(one, _mm256_add_ps(yy, zz)), sx));
    _mm256_storeu_ps(b[1], _mm256_mul_ps(_mm256_add_ps(xy, wz), sx));
    _mm256_storeu_ps(b[2], _mm256_mul_ps(_mm256_sub_ps(xz, wy), sx));
    _mm256_storeu_ps(b[3], _mm256_mul_ps(_mm256_sub_ps(xy, wz), sy));
    _mm256_storeu_ps(b[4], _mm256_mul_ps(_mm256_sub_ps(one, _mm256_add_ps(xx, zz)), sy));
    _mm256_storeu_ps(b[5], _mm256_mul_ps(_mm256_add_ps(yz, wx), sy));
    _mm256_storeu_ps(b[6], _mm256_mul_ps(_mm256_add_ps(xz, wy), sz));
    _mm256_storeu_ps(b[7], _mm256_mul_ps(_mm256_sub_ps(yz, wx), sz));
    _mm256_storeu_ps(b[8], _mm256_mul_ps(_mm256_sub_ps(one, _mm256_add_ps(xx, yy)), sz));
}

void ossa__to_model_avx2(const ossa_transform *locals, const int32_t *parents, uint32_t begin, uint32_t end,
                         ossa_mat4 *out) {
    static const ossa_mat4 identity = {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};
    const __m128 xyz = _mm_castsi128_ps(_mm_set_epi32(0, -1, -1, -1));
    float b[TERMS][BLOCK];
    for (uint32_t i0 = begin; i0 < end; i0 += BLOCK) {
        uint32_t count = end - i0 < BLOCK ? end - i0 : BLOCK;
        soa_terms(&locals[i0], count, b);
        for (uint32_t k = 0; k < count; k++) {
            uint32_t i = i0 + k;
            int32_t p = parents[i];
            const float *A = (p < 0 ? &identity : &out[p])->m; /* a select, not a branch */
            __m128 a0 = _mm_loadu_ps(A), a1 = _mm_loadu_ps(A + 4), a2 = _mm_loadu_ps(A + 8), a3 = _mm_loadu_ps(A + 12);
            float *o = out[i].m;
            for (int c = 0; c < 3; c++) {
                __m128 r = _mm_add_ps(_mm_add_ps(_mm_mul_ps(a0, _mm_broadcast_ss(&b[3 * c][k])),
                                                 _mm_mul_ps(a1, _mm_broadcast_ss(&b[3 * c + 1][k]))),
                                      _mm_mul_ps(a2, _mm_broadcast_ss(&b[3 * c + 2][k])));
                _mm_storeu_ps(o + 4 * c, _mm_and_ps(r, xyz)); /* w lane: +-0 for an affine parent, made +0 */
            }
            __m128 t = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(a0, _mm_broadcast_ss(&b[9][k])),
                                                        _mm_mul_ps(a1, _mm_broadcast_ss(&b[10][k]))),
                                             _mm_mul_ps(a2, _mm_broadcast_ss(&b[11][k]))),
                                  a3);
            _mm_storeu_ps(o + 12, t);
        }
    }
}
