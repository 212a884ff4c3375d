/* The lifted-block kernel with AVX-512 VBMI (built with -mavx512f/vl/bw/vbmi): one masked
 * 64-byte load of the block, the 15 fields picked with one byte permute (vpermb: each lane's 4
 * bytes from its field's first byte), shifted and masked per lane and the residuals' biases
 * subtracted, then the predictions on the three components at once (ossa__lift_keys_sse). Bit
 * for bit ossa__lift_scalar. */
#include <immintrin.h>

#include "anim/built_clip_internal.h"
#include "anim/lift_kernel.h"

void ossa__lift_vbmi(const ossa__lift_soa *soa, const uint32_t *chan, uint32_t count, uint32_t m) {
    const __m512i one = _mm512_set1_epi32(1), seven = _mm512_set1_epi32(7);
    const __m512i spread = _mm512_set_epi8(60, 60, 60, 60, 56, 56, 56, 56, 52, 52, 52, 52, 48, 48, 48, 48, 44, 44, 44, 44, 40, 40,
                                           40, 40, 36, 36, 36, 36, 32, 32, 32, 32, 28, 28, 28, 28, 24, 24, 24, 24, 20, 20, 20, 20,
                                           16, 16, 16, 16, 12, 12, 12, 12, 8, 8, 8, 8, 4, 4, 4, 4, 0, 0, 0, 0);
    const __m512i step = _mm512_set1_epi32(0x03020100);
    const __mmask16 resid = 0x0FF8; /* lanes 3-11: r1, r2, r3 */
    for (uint32_t j = 0; j < count; j++) {
        uint32_t i = chan[j];
        uint64_t pos = (uint64_t)m * soa->bk[i];
        const unsigned char *p = soa->block + soa->poff[i] + (pos >> 3);
        size_t avail = (size_t)(soa->end - p); /* > 0: the block is inside the stream, before the padding */
        __mmask64 k = avail >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << avail) - 1u);
        __m512i data = _mm512_maskz_loadu_epi8(k, p);
        __m512i off = _mm512_add_epi32(_mm512_loadu_si512(soa->fo + (size_t)i * 16u), _mm512_set1_epi32((int)(pos & 7u)));
        __m512i mk = _mm512_loadu_si512(soa->fm + (size_t)i * 16u);
        /* each dword lane: its field's first byte b, then bytes b .. b + 3 (b < 64) */
        __m512i idx = _mm512_add_epi8(_mm512_shuffle_epi8(_mm512_srli_epi32(off, 3), spread), step);
        __m512i f = _mm512_and_si512(_mm512_srlv_epi32(_mm512_permutexvar_epi8(idx, data), _mm512_and_si512(off, seven)), mk);
        f = _mm512_sub_epi32(f, _mm512_maskz_srli_epi32(resid, _mm512_add_epi32(mk, one), 1)); /* bias = (mask + 1) / 2 */
        /* the items' lanes 0-2: a0, r1, r2, r3, a4 */
        __m128i a0 = _mm512_castsi512_si128(f);
        __m128i r1 = _mm512_castsi512_si128(_mm512_alignr_epi32(f, f, 3));
        __m128i r2 = _mm512_castsi512_si128(_mm512_alignr_epi32(f, f, 6));
        __m128i r3 = _mm512_castsi512_si128(_mm512_alignr_epi32(f, f, 9));
        __m128i a4 = _mm512_castsi512_si128(_mm512_alignr_epi32(f, f, 12));
        ossa__lift_keys_sse(a0, r1, r2, r3, a4, _mm512_castsi512_si128(mk), soa->kq + (size_t)i * 16u);
    }
}
