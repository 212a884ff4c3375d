/* The sampling job's scalar reference kernels (decode + lerp, slerp, single keys of lifted blocks; each SIMD
 * kernel gives their bits) and the choice of the SIMD ones by the level of the one SIMD layer
 * (core/cpu.h: OSSA_SIMD=scalar|sse4|avx2|avx512 caps it). */
#include <math.h>

#include "core/cpu.h"
#include "anim/sample_internal.h"
#include "math/fast.h"

/* The dropped component of a rotation key, as ossa__packed_value rebuilds it. */
static inline float rebuild(float x, float y, float z) {
    float r2 = 1.0f - ((x * x + y * y) + z * z);
    r2 = r2 > 0.0f ? r2 : 0.0f;
    return sqrtf(r2);
}

/* Named scalars, no small arrays: GCC would pack array lanes into SSE registers through the
 * stack and stall on every store it reloads wider. */
void ossa__lerp_scalar(const ossa__lerp_soa *soa, float t, uint32_t begin, uint32_t end, bool rotation) {
    for (uint32_t i = begin; i < end; i++) {
        float s = (t - soa->t0[i]) / soa->dt[i];
        s = s > 0.0f ? s : 0.0f;
        s = s < 1.0f ? s : 1.0f;
        float m0 = soa->mn[0][i], m1 = soa->mn[1][i], m2 = soa->mn[2][i];
        float s0 = soa->st[0][i], s1 = soa->st[1][i], s2 = soa->st[2][i];
        const float *qa = soa->keys + soa->ka[i], *qb = soa->keys + soa->kb[i];
        float ax = m0 + qa[0] * s0, ay = m1 + qa[1] * s1, az = m2 + qa[2] * s2;
        float bx = m0 + qb[0] * s0, by = m1 + qb[1] * s1, bz = m2 + qb[2] * s2;
        if (!rotation) {
            soa->o[0][i] = ax + (bx - ax) * s;
            soa->o[1][i] = ay + (by - ay) * s;
            soa->o[2][i] = az + (bz - az) * s;
            continue;
        }
        float aw = rebuild(ax, ay, az), bw = rebuild(bx, by, bz);
        float d = ((ax * bx + ay * by) + az * bz) + aw * bw;
        if (d < 0.0f) { /* the shorter arc */
            bx = -bx;
            by = -by;
            bz = -bz;
            bw = -bw;
            d = -d;
        }
        float q[3];
        ossa__slerp_fit(d, q);
        s = ossa__slerp_time(s, q);
        float x = ax + (bx - ax) * s, y = ay + (by - ay) * s, z = az + (bz - az) * s, w = aw + (bw - aw) * s;
        float n = 1.0f / sqrtf(((x * x + y * y) + z * z) + w * w);
        x *= n, y *= n, z *= n, w *= n;
        if (soa->pose) { /* w to the rebuilt component, x, y, z to the others in order (selects, no branch) */
            float d = soa->drop[i], *q = soa->pose + soa->dst[i];
            q[0] = d >= 1.0f ? x : w;
            q[1] = d >= 1.0f ? (d >= 2.0f ? y : w) : x;
            q[2] = d >= 2.0f ? (d >= 3.0f ? z : w) : y;
            q[3] = d >= 3.0f ? w : z;
            continue;
        }
        soa->o[0][i] = x;
        soa->o[1][i] = y;
        soa->o[2][i] = z;
        soa->o[3][i] = w;
    }
}

void ossa__slerp_scalar(const ossa__slerp_soa *soa, uint32_t begin, uint32_t end) {
    for (uint32_t i = begin; i < end; i++) {
        float a[4], b[4], o[4];
        for (int c = 0; c < 4; c++) {
            a[c] = soa->a[c][i];
            b[c] = soa->b[c][i];
        }
        ossa__slerp4(a, b, soa->s[i], o);
        for (int c = 0; c < 4; c++) *(soa->pose ? soa->pose + soa->dst[i] + c : soa->o[c] + i) = o[c];
        soa->fallback[i] = 0;
    }
}

