/* SSE4.1 decode + lerp / nlerp kernels of the sampling job, and its exact slerp kernel: 4 channels per step (built with -msse4.1). */
#include <immintrin.h>

#define OSSA__K_NAME ossa__lerp_sse
#define OSSA__K_W 4u
#define V __m128
#define V_LD _mm_loadu_ps
#define V_ST _mm_storeu_ps
#define V_SET1 _mm_set1_ps
#define V_ADD _mm_add_ps
#define V_SUB _mm_sub_ps
#define V_MUL _mm_mul_ps
#define V_DIV _mm_div_ps
#define V_SQRT _mm_sqrt_ps
#define V_MIN _mm_min_ps
#define V_MAX _mm_max_ps
#define V_XOR _mm_xor_ps
#define V_NEGSIGN(x) _mm_and_ps(_mm_cmplt_ps((x), zero), _mm_set1_ps(-0.0f))
#define OSSA__K_SLERP_NAME ossa__slerp_sse
#define M __m128
#define V_GE(x, y) _mm_cmpge_ps((x), (y))
#define V_GT(x, y) _mm_cmpgt_ps((x), (y))
#define V_LTM(x, y) _mm_cmplt_ps((x), (y))
#define V_MAND _mm_and_ps
#define V_BLEND(m, x, y) _mm_blendv_ps((x), (y), (m)) /* y where m, else x */
#define V_MOVEMASK _mm_movemask_ps
#define V_UNPACKLO _mm_unpacklo_ps
#define V_UNPACKHI _mm_unpackhi_ps
#define V_LO64(a, b) _mm_movelh_ps((a), (b))
#define V_HI64(a, b) _mm_movehl_ps((b), (a))
#define V_ST_LANE4(p, v, L) ((void)(L), _mm_storeu_ps((p), (v)))
#define V_LOAD4X(base, off) _mm_loadu_ps((base) + (off)[0])
#include "anim/sample_kernel.h"
