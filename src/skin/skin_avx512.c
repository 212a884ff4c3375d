/* AVX-512 linear blend skinning.
 *
 * Per vertex, the blended matrix Σ wᵢ·Mᵢ is one zmm (one FMA per influence by a
 * broadcast weight). With packed streams, 16 vertices go at once: their 16 blended
 * matrices are transposed (16x16, skipping row 3) into SoA, positions/normals/tangents
 * are de-interleaved with permutes, transformed with plain FMAs over 16 lanes,
 * normalised (rsqrt14 + one Newton step) and re-interleaved. Strided streams, range
 * tails and blocks holding a zero-weight vertex take the per-vertex path (matrix in
 * a zmm, product reduced across its four 128-bit columns, masked 12-byte accesses). */
#include "skin_internal.h"

#if defined(__AVX512F__) && defined(__AVX512VL__)
#include <immintrin.h>
#include <string.h>

static inline __m128 normalize3(__m128 v) {
    __m128 l2 = _mm_dp_ps(v, v, 0x7F);
    __m128 s = _mm_div_ps(_mm_set1_ps(1.0f), _mm_sqrt_ps(l2));
    return _mm_mask_blend_ps(_mm_cmp_ps_mask(l2, _mm_set1_ps(1e-24f), _CMP_GT_OQ), v, _mm_mul_ps(v, s));
}

/* M·(x, y, z, w): M ⊙ (x x x x y y y y z z z z w w w w), the four columns summed. */
static inline __m128 xform(__m512 m, __m128 v) {
    const __m512i idx = _mm512_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3);
    __m512 r = _mm512_mul_ps(m, _mm512_permutexvar_ps(idx, _mm512_castps128_ps512(v)));
    __m256 h = _mm256_add_ps(_mm512_castps512_ps256(r), _mm512_extractf32x8_ps(r, 1));
    return _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
}

static inline __attribute__((always_inline)) __m512 blend_matrix(const ossa_skin_job *job, uint32_t v,
                                                                 const uint32_t k) {
    const uint16_t *jv = job->joints + (size_t)v * k;
    const float *wv = job->weights + (size_t)v * k;
    __m512 m = _mm512_mul_ps(_mm512_set1_ps(wv[0]), _mm512_loadu_ps(job->palette[jv[0]].m));
    for (uint32_t i = 1; i < k; i++)
        m = _mm512_fmadd_ps(_mm512_set1_ps(wv[i]), _mm512_loadu_ps(job->palette[jv[i]].m), m);
    return m;
}

