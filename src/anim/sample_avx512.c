/* AVX-512 kernels of the sampling job (built with -mavx512f -mavx512vl -mavx512bw -mavx512dq),
 * 16 channels per vector: decode + lerp / nlerp (ossa__lerp_avx512), the exact slerp
 * (ossa__slerp_avx512) and the raw-lane unpack (ossa__unpack_avx512, 8 lanes per gather, masked
 * tail). The same steps as sample_avx2.c with 16 lanes and mask registers; each gives the scalar
 * kernel's bits (sample_kernels.c): the same operations in the same order, lane by lane; the
 * ISO C mode keeps -ffp-contract=off, so no product is fused into a sum. */
#include <immintrin.h>

#include "anim/built_clip_internal.h"

enum { W = 16 }; /* channels per vector */

/* ---- small steps, each the scalar kernel's expression over 16 lanes ---- */

static inline __m512 splat(float x) { return _mm512_set1_ps(x); }

/* x clamped to [0, 1] as the scalar `x > 0 ? x : 0` then `x < 1 ? x : 1` (maxps / minps return
 * their second operand unless the first is larger / smaller, so a NaN becomes 0). */
static inline __m512 clamp01(__m512 x) { return _mm512_min_ps(_mm512_max_ps(x, _mm512_setzero_ps()), splat(1.0f)); }

/* ((x0 y0 + x1 y1) + x2 y2), and the same + x3 y3. */
static inline __m512 dot3(__m512 x0, __m512 x1, __m512 x2, __m512 y0, __m512 y1, __m512 y2) {
    return _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(x0, y0), _mm512_mul_ps(x1, y1)), _mm512_mul_ps(x2, y2));
}
static inline __m512 dot4(const __m512 x[4], const __m512 y[4]) {
    return _mm512_add_ps(dot3(x[0], x[1], x[2], y[0], y[1], y[2]), _mm512_mul_ps(x[3], y[3]));
}

/* a + (b - a) s */
static inline __m512 lerp(__m512 a, __m512 b, __m512 s) { return _mm512_add_ps(a, _mm512_mul_ps(_mm512_sub_ps(b, a), s)); }

/* if_true where the mask is set, else if_false */
static inline __m512 choose(__mmask16 mask, __m512 if_true, __m512 if_false) { return _mm512_mask_blend_ps(mask, if_false, if_true); }

/* The sign bit in every lane where x < 0, else 0: x ^ it is |x| there, and it flips a key. */
static inline __m512 sign_if_negative(__m512 x) {
    return _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_LT_OQ), splat(-0.0f));
}

/* The dropped component of a rotation key from the stored three: sqrt(max(1 - |xyz|^2, 0)). */
static inline __m512 rebuild_w(const __m512 q[4]) {
    __m512 r2 = _mm512_sub_ps(splat(1.0f), dot3(q[0], q[1], q[2], q[0], q[1], q[2]));
    return _mm512_sqrt_ps(_mm512_max_ps(r2, _mm512_setzero_ps()));
}

/* q scaled to unit length: q * (1 / sqrt(q . q)). */
static inline void normalize4(__m512 q[4]) {
    __m512 inv = _mm512_div_ps(splat(1.0f), _mm512_sqrt_ps(dot4(q, q)));
    for (int c = 0; c < 4; c++) q[c] = _mm512_mul_ps(q[c], inv);
}

/* 4 x 4 transposes within each 128-bit quarter: quarter h of (r0, r1, r2, r3) as rows in, as
 * columns out (out r0 = element 0 of each input's quarter, ...). */
static inline void transpose4_quarters(__m512 *r0, __m512 *r1, __m512 *r2, __m512 *r3) {
    __m512 xy0 = _mm512_unpacklo_ps(*r0, *r1), xy1 = _mm512_unpackhi_ps(*r0, *r1);
    __m512 zw0 = _mm512_unpacklo_ps(*r2, *r3), zw1 = _mm512_unpackhi_ps(*r2, *r3);
    *r0 = _mm512_shuffle_ps(xy0, zw0, _MM_SHUFFLE(1, 0, 1, 0));
    *r1 = _mm512_shuffle_ps(xy0, zw0, _MM_SHUFFLE(3, 2, 3, 2));
    *r2 = _mm512_shuffle_ps(xy1, zw1, _MM_SHUFFLE(1, 0, 1, 0));
    *r3 = _mm512_shuffle_ps(xy1, zw1, _MM_SHUFFLE(3, 2, 3, 2));
}

