/* AVX2 + FMA linear blend and dual quaternion skinning (see dqs_block). Per vertex the
 * blended matrix Σ wᵢ·Mᵢ is two ymm (two columns each, FMA by a broadcast weight). With
 * packed streams, 8 vertices go at once: the blended matrices are transposed to SoA,
 * positions/normals de-interleaved with blends + one permute per component, tangents
 * with an unpack transpose, then plain FMAs over 8 lanes and rsqrt + one Newton step;
 * zero-weight vertices are copied by blends. Range ends and strided streams use a
 * packed scratch copy. */
#include "skin_internal.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>

static inline __attribute__((always_inline)) void blend_matrix(const ossa_skin_job *job, uint32_t v, const uint32_t k,
                                                              __m256 *c01_out, __m256 *c23_out) {
    const uint16_t *jv = job->joints + (size_t)v * k;
    const float *wv = job->weights + (size_t)v * k;
    const float *m = job->palette[jv[0]].m;
    __m256 w = _mm256_broadcast_ss(wv);
    __m256 c01 = _mm256_mul_ps(w, _mm256_loadu_ps(m)), c23 = _mm256_mul_ps(w, _mm256_loadu_ps(m + 8));
    for (uint32_t i = 1; i < k; i++) {
        m = job->palette[jv[i]].m;
        w = _mm256_broadcast_ss(wv + i);
        c01 = _mm256_fmadd_ps(w, _mm256_loadu_ps(m), c01);
        c23 = _mm256_fmadd_ps(w, _mm256_loadu_ps(m + 8), c23);
    }
    *c01_out = c01, *c23_out = c23;
}

/* ---- 8-vertex SoA block. Lane l holds vertex SIGMA[l] = (0 2 4 6 1 3 5 7), the order
 * in which an unpack-based 4x8 transpose leaves xyzw tangents, so they need no permute. */
static const int SIGMA[8] = {0, 2, 4, 6, 1, 3, 5, 7};

typedef struct tables {
    __m256i de3[3]; /* after the blends, component c to lane order */
    __m256i in3[3]; /* component c from lane order to lanes (3i + c) mod 8 */
} tables;

static void make_tables(tables *t) {
    int32_t a[8], b[8];
    for (int c = 0; c < 3; c++) {
        for (int l = 0; l < 8; l++) a[l] = (3 * SIGMA[l] + c) % 8;
        for (int i = 0; i < 8; i++) b[(3 * i + c) % 8] = (i % 2) ? 4 + i / 2 : i / 2; /* lane of vertex i */
        t->de3[c] = _mm256_loadu_si256((const __m256i *)(const void *)a);
        t->in3[c] = _mm256_loadu_si256((const __m256i *)(const void *)b);
    }
}

static inline void load3(const tables *t, const float *src, __m256 out[3]) {
    __m256 p0 = _mm256_loadu_ps(src), p1 = _mm256_loadu_ps(src + 8), p2 = _mm256_loadu_ps(src + 16);
    out[0] = _mm256_permutevar8x32_ps(_mm256_blend_ps(_mm256_blend_ps(p0, p1, 0x92), p2, 0x24), t->de3[0]);
    out[1] = _mm256_permutevar8x32_ps(_mm256_blend_ps(_mm256_blend_ps(p0, p1, 0x24), p2, 0x49), t->de3[1]);
    out[2] = _mm256_permutevar8x32_ps(_mm256_blend_ps(_mm256_blend_ps(p0, p1, 0x49), p2, 0x92), t->de3[2]);
}

static inline void store3(const tables *t, float *dst, const __m256 in[3]) {
    __m256 x = _mm256_permutevar8x32_ps(in[0], t->in3[0]), y = _mm256_permutevar8x32_ps(in[1], t->in3[1]);
    __m256 z = _mm256_permutevar8x32_ps(in[2], t->in3[2]);
    _mm256_storeu_ps(dst, _mm256_blend_ps(_mm256_blend_ps(x, y, 0x92), z, 0x24));
    _mm256_storeu_ps(dst + 8, _mm256_blend_ps(_mm256_blend_ps(x, y, 0x24), z, 0x49));
    _mm256_storeu_ps(dst + 16, _mm256_blend_ps(_mm256_blend_ps(x, y, 0x49), z, 0x92));
}

