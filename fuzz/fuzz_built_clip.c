/* libFuzzer target: ossa_built_clip_load on hostile bytes (built_clip.h).
 *
 * Whatever loads is sampled at a spread of times, clamped and looping, forward and by
 * jumps, with one context: the loader's checks must keep every offset, count and bit
 * stream inside the block, and every sampled pose and weight finite. Failures to load must leave *out NULL and name a place.
 * The reference pose is identity transforms: the seeds (fuzz/corpus/fuzz_built_clip: valid
 * compressed and lossless blocks, written by test_built_clip's seed test when
 * OSSA_WRITE_FUZZ_SEEDS names a directory) are built on a skeleton whose rest pose is
 * identity, so their reference hash matches; a block whose hash does not must fail to sample
 * with INVALID_ARGUMENT. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ossa/ossa.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ossa_built_clip *clip = NULL;
    ossa_diagnostic diag;
    ossa_result r = ossa_built_clip_load(data, size, NULL, &clip, &diag);
    if (r != OSSA_OK) {
        if (clip || !diag.message[0]) abort();
        return 0;
    }
    uint32_t J = ossa_built_clip_joint_count(clip), W = ossa_built_clip_weight_count(clip);
    if (J > 4096 || W > 65536) {
        ossa_built_clip_destroy(clip);
        return 0;
    }
    ossa_sampling_context *ctx = NULL;
    ossa_transform *pose = calloc(J + 1, sizeof *pose), *ref = calloc(J + 1, sizeof *ref);
    float *w = calloc(W + 1, sizeof *w);
    for (uint32_t j = 0; ref && j < J; j++) {
        ref[j].rotation.w = 1.0f;
        ref[j].scale.x = ref[j].scale.y = ref[j].scale.z = 1.0f;
    }
    bool match = ref && ossa_built_clip_matches(clip, ref, J);
    if (pose && w && ref && ossa_sampling_context_create(J, W, NULL, &ctx) == OSSA_OK) {
        float s = ossa_built_clip_start(clip), e = ossa_built_clip_end(clip);
        const float extra[] = {-INFINITY, INFINITY, -1e30f, 1e30f};
        for (int k = 0; k < 40; k++) {
            float t = k < 36 ? s + (e - s) * (float)((k * 7) % 36) / 35.0f - 0.1f : extra[k - 36];
            ossa_sample_job job = {clip, ctx, t, (k & 1) != 0, pose, J, W ? w : NULL, W, ref, J, 0};
            ossa_result sr = ossa_sample_job_run(&job);
            if (sr != (match ? OSSA_OK : OSSA_ERROR_INVALID_ARGUMENT)) abort();
            if (!match) break;
            for (uint32_t j = 0; j < J; j++) /* the loader's checks keep every pose finite */
                for (int c = 0; c < 10; c++)
                    if (!isfinite((&pose[j].translation.x)[c])) abort();
            for (uint32_t c = 0; c < W; c++)
                if (!isfinite(w[c])) abort();
        }
    }
    ossa_sampling_context_destroy(ctx);
    free(pose);
    free(ref);
    free(w);
    size_t n = 0;
    if (ossa_built_clip_data(clip, &n) == NULL || n != size) abort();
    ossa_built_clip_destroy(clip);
    return 0;
}