/* The three stored fields of 16 keys (keys + off[0 .. 16)) as SoA: row k holds the 4 floats of
 * the key off[4 q + k] in its quarter q; transposed, row c holds field c. */
static inline void load_key_fields(const float *keys, const uint32_t *off, __m512 field[3]) {
    __m512 r[4];
    for (int k = 0; k < 4; k++) {
        __m256 lo = _mm256_set_m128(_mm_loadu_ps(keys + off[4 + k]), _mm_loadu_ps(keys + off[k]));
        __m256 hi = _mm256_set_m128(_mm_loadu_ps(keys + off[12 + k]), _mm_loadu_ps(keys + off[8 + k]));
        r[k] = _mm512_insertf32x8(_mm512_castps256_ps512(lo), hi, 1);
    }
    transpose4_quarters(&r[0], &r[1], &r[2], &r[3]);
    for (int c = 0; c < 3; c++) field[c] = r[c];
}

/* 16 quaternions (SoA, channels i ..) as 4 floats each at pose + dst[i ..]: transposed, row k
 * holds channel i + 4 q + k in its quarter q, one 16-byte store each; the channels past `end`
 * are not stored. */
static inline void store_quats(float *pose, const uint32_t *dst, __m512 q[4], uint32_t i, uint32_t end) {
    transpose4_quarters(&q[0], &q[1], &q[2], &q[3]);
    uint32_t live = end - i < W ? end - i : W;
    for (uint32_t k = 0; k < 4; k++) {
        if (k < live) _mm_storeu_ps(pose + dst[i + k], _mm512_castps512_ps128(q[k]));
        if (4 + k < live) _mm_storeu_ps(pose + dst[i + 4 + k], _mm512_extractf32x4_ps(q[k], 1));
        if (8 + k < live) _mm_storeu_ps(pose + dst[i + 8 + k], _mm512_extractf32x4_ps(q[k], 2));
        if (12 + k < live) _mm_storeu_ps(pose + dst[i + 12 + k], _mm512_extractf32x4_ps(q[k], 3));
    }
}

/* ---- decode + lerp / nlerp ---- */

/* One vector of channels through the phases of the scalar kernel; the two keys a and b and the
 * lerp parameter s, then the result in a. */
typedef struct segment {
    __m512 s, a[4], b[4];
} segment;

/* s = clamp((t - t0) / dt) and the three stored fields of both keys, dequantised (mn + q st). */
static inline void load_segment(const ossa__lerp_soa *soa, __m512 t, uint32_t i, segment *g) {
    g->s = clamp01(_mm512_div_ps(_mm512_sub_ps(t, _mm512_loadu_ps(soa->t0 + i)), _mm512_loadu_ps(soa->dt + i)));
    __m512 qa[3], qb[3];
    load_key_fields(soa->keys, soa->ka + i, qa);
    load_key_fields(soa->keys, soa->kb + i, qb);
    for (int c = 0; c < 3; c++) {
        __m512 mn = _mm512_loadu_ps(soa->mn[c] + i), st = _mm512_loadu_ps(soa->st[c] + i);
        g->a[c] = _mm512_add_ps(mn, _mm512_mul_ps(qa[c], st));
        g->b[c] = _mm512_add_ps(mn, _mm512_mul_ps(qb[c], st));
    }
}

/* ossa__nlerp_q over the lanes: u (c0 + u (c1 + u (c2 + u c3))). */
static inline __m512 nlerp_q(__m512 u, float c0, float c1, float c2, float c3) {
    __m512 p = _mm512_add_ps(splat(c2), _mm512_mul_ps(u, splat(c3)));
    p = _mm512_add_ps(splat(c1), _mm512_mul_ps(u, p));
    return _mm512_mul_ps(u, _mm512_add_ps(splat(c0), _mm512_mul_ps(u, p)));
}

/* b flipped onto a's hemisphere (the shorter arc), then s corrected as ossa__slerp_fit and
 * ossa__slerp_time do with the (now non-negative) dot. */
