/* The single-key kernels' shared steps (lift_sse.c, lift_avx2.c, lift_avx512.c; SSE2 / SSSE3 /
 * SSE4.1 operations, so each kernel compiles them with its own ISA). */
#ifndef OSSA_ANIM_LIFT_KERNEL_H
#define OSSA_ANIM_LIFT_KERNEL_H

#include <immintrin.h>

#include "anim/built_clip_internal.h"

_Static_assert(OSSA__BC_MAX_BITS <= 22u, "2^22 vanishes under every anchor mask");

/* Key j (0 .. 4) of one block, the three components at once, from its fields in lanes 0-2 of
 * each argument (r1, r2, r3: the residuals with their biases already subtracted, modulo 2^32;
 * ma: the anchors' masks 2^wa - 1), as integers in lanes 0-2. Bit for bit ossa__lift_component
 * (integers below 2^25, see ossa__lift_p1; the biases' 2^32 wrap vanishes under ma). */
static inline __m128i ossa__lift_key_sse(__m128i a0, __m128i r1, __m128i r2, __m128i r3, __m128i a4, __m128i ma, uint32_t j) {
    if (j == 0) return a0;
    if (j == 4) return a4;
    /* with sk = a0 + a4 + 2^23 and P = 6 q2 + sk: 3 a0 + 6 q2 - a4 + 2^23 = P + 2 (a0 - a4) and
     * 3 a4 + 6 q2 - a0 + 2^23 = P - 2 (a0 - a4) (the 2^23 keeps them positive for the logical
     * shift); sk / 2 = (a0 + a4) / 2 + 2^22, and 2^22 vanishes under ma (wa <= 20) */
    __m128i sk = _mm_add_epi32(_mm_add_epi32(a0, a4), _mm_set1_epi32(0x800000));
    __m128i q2 = _mm_and_si128(_mm_add_epi32(_mm_srli_epi32(sk, 1), r2), ma);
    if (j == 2) return q2;
    __m128i P = _mm_add_epi32(_mm_add_epi32(_mm_slli_epi32(q2, 2), _mm_slli_epi32(q2, 1)), sk);
    __m128i d2 = _mm_slli_epi32(_mm_sub_epi32(a0, a4), 1);
    if (j == 1) return _mm_and_si128(_mm_add_epi32(_mm_srli_epi32(_mm_add_epi32(P, d2), 3), r1), ma);
    return _mm_and_si128(_mm_add_epi32(_mm_srli_epi32(_mm_sub_epi32(P, d2), 3), r3), ma);
}

/* A block's last field (a4's component 2: the next block's anchors follow the block's bits)
 * starting at most this many bits in has every field end within the 32 bytes from its first
 * byte (its bit shift is at most 7): the AVX2 and SSE4.1 kernels read that window, and take the
 * scalar decode for a block whose last field starts later. */
#define OSSA__KEY_WINDOW_LAST_FIELD 229u
_Static_assert(OSSA__KEY_WINDOW_LAST_FIELD + 7u + OSSA__BC_MAX_BITS <= 256u, "the fields lie within one 32-byte window");

/* Where the single-key kernels find channel g's block m (ossa__lift_soa): its keys in the pool
 * (d), the block's first byte (window) and first bit in it (shift, 0 .. 7), its field tables
 * (fo, fm). */
typedef struct ossa__lift_place {
    float *d;
    const unsigned char *window;
    uint32_t shift;
    const uint32_t *fo, *fm;
} ossa__lift_place;
static inline ossa__lift_place ossa__lift_place_of(const ossa__lift_soa *soa, const uint32_t *chan, uint32_t g, uint32_t m) {
    size_t table;
    uint64_t pos = ossa__lift_soa_locate(soa, g, m, &table);
    ossa__lift_place p = {soa->kq + 6u * chan[g], soa->block + soa->poff[g] + (pos >> 3), (uint32_t)(pos & 7u),
                          soa->fo + table, soa->fm + table};
    return p;
}

/* For the kernels that read a block's 32-byte window (SSE4.1, AVX2): channel g's block m in *p,
 * true; or, when the block's last field starts past OSSA__KEY_WINDOW_LAST_FIELD, its keys
 * decoded by the scalar kernel and false. */
static inline bool ossa__lift_window_place(const ossa__lift_soa *soa, const uint32_t *chan, uint32_t g, uint32_t m,
                                           uint32_t ja, uint32_t jb, ossa__lift_place *p) {
    *p = ossa__lift_place_of(soa, chan, g, m);
    if (p->fo[14] <= OSSA__KEY_WINDOW_LAST_FIELD) return true;
    ossa__key_scalar(soa, chan, g, g + 1u, m, ja, jb);
    return false;
}

/* A channel's keys at d (key a d[0 .. 3), key b d[3 .. 6)): key b becomes key a and q's lanes
 * 0-2, as floats, key b. Reads d[6], writes only d[0 .. 6). */
static inline void ossa__key_store(float *d, __m128i q) {
    __m128 b = _mm_loadu_ps(d + 3), v = _mm_cvtepi32_ps(q);
    _mm_storeu_ps(d, _mm_blend_ps(b, _mm_shuffle_ps(v, v, 0), 8)); /* b0 b1 b2 v0 */
    _mm_storel_epi64((__m128i *)(void *)(d + 4), _mm_castps_si128(_mm_shuffle_ps(v, v, _MM_SHUFFLE(3, 3, 2, 1))));
}

/* Keys a and b at d (d[0 .. 3), d[3 .. 6)) from qa's and qb's lanes 0-2, as floats. Writes only
 * d[0 .. 6). */
static inline void ossa__keys_store(float *d, __m128i qa, __m128i qb) {
    __m128 a = _mm_cvtepi32_ps(qa), b = _mm_cvtepi32_ps(qb);
    _mm_storeu_ps(d, _mm_blend_ps(a, _mm_shuffle_ps(b, b, 0), 8)); /* a0 a1 a2 b0 */
    _mm_storel_epi64((__m128i *)(void *)(d + 4), _mm_castps_si128(_mm_shuffle_ps(b, b, _MM_SHUFFLE(3, 3, 2, 1))));
}

/* The keys of one channel from its block's 16 field lanes, 4 a vector (f0: a0 and r1's first,
 * f1: r1, r2, f2: r2's last and r3, f3: a4; the residuals' biases already taken off; ma: the
 * anchors' masks, lanes 0-2): key b (jb) to d[3 .. 6) and key a (ja) to d[0 .. 3), or, ja =
 * OSSA__KEY_STEP, key b moved to key a (ossa__key_kernel). */
static inline void ossa__lift_keys_store(float *d, __m128i f0, __m128i f1, __m128i f2, __m128i f3, __m128i ma, uint32_t ja,
                                         uint32_t jb) {
    __m128i r1 = _mm_alignr_epi8(f1, f0, 12), r2 = _mm_alignr_epi8(f2, f1, 8), r3 = _mm_srli_si128(f2, 4);
    __m128i qb = ossa__lift_key_sse(f0, r1, r2, r3, f3, ma, jb);
    if (ja == OSSA__KEY_STEP)
        ossa__key_store(d, qb);
    else
        ossa__keys_store(d, ossa__lift_key_sse(f0, r1, r2, r3, f3, ma, ja), qb);
}

#endif
