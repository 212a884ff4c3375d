/* The lifted-block kernel with AVX2 (built with -mavx2): the 15 fields gathered as 32-bit
 * words at their first bytes (two 8-lane gathers; a field ends at most 7 + OSSA__BC_MAX_BITS
 * = 27 bits into its word, and the stream is followed by >= 8 readable bytes), shifted and
 * masked per lane and the residuals' biases subtracted, regrouped by item with lane permutes,
 * then the predictions on the three components at once (ossa__lift_keys_sse). Bit for bit
 * ossa__lift_scalar. */
#include <immintrin.h>

#include "anim/built_clip_internal.h"
#include "anim/lift_kernel.h"

_Static_assert(OSSA__BC_MAX_BITS + 7u <= 32u, "a field and its bit shift fit one gathered word");

/* Lanes l .. l + 2 of the 16 lanes lo (0-7), hi (8-15) into lanes 0-2 of an xmm. */
static inline __m128i lanes3(__m256i lo, __m256i hi, int l) {
    __m256i idx = _mm256_add_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(l & 7));
    __m256i a = _mm256_permutevar8x32_epi32(l < 8 ? lo : hi, idx);
    if (l == 6) /* lanes 6, 7 from lo, lane 8 from hi */
        a = _mm256_blend_epi32(a, _mm256_permutevar8x32_epi32(hi, _mm256_setr_epi32(6, 7, 0, 1, 2, 3, 4, 5)), 0x04);
    return _mm256_castsi256_si128(a);
}

void ossa__lift_avx2(const ossa__lift_soa *soa, const uint32_t *chan, uint32_t count, uint32_t m) {
    const __m256i one = _mm256_set1_epi32(1), seven = _mm256_set1_epi32(7);
    /* lanes 3-11 (r1, r2, r3) take their biases off */
    const __m256i resid_lo = _mm256_setr_epi32(0, 0, 0, -1, -1, -1, -1, -1), resid_hi = _mm256_setr_epi32(-1, -1, -1, -1, 0, 0, 0, 0);
    for (uint32_t j = 0; j < count; j++) {
        uint32_t i = chan[j];
        uint64_t pos = (uint64_t)m * soa->bk[i];
        const int *p = (const int *)(const void *)(soa->block + soa->poff[i] + (pos >> 3));
        __m256i shift = _mm256_set1_epi32((int)(pos & 7u));
        const __m256i *fo = (const __m256i *)(const void *)(soa->fo + (size_t)i * 16u);
        const __m256i *fm = (const __m256i *)(const void *)(soa->fm + (size_t)i * 16u);
        __m256i off_lo = _mm256_add_epi32(_mm256_loadu_si256(fo), shift), off_hi = _mm256_add_epi32(_mm256_loadu_si256(fo + 1), shift);
        __m256i mk_lo = _mm256_loadu_si256(fm), mk_hi = _mm256_loadu_si256(fm + 1);
        __m256i lo = _mm256_i32gather_epi32(p, _mm256_srli_epi32(off_lo, 3), 1);
        __m256i hi = _mm256_i32gather_epi32(p, _mm256_srli_epi32(off_hi, 3), 1);
        lo = _mm256_and_si256(_mm256_srlv_epi32(lo, _mm256_and_si256(off_lo, seven)), mk_lo);
        hi = _mm256_and_si256(_mm256_srlv_epi32(hi, _mm256_and_si256(off_hi, seven)), mk_hi);
        lo = _mm256_sub_epi32(lo, _mm256_and_si256(_mm256_srli_epi32(_mm256_add_epi32(mk_lo, one), 1), resid_lo));
        hi = _mm256_sub_epi32(hi, _mm256_and_si256(_mm256_srli_epi32(_mm256_add_epi32(mk_hi, one), 1), resid_hi));
        /* a0, r1, r2, r3, a4 in lanes 0-2 */
        ossa__lift_keys_sse(_mm256_castsi256_si128(lo), lanes3(lo, hi, 3), lanes3(lo, hi, 6), lanes3(lo, hi, 9), lanes3(lo, hi, 12),
                            _mm256_castsi256_si128(mk_lo), soa->kq + (size_t)i * 16u);
    }
}
