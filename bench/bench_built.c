/* bench_built: built clips on Woman.gltf (../shared/assets or $OSSA_ASSETS), one thread.
 *   bytes per clip and in total, editable vs lossless vs compressed (default precision),
 *   with the measured max error; build time;
 *   forward 60 Hz playback of `Running` and random-time `Running` / `PickUp`, ns per
 *   character-frame: sampling alone, and sample + local-to-model + palette;
 * next to the reference rows (ozz 0.16, ACL 2.1). Medians of repeated runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ossa/ossa.h>

#include "anim/built_clip_internal.h" /* the compressed bytes' breakdown */
#include "bench_util.h"

#define REPS 15

typedef struct character {
    const ossa_asset *asset;
    ossa_transform *locals;
    ossa_mat4 *model, *palette;
    ossa_sampling_context *ctx;
    uint32_t *cursors;
} character;

enum { EDITABLE, LOSSLESS, COMPRESSED, MODES };
static const char *mode_name[MODES] = {"editable", "lossless", "compressed"};

static void sample(character *c, int mode, const ossa_clip *clip, const ossa_built_clip *built, float t, bool cursor) {
    const ossa_skeleton *sk = c->asset->skeleton;
    if (mode == EDITABLE) {
        ossa_clip_sample_job job = {0};
        job.clip = clip;
        job.time = t;
        job.loop = true;
        job.lookup = cursor ? OSSA_LOOKUP_CURSOR : OSSA_LOOKUP_DEFAULT;
        job.cursors = c->cursors;
        job.cursor_count = ossa_clip_cursor_count(clip);
        job.reference = sk->rest;
        job.reference_count = sk->joint_count;
        job.output = c->locals;
        job.output_count = sk->joint_count;
        if (ossa_clip_sample_job_run(&job) != OSSA_OK) abort();
    } else {
        ossa_sample_job job = {0};
        job.clip = built;
        job.context = c->ctx;
        job.time = t;
        job.loop = true;
        job.output = c->locals;
        job.output_count = sk->joint_count;
        job.reference = sk->rest;
        job.reference_count = sk->joint_count;
        if (ossa_sample_job_run(&job) != OSSA_OK) abort();
    }
}

static void finish(character *c) {
    const ossa_skeleton *sk = c->asset->skeleton;
    ossa_local_to_model_job l2m = {0};
    l2m.skeleton = sk;
    l2m.input = c->locals;
    l2m.input_count = sk->joint_count;
    l2m.output = c->model;
    l2m.output_count = sk->joint_count;
    if (ossa_local_to_model_job_run(&l2m) != OSSA_OK) abort();
    ossa_palette_job pal = {0};
    pal.skeleton = sk;
    pal.model = c->model;
    pal.model_count = sk->joint_count;
    pal.output = c->palette;
    pal.output_count = sk->joint_count;
    if (ossa_palette_job_run(&pal) != OSSA_OK) abort();
}

/* Median ns per frame over `frames` frames: forward at 60 Hz, or at pseudo-random times. */
static double run(character *c, int mode, const ossa_clip *clip, const ossa_built_clip *built, bool random, bool full,
                  int frames) {
    double v[REPS];
    float dur = ossa_clip_duration(clip);
    uint64_t seed = 12345;
    for (int r = 0; r < REPS; r++) {
        double t0 = bench_clock_ns(CLOCK_THREAD_CPUTIME_ID);
        for (int f = 0; f < frames; f++) {
            float t;
            if (random) {
                seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                t = (float)((double)(seed >> 40) * (1.0 / 16777216.0)) * dur; /* 24 bits: exact */
            } else {
                t = (float)f / 60.0f;
            }
            sample(c, mode, clip, built, t, !random);
            if (full) finish(c);
        }
        v[r] = (bench_clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0) / frames;
    }
    return median(v, REPS);
}

/* Local-to-model and palette alone on 64 poses of forward Running (compressed), each stage
 * timed over all of them: median ns per character-frame of each (the pose kernel is the best
 * the CPU has under OSSA_SIMD). */
