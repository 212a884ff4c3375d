/* AVX2 + FMA linear blend skinning: two matrix columns per ymm, blended per vertex
 * as Σ wᵢ·Mᵢ with FMA, then applied to position, normal and tangent. */
#include "skin_internal.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#include <string.h>

static inline __m128 normalize3(__m128 v) {
    __m128 l2 = _mm_dp_ps(v, v, 0x7F);
    __m128 s = _mm_div_ps(_mm_set1_ps(1.0f), _mm_sqrt_ps(l2));
    return _mm_blendv_ps(v, _mm_mul_ps(v, s), _mm_cmpgt_ps(l2, _mm_set1_ps(1e-24f)));
}

/* v = (x, y, z, w): (c0 c1)·(x.. y..) + (c2 c3)·(z.. w..), halves summed. */
static inline __m128 xform(__m256 c01, __m256 c23, __m128 v) {
    const __m256i ixy = _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1);
    const __m256i izw = _mm256_setr_epi32(2, 2, 2, 2, 3, 3, 3, 3);
    __m256 v8 = _mm256_castps128_ps256(v);
    __m256 r = _mm256_mul_ps(c01, _mm256_permutevar8x32_ps(v8, ixy));
    r = _mm256_fmadd_ps(c23, _mm256_permutevar8x32_ps(v8, izw), r);
    return _mm_add_ps(_mm256_castps256_ps128(r), _mm256_extractf128_ps(r, 1));
}

static inline __attribute__((always_inline)) void skin(const ossa_skin_job *job, const uint32_t k) {
    const __m128i mask3 = _mm_setr_epi32(-1, -1, -1, 0);
    const __m128 one_w = _mm_setr_ps(0, 0, 0, 1);
    for (uint32_t v = job->begin; v < job->end; v++) {
        const uint16_t *jv = job->joints + (size_t)v * k;
        const float *wv = job->weights + (size_t)v * k;
        const float *p = ossa__skin_in(job->positions, job->positions_stride, v);
        float *op = ossa__skin_out(job->out_positions, job->out_positions_stride, v);
        if (ossa__skin_weight_sum(wv, k) == 0.0f) {
            memcpy(op, p, 12);
            if (job->normals)
                memcpy(ossa__skin_out(job->out_normals, job->out_normals_stride, v),
                       ossa__skin_in(job->normals, job->normals_stride, v), 12);
            if (job->tangents)
                memcpy(ossa__skin_out(job->out_tangents, job->out_tangents_stride, v),
                       ossa__skin_in(job->tangents, job->tangents_stride, v), 16);
            continue;
        }
        const float *m = job->palette[jv[0]].m;
        __m256 w = _mm256_broadcast_ss(wv);
        __m256 c01 = _mm256_mul_ps(w, _mm256_loadu_ps(m)), c23 = _mm256_mul_ps(w, _mm256_loadu_ps(m + 8));
        for (uint32_t i = 1; i < k; i++) {
            m = job->palette[jv[i]].m;
            w = _mm256_broadcast_ss(wv + i);
            c01 = _mm256_fmadd_ps(w, _mm256_loadu_ps(m), c01);
            c23 = _mm256_fmadd_ps(w, _mm256_loadu_ps(m + 8), c23);
        }
        __m128 pv = _mm_or_ps(_mm_maskload_ps(p, mask3), one_w);
        _mm_maskstore_ps(op, mask3, xform(c01, c23, pv));
        if (job->normals) {
            __m128 n = _mm_maskload_ps(ossa__skin_in(job->normals, job->normals_stride, v), mask3);
            _mm_maskstore_ps(ossa__skin_out(job->out_normals, job->out_normals_stride, v), mask3,
                             normalize3(xform(c01, c23, n)));
        }
        if (job->tangents) {
            __m128 tv = _mm_loadu_ps(ossa__skin_in(job->tangents, job->tangents_stride, v));
            __m128 r = normalize3(xform(c01, c23, _mm_blend_ps(tv, _mm_setzero_ps(), 8)));
            _mm_storeu_ps(ossa__skin_out(job->out_tangents, job->out_tangents_stride, v), _mm_blend_ps(r, tv, 8));
        }
    }
}

void ossa__skin_lbs_avx2(const ossa_skin_job *job) {
    if (job->influences == 8) skin(job, 8);
    else skin(job, 4);
}

#else
void ossa__skin_lbs_avx2(const ossa_skin_job *job) {
    ossa__skin_lbs_scalar(job);
}
#endif
