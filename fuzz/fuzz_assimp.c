/* libFuzzer target: the Assimp importer (ossa_assimp) from memory.
 *
 * Input: byte 0 picks the format hint Assimp gets (fbx, dae, obj, gltf, glb, ply,
 * stl, x, bvh, md5mesh, or none), the rest is the file. A load either fails with a
 * result and a diagnostic, or succeeds with an asset whose invariants hold (parents
 * first, indices < vertex count, joints < joint count, weights sum to 0 or 1, finite
 * positions, strictly increasing finite key times) — "silently wrong" aborts like a
 * crash. Assimp itself is not instrumented: its crashes would show here too and are
 * listed in docs/hostile-input.md. max_allocation is capped at 64 MiB.
 * Assimp is slow: scripts/fuzz.sh runs this target for at most 2000 inputs in CI.
 *
 * Build: cmake -DOSSA_BUILD_FUZZ=ON -DOSSA_SANITIZE=ON with CC=clang (scripts/fuzz.sh). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <ossa/assimp.h>
#include <ossa/ossa.h>

#define CHECK(cond)                                                                         \
    do {                                                                                    \
        if (!(cond)) {                                                                      \
            fprintf(stderr, "fuzz_assimp: invariant failed: %s (line %d)\n", #cond, __LINE__); \
            abort();                                                                        \
        }                                                                                   \
    } while (0)

static void check_track(const ossa_track *t) {
    for (uint32_t k = 0; k < t->key_count; k++) {
        CHECK(isfinite(t->times[k]));
        if (k) CHECK(t->times[k] > t->times[k - 1]);
    }
}

static void check_asset(const ossa_asset *a) {
    uint32_t joints = a->skeleton ? a->skeleton->joint_count : 0;
    CHECK(a->node_count == joints);
    if (a->skeleton)
        for (uint32_t j = 0; j < joints; j++) {
            CHECK(a->skeleton->parents[j] < (int32_t)j && a->skeleton->parents[j] >= -1);
            CHECK(a->skeleton->joint_of_source[a->skeleton->source_index[j]] == j);
        }
    for (uint32_t m = 0; m < a->mesh_count; m++) {
        const ossa_mesh *mesh = a->meshes[m];
        for (uint32_t i = 0; i < mesh->index_count; i++) CHECK(mesh->indices[i] < mesh->vertex_count);
        for (size_t i = 0; i < (size_t)mesh->vertex_count * 3; i++) CHECK(isfinite(mesh->positions[i]));
        for (uint32_t v = 0; v < mesh->vertex_count && mesh->influences; v++) {
            double sum = 0;
            for (uint32_t k = 0; k < mesh->influences; k++) {
                CHECK(mesh->joints[(size_t)v * mesh->influences + k] < joints);
                sum += mesh->weights[(size_t)v * mesh->influences + k];
            }
            CHECK(sum == 0.0 || fabs(sum - 1.0) < 1e-3);
        }
    }
    for (uint32_t c = 0; c < a->clip_count; c++) {
        const ossa_clip *clip = a->clips[c];
        for (uint32_t t = 0; t < clip->track_count; t++) {
            CHECK(clip->tracks[t].joint < joints);
            check_track(&clip->tracks[t].translation);
            check_track(&clip->tracks[t].rotation);
            check_track(&clip->tracks[t].scale);
        }
        for (uint32_t t = 0; t < clip->weight_track_count; t++) check_track(&clip->weight_tracks[t].weights);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const char *const HINTS[] = {"", "fbx", "dae", "obj", "gltf", "glb", "ply", "stl", "x", "bvh", "md5mesh"};
    if (size < 2) return 0;
    const char *hint = HINTS[data[0] % (sizeof HINTS / sizeof HINTS[0])];
    ossa_load_options o = {0};
    o.max_allocation = (size_t)64 << 20;
    ossa_asset *a = NULL;
    ossa_diagnostic d;
    ossa_result r = ossa_assimp_load_memory(data + 1, size - 1, hint, &o, &a, &d);
    if (r != OSSA_OK) {
        CHECK(a == NULL);
        CHECK(d.message[0] != 0);
        return 0;
    }
    check_asset(a);
    ossa_asset_destroy(a);
    return 0;
}