static void pose_stages(character *c, const ossa_built_clip *built) {
    enum { POSES = 64, LOOPS = 40 };
    const ossa_skeleton *sk = c->asset->skeleton;
    uint32_t J = sk->joint_count;
    ossa_transform *locals = malloc((size_t)POSES * J * sizeof *locals);
    ossa_mat4 *model = malloc((size_t)POSES * J * sizeof *model);
    if (!locals || !model) abort();
    ossa_sampling_context_reset(c->ctx);
    for (int p = 0; p < POSES; p++) {
        sample(c, COMPRESSED, NULL, built, (float)p / 60.0f, true);
        memcpy(locals + (size_t)p * J, c->locals, J * sizeof *locals);
    }
    double v[2][REPS];
    for (int r = 0; r < REPS; r++) {
        double t0 = bench_clock_ns(CLOCK_THREAD_CPUTIME_ID);
        for (int i = 0; i < LOOPS * POSES; i++) {
            ossa_local_to_model_job l2m = {.skeleton = sk, .input = locals + (size_t)(i % POSES) * J, .input_count = J,
                                           .output = model + (size_t)(i % POSES) * J, .output_count = J};
            if (ossa_local_to_model_job_run(&l2m) != OSSA_OK) abort();
        }
        double t1 = bench_clock_ns(CLOCK_THREAD_CPUTIME_ID);
        for (int i = 0; i < LOOPS * POSES; i++) {
            ossa_palette_job pal = {.skeleton = sk, .model = model + (size_t)(i % POSES) * J, .model_count = J,
                                    .output = c->palette, .output_count = J};
            if (ossa_palette_job_run(&pal) != OSSA_OK) abort();
        }
        v[0][r] = (t1 - t0) / (LOOPS * POSES);
        v[1][r] = (bench_clock_ns(CLOCK_THREAD_CPUTIME_ID) - t1) / (LOOPS * POSES);
    }
    printf("local-to-model alone %.0f ns, palette alone %.0f ns (%u joints; SIMD level %s; goal: both <= ~150)\n",
           median(v[0], REPS), median(v[1], REPS), J, ossa__simd_name(ossa__simd()));
    free(locals);
    free(model);
}

/* Where the bytes of n built clips go (packed channels: records, key masks, value streams, of
 * which the lifted residual fields; the rest: headers, names, base pose, raw channels). */
static void print_bytes_breakdown(const char *label, ossa_built_clip *const *built, uint32_t n) {
    size_t total = 0, rec = 0, masks = 0, values = 0, grid = 0, keys = 0, nrec = 0, raw = 0;
    uint64_t resid = 0;
    for (uint32_t i = 0; i < n; i++) {
        const ossa__bc_header *h = built[i]->h;
        total += h->size;
        nrec += h->packed_count;
        raw += h->raw_count;
        rec += (size_t)h->packed_count * sizeof(ossa__bc_packed);
        masks += (size_t)h->mask_count * built[i]->mask_bytes;
        grid += (size_t)ossa__bc_grid_bytes(h);
        uint64_t off = h->stream_off;
        for (uint32_t k = 0; k < h->packed_count; k++) {
            const ossa__bc_packed *p = &built[i]->packed[k];
            uint32_t kc = built[i]->mask_keys[p->mask], A, N, W;
            uint64_t bits = ossa__lift_stream_bits(p, kc, built[i]->base + off);
            ossa__lift_sizes(p, &A, &N, &W);
            off += (bits + 7) / 8;
            keys += kc;
            values += (bits + 7) / 8;
            if (kc > 1) resid += bits - (uint64_t)(ossa__lift_blocks(kc) + 1u) * A; /* the residuals and block flags */
        }
    }
    printf("  %s: %zu B: packed values %zu B (%zu keys; lifted residual fields and block flags %llu B), records %zu B (%zu x %zu), "
           "key masks %zu B, key grid %zu B, the rest %zu B (%zu raw channels)\n", label, total, values, keys,
           (unsigned long long)(resid / 8), rec, nrec, sizeof(ossa__bc_packed), masks, grid,
           total - values - rec - masks - grid, raw);
}

