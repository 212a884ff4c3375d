/* bench_layers: the blend job per character-frame on Woman.gltf (43 joints; Running 0.7 s,
 * Walking 1.2 s among 10 clips):
 *   blend 2 layers (Walking + Running) vs the reference pairwise nlerp loop;
 *   blend 4 layers (+ Idle, Jump); 2 layers with an upper-body mask; an additive layer;
 *   the inertialization jobs (apply per character-frame during a transition, record once per
 *   transition) next to those;
 *   the player's full update with 3 layers (walk + run synced, additive Punch on the upper body):
 *   sampling x3, blend, local-to-model and root-motion bookkeeping; on editable clips and on
 *   built clips (ossa_clip_build defaults: compressed, 0.1 mm).
 * Blend figures exclude sampling (poses sampled once per frame time beforehand). Each figure is
 * the median over runs of (run time / frames), CPU time (CLOCK_THREAD_CPUTIME_ID).
 * Usage: bench_layers [Woman.gltf] [runs (default 9)]; default path $OSSA_ASSETS/Woman/Woman.gltf
 * or ../shared/assets/Woman/Woman.gltf. Prints "skipped" and exits 0 when the file is absent. */
#include <ossa/ossa.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"

#define FRAMES 1024
#define POSES 64 /* distinct sampled poses cycled through */

static double now_ns(void) { return bench_clock_ns(CLOCK_THREAD_CPUTIME_ID); }
static volatile float sink;

static const ossa_clip *clip_named(const ossa_asset *a, const char *name) {
    int32_t i = ossa_asset_find_clip(a, name);
    return i >= 0 ? a->clips[i] : NULL;
}

/* POSES poses of `clip` over its duration. */
static ossa_transform *sample_poses(const ossa_clip *clip, const ossa_skeleton *sk) {
    uint32_t n = sk->joint_count;
    ossa_transform *p = malloc(sizeof *p * n * POSES);
    for (int k = 0; k < POSES; k++) {
        ossa_clip_sample_job job = {.clip = clip, .time = clip->start + ossa_clip_duration(clip) * (float)k / POSES,
                                    .loop = true, .reference = sk->rest, .reference_count = n,
                                    .output = p + (size_t)k * n, .output_count = n};
        ossa_clip_sample_job_run(&job);
    }
    return p;
}

typedef struct setup {
    const ossa_skeleton *sk;
    ossa_transform *poses[4];
    ossa_transform *additive;
    const float *mask;
    int layers;
    bool use_additive;
} setup;

static double bench_blend(const setup *s, int runs) {
    uint32_t n = s->sk->joint_count;
    ossa_transform *out = malloc(sizeof *out * n);
    double *per = malloc(sizeof(double) * (size_t)runs);
    const float w[4] = {0.3f, 0.7f, 0.2f, 0.1f};
    for (int r = 0; r < runs; r++) {
        double t0 = now_ns();
        for (int f = 0; f < FRAMES; f++) {
            int k = f % POSES;
            ossa_blend_layer layers[4], add;
            for (int i = 0; i < s->layers; i++) {
                ossa_blend_layer l = {s->poses[i] + (size_t)k * n, n, w[i], i == 1 ? s->mask : NULL, s->mask ? n : 0};
                layers[i] = l;
            }
            ossa_blend_layer a = {s->additive ? s->additive + (size_t)k * n : NULL, n, 0.8f, NULL, 0};
            add = a;
            ossa_blend_job job = {layers, (uint32_t)s->layers, &add, s->use_additive ? 1u : 0u, s->sk->rest, n, 0.0f,
                                  out, n};
            ossa_blend_job_run(&job);
            sink += out[(uint32_t)f % n].rotation.x;
        }
        per[r] = (now_ns() - t0) / FRAMES;
    }
    double m = median(per, runs);
    free(per);
    free(out);
    return m;
}

/* The reference: the obvious pairwise blend (lerp T and S, nlerp R on the shorter arc). */
static void pair_nlerp(const ossa_transform *a, const ossa_transform *b, float t, uint32_t n, ossa_transform *out) {
    for (uint32_t i = 0; i < n; i++) {
        out[i].translation = ossa_vec3_lerp(a[i].translation, b[i].translation, t);
        out[i].rotation = ossa_quat_nlerp(a[i].rotation, b[i].rotation, t);
        out[i].scale = ossa_vec3_lerp(a[i].scale, b[i].scale, t);
    }
}

