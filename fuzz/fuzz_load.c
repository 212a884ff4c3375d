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

#include "fuzz_check.h"

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
