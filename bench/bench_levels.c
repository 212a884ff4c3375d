/* bench_levels: each stage of a character frame at every SIMD level this CPU has (scalar, sse4,
 * avx2, avx512; under the OSSA_SIMD cap), in one process, the levels interleaved rep by rep
 * (ossa__simd_set_cap), so a machine's slow and fast phases fall on every level alike and the
 * levels' ratios hold where single runs swing. Woman.gltf's `Running` (../shared/assets or
 * $OSSA_ASSETS) built as `ossa pack` builds it (compressed, the mesh's default precision), one
 * context for 43 joints:
 *   the single-key kernel, ns a channel: a seek (keys a and b of a random block, every mask)
 *   and a forward step (key b of a random block);
 *   the sampling job, ns a frame: forward at 60 Hz and at random times;
 *   local-to-model, the palette, and the palette batch job (16 poses a call), ns a pose.
 * Medians of REPS reps; each level's ratio to the scalar one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ossa/ossa.h>

#include "anim/sample_internal.h" /* the single-key kernels and the sampling plan */
#include "bench_util.h"
#include "core/cpu.h"

#define REPS 21

enum { POSES = 64, FRAMES = 2000, SEEKS = 256, MAX_MASKS = 256, BATCH = 16 };

typedef struct bench {
    const ossa_skeleton *sk;
    const ossa_built_clip *clip;
    ossa_sampling_context *ctx;
    ossa_transform *locals; /* POSES poses */
    ossa_mat4 *model, *palette; /* POSES poses each */
    float *batch_scratch;       /* the palette batch's scratch */
    float t;                    /* the forward clock */
    float keys[8192];           /* the single-key kernels' key pool */
    uint32_t block[SEEKS][MAX_MASKS], key[SEEKS][MAX_MASKS]; /* per seek and mask: a block, a key in it */
    uint32_t channels;          /* the clip's packed channels */
    uint64_t seed;
} bench;

static void sample_at(bench *b, float t, ossa_transform *out) {
    ossa_sample_job job = {.clip = b->clip, .context = b->ctx, .time = t, .loop = true, .output = out,
                           .output_count = b->sk->joint_count, .reference = b->sk->rest,
                           .reference_count = b->sk->joint_count};
    if (ossa_sample_job_run(&job) != OSSA_OK) abort();
}

/* ---- the stages: each runs its work and returns ns per item ---- */

/* One pass of the single-key kernel over every mask, per seek; step: a forward step to key
 * 1 + key % 4 instead of a seek of keys key, key + 1. */
static double key_kernel(bench *b, bool step) {
    const ossa__sample_plan *pl = b->clip->plan;
    ossa__lift_soa soa = {b->clip->base, pl->poff, pl->lbk, pl->lto, pl->lbt, pl->lfo, pl->lfm, b->keys};
    ossa__key_kernel key = ossa__sample_key();
    uint32_t M = b->clip->h->mask_count;
    double t0 = bench_clock_ns(CLOCK_THREAD_CPUTIME_ID);
    for (uint32_t s = 0; s < SEEKS; s++)
        for (uint32_t m = 0; m < M; m++) {
            uint32_t j = b->key[s][m];
            if (step) key(&soa, pl->mch, pl->mfirst[m], pl->mfirst[m + 1], b->block[s][m], OSSA__KEY_STEP, 1u + j % 4u);
            else key(&soa, pl->mch, pl->mfirst[m], pl->mfirst[m + 1], b->block[s][m], j, j + 1u);
        }
    return (bench_clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0) / ((double)SEEKS * b->channels);
}
static double key_seek(bench *b) { return key_kernel(b, false); }
static double key_step(bench *b) { return key_kernel(b, true); }

static double sample_forward(bench *b) {
    double t0 = bench_clock_ns(CLOCK_THREAD_CPUTIME_ID);
    for (int f = 0; f < FRAMES; f++, b->t += 1.0f / 60.0f) sample_at(b, b->t, b->locals);
    return (bench_clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0) / FRAMES;
}