static inline void correct_time(segment *g) {
    __m512 d = dot4(g->a, g->b), flip = sign_if_negative(d);
    for (int c = 0; c < 4; c++) g->b[c] = _mm512_xor_ps(g->b[c], flip);
    d = _mm512_xor_ps(d, flip);
    /* q_j = u (c0j + u (c1j + u (c2j + u c3j))), u = 1 - d; h = s - 1/2, x = h^2, k = q0 + x (q1 + x q2),
     * s += ((s h) (s - 1)) k, clamped */
    __m512 u = _mm512_sub_ps(splat(1.0f), d);
    __m512 q0 = nlerp_q(u, OSSA__NLERP_Q0), q1 = nlerp_q(u, OSSA__NLERP_Q1), q2 = nlerp_q(u, OSSA__NLERP_Q2);
    __m512 s = g->s, h = _mm512_sub_ps(s, splat(0.5f)), x = _mm512_mul_ps(h, h);
    __m512 k = _mm512_add_ps(q0, _mm512_mul_ps(x, _mm512_add_ps(q1, _mm512_mul_ps(x, q2))));
    s = _mm512_add_ps(s, _mm512_mul_ps(_mm512_mul_ps(_mm512_mul_ps(s, h), _mm512_sub_ps(s, splat(1.0f))), k));
    g->s = clamp01(s);
}

/* Rotations (stored order) into the pose: component 3 goes to the rebuilt component drop[i],
 * the stored three around it in order (three compares, six blends). */
static inline void place_rotations(const ossa__lerp_soa *soa, const __m512 v[4], uint32_t i, uint32_t end) {
    __m512 d = _mm512_loadu_ps(soa->drop + i);
    __mmask16 ge1 = _mm512_cmp_ps_mask(d, splat(1.0f), _CMP_GE_OQ), ge2 = _mm512_cmp_ps_mask(d, splat(2.0f), _CMP_GE_OQ);
    __mmask16 ge3 = _mm512_cmp_ps_mask(d, splat(3.0f), _CMP_GE_OQ);
    __m512 q[4] = {
        choose(ge1, v[0], v[3]),
        choose(ge1, choose(ge2, v[1], v[3]), v[0]),
        choose(ge2, choose(ge3, v[2], v[3]), v[1]),
        choose(ge3, v[3], v[2]),
    };
    store_quats(soa->pose, soa->dst, q, i, end);
}

/* n (1 or 2) vectors of channels from i, each phase for all n before the next, so the n chains
 * of long-latency steps (divisions, square roots) overlap; `rotation` and n are constants once
 * inlined, so the loops unroll whole and the segments stay in registers. */
static inline __attribute__((always_inline)) void lerp_vectors(const ossa__lerp_soa *soa, __m512 t, uint32_t i, uint32_t end,
                                                              const bool rotation, const int n) {
    segment g[2];
    /* the lerp parameter and both keys' stored fields */
#pragma GCC unroll 2
    for (int u = 0; u < n; u++) load_segment(soa, t, i + (uint32_t)u * W, &g[u]);
    if (rotation) { /* each key's dropped component, then the shorter arc and the corrected s */
#pragma GCC unroll 2
        for (int u = 0; u < n; u++) g[u].a[3] = rebuild_w(g[u].a), g[u].b[3] = rebuild_w(g[u].b);
#pragma GCC unroll 2
        for (int u = 0; u < n; u++) correct_time(&g[u]);
    }
    const int comps = rotation ? 4 : 3; /* the lerp, into a */
#pragma GCC unroll 2
    for (int u = 0; u < n; u++)
        for (int c = 0; c < comps; c++) g[u].a[c] = lerp(g[u].a[c], g[u].b[c], g[u].s);
    if (rotation) { /* nlerp: normalised */
#pragma GCC unroll 2
        for (int u = 0; u < n; u++) normalize4(g[u].a);
    }
    /* out: rotations into the pose when it is set, else every kind to o (SoA) */
#pragma GCC unroll 2
    for (int u = 0; u < n; u++) {
        uint32_t x = i + (uint32_t)u * W;
        if (rotation && soa->pose)
            place_rotations(soa, g[u].a, x, end);
        else
            for (int c = 0; c < comps; c++) _mm512_storeu_ps(soa->o[c] + x, g[u].a[c]);
    }
}

