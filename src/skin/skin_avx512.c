/* AVX-512 linear blend skinning.
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

/* Blocks are aligned to absolute vertex indices (multiples of 16); partial blocks and
 * strided streams go through a packed scratch copy, so every vertex takes the same
 * arithmetic whatever the range split or layout. */
static inline __attribute__((always_inline)) void skin(const ossa_skin_job *job, const uint32_t k) {
    const bool packed = job->positions_stride == 12 && job->out_positions_stride == 12 &&
                        (!job->normals || (job->normals_stride == 12 && job->out_normals_stride == 12)) &&
                        (!job->tangents || (job->tangents_stride == 16 && job->out_tangents_stride == 16));
    tables t;
    make_tables(&t);
    ossa__skin_scratch scratch;
    for (uint32_t v = job->begin; v < job->end;) {
        uint32_t b0 = v - v % 16, e = job->end - b0 > 16 ? b0 + 16 : job->end;
        if (packed && v == b0 && e == b0 + 16) {
            skin_block(job, &t, v, k);
        } else {
            ossa_skin_job sj = ossa__skin_scratch_load(job, b0, v, e, &scratch);
            skin_block(&sj, &t, 0, k);
            ossa__skin_scratch_store(job, b0, v, e, &scratch);
        }
        v = e;
    }
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
