/* The lifted-block kernel with AVX-512 (built with -mavx512f/vl/bw/dq): one 64-byte load of the
 * block (the streams are followed by OSSA__BC_READ_SLACK bytes), each of the 15 field lanes given
 * the two dwords its field starts in (two dword permutes) and funnel-shifted to its first bit (a
 * field ends at most 31 + OSSA__BC_MAX_BITS bits into them), masked, the residuals' biases taken
 * off, then the predictions on the three components at once (ossa__lift_keys_sse). Bit for bit
 * ossa__lift_scalar. */
#include <immintrin.h>

#include "anim/built_clip_internal.h"
#include "anim/lift_kernel.h"

_Static_assert(OSSA__BC_MAX_BITS + 31u <= 64u, "a field lies inside the two dwords it starts in");

void ossa__lift_avx512(const ossa__lift_soa *soa, const uint32_t *chan, uint32_t count, uint32_t m) {
    const __m512i one = _mm512_set1_epi32(1), low5 = _mm512_set1_epi32(31), w32 = _mm512_set1_epi32(32);
    const __mmask16 resid = 0x0FF8; /* lanes 3-11: r1, r2, r3 */
    const unsigned char *block = soa->block;
    const uint32_t *bk = soa->bk, *poff = soa->poff, *fo = soa->fo, *fm = soa->fm;
    float *kq = soa->kq;
    for (uint32_t j = 0; j < count; j++) {
        uint32_t i = chan[j];
        uint64_t pos = (uint64_t)m * bk[i];
        const unsigned char *p = block + poff[i] + (pos >> 3);
        __m512i data = _mm512_loadu_si512(p); /* a block's 15 fields and the bit shift (< 40 bytes); OSSA__BC_READ_SLACK */
        __m512i off = _mm512_add_epi32(_mm512_loadu_si512(fo + (size_t)i * 16u), _mm512_set1_epi32((int)(pos & 7u)));
        __m512i mk = _mm512_loadu_si512(fm + (size_t)i * 16u);
        __m512i dw = _mm512_srli_epi32(off, 5), sh = _mm512_and_si512(off, low5);
        __m512i lo = _mm512_permutexvar_epi32(dw, data), hi = _mm512_permutexvar_epi32(_mm512_add_epi32(dw, one), data);
        /* lo >> sh | hi << (32 - sh): a shift by 32 gives 0 */
        __m512i f = _mm512_or_si512(_mm512_srlv_epi32(lo, sh), _mm512_sllv_epi32(hi, _mm512_sub_epi32(w32, sh)));
        f = _mm512_and_si512(f, mk);
        f = _mm512_sub_epi32(f, _mm512_maskz_srli_epi32(resid, _mm512_add_epi32(mk, one), 1)); /* bias = (mask + 1) / 2 */
        /* the items' lanes 0-2: a0, r1, r2, r3, a4 */
        __m128i a0 = _mm512_castsi512_si128(f);
        __m128i r1 = _mm512_castsi512_si128(_mm512_alignr_epi32(f, f, 3));
        __m128i r2 = _mm512_castsi512_si128(_mm512_alignr_epi32(f, f, 6));
        __m128i r3 = _mm512_castsi512_si128(_mm512_alignr_epi32(f, f, 9));
        __m128i a4 = _mm512_castsi512_si128(_mm512_alignr_epi32(f, f, 12));
        ossa__lift_keys_sse(a0, r1, r2, r3, a4, _mm512_castsi512_si128(mk), kq + (size_t)i * 16u);
    }
}
