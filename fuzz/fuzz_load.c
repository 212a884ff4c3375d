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
 * Files that load with a skeleton and clips also go through ossa_gltf_load_clips.
 *
 * Build: cmake -DOSSA_BUILD_FUZZ=ON -DOSSA_SANITIZE=ON with CC=clang (scripts/fuzz.sh). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* ossa_gltf_load_clips binds a file's animations to an existing skeleton by joint name;
 * it reads from a path, so the input goes through a private temporary file once the
 * memory load succeeded, bound to the skeleton that load produced. */
static const char *temp_path(void) {
    static char path[64];
    if (!path[0]) {
        char dir[48];
        snprintf(dir, sizeof dir, "/tmp/ossa-fuzz-load-%ld", (long)getpid());
        mkdir(dir, 0700);
        snprintf(path, sizeof path, "%s/input.gltf", dir);
    }
    return path;
}

static void check_load_clips(const uint8_t *data, size_t size, const ossa_load_options *options,
                             const ossa_skeleton *skeleton) {
    const char *path = temp_path();
    FILE *f = fopen(path, "wb");
    if (!f) return;
    size_t wrote = fwrite(data, 1, size, f);
    fclose(f);
    if (wrote != size) return;
    ossa_asset *clips = NULL;
    ossa_diagnostic diag;
    ossa_result r = ossa_gltf_load_clips(path, skeleton, options, &clips, &diag);
    if (r != OSSA_OK) {
        CHECK(clips == NULL);
        return;
    }
    CHECK(clips->skeleton == NULL && clips->mesh_count == 0);
    for (uint32_t c = 0; c < clips->clip_count; c++) {
        const ossa_clip *clip = clips->clips[c];
        for (uint32_t t = 0; t < clip->track_count; t++) {
            CHECK(clip->tracks[t].joint < skeleton->joint_count);
            check_track(&clip->tracks[t].rotation);
        }
    }
    ossa_asset_destroy(clips);
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
        if (asset->skeleton && asset->clip_count) check_load_clips(data, size, &options, asset->skeleton);
        ossa_asset_destroy(asset);
    } else {
        CHECK(asset == NULL);
        CHECK(r > OSSA_OK && r < OSSA_RESULT_COUNT);
        CHECK(memchr(diag.message, 0, sizeof diag.message) != NULL);
        CHECK(memchr(diag.path, 0, sizeof diag.path) != NULL);
    }
    return 0;
}
