/* AVX2 pose kernels (built with -mavx2 -mfma; the ISO C mode keeps -ffp-contract=off, so no
 * FMA: the values equal the scalar path's, see anim/pose_internal.h). */
#include <immintrin.h>

#include "anim/pose_block.h"
#include "anim/pose_columns.h"

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

/* Joint k of the block: model = parent * local in ossa__mat4_mul_affine_scalar's operations
 * (three terms a column, the parent's translation added last), the local's entries splat from
 * the block's SoA rows (S, row 3c + r = row r of column c) by broadcast loads. Lanes never mix,
 * so the w lanes (row 3) only feed w lanes: a rotation column's is left as computed (the chain
 * to a child is one product and two sums) and cleared where the matrix is stored; the
 * translation's is cleared before the parent's 1 is added, so memory gets exactly 0 0 0 1. */
static inline columns4 joint_product(const columns4 *a, const float *S, uint32_t k) {
    const __m128 xyz = _mm_castsi128_ps(_mm_set_epi32(0, -1, -1, -1));
    columns4 m;
    for (uint32_t c = 0; c < 4; c++) {
        __m128 r = _mm_add_ps(_mm_mul_ps(a->c[0], _mm_broadcast_ss(&S[(3 * c) * BLOCK + k])),
                              _mm_mul_ps(a->c[1], _mm_broadcast_ss(&S[(3 * c + 1) * BLOCK + k])));
        m.c[c] = _mm_add_ps(r, _mm_mul_ps(a->c[2], _mm_broadcast_ss(&S[(3 * c + 2) * BLOCK + k])));
    }
    m.c[3] = _mm_add_ps(_mm_and_ps(m.c[3], xyz), a->c[3]);
    return m;
}

/* The local matrices of a block, SoA, their 12 varying rows stored as computed (no transpose). */
static inline void local_rows(const ossa_transform *t, uint32_t count, float S[12 * BLOCK]) {
    __m256 c01[8], c23[8];
    local_soa(t, count, c01, c23);
    for (int r = 0; r < 3; r++) {
        _mm256_storeu_ps(S + r * BLOCK, c01[r]);
        _mm256_storeu_ps(S + (3 + r) * BLOCK, c01[4 + r]);
        _mm256_storeu_ps(S + (6 + r) * BLOCK, c23[r]);
        _mm256_storeu_ps(S + (9 + r) * BLOCK, c23[4 + r]);
    }
}

/* The pass is bound by the parent chains' latency (a child waits for its parent's product):
 * with 128-bit columns, a parent that is the joint just computed is taken from registers
 * (no store-to-load forward), and a child's rotation waits only for its parent's rotation.
 * Figures, and the forms tried before, in docs/performance.md ("Pose kernel designs"). */
void ossa__to_model_avx2(const ossa_transform *locals, const int32_t *parents, uint32_t begin, uint32_t end,
                         ossa_mat4 *out) {
    float S[12 * BLOCK];
    columns4 prev = {{_mm_setzero_ps(), _mm_setzero_ps(), _mm_setzero_ps(), _mm_setzero_ps()}};
    for (uint32_t i0 = begin; i0 < end; i0 += BLOCK) {
        uint32_t count = end - i0 < BLOCK ? end - i0 : BLOCK;
        local_rows(&locals[i0], count, S);
        for (uint32_t k = 0; k < count; k++) {
            uint32_t i = i0 + k;
            columns4 a = parent_columns(&prev, parents, out, i, begin);
            prev = joint_product(&a, S, k);
            store_columns(&prev, out[i].m);
        }
    }
}