static double bench_reference_pair(const setup *s, int runs) {
    uint32_t n = s->sk->joint_count;
    ossa_transform *out = malloc(sizeof *out * n);
    double *per = malloc(sizeof(double) * (size_t)runs);
    for (int r = 0; r < runs; r++) {
        double t0 = now_ns();
        for (int f = 0; f < FRAMES; f++) {
            int k = f % POSES;
            pair_nlerp(s->poses[0] + (size_t)k * n, s->poses[1] + (size_t)k * n, 0.7f, n, out);
            sink += out[(uint32_t)f % n].rotation.x;
        }
        per[r] = (now_ns() - t0) / FRAMES;
    }
    double m = median(per, runs);
    free(per);
    free(out);
    return m;
}

/* Inertialization (Walking -> Running over 0.3 s): the record job once per transition
 * (`record` true: the figure is per record), else the apply job per character-frame on the
 * new state's pose at times spread over the transition (every channel still decaying). */
static double bench_inertialize(const setup *s, int runs, bool record) {
    uint32_t n = s->sk->joint_count;
    ossa_transform *out = malloc(sizeof *out * n);
    ossa_inertialize_joint *st = malloc(sizeof *st * n);
    double *per = malloc(sizeof(double) * (size_t)runs);
    const float T = 0.3f;
    ossa_inertialize_record_job rec = {s->poses[0] + n, n, s->poses[0], n, s->poses[1], n, T, 1.0f / 60.0f, st, n};
    ossa_inertialize_record_job_run(&rec);
    for (int r = 0; r < runs; r++) {
        double t0 = now_ns();
        for (int f = 0; f < FRAMES; f++) {
            int k = f % POSES;
            if (record) {
                rec.previous = s->poses[0] + (size_t)((k + 1) % POSES) * n, rec.before = s->poses[0] + (size_t)k * n;
                ossa_inertialize_record_job_run(&rec);
                sink += st[(uint32_t)f % n].offset[3];
                continue;
            }
            ossa_inertialize_apply_job job = {st, n, s->poses[1] + (size_t)k * n, n, T * (float)k / POSES, out, n};
            ossa_inertialize_apply_job_run(&job);
            sink += out[(uint32_t)f % n].rotation.x;
        }
        per[r] = (now_ns() - t0) / FRAMES;
    }
    double m = median(per, runs);
    free(per);
    free(st);
    free(out);
    return m;
}

static double bench_sample(const ossa_clip *clip, const ossa_skeleton *sk, int runs) {
    uint32_t n = sk->joint_count, cc = ossa_clip_cursor_count(clip);
    ossa_transform *out = malloc(sizeof *out * n);
    uint32_t *cursors = calloc(cc ? cc : 1, sizeof *cursors);
    double *per = malloc(sizeof(double) * (size_t)runs);
    for (int r = 0; r < runs; r++) {
        double t0 = now_ns();
        for (int f = 0; f < FRAMES; f++) {
            ossa_clip_sample_job job = {.clip = clip, .time = (float)f / 60.0f, .loop = true,
                                        .lookup = OSSA_LOOKUP_CURSOR, .cursors = cursors, .cursor_count = cc,
                                        .reference = sk->rest, .reference_count = n, .output = out,
                                        .output_count = n};
            ossa_clip_sample_job_run(&job);
            sink += out[(uint32_t)f % n].rotation.x;
        }
        per[r] = (now_ns() - t0) / FRAMES;
    }
    double m = median(per, runs);
    free(per);
    free(cursors);
    free(out);
    return m;
}

/* The three clips as editable clips, or (built[] non-NULL) as built clips. */
static double bench_player(const ossa_asset *a, const ossa_clip *walk, const ossa_clip *run, const ossa_clip *punch_add,
                           ossa_built_clip *const *built, int runs) {
    ossa_player *p = NULL;
    ossa_player_create(a->skeleton, NULL, &p);
    uint32_t l1, l2;
    ossa_player_add_layer(p, OSSA_PLAYER_LAYER_OVERRIDE, &l1);
    ossa_player_add_layer(p, OSSA_PLAYER_LAYER_ADDITIVE, &l2);
    if (built) {
        ossa_player_play(p, ossa_source_built(built[0]), 1, true);
        ossa_player_layer_play(p, l1, ossa_source_built(built[1]), 1, true);
        ossa_player_layer_play(p, l2, ossa_source_built(built[2]), 1, true);
    } else {
        ossa_player_play(p, ossa_source_editable(walk), 1, true);
        ossa_player_layer_play(p, l1, ossa_source_editable(run), 1, true);
        ossa_player_layer_play(p, l2, ossa_source_editable(punch_add), 1, true);
    }
    ossa_player_layer_set_weight(p, 0, 0.4f);
    ossa_player_layer_set_weight(p, l1, 0.6f);
    ossa_player_layer_set_sync(p, 0, 1);
    ossa_player_layer_set_sync(p, l1, 1);
    ossa_player_layer_set_mask_joint(p, l2, "Spine");
    double *per = malloc(sizeof(double) * (size_t)runs);
    for (int r = 0; r < runs; r++) {
        double t0 = now_ns();
        for (int f = 0; f < FRAMES; f++) {
            ossa_player_update(p, 1.0f / 60.0f);
            sink += ossa_player_pose(p)[1].rotation.x;
        }
        per[r] = (now_ns() - t0) / FRAMES;
    }
    double m = median(per, runs);
    free(per);
    ossa_player_destroy(p);
    return m;
}

