/* Run-time CPU facts that cost a cpuid: asked once, kept (see cpu.h). */
#include "core/cpu.h"

#include <stdatomic.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

static bool splits_512(void) {
#if defined(__x86_64__) || defined(__i386__)
    unsigned eax, ebx, ecx, edx;
    if (!ossa__cpu_avx512() || !__builtin_cpu_is("amd") || !__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return false;
    unsigned family = (eax >> 8) & 0xFu;
    if (family == 0xFu) family += (eax >> 20) & 0xFFu;
    return family == 0x19u;
#else
    return false;
#endif
}

bool ossa__cpu_splits_512(void) {
    static atomic_int known; /* 0 = not asked yet, 1 = no, 2 = yes */
    int k = atomic_load_explicit(&known, memory_order_relaxed);
    if (!k) {
        k = splits_512() ? 2 : 1;
        atomic_store_explicit(&known, k, memory_order_relaxed);
    }
    return k == 2;
}
