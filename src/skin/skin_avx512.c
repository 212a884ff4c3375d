/* AVX-512 linear blend and dual quaternion skinning.
 *
 * Per vertex, the blended matrix Σ wᵢ·Mᵢ is one zmm (one FMA per influence by a
 * broadcast weight). With packed streams, 16 vertices go at once: their 16 blended
 * matrices are transposed (16x16, skipping row 3) into SoA, positions/normals/tangents
 * are de-interleaved with permutes, transformed with plain FMAs over 16 lanes,
 * normalised (rsqrt14 + one Newton step) and re-interleaved; zero-weight vertices are
 * copied by masked moves. Range ends and strided streams use a packed scratch copy. */
#include "skin_internal.h"

#if defined(__AVX512F__) && defined(__AVX512VL__)
#include <immintrin.h>

static inline __attribute__((always_inline)) __m512 blend_matrix(const ossa_skin_job *job, uint32_t v,
                                                                 const uint32_t k) {
    const uint16_t *jv = job->joints + (size_t)v * k;
    const float *wv = job->weights + (size_t)v * k;
    __m512 m = _mm512_mul_ps(_mm512_set1_ps(wv[0]), _mm512_loadu_ps(job->palette[jv[0]].m));
    for (uint32_t i = 1; i < k; i++)
        m = _mm512_fmadd_ps(_mm512_set1_ps(wv[i]), _mm512_loadu_ps(job->palette[jv[i]].m), m);
    return m;
}

/* Permute tables for 16 vertices of packed xyz (3 zmm) and xyzw (4 zmm) streams. */
typedef struct tables {
    __m512i de3a[3], de3b[3]; /* xyz → component c: permutex2var(P0, a, P1), then (.., b, P2) */
    __m512i in3a[3], in3b[3]; /* components → zmm q of xyz: permutex2var(x, a, y), then (.., b, z) */
    __m512i de4a, de4b;       /* xyzw: (x|y), (z|w) of 8 vertices from 2 zmm */
    __m512i in4a, in4b;       /* (x|y) and (z|w) halves → 4 vertices xyzw */
} tables;

static void make_tables(tables *t) {
    int32_t a[16], b[16];
    for (int c = 0; c < 3; c++) {
        for (int i = 0; i < 16; i++) {
            int e = 3 * i + c;
            a[i] = e < 32 ? e : 0;
            b[i] = e < 32 ? i : 16 + e - 32;
        }
        t->de3a[c] = _mm512_loadu_si512(a), t->de3b[c] = _mm512_loadu_si512(b);
        for (int l = 0; l < 16; l++) {
            int f = 16 * c + l, i = f / 3, comp = f % 3;
            a[l] = comp == 0 ? i : comp == 1 ? 16 + i : 0;
            b[l] = comp == 2 ? 16 + i : l;
        }
        t->in3a[c] = _mm512_loadu_si512(a), t->in3b[c] = _mm512_loadu_si512(b);
    }
    for (int l = 0; l < 16; l++) {
        a[l] = 4 * (l & 7) + (l >> 3);     /* lanes 0-7: x (or z), lanes 8-15: y (or w) */
        b[l] = 4 * (l & 7) + (l >> 3) + 2;
    }
    t->de4a = _mm512_loadu_si512(a), t->de4b = _mm512_loadu_si512(b);
    for (int l = 0; l < 16; l++) {
        int i = l >> 2, c = l & 3; /* xy half: x at i, y at 8+i; zw half at 16+ */
        a[l] = (c >= 2 ? 16 : 0) + (c & 1) * 8 + i;
        b[l] = a[l] + 4;
    }
    t->in4a = _mm512_loadu_si512(a), t->in4b = _mm512_loadu_si512(b);
}

static inline void load3(const tables *t, const float *src, __m512 out[3]) {
    __m512 p0 = _mm512_loadu_ps(src), p1 = _mm512_loadu_ps(src + 16), p2 = _mm512_loadu_ps(src + 32);
    for (int c = 0; c < 3; c++)
        out[c] = _mm512_permutex2var_ps(_mm512_permutex2var_ps(p0, t->de3a[c], p1), t->de3b[c], p2);
}

