/* The body of the SIMD decode + lerp kernels (ossa__lerp_soa in built_clip_internal.h),
 * written once over a vector abstraction. Included by sample_sse.c / _avx2.c / _avx512.c
 * after defining: OSSA__K_NAME (function name), OSSA__K_W (lanes), V (vector type), V_LD,
 * V_ST (unaligned load / store), V_SET1, V_ADD, V_SUB, V_MUL, V_DIV, V_SQRT, V_MIN, V_MAX (as
 * minps / maxps: the second operand unless the first is smaller / larger), V_XOR,
 * V_NEGSIGN(x) (the sign bit in every lane where x < 0, else 0), the mask type M, V_GE and
 * V_BLEND(m, x, y) (y where m, else x); within each 128-bit lane V_UNPACKLO / V_UNPACKHI
 * (unpcklps / unpckhps), V_LO64(a, b) = (a0 a1 b0 b1), V_HI64(a, b) = (a2 a3 b2 b3),
 * V_ST_LANE4(p, v, L) (store 128-bit lane L of v at p) and V_LOAD4X(base, off) (128-bit lane L
 * loaded from base + off[4 L]). Same operations in the same order as
 * ossa__lerp_scalar (sample_kernels.c), so every kernel gives its bits. */
#include "anim/built_clip_internal.h"

/* The dropped component of a rotation key from the stored three. */
#define OSSA__K_REBUILD(v)                                                                              \
    V_SQRT(V_MAX(V_SUB(one, V_ADD(V_ADD(V_MUL(v[0], v[0]), V_MUL(v[1], v[1])), V_MUL(v[2], v[2]))), zero))

/* 4 x 4 transposes within each 128-bit lane: lane L of (r0, r1, r2, r3) as rows in, as columns
 * out (out r0 = element 0 of each input, ...). */
static inline void transpose4(V *r0, V *r1, V *r2, V *r3) {
    V xy0 = V_UNPACKLO(*r0, *r1), xy1 = V_UNPACKHI(*r0, *r1), zw0 = V_UNPACKLO(*r2, *r3), zw1 = V_UNPACKHI(*r2, *r3);
    *r0 = V_LO64(xy0, zw0), *r1 = V_HI64(xy0, zw0), *r2 = V_LO64(xy1, zw1), *r3 = V_HI64(xy1, zw1);
}

/* Quaternions (x, y, z, w: SoA, channels i ..) into the pose at pose + dst[i ..], transposed so
 * channel i + 4 L + k is 128-bit lane L of the k-th: one 16-byte store a channel instead of four
 * scalar ones, the channels past `end` not stored. */
static inline void store_quats(float *pose, const uint32_t *dst, V x, V y, V z, V w, uint32_t i, uint32_t end) {
    transpose4(&x, &y, &z, &w);
    uint32_t live = end - i < OSSA__K_W ? end - i : OSSA__K_W;
    dst += i;
    for (uint32_t L = 0; L < OSSA__K_W / 4u; L++) {
        if (4 * L + 0 < live) V_ST_LANE4(pose + dst[4 * L + 0], x, L);
        if (4 * L + 1 < live) V_ST_LANE4(pose + dst[4 * L + 1], y, L);
        if (4 * L + 2 < live) V_ST_LANE4(pose + dst[4 * L + 2], z, L);
        if (4 * L + 3 < live) V_ST_LANE4(pose + dst[4 * L + 3], w, L);
    }
}

/* The three fields of the keys at keys + off[0 ..] as SoA: each key's 4 floats loaded (128-bit
 * lane L of the k-th load holds the key of off[4 L + k]), then transposed. */
static inline void load_keys(const float *keys, const uint32_t *off, V q[3]) {
    V r0 = V_LOAD4X(keys, off), r1 = V_LOAD4X(keys, off + 1), r2 = V_LOAD4X(keys, off + 2), r3 = V_LOAD4X(keys, off + 3);
    transpose4(&r0, &r1, &r2, &r3);
    q[0] = r0, q[1] = r1, q[2] = r2;
}

/* Rotations v (stored order, channels i ..) into the pose, each lane's components put in place
 * first (w to drop, by three compares and six blends). */
static inline void place_rotations(const ossa__lerp_soa *soa, V v0, V v1, V v2, V v3, uint32_t i, uint32_t end) {
    V d = V_LD(soa->drop + i);
    M m1 = V_GE(d, V_SET1(1.0f)), m2 = V_GE(d, V_SET1(2.0f)), m3 = V_GE(d, V_SET1(3.0f));
    V x = V_BLEND(m1, v3, v0), y = V_BLEND(m1, v0, V_BLEND(m2, v3, v1));
    V z = V_BLEND(m2, v1, V_BLEND(m3, v3, v2)), w = V_BLEND(m3, v2, v3);
    store_quats(soa->pose, soa->dst, x, y, z, w, i, end);
}

