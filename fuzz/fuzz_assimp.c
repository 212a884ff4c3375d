/* libFuzzer target: the Assimp importer (ossa_assimp) from memory.
 *
 * Input: byte 0 picks the format hint Assimp gets (fbx, dae, obj, gltf, glb, ply,
 * stl, x, bvh, md5mesh, or none), the rest is the file. A load either fails with a
 * result and a diagnostic, or succeeds with an asset whose invariants hold (parents
 * first, indices < vertex count, joints < joint count, weights sum to 0 or 1, finite
 * positions, strictly increasing finite key times) — "silently wrong" aborts like a
 * crash. Assimp itself is not instrumented: its crashes would show here too and are
 * listed in docs/hostile-input.md. max_allocation is capped at 64 MiB.
 * The load is the bounded one (assimp.h): a forked probe whose heap growth is capped at
 * BOUND_MIB (ASan's allocator hooks), so a file that makes Assimp allocate without end is
 * a LIMIT error, not a libFuzzer out-of-memory; the in-process load that follows a clean
 * probe is what libFuzzer's coverage and crash detection see. When the probe crashed, the
 * unbounded load runs in-process so that the crash happens here, under the fuzzer, and
 * scripts/fuzz.sh classifies it (a frame in libassimp or in ossa) as before.
 * scripts/fuzz.sh keeps -rss_limit_mb (2048) above BOUND_MIB plus ASan's quarantine and
 * sets -malloc_limit_mb above any single allocation (the probe, not libFuzzer, bounds them).
 * Assimp is slow: scripts/fuzz.sh runs this target for at most 2000 inputs in CI.
 *
 * Build: cmake -DOSSA_BUILD_FUZZ=ON -DOSSA_SANITIZE=ON with CC=clang (scripts/fuzz.sh). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ossa/assimp.h>
#include <ossa/ossa.h>

#include "fuzz_check.h"

#define BOUND_MIB 512 /* the whole import's cap (Assimp's memory and ossa's) */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const char *const HINTS[] = {"", "fbx", "dae", "obj", "gltf", "glb", "ply", "stl", "x", "bvh", "md5mesh"};
    if (size < 2) return 0;
    const char *hint = HINTS[data[0] % (sizeof HINTS / sizeof HINTS[0])];
    ossa_load_options o = {0};
    o.max_allocation = (size_t)64 << 20;
    ossa_asset *a = NULL;
    ossa_diagnostic d;
    ossa_result r = ossa_assimp_load_memory_bounded(data + 1, size - 1, hint, &o, (size_t)BOUND_MIB << 20, &a, &d);
    if (r == OSSA_ERROR_PARSE && strstr(d.message, "probe process")) /* crashed: again, here */
        r = ossa_assimp_load_memory(data + 1, size - 1, hint, &o, &a, &d);
    if (r != OSSA_OK) {
        CHECK(a == NULL);
        CHECK(d.message[0] != 0);
        return 0;
    }
    check_asset(a);
    ossa_asset_destroy(a);
    return 0;
}