int main(int argc, char **argv) {
    char path[1024];
    const char *env = getenv("OSSA_ASSETS");
    if (argc > 1) snprintf(path, sizeof path, "%s", argv[1]);
    else snprintf(path, sizeof path, "%s/Woman/Woman.gltf", env ? env : "../shared/assets");
    int runs = argc > 2 ? atoi(argv[2]) : 9;
    if (runs < 1) runs = 1;
    ossa_asset *a = NULL;
    if (ossa_gltf_load_file(path, NULL, &a, NULL) != OSSA_OK) {
        printf("bench_layers: skipped (%s not loadable)\n", path);
        return 0;
    }
    const ossa_skeleton *sk = a->skeleton;
    const ossa_clip *walk = clip_named(a, "Walking"), *run = clip_named(a, "Running");
    const ossa_clip *idle = clip_named(a, "Idle"), *jump = clip_named(a, "Jump"), *punch = clip_named(a, "Punch");
    if (!sk || !walk || !run || !idle || !jump || !punch) {
        printf("bench_layers: skipped (%s lacks the Walking/Running/Idle/Jump/Punch clips)\n", path);
        ossa_asset_destroy(a);
        return 0;
    }
    ossa_clip *punch_add = NULL;
    ossa_clip_make_additive(punch, sk, NULL, NULL, &punch_add);
    uint32_t n = sk->joint_count;
    float *mask = malloc(sizeof(float) * n);
    ossa_blend_mask_from_name(sk, "Spine", 1, 0, mask, n);
    setup s = {sk, {sample_poses(walk, sk), sample_poses(run, sk), sample_poses(idle, sk), sample_poses(jump, sk)},
               sample_poses(punch_add, sk), NULL, 2, false};
    printf("bench_layers: %s, %u joints, %d frames x %d runs, ns per character-frame (median)\n", path, n, FRAMES, runs);
    double ref = bench_reference_pair(&s, runs);
    double b2 = bench_blend(&s, runs);
    s.layers = 4;
    double b4 = bench_blend(&s, runs);
    s.layers = 2;
    s.mask = mask;
    double bm = bench_blend(&s, runs);
    s.mask = NULL;
    s.layers = 1;
    s.use_additive = true;
    double ba = bench_blend(&s, runs);
    double ia = bench_inertialize(&s, runs, false);
    double ir = bench_inertialize(&s, runs, true);
    double sw = bench_sample(walk, sk, runs);
    double pl = bench_player(a, walk, run, punch_add, NULL, runs);
    ossa_built_clip *built[3] = {NULL, NULL, NULL};
    const ossa_clip *sources[3] = {walk, run, punch_add};
    bool built_ok = true;
    for (int i = 0; i < 3; i++)
        built_ok = built_ok && ossa_clip_build(sources[i], sk, NULL, NULL, &built[i], NULL) == OSSA_OK;
    double plb = built_ok ? bench_player(a, walk, run, punch_add, built, runs) : -1.0;
    printf("  reference pairwise nlerp (2 poses)   %8.0f ns\n", ref);
    printf("  blend job, 2 layers                   %8.0f ns\n", b2);
    printf("  blend job, 4 layers                   %8.0f ns\n", b4);
    printf("  blend job, 2 layers, upper-body mask  %8.0f ns\n", bm);
    printf("  blend job, 1 layer + additive         %8.0f ns\n", ba);
    printf("  inertialize apply (during 0.3 s)      %8.0f ns\n", ia);
    printf("  inertialize record (once a transition)%8.0f ns\n", ir);
    printf("  sampling Walking (cursor), for scale  %8.0f ns\n", sw);
    printf("  player update, 3 layers (2 synced + additive masked): %8.0f ns\n", pl);
    printf("  the same on built clips (default compressed build):   %8.0f ns\n", plb);
    for (int i = 0; i < 3; i++) ossa_built_clip_destroy(built[i]);
    for (int i = 0; i < 4; i++) free(s.poses[i]);
    free(s.additive);
    free(mask);
    ossa_clip_destroy(punch_add);
    ossa_asset_destroy(a);
    return 0;
}
