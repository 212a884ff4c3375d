/* The lifted-block kernels' shared step (lift_avx2.c, lift_avx512.c; SSE2 integer operations, so
 * each kernel compiles it with its own ISA): the three components' keys of one block from its
 * fields, lanes 0-2 of each argument (r1, r2, r3: the residuals with their biases already
 * subtracted, modulo 2^32; ma: the anchors' masks 2^wa - 1), written as floats to kq[0 .. 15)
 * (kq[15] may be written). Bit for bit ossa__lift_component (integers below 2^25, see
 * ossa__lift_p1; the biases' 2^32 wrap vanishes under ma). */
#ifndef OSSA_ANIM_LIFT_KERNEL_H
#define OSSA_ANIM_LIFT_KERNEL_H

#include <immintrin.h>

static inline void ossa__lift_keys_sse(__m128i a0, __m128i r1, __m128i r2, __m128i r3, __m128i a4, __m128i ma, float *kq) {
    const __m128i k8 = _mm_set1_epi32(0x800000);
    __m128i q2 = _mm_and_si128(_mm_add_epi32(_mm_srli_epi32(_mm_add_epi32(a0, a4), 1), r2), ma);
    __m128i q26 = _mm_add_epi32(_mm_slli_epi32(q2, 2), _mm_slli_epi32(q2, 1));
    __m128i a03 = _mm_add_epi32(_mm_slli_epi32(a0, 1), a0), a43 = _mm_add_epi32(_mm_slli_epi32(a4, 1), a4);
    __m128i q1 = _mm_srli_epi32(_mm_sub_epi32(_mm_add_epi32(_mm_add_epi32(a03, q26), k8), a4), 3);
    __m128i q3 = _mm_srli_epi32(_mm_sub_epi32(_mm_add_epi32(_mm_add_epi32(a43, q26), k8), a0), 3);
    q1 = _mm_and_si128(_mm_add_epi32(q1, r1), ma);
    q3 = _mm_and_si128(_mm_add_epi32(q3, r3), ma);
    /* 4-wide stores in increasing order: each one's fourth lane is the next one's first */
    _mm_storeu_ps(kq, _mm_cvtepi32_ps(a0));
    _mm_storeu_ps(kq + 3, _mm_cvtepi32_ps(q1));
    _mm_storeu_ps(kq + 6, _mm_cvtepi32_ps(q2));
    _mm_storeu_ps(kq + 9, _mm_cvtepi32_ps(q3));
    _mm_storeu_ps(kq + 12, _mm_cvtepi32_ps(a4));
}

#endif