/* Whole vectors (the arrays have OSSA__LERP_SLACK spare entries), two at a time. */
static inline __attribute__((always_inline)) void lerp_loop(const ossa__lerp_soa *soa, float t, uint32_t begin, uint32_t end,
                                                           const bool rotation) {
    const __m512 vt = splat(t);
    uint32_t i = begin;
    for (; i + W < end; i += 2 * W) lerp_vectors(soa, vt, i, end, rotation, 2);
    if (i < end) lerp_vectors(soa, vt, i, end, rotation, 1);
}

void ossa__lerp_avx512(const ossa__lerp_soa *soa, float t, uint32_t begin, uint32_t end, bool rotation) {
    if (rotation)
        lerp_loop(soa, t, begin, end, true);
    else
        lerp_loop(soa, t, begin, end, false);
}

/* ---- exact slerp ---- */

/* Eberly's series of ossa__slerp_series for 16 lanes: at = 1 + (u_k t^2 - v_k) (x - 1) at, and
 * the same for as with s = 1 - t, from k = terms - 1 down to 0, where each lane's term count is
 * 4 (x >= 0.95), 6 (x >= 0.85) or 8: steps 6, 7 only change the lanes below 0.85, steps 4, 5
 * those below 0.95 (the others keep 1). `live_mask` (bit j: lane j is wanted and on the series)
 * skips the steps no wanted lane needs. */
static inline void slerp_series(__m512 x, __m512 t, unsigned live_mask, __m512 *wa, __m512 *wb) {
    static const float u[8] = {1.0f / 3, 1.0f / 10, 1.0f / 21, 1.0f / 36, 1.0f / 55, 1.0f / 78, 1.0f / 105, 1.0f / 136};
    static const float v[8] = {1.0f / 3, 2.0f / 5, 3.0f / 7, 4.0f / 9, 5.0f / 11, 6.0f / 13, 7.0f / 15, 8.0f / 17};
    const __m512 one = splat(1.0f);
    __mmask16 six = _mm512_cmp_ps_mask(x, splat(0.85f), _CMP_GE_OQ), four = _mm512_cmp_ps_mask(x, splat(0.95f), _CMP_GE_OQ);
    bool eight_terms = (live_mask & ~(unsigned)six) != 0;
    bool six_terms = (live_mask & ~(unsigned)four) != 0;
    __m512 xm1 = _mm512_sub_ps(x, one), s = _mm512_sub_ps(one, t), tt = _mm512_mul_ps(t, t), ss = _mm512_mul_ps(s, s);
    __m512 at = one, as = one;
    for (int k = 7; k >= 0; k--) {
        if ((k >= 6 && !eight_terms) || (k >= 4 && !six_terms)) continue;
        __m512 uk = splat(u[k]), vk = splat(v[k]);
        __m512 nt = _mm512_add_ps(one, _mm512_mul_ps(_mm512_mul_ps(_mm512_sub_ps(_mm512_mul_ps(uk, tt), vk), xm1), at));
        __m512 ns = _mm512_add_ps(one, _mm512_mul_ps(_mm512_mul_ps(_mm512_sub_ps(_mm512_mul_ps(uk, ss), vk), xm1), as));
        if (k < 4) { /* every lane's series has terms 0 .. 3 */
            at = nt, as = ns;
            continue;
        }
        __mmask16 no_term_k = k >= 6 ? six : four; /* these lanes keep 1 */
        at = choose(no_term_k, at, nt);
        as = choose(no_term_k, as, ns);
    }
    *wa = _mm512_mul_ps(s, as);
    *wb = _mm512_mul_ps(t, at);
}

/* ossa__slerp4 over whole vectors: the same operations lane by lane; the lanes off the series
 * (dot below 0.7) or with a zero or non-finite length are flagged for the caller's fallback. */