static double sample_random(bench *b) {
    float dur = ossa_built_clip_duration(b->clip);
    double t0 = bench_clock_ns(CLOCK_THREAD_CPUTIME_ID);
    for (int f = 0; f < FRAMES; f++) {
        b->seed = b->seed * 6364136223846793005ull + 1442695040888963407ull;
        sample_at(b, (float)((double)(b->seed >> 40) * (1.0 / 16777216.0)) * dur, b->locals);
    }
    return (bench_clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0) / FRAMES;
}

static double local_to_model(bench *b) {
    uint32_t J = b->sk->joint_count;
    double t0 = bench_clock_ns(CLOCK_THREAD_CPUTIME_ID);
    for (int k = 0; k < 10 * POSES; k++) {
        size_t p = (size_t)(k % POSES) * J;
        ossa_local_to_model_job job = {.skeleton = b->sk, .input = b->locals + p, .input_count = J,
                                       .output = b->model + p, .output_count = J};
        if (ossa_local_to_model_job_run(&job) != OSSA_OK) abort();
    }
    return (bench_clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0) / (10 * POSES);
}

static double palette(bench *b) {
    uint32_t J = b->sk->joint_count;
    double t0 = bench_clock_ns(CLOCK_THREAD_CPUTIME_ID);
    for (int k = 0; k < 10 * POSES; k++) {
        size_t p = (size_t)(k % POSES) * J;
        ossa_palette_job job = {.skeleton = b->sk, .model = b->model + p, .model_count = J, .output = b->palette + p,
                                .output_count = J};
        if (ossa_palette_job_run(&job) != OSSA_OK) abort();
    }
    return (bench_clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0) / (10 * POSES);
}

static double palette_batch(bench *b) {
    uint32_t J = b->sk->joint_count;
    const ossa_transform *locals[BATCH];
    ossa_mat4 *outputs[BATCH];
    double t0 = bench_clock_ns(CLOCK_THREAD_CPUTIME_ID);
    for (int k = 0; k < 10 * POSES; k += BATCH) {
        for (int g = 0; g < BATCH; g++) {
            size_t p = (size_t)((k + g) % POSES) * J;
            locals[g] = b->locals + p;
            outputs[g] = b->palette + p;
        }
        ossa_palette_batch_job job = {.skeleton = b->sk, .locals = locals, .outputs = outputs, .pose_count = BATCH,
                                      .output_count = J, .scratch = b->batch_scratch,
                                      .scratch_count = ossa_palette_batch_scratch_count(b->sk)};
        if (ossa_palette_batch_job_run(&job) != OSSA_OK) abort();
    }
    return (bench_clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0) / (10 * POSES);
}

static const struct {
    const char *name, *unit;
    double (*run)(bench *);
} stages[] = {
    {"single-key kernel, seek (keys a, b)", "ns/channel", key_seek},
    {"single-key kernel, forward step (key b)", "ns/channel", key_step},
    {"sampling job, forward 60 Hz", "ns/frame", sample_forward},
    {"sampling job, random times", "ns/frame", sample_random},
    {"local-to-model", "ns/pose", local_to_model},
    {"palette", "ns/pose", palette},
    {"palette batch job (16 poses a call)", "ns/pose", palette_batch},
};
enum { STAGES = sizeof stages / sizeof stages[0] };

/* The seeks' blocks and keys (a random key of each mask, not its last: a seek's key b follows
 * it), 64 local poses of forward playback, their model matrices. */
