/* AVX2 pose kernels: 256-bit products, two matrix columns per step (built with -mavx2
 * -mfma; the ISO C mode keeps -ffp-contract=off, so no FMA: the values equal the scalar
 * path's, see anim/pose_internal.h). */
#include <immintrin.h>

#include "anim/pose_internal.h"

/* out = a * b (4x4, ossa__mat4_mul's order), two columns per 256-bit step: a's columns
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

/* Local matrix columns of t in registers (the scalar ossa__trs_to_mat4's operations, lane
 * by lane), then parent * local two columns per step. No memory round trip for the local
 * matrix: a 256-bit reload of scalar stores would stall on store forwarding. */
static inline void joint_x2(const ossa_transform *t, const float *A, float *o) {
    const __m128 one = _mm_set1_ps(1.0f), xyz = _mm_castsi128_ps(_mm_set_epi32(0, -1, -1, -1));
    __m128 q = _mm_loadu_ps(&t->rotation.x), q2 = _mm_add_ps(q, q); /* x y z w, 2x 2y 2z 2w */
    /* diagonal: 1 - (yy + zz), 1 - (xx + zz), 1 - (xx + yy) */
    __m128 u = _mm_mul_ps(_mm_shuffle_ps(q, q, _MM_SHUFFLE(3, 0, 0, 1)), _mm_shuffle_ps(q2, q2, _MM_SHUFFLE(3, 0, 0, 1)));
    __m128 v = _mm_mul_ps(_mm_shuffle_ps(q, q, _MM_SHUFFLE(3, 1, 2, 2)), _mm_shuffle_ps(q2, q2, _MM_SHUFFLE(3, 1, 2, 2)));
    __m128 d = _mm_sub_ps(one, _mm_add_ps(u, v));
    /* xy xz yz and wz wy wx */
    __m128 pr = _mm_mul_ps(_mm_shuffle_ps(q, q, _MM_SHUFFLE(3, 1, 0, 0)), _mm_shuffle_ps(q2, q2, _MM_SHUFFLE(3, 2, 2, 1)));
    __m128 qr = _mm_mul_ps(_mm_shuffle_ps(q, q, _MM_SHUFFLE(3, 3, 3, 3)), _mm_shuffle_ps(q2, q2, _MM_SHUFFLE(3, 0, 1, 2)));
    __m128 pl = _mm_add_ps(pr, qr), mi = _mm_sub_ps(pr, qr); /* xy+wz xz+wy yz+wx, xy-wz xz-wy yz-wx */
    __m128 c0 = _mm_shuffle_ps(_mm_unpacklo_ps(d, pl), mi, _MM_SHUFFLE(1, 1, 1, 0));     /* d0 p0 m1 */
    __m128 c1 = _mm_shuffle_ps(_mm_shuffle_ps(mi, d, _MM_SHUFFLE(1, 1, 0, 0)), pl, _MM_SHUFFLE(2, 2, 2, 0)); /* m0 d1 p2 */
    __m128 c2 = _mm_shuffle_ps(_mm_shuffle_ps(pl, mi, _MM_SHUFFLE(2, 2, 1, 1)), d, _MM_SHUFFLE(2, 2, 2, 0)); /* p1 m2 d2 */
    __m256 s01 = _mm256_set_m128(_mm_set1_ps(t->scale.y), _mm_set1_ps(t->scale.x));
    __m256 l01 = _mm256_and_ps(_mm256_mul_ps(_mm256_set_m128(c1, c0), s01), _mm256_set_m128(xyz, xyz));
    __m128 c2s = _mm_and_ps(_mm_mul_ps(c2, _mm_set1_ps(t->scale.z)), xyz);
    __m128 c3 = _mm_blend_ps(_mm_loadu_ps(&t->translation.x), one, 8); /* tx ty tz 1 */
    __m256 l23 = _mm256_set_m128(c3, c2s);
    /* the parent's columns in both halves (loads, no shuffle) */
    __m256 a0 = _mm256_broadcast_ps((const __m128 *)A), a1 = _mm256_broadcast_ps((const __m128 *)(A + 4)),
           a2 = _mm256_broadcast_ps((const __m128 *)(A + 8)), a3 = _mm256_broadcast_ps((const __m128 *)(A + 12));
    __m256 b[2] = {l01, l23};
    for (int h = 0; h < 2; h++) {
        __m256 rr = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(a0, _mm256_permute_ps(b[h], 0x00)),
                                                             _mm256_mul_ps(a1, _mm256_permute_ps(b[h], 0x55))),
                                               _mm256_mul_ps(a2, _mm256_permute_ps(b[h], 0xAA))),
                                 _mm256_mul_ps(a3, _mm256_permute_ps(b[h], 0xFF)));
        _mm256_storeu_ps(o + 8 * h, rr);
    }
}

/* Carrying a child's parent in registers instead of reloading it (36 of Woman's 43 joints
 * follow their parent) was measured slower: the pass is throughput-bound, not latency-bound. */
void ossa__to_model_avx2(const ossa_transform *locals, const int32_t *parents, uint32_t begin, uint32_t end,
                         ossa_mat4 *out) {
    static const ossa_mat4 identity = {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};
    for (uint32_t i = begin; i < end; i++) {
        int32_t p = parents[i];
        const ossa_mat4 *pm = p < 0 ? &identity : &out[p]; /* a select, not a branch */
        joint_x2(&locals[i], pm->m, out[i].m);
    }
}