int main(int argc, char **argv) {
    int only = argc > 1 ? atoi(argv[1]) : -1; /* profile one mode: 0 editable, 1 lossless, 2 compressed */
    const char *root = getenv("OSSA_ASSETS");
    char path[512];
    snprintf(path, sizeof path, "%s/Woman/Woman.gltf", root && *root ? root : "../shared/assets");
    ossa_asset *asset = NULL;
    ossa_diagnostic diag;
    ossa_result r = ossa_gltf_load_file(path, NULL, &asset, &diag);
    if (r != OSSA_OK) {
        printf("Woman.gltf: skipped (%s: %s %s)\n", path, ossa_result_string(r), diag.message);
        return 0;
    }
    const ossa_skeleton *sk = asset->skeleton;
    uint32_t n = asset->clip_count, J = sk->joint_count;
    ossa_built_clip **built[MODES] = {NULL, calloc(n, sizeof(void *)), calloc(n, sizeof(void *))};
    double build_ms[MODES] = {0};
    size_t total[MODES] = {0};
    float worst[MODES] = {0};
    ossa_clip_build_options opt[MODES];
    memset(opt, 0, sizeof opt);
    opt[LOSSLESS].lossless = true;
    /* compressed as ossa pack builds it: with the asset's meshes (shells and the vertex check) */
    opt[COMPRESSED].meshes = (const ossa_mesh *const *)asset->meshes;
    opt[COMPRESSED].mesh_count = asset->mesh_count;
    printf("Woman.gltf: %u joints, %u clips, one thread\n\n", J, n);
    printf("%-12s %10s %10s %10s %11s %11s  %s\n", "clip", "editable", "lossless", "compressed", "ratio", "max error",
           "where (joint, time)");
    float vertex_error = 0.0f;
    uint32_t unchecked = 0;
    for (int m = LOSSLESS; m < MODES; m++) {
        double t0 = bench_clock_ns(CLOCK_THREAD_CPUTIME_ID);
        for (uint32_t i = 0; i < n; i++) {
            ossa_clip_build_stats st;
            if (ossa_clip_build(asset->clips[i], sk, &opt[m], NULL, &built[m][i], &st) != OSSA_OK) abort();
            if (m == COMPRESSED && st.max_vertex_error > vertex_error) vertex_error = st.max_vertex_error;
            if (m == COMPRESSED) unchecked += st.vertex_times_unchecked;
        }
        build_ms[m] = (bench_clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0) / 1e6;
    }
    for (uint32_t i = 0; i < n; i++) {
        ossa_clip_build_stats sl = ossa_built_clip_stats(built[LOSSLESS][i]), sc = ossa_built_clip_stats(built[COMPRESSED][i]);
        total[EDITABLE] += sc.raw_bytes;
        total[LOSSLESS] += sl.bytes;
        total[COMPRESSED] += sc.bytes;
        if (sl.max_error > worst[LOSSLESS]) worst[LOSSLESS] = sl.max_error;
        if (sc.max_error > worst[COMPRESSED]) worst[COMPRESSED] = sc.max_error;
        printf("%-12s %10zu %10zu %10zu %10.1fx %11.3g  %s, %.3f s\n", asset->clips[i]->name, sc.raw_bytes, sl.bytes,
               sc.bytes, (double)sc.raw_bytes / (double)sc.bytes, (double)sc.max_error, sk->names[sc.worst_joint],
               (double)sc.worst_time);
    }
    printf("%-12s %10zu %10zu %10zu %10.1fx %11.3g\n", "total", total[EDITABLE], total[LOSSLESS], total[COMPRESSED],
           (double)total[EDITABLE] / (double)total[COMPRESSED], (double)worst[COMPRESSED]);
    print_bytes_breakdown("compressed", built[COMPRESSED], n);
    printf("  (editable = key times + values as floats; the runtime editable clips add 60 Hz tables, shared by tracks with equal times: 1,383,664 bytes)\n");
    printf("  lossless max error %.3g; targets: compressed <= 100,000 bytes at <= 1e-4, lossless <= 900,000\n",
           (double)worst[LOSSLESS]);
    printf("  reference: ACL 2.1 132,460 bytes at 3.68e-4 (target 1e-4); ozz 0.16 139,504 bytes\n");
    printf("build time (thread CPU), all %u clips: lossless %.1f ms, compressed %.1f ms\n", n,
           build_ms[LOSSLESS], build_ms[COMPRESSED]);
    printf("compressed with the mesh: default precision %.3g model units (bind-pose height %.3g), max skinned-vertex "
           "error %.3g (builder), %u grid times not skinned (budget)\n",
           (double)ossa_clip_build_default_precision(sk), (double)ossa_skeleton_bind_height(sk), (double)vertex_error,
           unchecked);
    { /* the absolute target: 1e-4 model units on the skin */
        ossa_clip_build_options abs = opt[COMPRESSED];
        abs.precision = 1e-4f;
        size_t bytes = 0;
        float verr = 0.0f;
        ossa_built_clip **b = calloc(n, sizeof *b);
        double t0 = bench_clock_ns(CLOCK_THREAD_CPUTIME_ID);
        for (uint32_t i = 0; i < n; i++) {
            ossa_clip_build_stats st;
            if (ossa_clip_build(asset->clips[i], sk, &abs, NULL, &b[i], &st) != OSSA_OK) abort();
            bytes += st.bytes;
            if (st.max_vertex_error > verr) verr = st.max_vertex_error;
        }
        printf("compressed with the mesh at --precision 1e-4: %zu bytes, max skinned-vertex error %.3g, build %.1f ms\n",
               bytes, (double)verr, (bench_clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0) / 1e6);
        print_bytes_breakdown("at 1e-4", b, n);
        for (uint32_t i = 0; i < n; i++) ossa_built_clip_destroy(b[i]);
        free(b);
    }
    /* the same clips at ACL's achieved error, for a like-for-like size comparison */
    ossa_clip_build_options acl = {0};
    acl.precision = 3.68e-4f;
    size_t acl_bytes = 0;
    float acl_err = 0.0f;
    for (uint32_t i = 0; i < n; i++) {
        ossa_built_clip *b = NULL;
        ossa_clip_build_stats st;
        if (ossa_clip_build(asset->clips[i], sk, &acl, NULL, &b, &st) != OSSA_OK) abort();
        acl_bytes += st.bytes;
        if (st.max_error > acl_err) acl_err = st.max_error;
        ossa_built_clip_destroy(b);
    }
    printf("at precision 3.68e-4 (ACL's measured error): %zu bytes, measured max error %.3g (ACL: 132,460)\n\n", acl_bytes,
           (double)acl_err);

    character c = {0};
    c.asset = asset;
    c.locals = calloc(J, sizeof(ossa_transform));
    c.model = calloc(J, sizeof(ossa_mat4));
    c.palette = calloc(J, sizeof(ossa_mat4));
    if (ossa_sampling_context_create(J, 0, NULL, &c.ctx) != OSSA_OK) abort();
    int running = ossa_asset_find_clip(asset, "Running"), pickup = ossa_asset_find_clip(asset, "PickUp");
    if (running < 0 || pickup < 0) abort();
    c.cursors = calloc(ossa_clip_cursor_count(asset->clips[running]) + 1, sizeof(uint32_t));
    printf("sampling context: %zu bytes per instance (%u joints)\n\n", ossa_sampling_context_size(c.ctx), J);
    printf("median thread-CPU ns per character-frame %5s %10s %10s   reference\n", mode_name[0], mode_name[1], mode_name[2]);
    const int frames = 4200; /* 70 s at 60 Hz: many loops of Running */
    struct {
        const char *label;
        int clip;
        bool random, full;
        const char *ref;
    } rows[] = {
        {"forward Running, sampling", running, false, false, "ozz ~400; target <= 200"},
        {"forward Running, + model + palette", running, false, true, "ozz 779; target <= 400 (lossless <= 650)"},
        {"random Running, sampling", running, true, false, ""},
        {"random Running, + model + palette", running, true, true, "ozz 1,373; target <= 700"},
        {"random PickUp, + model + palette", pickup, true, true, "target <= 700"},
    };
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        double ns[MODES];
        for (int m = 0; m < MODES; m++) {
            ns[m] = 0.0;
            if (only >= 0 && m != only) continue;
            ossa_sampling_context_reset(c.ctx);
            memset(c.cursors, 0, sizeof(uint32_t));
            ns[m] = run(&c, m, asset->clips[rows[k].clip], m ? built[m][rows[k].clip] : NULL, rows[k].random, rows[k].full,
                        frames);
        }
        printf("%-36s %10.0f %10.0f %10.0f   %s\n", rows[k].label, ns[0], ns[1], ns[2], rows[k].ref);
    }
    pose_stages(&c, built[COMPRESSED][running]);
    for (int m = LOSSLESS; m < MODES; m++) {
        for (uint32_t i = 0; i < n; i++) ossa_built_clip_destroy(built[m][i]);
        free(built[m]);
    }
    ossa_sampling_context_destroy(c.ctx);
    free(c.cursors);
    free(c.locals);
    free(c.model);
    free(c.palette);
    ossa_asset_destroy(asset);
    return 0;
}
