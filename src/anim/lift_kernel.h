/* The lifted-block kernels' shared step (lift_avx2.c, lift_avx512.c; SSE2 integer operations, so
 * each kernel compiles it with its own ISA): the three components' keys of one block from its
 * fields, lanes 0-2 of each argument (r1, r2, r3: the residuals with their biases already
 * subtracted, modulo 2^32; ma: the anchors' masks 2^wa - 1), written as floats to kq[0 .. 15)
 * (kq[15] may be written). Bit for bit ossa__lift_component (integers below 2^25, see
 * ossa__lift_p1; the biases' 2^32 wrap vanishes under ma). */
#ifndef OSSA_ANIM_LIFT_KERNEL_H
#define OSSA_ANIM_LIFT_KERNEL_H

#include <immintrin.h>

#include "anim/built_clip_internal.h"

_Static_assert(OSSA__BC_MAX_BITS <= 22u, "2^22 vanishes under every anchor mask");

static inline void ossa__lift_keys_sse(__m128i a0, __m128i r1, __m128i r2, __m128i r3, __m128i a4, __m128i ma, float *kq) {
    /* with sk = a0 + a4 + 2^23 and P = 6 q2 + sk: 3 a0 + 6 q2 - a4 + 2^23 = P + 2 (a0 - a4) and
     * 3 a4 + 6 q2 - a0 + 2^23 = P - 2 (a0 - a4) (the 2^23 keeps them positive for the logical
     * shift); sk / 2 = (a0 + a4) / 2 + 2^22, and 2^22 vanishes under ma (wa <= 20) */
    __m128i sk = _mm_add_epi32(_mm_add_epi32(a0, a4), _mm_set1_epi32(0x800000));
    __m128i d2 = _mm_slli_epi32(_mm_sub_epi32(a0, a4), 1);
    __m128i q2 = _mm_and_si128(_mm_add_epi32(_mm_srli_epi32(sk, 1), r2), ma);
    __m128i P = _mm_add_epi32(_mm_add_epi32(_mm_slli_epi32(q2, 2), _mm_slli_epi32(q2, 1)), sk);
    __m128i q1 = _mm_and_si128(_mm_add_epi32(_mm_srli_epi32(_mm_add_epi32(P, d2), 3), r1), ma);
    __m128i q3 = _mm_and_si128(_mm_add_epi32(_mm_srli_epi32(_mm_sub_epi32(P, d2), 3), r3), ma);
    /* 4-wide stores in increasing order: each one's fourth lane is the next one's first */
    _mm_storeu_ps(kq, _mm_cvtepi32_ps(a0));
    _mm_storeu_ps(kq + 3, _mm_cvtepi32_ps(q1));
    _mm_storeu_ps(kq + 6, _mm_cvtepi32_ps(q2));
    _mm_storeu_ps(kq + 9, _mm_cvtepi32_ps(q3));
    _mm_storeu_ps(kq + 12, _mm_cvtepi32_ps(a4));
}

#endif