static inline void store3(const tables *t, float *dst, const __m512 in[3]) {
    for (int q = 0; q < 3; q++)
        _mm512_storeu_ps(dst + 16 * q,
                         _mm512_permutex2var_ps(_mm512_permutex2var_ps(in[0], t->in3a[q], in[1]), t->in3b[q], in[2]));
}

static inline void normalize_soa(__m512 v[3]) {
    __m512 l2 = _mm512_fmadd_ps(v[2], v[2], _mm512_fmadd_ps(v[1], v[1], _mm512_mul_ps(v[0], v[0])));
    __m512 y = _mm512_rsqrt14_ps(l2);
    y = _mm512_mul_ps(y, _mm512_fnmadd_ps(_mm512_mul_ps(_mm512_set1_ps(0.5f), l2), _mm512_mul_ps(y, y),
                                          _mm512_set1_ps(1.5f)));
    __mmask16 ok = _mm512_cmp_ps_mask(l2, _mm512_set1_ps(1e-24f), _CMP_GT_OQ);
    for (int c = 0; c < 3; c++) v[c] = _mm512_mask_mul_ps(v[c], ok, v[c], y);
}

/* m[row][col] (16 lanes) times (x, y, z, w_is_point). */
static inline void xform_soa(__m512 m[3][4], const __m512 in[3], bool point, __m512 out[3]) {
    for (int r = 0; r < 3; r++) {
        __m512 acc = point ? _mm512_fmadd_ps(m[r][0], in[0], m[r][3]) : _mm512_mul_ps(m[r][0], in[0]);
        acc = _mm512_fmadd_ps(m[r][1], in[1], acc);
        out[r] = _mm512_fmadd_ps(m[r][2], in[2], acc);
    }
}

/* Bit i set when vertex v0 + i has a zero weight sum (same pairwise order as scalar). */
static inline uint32_t zero_sum_mask(const float *w, const uint32_t k) {
    uint32_t z = 0;
    for (uint32_t q = 0; q < k; q++) {
        __m512 s = _mm512_loadu_ps(w + 16 * q);
        s = _mm512_add_ps(s, _mm512_permute_ps(s, 0xB1));
        s = _mm512_add_ps(s, _mm512_permute_ps(s, 0x4E));
        if (k == 8) s = _mm512_add_ps(s, _mm512_shuffle_f32x4(s, s, 0xB1));
        uint32_t m = _mm512_cmp_ps_mask(s, _mm512_setzero_ps(), _CMP_EQ_OQ); /* every lane of a vertex alike */
        if (k == 4) {
            m &= 0x1111u, m = (m | m >> 3) & 0x0303u, m = (m | m >> 6) & 0x000Fu;
            z |= m << (4 * q);
        } else {
            m &= 0x0101u, m = (m | m >> 7) & 0x3u;
            z |= m << (2 * q);
        }
    }
    return z;
}

/* 16 packed vertices from v0. Zero-weight vertices are copied (masked moves). */
/* Applies SoA matrices m[row][col] (rows 0-2) to the 16 packed vertices from v0; lanes in
 * `zero` copy their inputs unchanged. Shared by LBS and DQS. */
