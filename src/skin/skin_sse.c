/* SSE4.1 linear blend skinning: one matrix column per xmm, blended per vertex as
 * Σ wᵢ·Mᵢ, then applied to position, normal and tangent. */
#include "skin_internal.h"

#if defined(__SSE4_1__)
#include <smmintrin.h>
#include <string.h>

static inline __m128 load3(const float *p, float w) {
    return _mm_setr_ps(p[0], p[1], p[2], w);
}

static inline void store3(float *p, __m128 v) {
    float t[4];
    _mm_storeu_ps(t, v);
    memcpy(p, t, 12);
}

static inline __m128 normalize3(__m128 v) {
    __m128 l2 = _mm_dp_ps(v, v, 0x7F);
    __m128 s = _mm_div_ps(_mm_set1_ps(1.0f), _mm_sqrt_ps(l2));
    return _mm_blendv_ps(v, _mm_mul_ps(v, s), _mm_cmpgt_ps(l2, _mm_set1_ps(1e-24f)));
}

static inline __m128 xform(__m128 c0, __m128 c1, __m128 c2, __m128 c3, __m128 v) {
    __m128 r = _mm_add_ps(_mm_mul_ps(c0, _mm_shuffle_ps(v, v, 0x00)), _mm_mul_ps(c1, _mm_shuffle_ps(v, v, 0x55)));
    r = _mm_add_ps(r, _mm_mul_ps(c2, _mm_shuffle_ps(v, v, 0xAA)));
    return _mm_add_ps(r, _mm_mul_ps(c3, _mm_shuffle_ps(v, v, 0xFF)));
}

static inline __attribute__((always_inline)) void skin(const ossa_skin_job *job, const uint32_t k) {
    for (uint32_t v = job->begin; v < job->end; v++) {
        const uint16_t *jv = job->joints + (size_t)v * k;
        const float *wv = job->weights + (size_t)v * k;
        const float *p = ossa__skin_in(job->positions, job->positions_stride, v);
        float *op = ossa__skin_out(job->out_positions, job->out_positions_stride, v);
        if (ossa__skin_weight_sum(wv, k) == 0.0f) {
            ossa__skin_copy_vertex(job, v);
            continue;
        }
        const float *m = job->palette[jv[0]].m;
        __m128 w = _mm_set1_ps(wv[0]);
        __m128 c0 = _mm_mul_ps(w, _mm_loadu_ps(m)), c1 = _mm_mul_ps(w, _mm_loadu_ps(m + 4));
        __m128 c2 = _mm_mul_ps(w, _mm_loadu_ps(m + 8)), c3 = _mm_mul_ps(w, _mm_loadu_ps(m + 12));
        for (uint32_t i = 1; i < k; i++) {
            m = job->palette[jv[i]].m;
            w = _mm_set1_ps(wv[i]);
            c0 = _mm_add_ps(c0, _mm_mul_ps(w, _mm_loadu_ps(m)));
            c1 = _mm_add_ps(c1, _mm_mul_ps(w, _mm_loadu_ps(m + 4)));
            c2 = _mm_add_ps(c2, _mm_mul_ps(w, _mm_loadu_ps(m + 8)));
            c3 = _mm_add_ps(c3, _mm_mul_ps(w, _mm_loadu_ps(m + 12)));
        }
        store3(op, xform(c0, c1, c2, c3, load3(p, 1.0f)));
        if (job->normals) {
            __m128 n = load3(ossa__skin_in(job->normals, job->normals_stride, v), 0.0f);
            store3(ossa__skin_out(job->out_normals, job->out_normals_stride, v), normalize3(xform(c0, c1, c2, c3, n)));
        }
        if (job->tangents) {
            const float *t = ossa__skin_in(job->tangents, job->tangents_stride, v);
            __m128 tv = _mm_loadu_ps(t);
            __m128 r = normalize3(xform(c0, c1, c2, c3, _mm_blend_ps(tv, _mm_setzero_ps(), 8)));
            _mm_storeu_ps(ossa__skin_out(job->out_tangents, job->out_tangents_stride, v), _mm_blend_ps(r, tv, 8));
        }
    }
}

void ossa__skin_lbs_sse(const ossa_skin_job *job) {
    if (job->influences == 8) skin(job, 8);
    else skin(job, 4);
}

#else /* not x86: never selected (ossa_skin_kernel_available is false) */
void ossa__skin_lbs_sse(const ossa_skin_job *job) {
    ossa__skin_lbs_scalar(job);
}
#endif
