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

/* 8x8 transpose: r[m] holds element m of 8 joints (lane = joint); writes joint j's 8
 * elements to dst + 16 * j. */
static inline void transpose8_store(const __m256 r[8], float *dst) {
    __m256 t[8], u[8];
    for (int k = 0; k < 4; k++) {
        t[2 * k] = _mm256_unpacklo_ps(r[2 * k], r[2 * k + 1]);
        t[2 * k + 1] = _mm256_unpackhi_ps(r[2 * k], r[2 * k + 1]);
    }
    for (int k = 0; k < 2; k++) {
        u[4 * k + 0] = _mm256_shuffle_ps(t[4 * k], t[4 * k + 2], _MM_SHUFFLE(1, 0, 1, 0));
        u[4 * k + 1] = _mm256_shuffle_ps(t[4 * k], t[4 * k + 2], _MM_SHUFFLE(3, 2, 3, 2));
        u[4 * k + 2] = _mm256_shuffle_ps(t[4 * k + 1], t[4 * k + 3], _MM_SHUFFLE(1, 0, 1, 0));
        u[4 * k + 3] = _mm256_shuffle_ps(t[4 * k + 1], t[4 * k + 3], _MM_SHUFFLE(3, 2, 3, 2));
    }
    for (int j = 0; j < 4; j++) {
        _mm256_storeu_ps(dst + 16 * j, _mm256_permute2f128_ps(u[j], u[j + 4], 0x20));
        _mm256_storeu_ps(dst + 16 * (j + 4), _mm256_permute2f128_ps(u[j], u[j + 4], 0x31));
    }
}

/* Measured on Woman (43 joints): building each local matrix in registers (AoS shuffles) and
 * multiplying two columns per 256-bit step took 214 ns; gathering SoA fields 280 ns; SoA
 * terms + 128-bit products with broadcast loads ~200 ns; this (SoA terms, transposed back to
 * 8 local matrices, then the palette's 256-bit product) less. Carrying a child's parent in
 * registers instead of reloading it was slower: the pass is throughput-bound. */
enum { BLOCK = 8 };

/* The local matrices of up to 8 joints (the scalar ossa__trs_to_mat4's operations, one joint
 * per lane) into L[joint][16], column-major with last row 0 0 0 1. */
static inline void local_block(const ossa_transform *t, uint32_t count, float L[BLOCK][16]) {
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
    const __m256 one = _mm256_set1_ps(1.0f), zero = _mm256_setzero_ps();
    __m256 x2 = _mm256_add_ps(x, x), y2 = _mm256_add_ps(y, y), z2 = _mm256_add_ps(z, z);
    __m256 xx = _mm256_mul_ps(x, x2), yy = _mm256_mul_ps(y, y2), zz = _mm256_mul_ps(z, z2);
    __m256 xy = _mm256_mul_ps(x, y2), xz = _mm256_mul_ps(x, z2), yz = _mm256_mul_ps(y, z2);
    __m256 wx = _mm256_mul_ps(w, x2), wy = _mm256_mul_ps(w, y2), wz = _mm256_mul_ps(w, z2);
    const __m256 c01[8] = {
        _mm256_mul_ps(_mm256_sub_ps(one, _mm256_add_ps(yy, zz)), sx), _mm256_mul_ps(_mm256_add_ps(xy, wz), sx),
        _mm256_mul_ps(_mm256_sub_ps(xz, wy), sx), zero,
        _mm256_mul_ps(_mm256_sub_ps(xy, wz), sy), _mm256_mul_ps(_mm256_sub_ps(one, _mm256_add_ps(xx, zz)), sy),
        _mm256_mul_ps(_mm256_add_ps(yz, wx), sy), zero};
    const __m256 c23[8] = {
        _mm256_mul_ps(_mm256_add_ps(xz, wy), sz), _mm256_mul_ps(_mm256_sub_ps(yz, wx), sz),
        _mm256_mul_ps(_mm256_sub_ps(one, _mm256_add_ps(xx, yy)), sz), zero,
        f[0][0], f[0][1], f[0][2], one};
    transpose8_store(c01, &L[0][0]);
    transpose8_store(c23, &L[0][8]);
}

void ossa__to_model_avx2(const ossa_transform *locals, const int32_t *parents, uint32_t begin, uint32_t end,
                         ossa_mat4 *out) {
    static const ossa_mat4 identity = {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};
    float L[BLOCK][16];
    for (uint32_t i0 = begin; i0 < end; i0 += BLOCK) {
        uint32_t count = end - i0 < BLOCK ? end - i0 : BLOCK;
        local_block(&locals[i0], count, L);
        for (uint32_t k = 0; k < count; k++) {
            int32_t p = parents[i0 + k];
            const ossa_mat4 *pm = p < 0 ? &identity : &out[p]; /* a select, not a branch */
            /* the 4x4 product: for an affine parent its w-row terms are exact (+0, 1) */
            mul4_x2(pm->m, L[k], out[i0 + k].m);
        }
    }
}