static inline __attribute__((always_inline)) void apply_block(const ossa_skin_job *job, const tables *t, uint32_t v0,
                                                              __m512 m[3][4], __mmask16 zero) {
    __m512 in[3], out[3];
    load3(t, job->positions + (size_t)v0 * 3, in);
    xform_soa(m, in, true, out);
    for (int c = 0; c < 3; c++) out[c] = _mm512_mask_mov_ps(out[c], zero, in[c]);
    store3(t, job->out_positions + (size_t)v0 * 3, out);
    if (job->normals) {
        load3(t, job->normals + (size_t)v0 * 3, in);
        xform_soa(m, in, false, out);
        normalize_soa(out);
        for (int c = 0; c < 3; c++) out[c] = _mm512_mask_mov_ps(out[c], zero, in[c]);
        store3(t, job->out_normals + (size_t)v0 * 3, out);
    }
    if (job->tangents) {
        const float *src = job->tangents + (size_t)v0 * 4;
        __m512 t0 = _mm512_loadu_ps(src), t1 = _mm512_loadu_ps(src + 16);
        __m512 t2 = _mm512_loadu_ps(src + 32), t3 = _mm512_loadu_ps(src + 48);
        __m512 xy0 = _mm512_permutex2var_ps(t0, t->de4a, t1), xy1 = _mm512_permutex2var_ps(t2, t->de4a, t3);
        __m512 zw0 = _mm512_permutex2var_ps(t0, t->de4b, t1), zw1 = _mm512_permutex2var_ps(t2, t->de4b, t3);
        in[0] = _mm512_shuffle_f32x4(xy0, xy1, 0x44), in[1] = _mm512_shuffle_f32x4(xy0, xy1, 0xEE);
        in[2] = _mm512_shuffle_f32x4(zw0, zw1, 0x44);
        __m512 w = _mm512_shuffle_f32x4(zw0, zw1, 0xEE);
        xform_soa(m, in, false, out);
        normalize_soa(out);
        for (int c = 0; c < 3; c++) out[c] = _mm512_mask_mov_ps(out[c], zero, in[c]);
        xy0 = _mm512_shuffle_f32x4(out[0], out[1], 0x44), xy1 = _mm512_shuffle_f32x4(out[0], out[1], 0xEE);
        zw0 = _mm512_shuffle_f32x4(out[2], w, 0x44), zw1 = _mm512_shuffle_f32x4(out[2], w, 0xEE);
        float *dst = job->out_tangents + (size_t)v0 * 4;
        _mm512_storeu_ps(dst, _mm512_permutex2var_ps(xy0, t->in4a, zw0));
        _mm512_storeu_ps(dst + 16, _mm512_permutex2var_ps(xy0, t->in4b, zw0));
        _mm512_storeu_ps(dst + 32, _mm512_permutex2var_ps(xy1, t->in4a, zw1));
        _mm512_storeu_ps(dst + 48, _mm512_permutex2var_ps(xy1, t->in4b, zw1));
    }
}

