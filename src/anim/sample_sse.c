/* SSE4.1 kernels of the sampling job (built with -msse4.1), 4 channels per vector: decode + lerp /
 * nlerp (ossa__lerp_sse) and the exact slerp (ossa__slerp_sse). The same steps as sample_avx2.c
 * with 4 lanes; each gives the scalar kernel's bits (sample_kernels.c): the same operations in
 * the same order, lane by lane. */
#include <immintrin.h>

#include "anim/built_clip_internal.h"

enum { W = 4 }; /* channels per vector */

/* ---- small steps, each the scalar kernel's expression over 4 lanes ---- */

static inline __m128 splat(float x) { return _mm_set1_ps(x); }

/* x clamped to [0, 1] as the scalar `x > 0 ? x : 0` then `x < 1 ? x : 1` (maxps / minps return
 * their second operand unless the first is larger / smaller, so a NaN becomes 0). */
static inline __m128 clamp01(__m128 x) { return _mm_min_ps(_mm_max_ps(x, _mm_setzero_ps()), splat(1.0f)); }

/* ((x0 y0 + x1 y1) + x2 y2), and the same + x3 y3. */
static inline __m128 dot3(__m128 x0, __m128 x1, __m128 x2, __m128 y0, __m128 y1, __m128 y2) {
    return _mm_add_ps(_mm_add_ps(_mm_mul_ps(x0, y0), _mm_mul_ps(x1, y1)), _mm_mul_ps(x2, y2));
}
static inline __m128 dot4(const __m128 x[4], const __m128 y[4]) {
    return _mm_add_ps(dot3(x[0], x[1], x[2], y[0], y[1], y[2]), _mm_mul_ps(x[3], y[3]));
}

/* a + (b - a) s */
static inline __m128 lerp(__m128 a, __m128 b, __m128 s) { return _mm_add_ps(a, _mm_mul_ps(_mm_sub_ps(b, a), s)); }

/* if_true where the mask is set, else if_false */
static inline __m128 choose(__m128 mask, __m128 if_true, __m128 if_false) { return _mm_blendv_ps(if_false, if_true, mask); }

/* The sign bit in every lane where x < 0, else 0: x ^ it is |x| there, and it flips a key. */
static inline __m128 sign_if_negative(__m128 x) {
    return _mm_and_ps(_mm_cmplt_ps(x, _mm_setzero_ps()), splat(-0.0f));
}

/* The dropped component of a rotation key from the stored three: sqrt(max(1 - |xyz|^2, 0)). */
static inline __m128 rebuild_w(const __m128 q[4]) {
    __m128 r2 = _mm_sub_ps(splat(1.0f), dot3(q[0], q[1], q[2], q[0], q[1], q[2]));
    return _mm_sqrt_ps(_mm_max_ps(r2, _mm_setzero_ps()));
}

/* q scaled to unit length: q * (1 / sqrt(q . q)). */
static inline void normalize4(__m128 q[4]) {
    __m128 inv = _mm_div_ps(splat(1.0f), _mm_sqrt_ps(dot4(q, q)));
    for (int c = 0; c < 4; c++) q[c] = _mm_mul_ps(q[c], inv);
}

/* 4 x 4 transpose: (r0, r1, r2, r3) as rows in, as columns out (out r0 = element 0 of each
 * input, ...). */
static inline void transpose4(__m128 *r0, __m128 *r1, __m128 *r2, __m128 *r3) {
    __m128 xy0 = _mm_unpacklo_ps(*r0, *r1), xy1 = _mm_unpackhi_ps(*r0, *r1);
    __m128 zw0 = _mm_unpacklo_ps(*r2, *r3), zw1 = _mm_unpackhi_ps(*r2, *r3);
    *r0 = _mm_movelh_ps(xy0, zw0);
    *r1 = _mm_movehl_ps(zw0, xy0);
    *r2 = _mm_movelh_ps(xy1, zw1);
    *r3 = _mm_movehl_ps(zw1, xy1);
}

/* The three stored fields of 4 keys (keys + off[0 .. 4)) as SoA: row k holds the 4 floats of
 * the key off[k]; transposed, row c holds field c. */
static inline void load_key_fields(const float *keys, const uint32_t *off, __m128 field[3]) {
    __m128 r[4];
    for (int k = 0; k < 4; k++) r[k] = _mm_loadu_ps(keys + off[k]);
    transpose4(&r[0], &r[1], &r[2], &r[3]);
    for (int c = 0; c < 3; c++) field[c] = r[c];
}

/* 4 quaternions (SoA, channels i ..) as 4 floats each at pose + dst[i ..]: transposed, row k
 * holds channel i + k, one 16-byte store each; the channels past `end` are not stored. */
static inline void store_quats(float *pose, const uint32_t *dst, __m128 q[4], uint32_t i, uint32_t end) {
    transpose4(&q[0], &q[1], &q[2], &q[3]);
    uint32_t live = end - i < W ? end - i : W;
    for (uint32_t k = 0; k < 4; k++)
        if (k < live) _mm_storeu_ps(pose + dst[i + k], q[k]);
}

