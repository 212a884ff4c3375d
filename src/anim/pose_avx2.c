/* AVX2 pose kernels: 256-bit products, two matrix columns per step (built with -mavx2
 * -mfma; the ISO C mode keeps -ffp-contract=off, so no FMA: the values equal the scalar
 * path's, see anim/pose_internal.h). */
#include <immintrin.h>

#include "anim/pose_block.h"

/* (AVX-512 hosts run pose_avx512.c's kernels: one whole product per step.)
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
    for (uint32_t i = 0; i < count; i++)
        mul4_x2(model[joints[i]].m, inverse_bind[i].m, out[skin_layout ? i : joints[i]].m);
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
