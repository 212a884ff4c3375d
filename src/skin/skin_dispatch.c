/* Run-time kernel choice (__builtin_cpu_supports) and the OSSA_SKIN_KERNEL cap; the job
 * that uses it is in skin_job.c. */
#include "skin_internal.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"

/* -1 = not read yet; else the highest kernel allowed (OSSA_SKIN_KERNEL_AUTO = no cap). */
static _Atomic int kernel_cap = -1;

static int read_env_cap(void) {
    const char *e = getenv("OSSA_SKIN_KERNEL");
    if (!e) return OSSA_SKIN_KERNEL_AUTO;
    if (!strcmp(e, "scalar")) return OSSA_SKIN_KERNEL_SCALAR;
    if (!strcmp(e, "sse")) return OSSA_SKIN_KERNEL_SSE;
    if (!strcmp(e, "avx2")) return OSSA_SKIN_KERNEL_AVX2;
    if (!strcmp(e, "avx512")) return OSSA_SKIN_KERNEL_AVX512;
    return OSSA_SKIN_KERNEL_AUTO;
}

void ossa__skin_set_kernel_cap(ossa_skin_kernel cap) {
    atomic_store(&kernel_cap, (int)cap < 0 ? -1 : (int)cap);
}

static bool cpu_has(ossa_skin_kernel kernel) {
#if defined(__x86_64__) || defined(__i386__)
    switch (kernel) {
    case OSSA_SKIN_KERNEL_SCALAR: return true;
    case OSSA_SKIN_KERNEL_SSE: return __builtin_cpu_supports("sse4.1");
    case OSSA_SKIN_KERNEL_AVX2: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case OSSA_SKIN_KERNEL_AVX512:
        return ossa__cpu_avx512();
    default: return false;
    }
#else
    return kernel == OSSA_SKIN_KERNEL_SCALAR;
#endif
}

bool ossa_skin_kernel_available(ossa_skin_kernel kernel) {
    if (kernel < OSSA_SKIN_KERNEL_SCALAR || kernel > OSSA_SKIN_KERNEL_AVX512) return false;
    int cap = atomic_load(&kernel_cap);
    if (cap < 0) {
        cap = read_env_cap();
        atomic_store(&kernel_cap, cap);
    }
    if (cap != OSSA_SKIN_KERNEL_AUTO && (int)kernel > cap) return false;
    return cpu_has(kernel);
}

ossa_skin_kernel ossa_skin_kernel_best(void) {
    for (int k = OSSA_SKIN_KERNEL_AVX512; k > OSSA_SKIN_KERNEL_SCALAR; k--)
        if (ossa_skin_kernel_available((ossa_skin_kernel)k)) return (ossa_skin_kernel)k;
    return OSSA_SKIN_KERNEL_SCALAR;
}

const char *ossa_skin_kernel_name(ossa_skin_kernel kernel) {
    switch (kernel) {
    case OSSA_SKIN_KERNEL_AUTO: return "auto";
    case OSSA_SKIN_KERNEL_SCALAR: return "scalar";
    case OSSA_SKIN_KERNEL_SSE: return "sse4.1";
    case OSSA_SKIN_KERNEL_AVX2: return "avx2";
    case OSSA_SKIN_KERNEL_AVX512: return "avx512";
    default: return "unknown";
    }
}
