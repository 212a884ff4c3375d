/* The single-key kernel with AVX2 (built with -mavx2): see ossa__key_kernel. */
#include <immintrin.h>

#include "anim/built_clip_internal.h"
#include "anim/lift_kernel.h"

/* The fields of one block, 8 lanes, from its first 32 bytes: per lane the two dwords its field
 * starts in (two dword permutes), funnel-shifted to its first bit, masked. A field ending within
 * the 256 bits is exact (in the last dword the wrapped second dword's bits fall above the mask). */
static inline __m256i fields8(__m256i data, __m256i off, __m256i mk) {
    __m256i dw = _mm256_srli_epi32(off, 5), sh = _mm256_and_si256(off, _mm256_set1_epi32(31));
    __m256i lo = _mm256_permutevar8x32_epi32(data, dw);
    __m256i hi = _mm256_permutevar8x32_epi32(data, _mm256_add_epi32(dw, _mm256_set1_epi32(1)));
    /* a shift by 32 gives 0 */
    __m256i f = _mm256_or_si256(_mm256_srlv_epi32(lo, sh), _mm256_sllv_epi32(hi, _mm256_sub_epi32(_mm256_set1_epi32(32), sh)));
    return _mm256_and_si256(f, mk);
}

/* The single-key kernel with AVX2: one 32-byte load of the block (the streams are followed by
 * OSSA__BC_READ_SLACK bytes), the 15 fields by dword permutes (fields8), the residuals' biases
 * taken off, the keys' predictions on the three components at once (ossa__lift_keys_store). A
 * block whose last field starts past OSSA__KEY_WINDOW_LAST_FIELD takes the scalar decode. Bit for
 * bit ossa__key_scalar. */
void ossa__key_avx2(const ossa__lift_soa *soa, const uint32_t *chan, uint32_t begin, uint32_t end, uint32_t m, uint32_t ja,
                    uint32_t jb) {
    const __m256i one = _mm256_set1_epi32(1);
    /* lanes 3-11 (r1, r2, r3) take their biases off */
    const __m256i resid_lo = _mm256_setr_epi32(0, 0, 0, -1, -1, -1, -1, -1), resid_hi = _mm256_setr_epi32(-1, -1, -1, -1, 0, 0, 0, 0);
    for (uint32_t g = begin; g < end; g++) {
        ossa__lift_place p;
        if (!ossa__lift_window_place(soa, chan, g, m, ja, jb, &p)) continue;
        const uint32_t *fo = p.fo, *fm = p.fm;
        __m256i data = _mm256_loadu_si256((const __m256i *)(const void *)p.window);
        __m256i shift = _mm256_set1_epi32((int)p.shift);
        __m256i mk_lo = _mm256_loadu_si256((const __m256i *)(const void *)fm), mk_hi = _mm256_loadu_si256((const __m256i *)(const void *)(fm + 8));
        __m256i lo = fields8(data, _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)(const void *)fo), shift), mk_lo);
        __m256i hi = fields8(data, _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)(const void *)(fo + 8)), shift), mk_hi);
        lo = _mm256_sub_epi32(lo, _mm256_and_si256(_mm256_srli_epi32(_mm256_add_epi32(mk_lo, one), 1), resid_lo));
        hi = _mm256_sub_epi32(hi, _mm256_and_si256(_mm256_srli_epi32(_mm256_add_epi32(mk_hi, one), 1), resid_hi));
        ossa__lift_keys_store(p.d, _mm256_castsi256_si128(lo), _mm256_extracti128_si256(lo, 1), _mm256_castsi256_si128(hi),
                              _mm256_extracti128_si256(hi, 1), _mm256_castsi256_si128(mk_lo), ja, jb);
    }
}