void ossa__slerp_avx512(const ossa__slerp_soa *soa, uint32_t begin, uint32_t end) {
    for (uint32_t i = begin; i < end; i += W) {
        __m512 a[4], b[4], t = _mm512_loadu_ps(soa->s + i);
        for (int c = 0; c < 4; c++) a[c] = _mm512_loadu_ps(soa->a[c] + i), b[c] = _mm512_loadu_ps(soa->b[c] + i);
        /* the shorter arc: |dot|, b's weight negated where the dot was negative */
        __m512 d = dot4(a, b), flip = sign_if_negative(d);
        d = _mm512_xor_ps(d, flip);
        __mmask16 series = _mm512_cmp_ps_mask(d, splat(0.7f), _CMP_GE_OQ);
        unsigned wanted = end - i >= W ? 0xFFFFu : (1u << (end - i)) - 1u;
        __m512 wa, wb;
        slerp_series(d, t, wanted & (unsigned)series, &wa, &wb);
        wb = _mm512_xor_ps(wb, flip);
        /* r = a wa + b wb, normalised */
        __m512 r[4];
        for (int c = 0; c < 4; c++) r[c] = _mm512_add_ps(_mm512_mul_ps(a[c], wa), _mm512_mul_ps(b[c], wb));
        __m512 len = _mm512_sqrt_ps(dot4(r, r));
        __mmask16 finite_len = (__mmask16)(_mm512_cmp_ps_mask(len, _mm512_setzero_ps(), _CMP_GT_OQ) &
                                           _mm512_cmp_ps_mask(len, splat(INFINITY), _CMP_LT_OQ));
        __m512 inv = _mm512_div_ps(splat(1.0f), len);
        for (int c = 0; c < 4; c++) r[c] = _mm512_mul_ps(r[c], inv);
        if (soa->pose)
            store_quats(soa->pose, soa->dst, r, i, end);
        else
            for (int c = 0; c < 4; c++) _mm512_storeu_ps(soa->o[c] + i, r[c]);
        /* the fallback flags, one byte a lane */
        unsigned bad = ~(unsigned)(series & finite_len);
        for (uint32_t j = 0; j < W; j++) soa->fallback[i + j] = (uint8_t)((bad >> j) & 1u);
    }
}

/* ---- raw-lane unpack ---- */

/* ossa__unpack_scalar 8 lanes at a time: 32-bit bit positions, one 8-qword gather (the stream
 * is followed by >= 8 readable bytes), shifted per lane; the tail masked. */
void ossa__unpack_avx512(const ossa__unpack_table *tab, const unsigned char *block, uint32_t k, uint32_t begin, uint32_t end,
                         float *out) {
    const __m256i vk = _mm256_set1_epi32((int)k), seven = _mm256_set1_epi32(7), sign = _mm256_set1_epi32(INT32_MIN);
    const __m256i byte8 = _mm256_set1_epi32(0xFF), one = _mm256_set1_epi32(1);
    for (uint32_t i = begin; i < end; i += 8u) {
        __mmask8 live = (__mmask8)(end - i >= 8u ? 0xFFu : (1u << (end - i)) - 1u);
        __m256i pos = _mm256_maskz_loadu_epi32(live, tab->pos + i);
        __m256i per = _mm256_and_si256(_mm256_srli_epi32(pos, 8), byte8);
        __m256i bit = _mm256_add_epi32(_mm256_mullo_epi32(per, vk), _mm256_and_si256(pos, byte8));
        __m256i mask = _mm256_sub_epi32(_mm256_sllv_epi32(one, _mm256_srli_epi32(pos, 16)), one); /* 32 bits: 0 - 1 */
        __m256i byte = _mm256_add_epi32(_mm256_maskz_loadu_epi32(live, tab->off + i), _mm256_srli_epi32(bit, 3));
        __m512i w = _mm512_mask_i32gather_epi64(_mm512_setzero_si512(), live, byte, block, 1);
        w = _mm512_srlv_epi64(w, _mm512_cvtepu32_epi64(_mm256_and_si256(bit, seven)));
        __m256i f = _mm512_cvtepi64_epi32(w); /* the low dwords */
        f = _mm256_add_epi32(_mm256_and_si256(f, mask), _mm256_maskz_loadu_epi32(live, tab->base + i));
        /* ossa__ord_float: top bit set: clear it; else flip every bit */
        __m256i x = _mm256_or_si256(_mm256_xor_si256(_mm256_srai_epi32(f, 31), _mm256_set1_epi32(-1)), sign);
        _mm256_mask_storeu_ps(out + i, live, _mm256_castsi256_ps(_mm256_xor_si256(f, x)));
    }
}