ossa__unpack_kernel ossa__sample_unpack(bool wide) {
    ossa__simd_level level = wide ? ossa__simd() : OSSA__SIMD_SCALAR;
#if defined(OSSA_SCALAR_ONLY)
    (void)level;
    return ossa__unpack_scalar;
#else
    return level == OSSA__SIMD_AVX512 ? ossa__unpack_avx512 : level == OSSA__SIMD_AVX2 ? ossa__unpack_avx2 : ossa__unpack_scalar;
#endif
}

/* Decodes channels [begin, end): whole vectors of the chosen kernel, then the remainder with the
 * narrowest kernel (allowed by the cap) whose vector covers it, so 4 channels left after two
 * 16-lane passes cost one 4-lane pass, not a third 16-lane one. Every kernel gives the same bits. */
void ossa__sample_decode(const ossa__lerp_soa *soa, float t, uint32_t begin, uint32_t end, bool rotation) {
    static const ossa__lerp_kernel table[] = {
        [OSSA__SIMD_SCALAR] = ossa__lerp_scalar,
#if !defined(OSSA_SCALAR_ONLY) /* there, the level is scalar: one kernel */
        [OSSA__SIMD_SSE4] = ossa__lerp_sse,
        [OSSA__SIMD_AVX2] = ossa__lerp_avx2,
        [OSSA__SIMD_AVX512] = ossa__lerp_avx512,
#endif
    };
    static const uint32_t width[] = {1, 4, 8, 16};
    int level = (int)ossa__simd();
    uint32_t n = end - begin, whole = n & ~(width[level] - 1u); /* widths are powers of two: no division */
    if (whole) table[level](soa, t, begin, begin + whole, rotation);
    if (whole == n) return;
    int k = OSSA__SIMD_SSE4;
    while (k < level && width[k] < n - whole) k++;
    table[k](soa, t, begin + whole, end, rotation);
}

ossa__slerp_kernel ossa__sample_slerp(void) {
    static const ossa__slerp_kernel table[] = {
        [OSSA__SIMD_SCALAR] = ossa__slerp_scalar,
#if !defined(OSSA_SCALAR_ONLY)
        [OSSA__SIMD_SSE4] = ossa__slerp_sse,
        [OSSA__SIMD_AVX2] = ossa__slerp_avx2,
        [OSSA__SIMD_AVX512] = ossa__slerp_avx512,
#endif
    };
    return table[ossa__simd()];
}

/* The reference single-key kernel: ossa__lift_key per key and channel. */
void ossa__key_scalar(const ossa__lift_soa *soa, const uint32_t *chan, uint32_t begin, uint32_t end, uint32_t m, uint32_t ja,
                      uint32_t jb) {
    for (uint32_t g = begin; g < end; g++) {
        float *d = soa->kq + 6u * chan[g];
        const unsigned char *s = soa->block + soa->poff[g];
        size_t table;
        uint64_t pos = ossa__lift_soa_locate(soa, g, m, &table);
        const uint32_t *fo = soa->fo + table, *fm = soa->fm + table;
        if (ja == OSSA__KEY_STEP) {
            float b0 = d[3], b1 = d[4], b2 = d[5];
            d[0] = b0;
            d[1] = b1;
            d[2] = b2;
        } else {
            ossa__lift_key(s, pos, fo, fm, ja, d);
        }
        ossa__lift_key(s, pos, fo, fm, jb, d + 3);
    }
}

/* The single-key kernel of the chosen level. */
ossa__key_kernel ossa__sample_key(void) {
    static const ossa__key_kernel table[] = {
        [OSSA__SIMD_SCALAR] = ossa__key_scalar,
#if !defined(OSSA_SCALAR_ONLY)
        [OSSA__SIMD_SSE4] = ossa__key_sse,
        [OSSA__SIMD_AVX2] = ossa__key_avx2,
        [OSSA__SIMD_AVX512] = ossa__key_avx512,
#endif
    };
    return table[ossa__simd()];
}

