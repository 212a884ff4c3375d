/* AVX2 decode + lerp / nlerp kernels of the sampling job, and its exact slerp kernel: 8 channels per step (built with -mavx2). */
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
#include "anim/sample_kernel.h"