static inline void normalize_soa(__m256 v[3]) {
    __m256 l2 = _mm256_fmadd_ps(v[2], v[2], _mm256_fmadd_ps(v[1], v[1], _mm256_mul_ps(v[0], v[0])));
    __m256 y = _mm256_rsqrt_ps(l2);
    y = _mm256_mul_ps(y, _mm256_fnmadd_ps(_mm256_mul_ps(_mm256_set1_ps(0.5f), l2), _mm256_mul_ps(y, y),
                                          _mm256_set1_ps(1.5f)));
    __m256 ok = _mm256_cmp_ps(l2, _mm256_set1_ps(1e-24f), _CMP_GT_OQ);
    for (int c = 0; c < 3; c++) v[c] = _mm256_blendv_ps(v[c], _mm256_mul_ps(v[c], y), ok);
}

static inline void xform_soa(__m256 m[3][4], const __m256 in[3], bool point, __m256 out[3]) {
    for (int r = 0; r < 3; r++) {
        __m256 acc = point ? _mm256_fmadd_ps(m[r][0], in[0], m[r][3]) : _mm256_mul_ps(m[r][0], in[0]);
        acc = _mm256_fmadd_ps(m[r][1], in[1], acc);
        out[r] = _mm256_fmadd_ps(m[r][2], in[2], acc);
    }
}

/* 8 rows of two columns each (c01 or c23) → out[row][col] for rows 0-2, 8 lanes. */
static inline void transpose_half(const __m256 r[8], __m256 out[3][2]) {
    __m256 s[8], a[3][2];
    for (int i = 0; i < 8; i += 2) s[i] = _mm256_unpacklo_ps(r[i], r[i + 1]), s[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
    for (int g = 0; g < 2; g++) {
        __m256d s0 = _mm256_castps_pd(s[4 * g]), s1 = _mm256_castps_pd(s[4 * g + 1]);
        __m256d s2 = _mm256_castps_pd(s[4 * g + 2]), s3 = _mm256_castps_pd(s[4 * g + 3]);
        a[0][g] = _mm256_castpd_ps(_mm256_unpacklo_pd(s0, s2));
        a[1][g] = _mm256_castpd_ps(_mm256_unpackhi_pd(s0, s2));
        a[2][g] = _mm256_castpd_ps(_mm256_unpacklo_pd(s1, s3));
    }
    for (int e = 0; e < 3; e++) {
        out[e][0] = _mm256_permute2f128_ps(a[e][0], a[e][1], 0x20);
        out[e][1] = _mm256_permute2f128_ps(a[e][0], a[e][1], 0x31);
    }
}

/* All-ones lanes (in SIGMA lane order) for vertices whose weight sum is zero (same
 * pairwise order as scalar). */
static inline __m256 zero_sum_lanes(const float *w, const uint32_t k) {
    int z = 0;
    for (uint32_t q = 0; q < k; q++) {
        __m256 s = _mm256_loadu_ps(w + 8 * q);
        s = _mm256_add_ps(s, _mm256_permute_ps(s, 0xB1));
        s = _mm256_add_ps(s, _mm256_permute_ps(s, 0x4E));
        if (k == 8) s = _mm256_add_ps(s, _mm256_permute2f128_ps(s, s, 0x01));
        int m = _mm256_movemask_ps(_mm256_cmp_ps(s, _mm256_setzero_ps(), _CMP_EQ_OQ)); /* lanes of a vertex alike */
        if (k == 4) z |= ((m & 1) | ((m >> 3) & 2)) << (2 * q);
        else z |= (m & 1) << q;
    }
    const __m256i bit = _mm256_setr_epi32(1, 4, 16, 64, 2, 8, 32, 128); /* 1 << SIGMA[l] */
    return _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(z), bit), bit));
}

