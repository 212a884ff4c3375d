/* AVX-512 lerp / nlerp kernel of the sampling job: 16 channels per step (built with -mavx512f). */
#include <immintrin.h>

#include "anim/built_clip_internal.h"

void ossa__lerp_avx512(const ossa__lerp_soa *soa, float t, uint32_t begin, uint32_t end, bool rotation) {
    const __m512 vt = _mm512_set1_ps(t), zero = _mm512_setzero_ps(), one = _mm512_set1_ps(1.0f), half = _mm512_set1_ps(0.5f);
    uint32_t i = begin;
    int comps = rotation ? 4 : 3;
    for (; i < end; i += 16) { /* whole vectors: the arrays have OSSA__LERP_SLACK spare entries */
        __m512 s = _mm512_mul_ps(_mm512_sub_ps(vt, _mm512_loadu_ps(soa->t0 + i)), _mm512_loadu_ps(soa->inv + i));
        s = _mm512_min_ps(_mm512_max_ps(s, zero), one);
        if (rotation) {
            __m512 h = _mm512_sub_ps(s, half);
            __m512 k = _mm512_add_ps(_mm512_mul_ps(_mm512_loadu_ps(soa->ka + i), _mm512_mul_ps(h, h)), _mm512_loadu_ps(soa->kb + i));
            s = _mm512_add_ps(s, _mm512_mul_ps(_mm512_mul_ps(_mm512_mul_ps(s, h), _mm512_sub_ps(s, one)), k));
        }
        __m512 v[4];
        for (int c = 0; c < comps; c++) {
            __m512 a = _mm512_loadu_ps(soa->a[c] + i), b = _mm512_loadu_ps(soa->b[c] + i);
            v[c] = _mm512_add_ps(a, _mm512_mul_ps(_mm512_sub_ps(b, a), s));
        }
        if (rotation) {
            __m512 n2 = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(v[0], v[0]), _mm512_mul_ps(v[1], v[1])),
                                              _mm512_mul_ps(v[2], v[2])),
                                   _mm512_mul_ps(v[3], v[3]));
            __m512 n = _mm512_div_ps(one, _mm512_sqrt_ps(n2));
            for (int c = 0; c < 4; c++) v[c] = _mm512_mul_ps(v[c], n);
        }
        for (int c = 0; c < comps; c++) _mm512_storeu_ps(soa->o[c] + i, v[c]);
    }
}