static inline __attribute__((always_inline)) void skin_block(const ossa_skin_job *job, const tables *t, uint32_t v0,
                                                             const uint32_t k) {
    const __mmask16 zero = (__mmask16)zero_sum_mask(job->weights + (size_t)v0 * k, k);
    __m512 r[16], s[16], m[3][4];
    for (int i = 0; i < 16; i++) r[i] = blend_matrix(job, v0 + (uint32_t)i, k);
    for (int i = 0; i < 16; i += 2) s[i] = _mm512_unpacklo_ps(r[i], r[i + 1]), s[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
    __m512 a[3][4]; /* a[row][group]: lane block L = (row, column L) of vertices 4g..4g+3 */
    for (int g = 0; g < 4; g++) {
        __m512d s0 = _mm512_castps_pd(s[4 * g]), s1 = _mm512_castps_pd(s[4 * g + 1]);
        __m512d s2 = _mm512_castps_pd(s[4 * g + 2]), s3 = _mm512_castps_pd(s[4 * g + 3]);
        a[0][g] = _mm512_castpd_ps(_mm512_unpacklo_pd(s0, s2));
        a[1][g] = _mm512_castpd_ps(_mm512_unpackhi_pd(s0, s2));
        a[2][g] = _mm512_castpd_ps(_mm512_unpacklo_pd(s1, s3));
    }
    for (int e = 0; e < 3; e++) { /* 4x4 transpose of 128-bit blocks */
        __m512 x0 = _mm512_shuffle_f32x4(a[e][0], a[e][1], 0x44), x1 = _mm512_shuffle_f32x4(a[e][0], a[e][1], 0xEE);
        __m512 x2 = _mm512_shuffle_f32x4(a[e][2], a[e][3], 0x44), x3 = _mm512_shuffle_f32x4(a[e][2], a[e][3], 0xEE);
        m[e][0] = _mm512_shuffle_f32x4(x0, x2, 0x88), m[e][1] = _mm512_shuffle_f32x4(x0, x2, 0xDD);
        m[e][2] = _mm512_shuffle_f32x4(x1, x3, 0x88), m[e][3] = _mm512_shuffle_f32x4(x1, x3, 0xDD);
    }
    apply_block(job, t, v0, m, zero);
}

/* DQS, 16 packed vertices from v0: per influence the 16 dual quaternions are loaded two
 * per zmm and transposed (8x8 per 256-bit half) to SoA, hemisphere-corrected against
 * the first influence, accumulated; the blend becomes a rotation matrix + translation
 * scaled by 1/|real|^2 (as the scalar path), applied by apply_block. */
static inline __attribute__((always_inline)) void dqs_block(const ossa_skin_job *job, const ossa_dual_quat *dq,
                                                            const tables *t, uint32_t v0, const uint32_t k) {
    __mmask16 zero = (__mmask16)zero_sum_mask(job->weights + (size_t)v0 * k, k);
    const float *wbase = job->weights + (size_t)v0 * k;
    const uint16_t *jbase = job->joints + (size_t)v0 * k;
    const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    /* r0 is set at i == 0; initialised only to silence gcc 12's -Wmaybe-uninitialized at -O2 */
    __m512 acc[8], r0[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
    for (uint32_t i = 0; i < k; i++) {
        __m512 z[8], u[8], c[8];
        for (int r = 0; r < 8; r++) {
            const float *a = &dq[jbase[(size_t)r * k + i]].real.x, *b = &dq[jbase[(size_t)(r + 8) * k + i]].real.x;
            z[r] = _mm512_insertf32x8(_mm512_castps256_ps512(_mm256_loadu_ps(a)), _mm256_loadu_ps(b), 1);
        }
        for (int r = 0; r < 8; r += 2) {
            __m512 lo = _mm512_unpacklo_ps(z[r], z[r + 1]), hi = _mm512_unpackhi_ps(z[r], z[r + 1]);
            z[r] = lo, z[r + 1] = hi;
        }
        for (int g = 0; g < 8; g += 4) {
            u[g] = _mm512_shuffle_ps(z[g], z[g + 2], 0x44), u[g + 1] = _mm512_shuffle_ps(z[g], z[g + 2], 0xEE);
            u[g + 2] = _mm512_shuffle_ps(z[g + 1], z[g + 3], 0x44), u[g + 3] = _mm512_shuffle_ps(z[g + 1], z[g + 3], 0xEE);
        }
        for (int q = 0; q < 4; q++) {
            __m512 x = _mm512_shuffle_f32x4(u[q], u[q + 4], 0x88), y = _mm512_shuffle_f32x4(u[q], u[q + 4], 0xDD);
            c[q] = _mm512_shuffle_f32x4(x, x, 0xD8), c[q + 4] = _mm512_shuffle_f32x4(y, y, 0xD8);
        }
        __m512 w = _mm512_i32gather_ps(_mm512_add_epi32(_mm512_mullo_epi32(lane, _mm512_set1_epi32((int)k)),
                                                        _mm512_set1_epi32((int)i)), wbase, 4);
        if (i == 0) {
            for (int q = 0; q < 4; q++) r0[q] = c[q];
            for (int q = 0; q < 8; q++) acc[q] = _mm512_mul_ps(w, c[q]);
            continue;
        }
        __m512 dot = _mm512_fmadd_ps(r0[3], c[3], _mm512_fmadd_ps(r0[2], c[2],
                                     _mm512_fmadd_ps(r0[1], c[1], _mm512_mul_ps(r0[0], c[0]))));
        w = _mm512_mask_sub_ps(w, _mm512_cmp_ps_mask(dot, _mm512_setzero_ps(), _CMP_LT_OQ), _mm512_setzero_ps(), w);
        for (int q = 0; q < 8; q++) acc[q] = _mm512_fmadd_ps(w, c[q], acc[q]);
    }
    const __m512 qx = acc[0], qy = acc[1], qz = acc[2], qw = acc[3], dx = acc[4], dy = acc[5], dz = acc[6], dw = acc[7];
    __m512 L = _mm512_fmadd_ps(qw, qw, _mm512_fmadd_ps(qz, qz, _mm512_fmadd_ps(qy, qy, _mm512_mul_ps(qx, qx))));
    zero |= _mm512_cmp_ps_mask(L, _mm512_set1_ps(1e-24f), _CMP_NGT_UQ); /* influences cancel: copy */
    __m512 s = _mm512_div_ps(_mm512_set1_ps(2.0f), L), one = _mm512_set1_ps(1.0f);
    __m512 sx = _mm512_mul_ps(qx, s), sy = _mm512_mul_ps(qy, s), sz = _mm512_mul_ps(qz, s);
    __m512 xx = _mm512_mul_ps(qx, sx), yy = _mm512_mul_ps(qy, sy), zz = _mm512_mul_ps(qz, sz);
    __m512 xy = _mm512_mul_ps(qx, sy), xz = _mm512_mul_ps(qx, sz), yz = _mm512_mul_ps(qy, sz);
    __m512 wx = _mm512_mul_ps(qw, sx), wy = _mm512_mul_ps(qw, sy), wz = _mm512_mul_ps(qw, sz);
    __m512 m[3][4];
    m[0][0] = _mm512_sub_ps(one, _mm512_add_ps(yy, zz)), m[1][0] = _mm512_add_ps(xy, wz), m[2][0] = _mm512_sub_ps(xz, wy);
    m[0][1] = _mm512_sub_ps(xy, wz), m[1][1] = _mm512_sub_ps(one, _mm512_add_ps(xx, zz)), m[2][1] = _mm512_add_ps(yz, wx);
    m[0][2] = _mm512_add_ps(xz, wy), m[1][2] = _mm512_sub_ps(yz, wx), m[2][2] = _mm512_sub_ps(one, _mm512_add_ps(xx, yy));
    /* t = s (qw d - dw q + q × d) */
    m[0][3] = _mm512_mul_ps(s, _mm512_fmadd_ps(qy, dz, _mm512_fnmadd_ps(dw, qx, _mm512_fmsub_ps(qw, dx, _mm512_mul_ps(qz, dy)))));
    m[1][3] = _mm512_mul_ps(s, _mm512_fmadd_ps(qz, dx, _mm512_fnmadd_ps(dw, qy, _mm512_fmsub_ps(qw, dy, _mm512_mul_ps(qx, dz)))));
    m[2][3] = _mm512_mul_ps(s, _mm512_fmadd_ps(qx, dy, _mm512_fnmadd_ps(dw, qz, _mm512_fmsub_ps(qw, dz, _mm512_mul_ps(qy, dx)))));
    apply_block(job, t, v0, m, zero);
}

/* Skins job->[begin, end) in blocks of 16 (ossa__skin_block_begin). dq NULL: LBS, else DQS. */
static inline __attribute__((always_inline)) void skin(const ossa_skin_job *job, const ossa_dual_quat *dq,
                                                       const uint32_t k) {
    const bool packed = ossa__skin_job_packed(job);
    tables t;
    make_tables(&t);
    ossa__skin_scratch scratch;
    ossa__skin_block b;
    for (uint32_t v = job->begin; v < job->end; v = b.e) {
        ossa__skin_block_begin(&b, job, packed, 16, v, &scratch);
        if (dq) dqs_block(b.job, dq, &t, b.at, k);
        else skin_block(b.job, &t, b.at, k);
        ossa__skin_block_end(&b, job, &scratch);
    }
}

void ossa__skin_lbs_avx512(const ossa_skin_job *job) {
    if (job->influences == 8) skin(job, NULL, 8);
    else skin(job, NULL, 4);
}

void ossa__skin_dqs_avx512(const ossa_skin_job *job, const ossa_dual_quat *dq) {
    if (job->influences == 8) skin(job, dq, 8);
    else skin(job, dq, 4);
}

#else
void ossa__skin_lbs_avx512(const ossa_skin_job *job) {
    ossa__skin_lbs_scalar(job);
}

void ossa__skin_dqs_avx512(const ossa_skin_job *job, const ossa_dual_quat *dq) {
    ossa__skin_dqs_scalar(job, dq);
}
#endif