/* 8 packed vertices from v0. Zero-weight vertices are copied (blends). */
/* Applies SoA matrices m[row][col] (rows 0-2, SIGMA lane order) to the 8 packed vertices
 * from v0; lanes set in `zero` copy their inputs unchanged. Shared by LBS and DQS. */
static inline __attribute__((always_inline)) void apply_block(const ossa_skin_job *job, const tables *t, uint32_t v0,
                                                              __m256 m[3][4], __m256 zero) {
    __m256 in[3], out[3];
    load3(t, job->positions + (size_t)v0 * 3, in);
    xform_soa(m, in, true, out);
    for (int c = 0; c < 3; c++) out[c] = _mm256_blendv_ps(out[c], in[c], zero);
    store3(t, job->out_positions + (size_t)v0 * 3, out);
    if (job->normals) {
        load3(t, job->normals + (size_t)v0 * 3, in);
        xform_soa(m, in, false, out);
        normalize_soa(out);
        for (int c = 0; c < 3; c++) out[c] = _mm256_blendv_ps(out[c], in[c], zero);
        store3(t, job->out_normals + (size_t)v0 * 3, out);
    }
    if (job->tangents) {
        const float *src = job->tangents + (size_t)v0 * 4;
        __m256 t0 = _mm256_loadu_ps(src), t1 = _mm256_loadu_ps(src + 8);
        __m256 t2 = _mm256_loadu_ps(src + 16), t3 = _mm256_loadu_ps(src + 24);
        __m256d u0 = _mm256_castps_pd(_mm256_unpacklo_ps(t0, t1)), u1 = _mm256_castps_pd(_mm256_unpackhi_ps(t0, t1));
        __m256d u2 = _mm256_castps_pd(_mm256_unpacklo_ps(t2, t3)), u3 = _mm256_castps_pd(_mm256_unpackhi_ps(t2, t3));
        in[0] = _mm256_castpd_ps(_mm256_unpacklo_pd(u0, u2)), in[1] = _mm256_castpd_ps(_mm256_unpackhi_pd(u0, u2));
        in[2] = _mm256_castpd_ps(_mm256_unpacklo_pd(u1, u3));
        __m256 w = _mm256_castpd_ps(_mm256_unpackhi_pd(u1, u3));
        xform_soa(m, in, false, out);
        normalize_soa(out);
        for (int c = 0; c < 3; c++) out[c] = _mm256_blendv_ps(out[c], in[c], zero);
        /* inverse: (x y z w) in lane order → 4 registers of two xyzw vertices */
        __m256d a0 = _mm256_castps_pd(_mm256_unpacklo_ps(out[0], out[1])); /* x0 y0 x2 y2 | x1 y1 x3 y3 */
        __m256d a1 = _mm256_castps_pd(_mm256_unpackhi_ps(out[0], out[1])); /* x4 y4 x6 y6 | x5 y5 x7 y7 */
        __m256d b0 = _mm256_castps_pd(_mm256_unpacklo_ps(out[2], w));
        __m256d b1 = _mm256_castps_pd(_mm256_unpackhi_ps(out[2], w));
        float *dst = job->out_tangents + (size_t)v0 * 4;
        _mm256_storeu_ps(dst, _mm256_castpd_ps(_mm256_unpacklo_pd(a0, b0)));      /* v0 | v1 */
        _mm256_storeu_ps(dst + 8, _mm256_castpd_ps(_mm256_unpackhi_pd(a0, b0)));  /* v2 | v3 */
        _mm256_storeu_ps(dst + 16, _mm256_castpd_ps(_mm256_unpacklo_pd(a1, b1))); /* v4 | v5 */
        _mm256_storeu_ps(dst + 24, _mm256_castpd_ps(_mm256_unpackhi_pd(a1, b1))); /* v6 | v7 */
    }
}

