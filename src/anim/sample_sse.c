/* SSE4.1 decode + lerp / nlerp kernel of the sampling job: 4 channels per step (built with -msse4.1). */
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
#include "anim/sample_kernel.h"