/* U whole vectors from channel i, each step written for all U before the next, so the U
 * chains of long-latency steps (square roots, divisions) interleave in the scheduler's window;
 * compiled once per kind and U (`rotation` and U constants: every loop has a constant bound and
 * is unrolled whole, so the small arrays stay in registers). */
#define OSSA__K_UNROLL _Pragma("GCC unroll 4")
static inline __attribute__((always_inline)) void lerp_step(const ossa__lerp_soa *soa, V vt, uint32_t i, uint32_t end,
                                                           const bool rotation, const int U) {
    const V zero = V_SET1(0.0f), one = V_SET1(1.0f), half = V_SET1(0.5f);
    /* ossa__slerp_fit's constants */
    const V a0 = V_SET1(1.0904f), a1 = V_SET1(-3.2452f), a2 = V_SET1(3.55645f), a3 = V_SET1(1.43519f);
    const V b0 = V_SET1(0.848013f), b1 = V_SET1(-1.06021f), b2 = V_SET1(0.215638f);
    const int comps = rotation ? 4 : 3;
    V s[2], a[2][4], b[2][4], v[2][4];
    OSSA__K_UNROLL
    for (int u = 0; u < U; u++) {
        uint32_t x = i + (uint32_t)u * OSSA__K_W;
        s[u] = V_DIV(V_SUB(vt, V_LD(soa->t0 + x)), V_LD(soa->dt + x));
        s[u] = V_MIN(V_MAX(s[u], zero), one);
        V qa[3], qb[3];
        load_keys(soa->keys, soa->ka + x, qa);
        load_keys(soa->keys, soa->kb + x, qb);
        for (int c = 0; c < 3; c++) {
            V mn = V_LD(soa->mn[c] + x), st = V_LD(soa->st[c] + x);
            a[u][c] = V_ADD(mn, V_MUL(qa[c], st));
            b[u][c] = V_ADD(mn, V_MUL(qb[c], st));
        }
    }
    if (rotation) {
        OSSA__K_UNROLL
        for (int u = 0; u < U; u++) {
            a[u][3] = OSSA__K_REBUILD(a[u]);
            b[u][3] = OSSA__K_REBUILD(b[u]);
        }
        OSSA__K_UNROLL
        for (int u = 0; u < U; u++) {
            V d = V_ADD(V_ADD(V_ADD(V_MUL(a[u][0], b[u][0]), V_MUL(a[u][1], b[u][1])), V_MUL(a[u][2], b[u][2])),
                        V_MUL(a[u][3], b[u][3]));
            V neg = V_NEGSIGN(d); /* the shorter arc */
            for (int c = 0; c < 4; c++) b[u][c] = V_XOR(b[u][c], neg);
            d = V_XOR(d, neg);
            V A = V_ADD(a0, V_MUL(d, V_ADD(a1, V_MUL(d, V_SUB(a2, V_MUL(d, a3))))));
            V B = V_ADD(b0, V_MUL(d, V_ADD(b1, V_MUL(d, b2))));
            V h = V_SUB(s[u], half), k = V_ADD(V_MUL(A, V_MUL(h, h)), B);
            s[u] = V_ADD(s[u], V_MUL(V_MUL(V_MUL(s[u], h), V_SUB(s[u], one)), k));
            s[u] = V_MIN(V_MAX(s[u], zero), one); /* as ossa__slerp_time: a no-op for valid keys */
        }
    }
    OSSA__K_UNROLL
    for (int u = 0; u < U; u++)
        for (int c = 0; c < comps; c++) v[u][c] = V_ADD(a[u][c], V_MUL(V_SUB(b[u][c], a[u][c]), s[u]));
    if (rotation) {
        V n[2];
        OSSA__K_UNROLL
        for (int u = 0; u < U; u++)
            n[u] = V_SQRT(V_ADD(V_ADD(V_ADD(V_MUL(v[u][0], v[u][0]), V_MUL(v[u][1], v[u][1])), V_MUL(v[u][2], v[u][2])),
                                V_MUL(v[u][3], v[u][3])));
        OSSA__K_UNROLL
        for (int u = 0; u < U; u++) n[u] = V_DIV(one, n[u]);
        OSSA__K_UNROLL
        for (int u = 0; u < U; u++)
            for (int c = 0; c < 4; c++) v[u][c] = V_MUL(v[u][c], n[u]);
        if (soa->pose) {
            OSSA__K_UNROLL
            for (int u = 0; u < U; u++)
                place_rotations(soa, v[u][0], v[u][1], v[u][2], v[u][3], i + (uint32_t)u * OSSA__K_W, end);
            return;
        }
    }
    OSSA__K_UNROLL
    for (int u = 0; u < U; u++)
        for (int c = 0; c < comps; c++) V_ST(soa->o[c] + i + (uint32_t)u * OSSA__K_W, v[u][c]);
}