/* ---- decode + lerp / nlerp ---- */

/* One vector of channels through the phases of the scalar kernel; the two keys a and b and the
 * lerp parameter s, then the result in a. */
typedef struct segment {
    __m128 s, a[4], b[4];
} segment;

/* s = clamp((t - t0) / dt) and the three stored fields of both keys, dequantised (mn + q st). */
static inline void load_segment(const ossa__lerp_soa *soa, __m128 t, uint32_t i, segment *g) {
    g->s = clamp01(_mm_div_ps(_mm_sub_ps(t, _mm_loadu_ps(soa->t0 + i)), _mm_loadu_ps(soa->dt + i)));
    __m128 qa[3], qb[3];
    load_key_fields(soa->keys, soa->ka + i, qa);
    load_key_fields(soa->keys, soa->kb + i, qb);
    for (int c = 0; c < 3; c++) {
        __m128 mn = _mm_loadu_ps(soa->mn[c] + i), st = _mm_loadu_ps(soa->st[c] + i);
        g->a[c] = _mm_add_ps(mn, _mm_mul_ps(qa[c], st));
        g->b[c] = _mm_add_ps(mn, _mm_mul_ps(qb[c], st));
    }
}

/* ossa__nlerp_q over the lanes: u (c0 + u (c1 + u (c2 + u c3))). */
static inline __m128 nlerp_q(__m128 u, float c0, float c1, float c2, float c3) {
    __m128 p = _mm_add_ps(splat(c2), _mm_mul_ps(u, splat(c3)));
    p = _mm_add_ps(splat(c1), _mm_mul_ps(u, p));
    return _mm_mul_ps(u, _mm_add_ps(splat(c0), _mm_mul_ps(u, p)));
}

/* b flipped onto a's hemisphere (the shorter arc), then s corrected as ossa__slerp_fit and
 * ossa__slerp_time do with the (now non-negative) dot. */
static inline void correct_time(segment *g) {
    __m128 d = dot4(g->a, g->b), flip = sign_if_negative(d);
    for (int c = 0; c < 4; c++) g->b[c] = _mm_xor_ps(g->b[c], flip);
    d = _mm_xor_ps(d, flip);
    /* q_j = u (c0j + u (c1j + u (c2j + u c3j))), u = 1 - d; h = s - 1/2, x = h^2, k = q0 + x (q1 + x q2),
     * s += ((s h) (s - 1)) k, clamped */
    __m128 u = _mm_sub_ps(splat(1.0f), d);
    __m128 q0 = nlerp_q(u, OSSA__NLERP_Q0), q1 = nlerp_q(u, OSSA__NLERP_Q1), q2 = nlerp_q(u, OSSA__NLERP_Q2);
    __m128 s = g->s, h = _mm_sub_ps(s, splat(0.5f)), x = _mm_mul_ps(h, h);
    __m128 k = _mm_add_ps(q0, _mm_mul_ps(x, _mm_add_ps(q1, _mm_mul_ps(x, q2))));
    s = _mm_add_ps(s, _mm_mul_ps(_mm_mul_ps(_mm_mul_ps(s, h), _mm_sub_ps(s, splat(1.0f))), k));
    g->s = clamp01(s);
}

/* Rotations (stored order) into the pose: component 3 goes to the rebuilt component drop[i],
 * the stored three around it in order (three compares, six blends). */