static inline __attribute__((always_inline)) void skin_block(const ossa_skin_job *job, const tables *t, uint32_t v0,
                                                             const uint32_t k) {
    const __m256 zero = zero_sum_lanes(job->weights + (size_t)v0 * k, k);
    __m256 lo[8], hi[8], m[3][4], half[3][2];
    for (int i = 0; i < 8; i++) blend_matrix(job, v0 + (uint32_t)SIGMA[i], k, &lo[i], &hi[i]);
    transpose_half(lo, half);
    for (int e = 0; e < 3; e++) m[e][0] = half[e][0], m[e][1] = half[e][1];
    transpose_half(hi, half);
    for (int e = 0; e < 3; e++) m[e][2] = half[e][0], m[e][3] = half[e][1];
    apply_block(job, t, v0, m, zero);
}

/* DQS, 8 packed vertices from v0: per influence the 8 dual quaternions (rows in SIGMA
 * order) are transposed 8x8 to SoA, hemisphere-corrected against the first influence and
 * accumulated; the blend becomes a rotation matrix + translation scaled by 1/|real|^2. */
static inline __attribute__((always_inline)) void dqs_block(const ossa_skin_job *job, const ossa_dual_quat *dq,
                                                            const tables *t, uint32_t v0, const uint32_t k) {
    __m256 zero = zero_sum_lanes(job->weights + (size_t)v0 * k, k);
    const float *wbase = job->weights + (size_t)v0 * k;
    const uint16_t *jbase = job->joints + (size_t)v0 * k;
    const __m256i sigma = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
    /* r0 is set at i == 0 (k >= 4); initialised only to silence gcc 12's -Wmaybe-uninitialized
     * at -O2, which broke -Werror builds without sanitizers */
    __m256 acc[8], r0[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
    for (uint32_t i = 0; i < k; i++) {
        __m256 z[8], u[8], c[8];
        for (int r = 0; r < 8; r++) z[r] = _mm256_loadu_ps(&dq[jbase[(size_t)SIGMA[r] * k + i]].real.x);
        for (int r = 0; r < 8; r += 2) {
            __m256 lo = _mm256_unpacklo_ps(z[r], z[r + 1]), hi = _mm256_unpackhi_ps(z[r], z[r + 1]);
            z[r] = lo, z[r + 1] = hi;
        }
        for (int g = 0; g < 8; g += 4) {
            u[g] = _mm256_shuffle_ps(z[g], z[g + 2], 0x44), u[g + 1] = _mm256_shuffle_ps(z[g], z[g + 2], 0xEE);
            u[g + 2] = _mm256_shuffle_ps(z[g + 1], z[g + 3], 0x44), u[g + 3] = _mm256_shuffle_ps(z[g + 1], z[g + 3], 0xEE);
        }
        for (int q = 0; q < 4; q++) {
            c[q] = _mm256_permute2f128_ps(u[q], u[q + 4], 0x20);
            c[q + 4] = _mm256_permute2f128_ps(u[q], u[q + 4], 0x31);
        }
        __m256 w = _mm256_i32gather_ps(wbase, _mm256_add_epi32(_mm256_mullo_epi32(sigma, _mm256_set1_epi32((int)k)),
                                                               _mm256_set1_epi32((int)i)), 4);
        if (i == 0) {
            for (int q = 0; q < 4; q++) r0[q] = c[q];
            for (int q = 0; q < 8; q++) acc[q] = _mm256_mul_ps(w, c[q]);
            continue;
        }
        __m256 dot = _mm256_fmadd_ps(r0[3], c[3], _mm256_fmadd_ps(r0[2], c[2],
                                     _mm256_fmadd_ps(r0[1], c[1], _mm256_mul_ps(r0[0], c[0]))));
        w = _mm256_blendv_ps(w, _mm256_sub_ps(_mm256_setzero_ps(), w),
                             _mm256_cmp_ps(dot, _mm256_setzero_ps(), _CMP_LT_OQ));
        for (int q = 0; q < 8; q++) acc[q] = _mm256_fmadd_ps(w, c[q], acc[q]);
    }
    const __m256 qx = acc[0], qy = acc[1], qz = acc[2], qw = acc[3], dx = acc[4], dy = acc[5], dz = acc[6], dw = acc[7];
    __m256 L = _mm256_fmadd_ps(qw, qw, _mm256_fmadd_ps(qz, qz, _mm256_fmadd_ps(qy, qy, _mm256_mul_ps(qx, qx))));
    zero = _mm256_or_ps(zero, _mm256_cmp_ps(L, _mm256_set1_ps(1e-24f), _CMP_NGT_UQ)); /* influences cancel: copy */
    __m256 s = _mm256_div_ps(_mm256_set1_ps(2.0f), L), one = _mm256_set1_ps(1.0f);
    __m256 sx = _mm256_mul_ps(qx, s), sy = _mm256_mul_ps(qy, s), sz = _mm256_mul_ps(qz, s);
    __m256 xx = _mm256_mul_ps(qx, sx), yy = _mm256_mul_ps(qy, sy), zz = _mm256_mul_ps(qz, sz);
    __m256 xy = _mm256_mul_ps(qx, sy), xz = _mm256_mul_ps(qx, sz), yz = _mm256_mul_ps(qy, sz);
    __m256 wx = _mm256_mul_ps(qw, sx), wy = _mm256_mul_ps(qw, sy), wz = _mm256_mul_ps(qw, sz);
    __m256 m[3][4];
    m[0][0] = _mm256_sub_ps(one, _mm256_add_ps(yy, zz)), m[1][0] = _mm256_add_ps(xy, wz), m[2][0] = _mm256_sub_ps(xz, wy);
    m[0][1] = _mm256_sub_ps(xy, wz), m[1][1] = _mm256_sub_ps(one, _mm256_add_ps(xx, zz)), m[2][1] = _mm256_add_ps(yz, wx);
    m[0][2] = _mm256_add_ps(xz, wy), m[1][2] = _mm256_sub_ps(yz, wx), m[2][2] = _mm256_sub_ps(one, _mm256_add_ps(xx, yy));
    /* t = s (qw d - dw q + q × d) */
    m[0][3] = _mm256_mul_ps(s, _mm256_fmadd_ps(qy, dz, _mm256_fnmadd_ps(dw, qx, _mm256_fmsub_ps(qw, dx, _mm256_mul_ps(qz, dy)))));
    m[1][3] = _mm256_mul_ps(s, _mm256_fmadd_ps(qz, dx, _mm256_fnmadd_ps(dw, qy, _mm256_fmsub_ps(qw, dy, _mm256_mul_ps(qx, dz)))));
    m[2][3] = _mm256_mul_ps(s, _mm256_fmadd_ps(qx, dy, _mm256_fnmadd_ps(dw, qz, _mm256_fmsub_ps(qw, dz, _mm256_mul_ps(qy, dx)))));
    apply_block(job, t, v0, m, zero);
}

/* Skins job->[begin, end) in blocks of 8 (ossa__skin_block_begin). dq NULL: LBS, else DQS. */
static inline __attribute__((always_inline)) void skin(const ossa_skin_job *job, const ossa_dual_quat *dq,
                                                       const uint32_t k) {
    const bool packed = ossa__skin_job_packed(job);
    tables t;
    make_tables(&t);
    ossa__skin_scratch scratch;
    ossa__skin_block b;
    for (uint32_t v = job->begin; v < job->end; v = b.e) {
        ossa__skin_block_begin(&b, job, packed, 8, v, &scratch);
        if (dq) dqs_block(b.job, dq, &t, b.at, k);
        else skin_block(b.job, &t, b.at, k);
        ossa__skin_block_end(&b, job, &scratch);
    }
}

void ossa__skin_lbs_avx2(const ossa_skin_job *job) {
    if (job->influences == 8) skin(job, NULL, 8);
    else skin(job, NULL, 4);
}

void ossa__skin_dqs_avx2(const ossa_skin_job *job, const ossa_dual_quat *dq) {
    if (job->influences == 8) skin(job, dq, 8);
    else skin(job, dq, 4);
}

#else
void ossa__skin_lbs_avx2(const ossa_skin_job *job) {
    ossa__skin_lbs_scalar(job);
}

void ossa__skin_dqs_avx2(const ossa_skin_job *job, const ossa_dual_quat *dq) {
    ossa__skin_dqs_scalar(job, dq);
}
#endif