/* Whole vectors (the arrays have OSSA__LERP_SLACK spare entries), two at a time. */
static inline __attribute__((always_inline)) void lerp_loop(const ossa__lerp_soa *soa, float t, uint32_t begin, uint32_t end,
                                                           const bool rotation) {
    const V vt = V_SET1(t);
    uint32_t i = begin;
    for (; i + OSSA__K_W < end; i += 2 * OSSA__K_W) lerp_step(soa, vt, i, end, rotation, 2);
    if (i < end) lerp_step(soa, vt, i, end, rotation, 1);
}

void OSSA__K_NAME(const ossa__lerp_soa *soa, float t, uint32_t begin, uint32_t end, bool rotation) {
    if (rotation)
        lerp_loop(soa, t, begin, end, true);
    else
        lerp_loop(soa, t, begin, end, false);
}

/* ossa__slerp4 (math/fast.h) over whole vectors: the same operations lane by lane; the series'
 * term count (4 / 6 / 8 by the dot) becomes a mask on the Horner steps it skips. */
void OSSA__K_SLERP_NAME(const ossa__slerp_soa *soa, uint32_t begin, uint32_t end) {
    const V zero = V_SET1(0.0f), one = V_SET1(1.0f), inf = V_SET1(INFINITY);
    const V c70 = V_SET1(0.7f), c85 = V_SET1(0.85f), c95 = V_SET1(0.95f);
    static const float u[8] = {1.0f / 3, 1.0f / 10, 1.0f / 21, 1.0f / 36, 1.0f / 55, 1.0f / 78, 1.0f / 105, 1.0f / 136};
    static const float v[8] = {1.0f / 3, 2.0f / 5, 3.0f / 7, 4.0f / 9, 5.0f / 11, 6.0f / 13, 7.0f / 15, 8.0f / 17};
    for (uint32_t i = begin; i < end; i += OSSA__K_W) {
        V a[4], b[4], t = V_LD(soa->s + i);
        for (int c = 0; c < 4; c++) {
            a[c] = V_LD(soa->a[c] + i);
            b[c] = V_LD(soa->b[c] + i);
        }
        V d = V_ADD(V_ADD(V_ADD(V_MUL(a[0], b[0]), V_MUL(a[1], b[1])), V_MUL(a[2], b[2])), V_MUL(a[3], b[3]));
        V neg = V_NEGSIGN(d);
        d = V_XOR(d, neg);
        M series = V_GE(d, c70), six = V_GE(d, c85), four = V_GE(d, c95);
        /* the steps no lane in [i, end) on the series needs are skipped (they would keep 1) */
        unsigned live = (end - i >= OSSA__K_W ? ~0u : (1u << (end - i)) - 1u) & (unsigned)V_MOVEMASK(series);
        bool eight = (live & ~(unsigned)V_MOVEMASK(six)) != 0, sixp = (live & ~(unsigned)V_MOVEMASK(four)) != 0;
        V xm1 = V_SUB(d, one), s = V_SUB(one, t), tt = V_MUL(t, t), ss = V_MUL(s, s), at = one, as = one;
        for (int k = 7; k >= 0; k--) {
            if ((k >= 6 && !eight) || (k >= 4 && !sixp)) continue;
            V uk = V_SET1(u[k]), vk = V_SET1(v[k]);
            V nt = V_ADD(one, V_MUL(V_MUL(V_SUB(V_MUL(uk, tt), vk), xm1), at));
            V ns = V_ADD(one, V_MUL(V_MUL(V_SUB(V_MUL(uk, ss), vk), xm1), as));
            if (k >= 6) { /* only with 8 terms */
                at = V_BLEND(six, nt, at);
                as = V_BLEND(six, ns, as);
            } else if (k >= 4) { /* with 6 or 8 */
                at = V_BLEND(four, nt, at);
                as = V_BLEND(four, ns, as);
            } else {
                at = nt;
                as = ns;
            }
        }
        V wa = V_MUL(s, as), wb = V_XOR(V_MUL(t, at), neg);
        V r[4];
        for (int c = 0; c < 4; c++) r[c] = V_ADD(V_MUL(a[c], wa), V_MUL(b[c], wb));
        V len = V_SQRT(V_ADD(V_ADD(V_ADD(V_MUL(r[0], r[0]), V_MUL(r[1], r[1])), V_MUL(r[2], r[2])), V_MUL(r[3], r[3])));
        M ok = V_MAND(series, V_MAND(V_GT(len, zero), V_LTM(len, inf)));
        V inv = V_DIV(one, len);
        for (int c = 0; c < 4; c++) r[c] = V_MUL(r[c], inv);
        if (soa->pose)
            store_quats(soa->pose, soa->dst, r[0], r[1], r[2], r[3], i, end);
        else
            for (int c = 0; c < 4; c++) V_ST(soa->o[c] + i, r[c]);
        unsigned bad = ~(unsigned)V_MOVEMASK(ok);
        for (uint32_t j = 0; j < OSSA__K_W; j++) soa->fallback[i + j] = (uint8_t)((bad >> j) & 1u);
    }
}
