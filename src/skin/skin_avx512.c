/* AVX-512 linear blend skinning: the whole 4x4 matrix in one zmm, blended per vertex
 * as Σ wᵢ·Mᵢ with FMA by a broadcast weight, then applied to position, normal and
 * tangent (one multiply and a 4-lane reduction each); masked 12-byte loads/stores. */
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

static inline __attribute__((always_inline)) void skin(const ossa_skin_job *job, const uint32_t k) {
    const __m128 one_w = _mm_setr_ps(0, 0, 0, 1);
    for (uint32_t v = job->begin; v < job->end; v++) {
        const uint16_t *jv = job->joints + (size_t)v * k;
        const float *wv = job->weights + (size_t)v * k;
        const float *p = ossa__skin_in(job->positions, job->positions_stride, v);
        float *op = ossa__skin_out(job->out_positions, job->out_positions_stride, v);
        float sum = 0.0f;
        for (uint32_t i = 0; i < k; i++) sum += wv[i];
        if (sum == 0.0f) {
            memcpy(op, p, 12);
            if (job->normals)
                memcpy(ossa__skin_out(job->out_normals, job->out_normals_stride, v),
                       ossa__skin_in(job->normals, job->normals_stride, v), 12);
            if (job->tangents)
                memcpy(ossa__skin_out(job->out_tangents, job->out_tangents_stride, v),
                       ossa__skin_in(job->tangents, job->tangents_stride, v), 16);
            continue;
        }
        __m512 m = _mm512_mul_ps(_mm512_set1_ps(wv[0]), _mm512_loadu_ps(job->palette[jv[0]].m));
        for (uint32_t i = 1; i < k; i++)
            m = _mm512_fmadd_ps(_mm512_set1_ps(wv[i]), _mm512_loadu_ps(job->palette[jv[i]].m), m);
        __m128 pv = _mm_or_ps(_mm_maskz_loadu_ps(0x7, p), one_w);
        _mm_mask_storeu_ps(op, 0x7, xform(m, pv));
        if (job->normals) {
            __m128 n = _mm_maskz_loadu_ps(0x7, ossa__skin_in(job->normals, job->normals_stride, v));
            _mm_mask_storeu_ps(ossa__skin_out(job->out_normals, job->out_normals_stride, v), 0x7,
                               normalize3(xform(m, n)));
        }
        if (job->tangents) {
            __m128 tv = _mm_loadu_ps(ossa__skin_in(job->tangents, job->tangents_stride, v));
            __m128 r = normalize3(xform(m, _mm_maskz_mov_ps(0x7, tv)));
            _mm_storeu_ps(ossa__skin_out(job->out_tangents, job->out_tangents_stride, v), _mm_mask_blend_ps(0x8, r, tv));
        }
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
