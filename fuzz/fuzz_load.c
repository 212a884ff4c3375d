/* libFuzzer target: the glTF loader from memory (.gltf text and .glb bytes).
 *
 * The input is the file itself. A load must either fail with a result code and a
 * diagnostic, or succeed with an asset whose invariants hold (checked here, so
 * "silently wrong data" aborts like a crash would):
 *   - the skeleton is parents-first and its maps are inverse permutations;
 *   - every mesh index < vertex_count, every joint index < joint_count,
 *     every skinned vertex's weights sum to 0 or ~1, every position finite;
 *   - every clip track joint < joint_count, key times finite and strictly increasing.
 * External buffers are refused (no base_dir), max_allocation is capped at 64 MiB.
 *
 * Build: cmake -DOSSA_BUILD_FUZZ=ON -DOSSA_SANITIZE=ON with CC=clang (scripts/fuzz.sh). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ossa/ossa.h>

#define CHECK(cond)                                                                   \
    do {                                                                              \
        if (!(cond)) {                                                                \
            fprintf(stderr, "fuzz_load: invariant failed: %s (line %d)\n", #cond, __LINE__); \
            abort();                                                                  \
        }                                                                             \
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
    if (a->skeleton) {
        const ossa_skeleton *s = a->skeleton;
        for (uint32_t j = 0; j < joints; j++) {
            CHECK(s->parents[j] < (int32_t)j && s->parents[j] >= -1);
            CHECK(s->source_index[j] < joints);
            CHECK(s->joint_of_source[s->source_index[j]] == j);
            CHECK(s->names[j] != NULL);
        }
        for (uint32_t k = 0; k < s->skin_count; k++)
            for (uint32_t i = 0; i < s->skins[k].joint_count; i++) CHECK(s->skins[k].joints[i] < joints);
    }
    for (uint32_t m = 0; m < a->mesh_count; m++) {
        const ossa_mesh *mesh = a->meshes[m];
        CHECK(mesh != NULL);
        for (uint32_t i = 0; i < mesh->index_count; i++) CHECK(mesh->indices[i] < mesh->vertex_count);
        for (size_t i = 0; i < (size_t)mesh->vertex_count * 3; i++) CHECK(isfinite(mesh->positions[i]));
        if (mesh->influences) {
            CHECK(mesh->influences == 4 || mesh->influences == 8);
            CHECK(mesh->skin >= 0 && a->skeleton && (uint32_t)mesh->skin < a->skeleton->skin_count);
            for (uint32_t v = 0; v < mesh->vertex_count; v++) {
                double sum = 0;
                for (uint32_t k = 0; k < mesh->influences; k++) {
                    CHECK(mesh->joints[(size_t)v * mesh->influences + k] < joints);
                    float w = mesh->weights[(size_t)v * mesh->influences + k];
                    CHECK(w >= 0.0f && isfinite(w));
                    sum += w;
                }
                CHECK(sum == 0.0 || fabs(sum - 1.0) < 1e-3);
            }
        }
    }
    for (uint32_t c = 0; c < a->clip_count; c++) {
        const ossa_clip *clip = a->clips[c];
        CHECK(clip != NULL && clip->name != NULL);
        CHECK(!(clip->start > clip->end));
        for (uint32_t t = 0; t < clip->track_count; t++) {
            CHECK(clip->tracks[t].joint < joints);
            check_track(&clip->tracks[t].translation);
            check_track(&clip->tracks[t].rotation);
            check_track(&clip->tracks[t].scale);
        }
        for (uint32_t t = 0; t < clip->weight_track_count; t++) {
            CHECK(clip->weight_tracks[t].joint < joints);
            check_track(&clip->weight_tracks[t].weights);
        }
    }
    for (uint32_t w = 0; w < a->warning_count; w++) CHECK(a->warnings[w] != NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ossa_load_options options;
    memset(&options, 0, sizeof options);
    options.max_allocation = (size_t)64 << 20;
    ossa_asset *asset = NULL;
    ossa_diagnostic diag;
    ossa_result r = ossa_gltf_load_memory(data, size, &options, &asset, &diag);
    if (r == OSSA_OK) {
        CHECK(asset != NULL);
        check_asset(asset);
        ossa_asset_destroy(asset);
    } else {
        CHECK(asset == NULL);
        CHECK(r > OSSA_OK && r < OSSA_RESULT_COUNT);
        CHECK(memchr(diag.message, 0, sizeof diag.message) != NULL);
        CHECK(memchr(diag.path, 0, sizeof diag.path) != NULL);
    }
    return 0;
}
