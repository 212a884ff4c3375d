/* AVX-512 pose kernels (F+VL+BW+DQ; built with -mavx512f...): one whole 4x4 product per
 * 512-bit step. Lane 4c + r of a product is column c, row r: out = sum_k A_k * B_k with
 * A_k = column k of the left matrix in all four 128-bit lanes and B_k = row k of the right
 * matrix, element c splat over 128-bit lane c (one permute). No FMA (the ISO C mode keeps
 * -ffp-contract=off): the scalar path's operations in its order, so the values are equal
 * (see anim/pose_internal.h). */
#include <immintrin.h>

#include "anim/pose_block.h"

static inline __m512 column4(const float *A, int k) {
    return _mm512_broadcast_f32x4(_mm_loadu_ps(A + 4 * k));
}

/* out = a * b, the general 4x4 product in ossa__mat4_mul's order: b's column c is in 128-bit
 * lane c, so its row k is an in-lane splat. */
static inline void mul4_x4(const float *A, const float *B, float *o) {
    __m512 b = _mm512_loadu_ps(B);
    __m512 r = _mm512_add_ps(_mm512_mul_ps(column4(A, 0), _mm512_permute_ps(b, 0x00)),
                             _mm512_mul_ps(column4(A, 1), _mm512_permute_ps(b, 0x55)));
    r = _mm512_add_ps(r, _mm512_mul_ps(column4(A, 2), _mm512_permute_ps(b, 0xAA)));
    r = _mm512_add_ps(r, _mm512_mul_ps(column4(A, 3), _mm512_permute_ps(b, 0xFF)));
    _mm512_storeu_ps(o, r);
}

void ossa__palette_avx512(const ossa_mat4 *model, const uint32_t *joints, const ossa_mat4 *inverse_bind,
                          uint32_t count, bool skin_layout, ossa_mat4 *out) {
    for (uint32_t i = 0; i < count; i++)
        mul4_x4(model[joints[i]].m, inverse_bind[i].m, out[skin_layout ? i : joints[i]].m);
}

/* Joint i's parent p is the joint the pass computed just before it (so it is in registers). */
static inline bool parent_just_computed(int32_t p, uint32_t i, uint32_t begin) {
    return p >= 0 && (uint32_t)p + 1 == i && i > begin;
}

/* out[i] = out[parent] * local[i] in ossa__mat4_mul_affine_scalar's operations: three terms
 * per entry, the parent's translation added to the translation column, last row 0 0 0 1
 * (neither last row is read). The local matrices stay SoA (8 joints a block): row k of
 * joint j is one two-source permute of the block's row-k registers, never transposed back
 * or stored. The pass is bound by the parent chains' latency (a child waits for its parent's
 * product): when the parent is the joint just computed, its columns come from the register
 * (in-register broadcasts of it before the translation add) instead of a store-to-load
 * forward. Transposing the locals back to matrices was slower, and loading a local stored as
 * two 256-bit halves with one 512-bit load much slower: that store-to-load forward fails
 * (figures in docs/performance.md, "Pose kernel designs"). */
void ossa__to_model_avx512(const ossa_transform *locals, const int32_t *parents, uint32_t begin, uint32_t end,
                           ossa_mat4 *out) {
    static const ossa_mat4 identity = {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};
    /* lane group c of row k picks column c's register: 0..7 and 8..15 (columns 0, 1) from
     * the first source, 16..23 and 24..31 (columns 2, 3) from the second; + j for joint j */
    const __m512i base = _mm512_setr_epi32(0, 0, 0, 0, 8, 8, 8, 8, 16, 16, 16, 16, 24, 24, 24, 24);
    /* the joint just computed: its upper-left 3x3 and last row (final one step before the
     * translation), and the whole matrix */
    __m512 prev3 = _mm512_setzero_ps(), prev = _mm512_setzero_ps();
    for (uint32_t i0 = begin; i0 < end; i0 += BLOCK) {
        uint32_t count = end - i0 < BLOCK ? end - i0 : BLOCK;
        __m256 c01[8], c23[8];
        local_soa(&locals[i0], count, c01, c23);
        __m512 ra[3], rb[3]; /* row k: (column 0 | column 1), (column 2 | column 3), 8 joints each */
        for (int k = 0; k < 3; k++) {
            ra[k] = _mm512_insertf32x8(_mm512_castps256_ps512(c01[k]), c01[4 + k], 1);
            rb[k] = _mm512_insertf32x8(_mm512_castps256_ps512(c23[k]), c23[4 + k], 1);
        }
        __m512i idx = base;
        for (uint32_t k = 0; k < count; k++, idx = _mm512_add_epi32(idx, _mm512_set1_epi32(1))) {
            uint32_t i = i0 + k;
            int32_t p = parents[i];
            __m512 a0, a1, a2, t; /* t: the parent's translation in lanes 12..14, 1 in lane 15 */
            if (parent_just_computed(p, i, begin)) {
                a0 = _mm512_shuffle_f32x4(prev3, prev3, 0x00), a1 = _mm512_shuffle_f32x4(prev3, prev3, 0x55);
                a2 = _mm512_shuffle_f32x4(prev3, prev3, 0xAA), t = prev; /* its lane 15 is 1 */
            } else {
                const float *A = p < 0 ? identity.m : out[p].m;
                a0 = column4(A, 0), a1 = column4(A, 1), a2 = column4(A, 2);
                t = _mm512_mask_blend_ps(0x8000, _mm512_loadu_ps(A), _mm512_set1_ps(1.0f));
            }
            __m512 r = _mm512_add_ps(_mm512_mul_ps(a0, _mm512_permutex2var_ps(ra[0], idx, rb[0])),
                                     _mm512_mul_ps(a1, _mm512_permutex2var_ps(ra[1], idx, rb[1])));
            r = _mm512_maskz_add_ps(0x7777, r, _mm512_mul_ps(a2, _mm512_permutex2var_ps(ra[2], idx, rb[2])));
            prev3 = r; /* last row 0 */
            prev = _mm512_mask_add_ps(prev3, 0xF000, prev3, t); /* + a's translation; 0 + 1 = 1 */
            _mm512_storeu_ps(out[i].m, prev);
        }
    }
}