static inline __attribute__((always_inline)) void skin_vertex(const ossa_skin_job *job, uint32_t v,
                                                              const uint32_t k) {
    const __m128 one_w = _mm_setr_ps(0, 0, 0, 1);
    const float *p = ossa__skin_in(job->positions, job->positions_stride, v);
    float *op = ossa__skin_out(job->out_positions, job->out_positions_stride, v);
    if (ossa__skin_weight_sum(job->weights + (size_t)v * k, k) == 0.0f) {
        memcpy(op, p, 12);
        if (job->normals)
            memcpy(ossa__skin_out(job->out_normals, job->out_normals_stride, v),
                   ossa__skin_in(job->normals, job->normals_stride, v), 12);
        if (job->tangents)
            memcpy(ossa__skin_out(job->out_tangents, job->out_tangents_stride, v),
                   ossa__skin_in(job->tangents, job->tangents_stride, v), 16);
        return;
    }
    __m512 m = blend_matrix(job, v, k);
    __m128 pv = _mm_or_ps(_mm_maskz_loadu_ps(0x7, p), one_w);
    _mm_mask_storeu_ps(op, 0x7, xform(m, pv));
    if (job->normals) {
        __m128 n = _mm_maskz_loadu_ps(0x7, ossa__skin_in(job->normals, job->normals_stride, v));
        _mm_mask_storeu_ps(ossa__skin_out(job->out_normals, job->out_normals_stride, v), 0x7, normalize3(xform(m, n)));
    }
    if (job->tangents) {
        __m128 tv = _mm_loadu_ps(ossa__skin_in(job->tangents, job->tangents_stride, v));
        __m128 r = normalize3(xform(m, _mm_maskz_mov_ps(0x7, tv)));
        _mm_storeu_ps(ossa__skin_out(job->out_tangents, job->out_tangents_stride, v), _mm_mask_blend_ps(0x8, r, tv));
    }
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

/* True when some vertex of [v0, v0+16) has a zero weight sum (same pairwise order). */
static inline bool any_zero_sum(const float *w, const uint32_t k) {
    __mmask16 z = 0;
    for (uint32_t q = 0; q < k; q++) {
        __m512 s = _mm512_loadu_ps(w + 16 * q);
        s = _mm512_add_ps(s, _mm512_permute_ps(s, 0xB1));
        s = _mm512_add_ps(s, _mm512_permute_ps(s, 0x4E));
        if (k == 8) s = _mm512_add_ps(s, _mm512_shuffle_f32x4(s, s, 0xB1));
        z |= _mm512_cmp_ps_mask(s, _mm512_setzero_ps(), _CMP_EQ_OQ);
    }
    return z != 0;
}

/* 16 vertices from v0, packed streams; false (nothing written) if one has zero weights. */
static inline __attribute__((always_inline)) bool skin_block(const ossa_skin_job *job, const tables *t, uint32_t v0,
                                                             const uint32_t k) {
    if (any_zero_sum(job->weights + (size_t)v0 * k, k)) return false;
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
    __m512 in[3], out[3];
    load3(t, job->positions + (size_t)v0 * 3, in);
    xform_soa(m, in, true, out);
    store3(t, job->out_positions + (size_t)v0 * 3, out);
    if (job->normals) {
        load3(t, job->normals + (size_t)v0 * 3, in);
        xform_soa(m, in, false, out);
        normalize_soa(out);
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
        xy0 = _mm512_shuffle_f32x4(out[0], out[1], 0x44), xy1 = _mm512_shuffle_f32x4(out[0], out[1], 0xEE);
        zw0 = _mm512_shuffle_f32x4(out[2], w, 0x44), zw1 = _mm512_shuffle_f32x4(out[2], w, 0xEE);
        float *dst = job->out_tangents + (size_t)v0 * 4;
        _mm512_storeu_ps(dst, _mm512_permutex2var_ps(xy0, t->in4a, zw0));
        _mm512_storeu_ps(dst + 16, _mm512_permutex2var_ps(xy0, t->in4b, zw0));
        _mm512_storeu_ps(dst + 32, _mm512_permutex2var_ps(xy1, t->in4a, zw1));
        _mm512_storeu_ps(dst + 48, _mm512_permutex2var_ps(xy1, t->in4b, zw1));
    }
    return true;
}

static inline __attribute__((always_inline)) void skin(const ossa_skin_job *job, const uint32_t k) {
    uint32_t v = job->begin;
    const bool packed = job->positions_stride == 12 && job->out_positions_stride == 12 &&
                        (!job->normals || (job->normals_stride == 12 && job->out_normals_stride == 12)) &&
                        (!job->tangents || (job->tangents_stride == 16 && job->out_tangents_stride == 16));
    if (packed && job->end - v >= 16) {
        tables t;
        make_tables(&t);
        for (; job->end - v >= 16; v += 16)
            if (!skin_block(job, &t, v, k))
                for (uint32_t i = 0; i < 16; i++) skin_vertex(job, v + i, k);
    }
    for (; v < job->end; v++) skin_vertex(job, v, k);
}

void ossa__skin_lbs_avx512(const ossa_skin_job *job) {
    if (job->influences == 8) skin(job, 8);
    else skin(job, 4);
}

#else
void ossa__skin_lbs_avx512(const ossa_skin_job *job) {
    ossa__skin_lbs_scalar(job);
}
#endif