static inline void place_rotations(const ossa__lerp_soa *soa, const __m128 v[4], uint32_t i, uint32_t end) {
    __m128 d = _mm_loadu_ps(soa->drop + i);
    __m128 ge1 = _mm_cmpge_ps(d, splat(1.0f)), ge2 = _mm_cmpge_ps(d, splat(2.0f)), ge3 = _mm_cmpge_ps(d, splat(3.0f));
    __m128 q[4] = {
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
static inline __attribute__((always_inline)) void lerp_vectors(const ossa__lerp_soa *soa, __m128 t, uint32_t i, uint32_t end,
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
            for (int c = 0; c < comps; c++) _mm_storeu_ps(soa->o[c] + x, g[u].a[c]);
    }
}

/* Whole vectors (the arrays have OSSA__LERP_SLACK spare entries), two at a time. */
static inline __attribute__((always_inline)) void lerp_loop(const ossa__lerp_soa *soa, float t, uint32_t begin, uint32_t end,
                                                           const bool rotation) {
    const __m128 vt = splat(t);
    uint32_t i = begin;
    for (; i + W < end; i += 2 * W) lerp_vectors(soa, vt, i, end, rotation, 2);
    if (i < end) lerp_vectors(soa, vt, i, end, rotation, 1);
}

void ossa__lerp_sse(const ossa__lerp_soa *soa, float t, uint32_t begin, uint32_t end, bool rotation) {
    if (rotation)
        lerp_loop(soa, t, begin, end, true);
    else
        lerp_loop(soa, t, begin, end, false);
}

/* ---- exact slerp ---- */

/* Eberly's series of ossa__slerp_series for 4 lanes: at = 1 + (u_k t^2 - v_k) (x - 1) at, and
 * the same for as with s = 1 - t, from k = terms - 1 down to 0, where each lane's term count is
 * 4 (x >= 0.95), 6 (x >= 0.85) or 8: steps 6, 7 only change the lanes below 0.85, steps 4, 5
 * those below 0.95 (the others keep 1). `live_mask` (bit j: lane j is wanted and on the series)
 * skips the steps no wanted lane needs. */
static inline void slerp_series(__m128 x, __m128 t, unsigned live_mask, __m128 *wa, __m128 *wb) {
    static const float u[8] = {1.0f / 3, 1.0f / 10, 1.0f / 21, 1.0f / 36, 1.0f / 55, 1.0f / 78, 1.0f / 105, 1.0f / 136};
    static const float v[8] = {1.0f / 3, 2.0f / 5, 3.0f / 7, 4.0f / 9, 5.0f / 11, 6.0f / 13, 7.0f / 15, 8.0f / 17};
    const __m128 one = splat(1.0f);
    __m128 six = _mm_cmpge_ps(x, splat(0.85f)), four = _mm_cmpge_ps(x, splat(0.95f));
    bool eight_terms = (live_mask & ~(unsigned)_mm_movemask_ps(six)) != 0;
    bool six_terms = (live_mask & ~(unsigned)_mm_movemask_ps(four)) != 0;
    __m128 xm1 = _mm_sub_ps(x, one), s = _mm_sub_ps(one, t), tt = _mm_mul_ps(t, t), ss = _mm_mul_ps(s, s);
    __m128 at = one, as = one;
    for (int k = 7; k >= 0; k--) {
        if ((k >= 6 && !eight_terms) || (k >= 4 && !six_terms)) continue;
        __m128 uk = splat(u[k]), vk = splat(v[k]);
        __m128 nt = _mm_add_ps(one, _mm_mul_ps(_mm_mul_ps(_mm_sub_ps(_mm_mul_ps(uk, tt), vk), xm1), at));
        __m128 ns = _mm_add_ps(one, _mm_mul_ps(_mm_mul_ps(_mm_sub_ps(_mm_mul_ps(uk, ss), vk), xm1), as));
        if (k < 4) { /* every lane's series has terms 0 .. 3 */
            at = nt, as = ns;
            continue;
        }
        __m128 no_term_k = k >= 6 ? six : four; /* these lanes keep 1 */
        at = choose(no_term_k, at, nt);
        as = choose(no_term_k, as, ns);
    }
    *wa = _mm_mul_ps(s, as);
    *wb = _mm_mul_ps(t, at);
}

/* ossa__slerp4 over whole vectors: the same operations lane by lane; the lanes off the series
 * (dot below 0.7) or with a zero or non-finite length are flagged for the caller's fallback. */
void ossa__slerp_sse(const ossa__slerp_soa *soa, uint32_t begin, uint32_t end) {
    for (uint32_t i = begin; i < end; i += W) {
        __m128 a[4], b[4], t = _mm_loadu_ps(soa->s + i);
        for (int c = 0; c < 4; c++) a[c] = _mm_loadu_ps(soa->a[c] + i), b[c] = _mm_loadu_ps(soa->b[c] + i);
        /* the shorter arc: |dot|, b's weight negated where the dot was negative */
        __m128 d = dot4(a, b), flip = sign_if_negative(d);
        d = _mm_xor_ps(d, flip);
        __m128 series = _mm_cmpge_ps(d, splat(0.7f));
        unsigned wanted = end - i >= W ? 0xFu : (1u << (end - i)) - 1u;
        __m128 wa, wb;
        slerp_series(d, t, wanted & (unsigned)_mm_movemask_ps(series), &wa, &wb);
        wb = _mm_xor_ps(wb, flip);
        /* r = a wa + b wb, normalised */
        __m128 r[4];
        for (int c = 0; c < 4; c++) r[c] = _mm_add_ps(_mm_mul_ps(a[c], wa), _mm_mul_ps(b[c], wb));
        __m128 len = _mm_sqrt_ps(dot4(r, r));
        __m128 finite_len = _mm_and_ps(_mm_cmpgt_ps(len, _mm_setzero_ps()), _mm_cmplt_ps(len, splat(INFINITY)));
        __m128 inv = _mm_div_ps(splat(1.0f), len);
        for (int c = 0; c < 4; c++) r[c] = _mm_mul_ps(r[c], inv);
        if (soa->pose)
            store_quats(soa->pose, soa->dst, r, i, end);
        else
            for (int c = 0; c < 4; c++) _mm_storeu_ps(soa->o[c] + i, r[c]);
        /* the fallback flags, one byte a lane */
        unsigned bad = ~(unsigned)_mm_movemask_ps(_mm_and_ps(series, finite_len));
        for (uint32_t j = 0; j < W; j++) soa->fallback[i + j] = (uint8_t)((bad >> j) & 1u);
    }
}