static void prepare(bench *b) {
    const ossa_built_clip *c = b->clip;
    uint32_t M = c->h->mask_count, J = b->sk->joint_count;
    for (uint32_t s = 0; s < SEEKS; s++)
        for (uint32_t m = 0; m < M; m++) {
            uint32_t keys = c->mask_keys[m], blocks = ossa__lift_blocks(keys);
            b->seed = b->seed * 6364136223846793005ull + 1442695040888963407ull;
            uint32_t r = keys > 1 ? (uint32_t)((b->seed >> 33) % (keys - 1u)) : 0u;
            b->block[s][m] = r / 4u < blocks ? r / 4u : blocks - 1u;
            b->key[s][m] = r - 4u * b->block[s][m];
        }
    b->channels = c->h->packed_count;
    for (uint32_t p = 0; p < POSES; p++) sample_at(b, (float)p / 60.0f, b->locals + (size_t)p * J);
    local_to_model(b);
}

int main(void) {
    const char *root = getenv("OSSA_ASSETS");
    char path[512];
    snprintf(path, sizeof path, "%s/Woman/Woman.gltf", root && *root ? root : "../shared/assets");
    ossa_asset *asset = NULL;
    ossa_diagnostic diag;
    if (ossa_gltf_load_file(path, NULL, &asset, &diag) != OSSA_OK) {
        printf("Woman.gltf: skipped (%s: %s)\n", path, diag.message);
        return 0;
    }
    int running = ossa_asset_find_clip(asset, "Running");
    if (running < 0) abort();
    bench *b = calloc(1, sizeof *b);
    if (!b) abort();
    b->sk = asset->skeleton;
    b->seed = 12345;
    uint32_t J = b->sk->joint_count;
    ossa_clip_build_options opt = {0};
    opt.meshes = (const ossa_mesh *const *)asset->meshes;
    opt.mesh_count = asset->mesh_count;
    ossa_built_clip *clip = NULL;
    if (ossa_clip_build(asset->clips[running], b->sk, &opt, NULL, &clip, NULL) != OSSA_OK) abort();
    b->clip = clip;
    if (clip->h->mask_count > MAX_MASKS) abort();
    b->locals = malloc((size_t)POSES * J * sizeof *b->locals);
    b->model = malloc((size_t)POSES * J * sizeof *b->model);
    b->palette = malloc((size_t)POSES * J * sizeof *b->palette);
    b->batch_scratch = malloc(ossa_palette_batch_scratch_count(b->sk) * sizeof(float));
    if (!b->locals || !b->model || !b->palette || !b->batch_scratch) abort();
    if (ossa_sampling_context_create(J, 0, NULL, &b->ctx) != OSSA_OK) abort();
    prepare(b);

    ossa__simd_set_cap(-1);
    int levels = (int)ossa__simd() + 1; /* scalar .. the best this CPU has, under OSSA_SIMD */
    static double v[STAGES][4][REPS];
    for (int r = 0; r < REPS; r++)
        for (int s = 0; s < (int)STAGES; s++)
            for (int l = 0; l < levels; l++) {
                ossa__simd_set_cap(l);
                v[s][l][r] = stages[s].run(b);
            }
    ossa__simd_set_cap(-1);

    printf("Woman `Running`, compressed: %u packed channels, %u key masks, %u joints; median of %d reps, levels "
           "interleaved\n",
           b->channels, clip->h->mask_count, J, REPS);
    printf("%-42s %-11s", "stage", "unit");
    for (int l = 0; l < levels; l++) printf(" %9s", ossa__simd_name((ossa__simd_level)l));
    printf("   (each level / scalar)\n");
    for (int s = 0; s < (int)STAGES; s++) {
        double med[4];
        printf("%-42s %-11s", stages[s].name, stages[s].unit);
        for (int l = 0; l < levels; l++) printf(" %9.1f", med[l] = median(v[s][l], REPS));
        printf("  ");
        for (int l = 1; l < levels; l++) printf(" x%.2f", med[l] / med[0]);
        printf("\n");
    }
    ossa_sampling_context_destroy(b->ctx);
    ossa_built_clip_destroy(clip);
    free(b->locals);
    free(b->model);
    free(b->palette);
    free(b->batch_scratch);
    free(b);
    ossa_asset_destroy(asset);
    return 0;
}
