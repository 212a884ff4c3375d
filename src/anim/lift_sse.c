/* The single-key kernel with SSE4.1 (built with -msse4.1): see ossa__key_kernel. */
#include <immintrin.h>

#include "anim/built_clip_internal.h"
#include "anim/lift_kernel.h"

/* Four fields of a block, one a lane, from its 32-byte window (w0: bytes 0-15, w1: 16-31; off:
 * the fields' first bits in it, mk: their masks). Per lane the 4 bytes from the byte its field
 * starts in (a byte shuffle of each half), moved down to its first bit (SSE4.1 has no per-lane
 * shift: times 2^(7 - bit % 8), then a shift by 7), masked. A field ending within the window is
 * exact: what the shuffles give past it (zeros, or w1's byte 0 for a byte 32) lands above the mask,
 * and the multiply drops only bits above the field. */
static inline __m128i fields4(__m128i w0, __m128i w1, __m128i off, __m128i mk) {
    const __m128i spread = _mm_setr_epi8(0, 0, 0, 0, 4, 4, 4, 4, 8, 8, 8, 8, 12, 12, 12, 12);
    const __m128i pow2 = _mm_setr_epi8((char)128, 64, 32, 16, 8, 4, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0); /* 2^(7 - s) */
    __m128i first = _mm_srli_epi32(off, 3), shift = _mm_and_si128(off, _mm_set1_epi32(7));
    /* bytes first .. first + 3 (at most 32) of each lane; w0's shuffle zeroes 16 and up (bit 7
     * set by the saturating add), w1's below 16 (bit 7 set by the subtraction) */
    __m128i idx = _mm_add_epi32(_mm_shuffle_epi8(first, spread), _mm_set1_epi32(0x03020100));
    __m128i x = _mm_or_si128(_mm_shuffle_epi8(w0, _mm_adds_epu8(idx, _mm_set1_epi8(0x70))),
                             _mm_shuffle_epi8(w1, _mm_sub_epi8(idx, _mm_set1_epi8(16))));
    __m128i mul = _mm_shuffle_epi8(pow2, _mm_or_si128(shift, _mm_set1_epi32((int)0x80808000))); /* bytes 1-3: 0 */
    return _mm_and_si128(_mm_srli_epi32(_mm_mullo_epi32(x, mul), 7), mk);
}

/* The single-key kernel with SSE4.1: two 16-byte loads of the block's window (the streams are
 * followed by OSSA__BC_READ_SLACK bytes), the 15 fields 4 at a time by byte shuffles (fields4),
 * the residuals' biases taken off, the keys' predictions on the three components at once
 * (ossa__lift_keys_store). A block whose last field starts past OSSA__KEY_WINDOW_LAST_FIELD
 * takes the scalar decode. Bit for bit ossa__key_scalar. */
void ossa__key_sse(const ossa__lift_soa *soa, const uint32_t *chan, uint32_t begin, uint32_t end, uint32_t m, uint32_t ja,
                   uint32_t jb) {
    const __m128i one = _mm_set1_epi32(1), r1_lane = _mm_setr_epi32(0, 0, 0, -1);
    for (uint32_t g = begin; g < end; g++) {
        ossa__lift_place p;
        if (!ossa__lift_window_place(soa, chan, g, m, ja, jb, &p)) continue;
        const uint32_t *fo = p.fo, *fm = p.fm;
        __m128i w0 = _mm_loadu_si128((const __m128i *)(const void *)p.window);
        __m128i w1 = _mm_loadu_si128((const __m128i *)(const void *)(p.window + 16));
        __m128i shift = _mm_set1_epi32((int)p.shift), f[4], mk[4];
        for (int k = 0; k < 4; k++) {
            mk[k] = _mm_loadu_si128((const __m128i *)(const void *)(fm + 4 * k));
            f[k] = fields4(w0, w1, _mm_add_epi32(_mm_loadu_si128((const __m128i *)(const void *)(fo + 4 * k)), shift), mk[k]);
        }
        /* lanes 3-11 (r1, r2, r3) take their biases off: (mask + 1) / 2 */
        f[0] = _mm_sub_epi32(f[0], _mm_and_si128(_mm_srli_epi32(_mm_add_epi32(mk[0], one), 1), r1_lane));
        f[1] = _mm_sub_epi32(f[1], _mm_srli_epi32(_mm_add_epi32(mk[1], one), 1));
        f[2] = _mm_sub_epi32(f[2], _mm_srli_epi32(_mm_add_epi32(mk[2], one), 1));
        ossa__lift_keys_store(p.d, f[0], f[1], f[2], f[3], mk[0], ja, jb);
    }
}
