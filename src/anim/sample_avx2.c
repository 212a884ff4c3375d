/* AVX2 decode + lerp / nlerp kernels of the sampling job, its exact slerp kernel (8 channels per
 * step) and its raw-lane unpack kernel (8 lanes per step, gathers) (built with -mavx2). */
#include <immintrin.h>

#define OSSA__K_NAME ossa__lerp_avx2
#define OSSA__K_W 8u
#define V __m256
#define V_LD _mm256_loadu_ps
#define V_ST _mm256_storeu_ps
#define V_SET1 _mm256_set1_ps
#define V_ADD _mm256_add_ps
#define V_SUB _mm256_sub_ps
#define V_MUL _mm256_mul_ps
#define V_DIV _mm256_div_ps
#define V_SQRT _mm256_sqrt_ps
#define V_MIN _mm256_min_ps
#define V_MAX _mm256_max_ps
#define V_XOR _mm256_xor_ps
#define V_NEGSIGN(x) _mm256_and_ps(_mm256_cmp_ps((x), zero, _CMP_LT_OQ), _mm256_set1_ps(-0.0f))
#define OSSA__K_SLERP_NAME ossa__slerp_avx2
#define M __m256
#define V_GE(x, y) _mm256_cmp_ps((x), (y), _CMP_GE_OQ)
#define V_GT(x, y) _mm256_cmp_ps((x), (y), _CMP_GT_OQ)
#define V_LTM(x, y) _mm256_cmp_ps((x), (y), _CMP_LT_OQ)
#define V_MAND _mm256_and_ps
#define V_BLEND(m, x, y) _mm256_blendv_ps((x), (y), (m))
#define V_MOVEMASK _mm256_movemask_ps
#define V_UNPACKLO _mm256_unpacklo_ps
#define V_UNPACKHI _mm256_unpackhi_ps
#define V_LO64(a, b) _mm256_shuffle_ps((a), (b), _MM_SHUFFLE(1, 0, 1, 0))
#define V_HI64(a, b) _mm256_shuffle_ps((a), (b), _MM_SHUFFLE(3, 2, 3, 2))
#define V_ST_LANE4(p, v, L) _mm_storeu_ps((p), (L) ? _mm256_extractf128_ps((v), 1) : _mm256_castps256_ps128(v))
#define V_LOAD4X(base, off) _mm256_set_m128(_mm_loadu_ps((base) + (off)[4]), _mm_loadu_ps((base) + (off)[0]))
#include "anim/sample_kernel.h"

/* ossa__unpack_scalar 8 lanes at a time: 32-bit bit positions, two 4-qword gathers (the
 * stream is followed by >= 8 readable bytes), shifted per lane; the tail is scalar. */
void ossa__unpack_avx2(const ossa__unpack_table *tab, const unsigned char *block, uint32_t k, uint32_t begin, uint32_t end,
                       float *out) {
    const __m256i vk = _mm256_set1_epi32((int)k), seven = _mm256_set1_epi32(7), sign = _mm256_set1_epi32(INT32_MIN);
    const __m256i byte8 = _mm256_set1_epi32(0xFF), one = _mm256_set1_epi32(1);
    const long long *b = (const long long *)(const void *)block;
    uint32_t i = begin;
    for (; i + 8u <= end; i += 8u) {
        __m256i pos = _mm256_loadu_si256((const __m256i *)(const void *)(tab->pos + i));
        __m256i per = _mm256_and_si256(_mm256_srli_epi32(pos, 8), byte8);
        __m256i bit = _mm256_add_epi32(_mm256_mullo_epi32(per, vk), _mm256_and_si256(pos, byte8));
        __m256i mask = _mm256_sub_epi32(_mm256_sllv_epi32(one, _mm256_srli_epi32(pos, 16)), one); /* 32 bits: 0 - 1 */
        __m256i byte = _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)(const void *)(tab->off + i)), _mm256_srli_epi32(bit, 3));
        __m256i sh = _mm256_and_si256(bit, seven);
        __m256i lo = _mm256_i32gather_epi64(b, _mm256_castsi256_si128(byte), 1);
        __m256i hi = _mm256_i32gather_epi64(b, _mm256_extracti128_si256(byte, 1), 1);
        lo = _mm256_srlv_epi64(lo, _mm256_cvtepu32_epi64(_mm256_castsi256_si128(sh)));
        hi = _mm256_srlv_epi64(hi, _mm256_cvtepu32_epi64(_mm256_extracti128_si256(sh, 1)));
        /* the low dwords of the 8 qwords, in order */
        __m256i f = _mm256_castps_si256(_mm256_shuffle_ps(_mm256_castsi256_ps(lo), _mm256_castsi256_ps(hi), _MM_SHUFFLE(2, 0, 2, 0)));
        f = _mm256_permute4x64_epi64(f, _MM_SHUFFLE(3, 1, 2, 0));
        f = _mm256_add_epi32(_mm256_and_si256(f, mask), _mm256_loadu_si256((const __m256i *)(const void *)(tab->base + i)));
        /* ossa__ord_float: top bit set: clear it; else flip every bit */
        __m256i x = _mm256_or_si256(_mm256_xor_si256(_mm256_srai_epi32(f, 31), _mm256_set1_epi32(-1)), sign);
        _mm256_storeu_ps(out + i, _mm256_castsi256_ps(_mm256_xor_si256(f, x)));
    }
    if (i < end) ossa__unpack_scalar(tab, block, k, i, end, out);
}
