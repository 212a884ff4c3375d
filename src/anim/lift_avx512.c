/* The single-key kernel with AVX-512 (built with -mavx512f/vl/bw/dq): see ossa__key_kernel. */
#include <immintrin.h>

#include "anim/built_clip_internal.h"
#include "anim/lift_kernel.h"

_Static_assert(OSSA__BC_MAX_BITS + 31u <= 64u, "a field lies inside the two dwords it starts in");

/* The single-key kernel with AVX-512: one 64-byte load of the block (the streams are followed by
 * OSSA__BC_READ_SLACK bytes; a block's fields end at most 7 + 15 OSSA__BC_MAX_BITS bits into
 * it), each of the 15 field lanes given the two dwords its field starts in (two dword permutes)
 * and funnel-shifted to its first bit, masked, the residuals' biases taken off, then the keys'
 * predictions on the three components at once (ossa__lift_keys_store). Bit for bit
 * ossa__key_scalar. */
void ossa__key_avx512(const ossa__lift_soa *soa, const uint32_t *chan, uint32_t begin, uint32_t end, uint32_t m, uint32_t ja,
                      uint32_t jb) {
    const __m512i one = _mm512_set1_epi32(1), low5 = _mm512_set1_epi32(31), w32 = _mm512_set1_epi32(32);
    const __mmask16 resid = 0x0FF8; /* lanes 3-11: r1, r2, r3 */
    for (uint32_t g = begin; g < end; g++) {
        ossa__lift_place p = ossa__lift_place_of(soa, chan, g, m);
        __m512i data = _mm512_loadu_si512(p.window); /* OSSA__BC_READ_SLACK */
        __m512i off = _mm512_add_epi32(_mm512_loadu_si512(p.fo), _mm512_set1_epi32((int)p.shift));
        __m512i mk = _mm512_loadu_si512(p.fm);
        __m512i dw = _mm512_srli_epi32(off, 5), sh = _mm512_and_si512(off, low5);
        __m512i lo = _mm512_permutexvar_epi32(dw, data), hi = _mm512_permutexvar_epi32(_mm512_add_epi32(dw, one), data);
        __m512i f = _mm512_or_si512(_mm512_srlv_epi32(lo, sh), _mm512_sllv_epi32(hi, _mm512_sub_epi32(w32, sh)));
        f = _mm512_and_si512(f, mk);
        f = _mm512_sub_epi32(f, _mm512_maskz_srli_epi32(resid, _mm512_add_epi32(mk, one), 1));
        ossa__lift_keys_store(p.d, _mm512_castsi512_si128(f), _mm512_extracti32x4_epi32(f, 1), _mm512_extracti32x4_epi32(f, 2),
                              _mm512_extracti32x4_epi32(f, 3), _mm512_castsi512_si128(mk), ja, jb);
    }
}
