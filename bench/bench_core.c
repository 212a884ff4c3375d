/* bench_core: runtime-core costs per character-frame for a generated clip of 64 joints with
 * 1000 keys per track (translation, rotation, scale: 192 tracks).
 *   sampling: reference linear lookup vs binary search vs frame-index table vs cursor,
 *             for forward playback at 60 Hz (and random access);
 *   local-to-model: per-joint chain walk (reference) vs the forward pass;
 *   palette: model x inverse bind for 64 joints.
 * Each figure is the median over runs of (run time / frames), timed with
 * clock_gettime(CLOCK_THREAD_CPUTIME_ID) so time spent descheduled on a busy machine is not counted.
 * Usage: bench_core [runs (default 9)] */
#include <ossa/ossa.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"

#define JOINTS 64
#define KEYS 1000
#define FRAMES 2048 /* 34 s of forward playback at 60 Hz */

static uint64_t rng = 0x1234abcdULL;
static uint64_t next_u64(void) {
    uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static float frand(float lo, float hi) { return lo + (hi - lo) * (float)((double)(next_u64() >> 11) / 9007199254740992.0); }

/* CPU time: robust on a shared, loaded machine */
static double now_ns(void) { return bench_clock_ns(CLOCK_THREAD_CPUTIME_ID); }

static volatile float sink;

static double bench_sampling(const ossa_clip *clip, ossa_lookup lookup, const float *times, int frames, int runs,
                             const ossa_transform *rest) {
    ossa_transform pose[JOINTS];
    uint32_t *cursors = calloc(ossa_clip_cursor_count(clip), sizeof(uint32_t));
    double *per = malloc(sizeof(double) * (size_t)runs);
    float acc = 0;
    for (int r = 0; r < runs; r++) {
        memset(cursors, 0, ossa_clip_cursor_count(clip) * sizeof(uint32_t));
        double t0 = now_ns();
        for (int f = 0; f < frames; f++) {
            ossa_clip_sample_job job = {.clip = clip, .time = times[f], .loop = true, .lookup = lookup,
                                        .cursors = cursors, .cursor_count = ossa_clip_cursor_count(clip),
                                        .reference = rest, .reference_count = JOINTS, .output = pose,
                                        .output_count = JOINTS};
            ossa_clip_sample_job_run(&job);
            acc += pose[f % JOINTS].translation.x;
        }
        per[r] = (now_ns() - t0) / frames;
    }
    sink = acc;
    double m = median(per, runs);
    free(per);
    free(cursors);
    return m;
}

int main(int argc, char **argv) {
    int runs = argc > 1 ? atoi(argv[1]) : 9;
    if (runs < 1) runs = 1;
    /* Hierarchy: a branching chain, parents first. */
    int32_t parents[JOINTS];
    ossa_transform rest[JOINTS];
    for (int j = 0; j < JOINTS; j++) {
        parents[j] = j == 0 ? -1 : (int32_t)(j % 4 == 0 ? j / 2 : j - 1);
        rest[j] = ossa_transform_identity();
        rest[j].translation = ossa_vec3_make(0, 0.1f, 0);
    }
    /* Keys: jittered spacing around 1/30 s (~33 s per track), every track its own times. */
    float *times = malloc(sizeof(float) * JOINTS * 3 * KEYS);
    float *values = malloc(sizeof(float) * JOINTS * 3 * KEYS * 4);
    ossa_transform_track *tracks = calloc(JOINTS, sizeof *tracks);
    for (int j = 0; j < JOINTS; j++) {
        tracks[j].joint = (uint32_t)j;
        for (int c = 0; c < 3; c++) {
            float *tt = times + ((size_t)j * 3 + (size_t)c) * KEYS;
            float *vv = values + ((size_t)j * 3 + (size_t)c) * KEYS * 4;
            /* Smooth curves (like real motion): a sinusoid per track, keys every 20-47 ms. */
            float t = frand(0, 0.02f), amp = frand(0.2f, 1.2f), omega = frand(0.5f, 6.0f), phase = frand(0, 6.28f);
            ossa_vec3 axis = ossa_vec3_normalize(ossa_vec3_make(frand(-1, 1), frand(-1, 1), frand(-1, 1)));
            for (int k = 0; k < KEYS; k++) {
                tt[k] = t;
                float wave = amp * sinf(omega * t + phase);
                t += frand(0.02f, 0.047f);
                if (c == 1) {
                    ossa_quat q = ossa_quat_from_axis_angle(axis, wave);
                    memcpy(vv + k * 4, &q, sizeof q);
                } else {
                    vv[k * 3 + 0] = wave * axis.x;
                    vv[k * 3 + 1] = wave * axis.y + (c == 2 ? 1.5f : 0.0f);
                    vv[k * 3 + 2] = wave * axis.z + (c == 2 ? 1.5f : 0.0f);
                }
            }
            ossa_track tr = {OSSA_TRACK_VECTOR, OSSA_INTERP_LINEAR, 3, KEYS, tt, vv, {0, 0, 0, NULL}};
            if (c == 1) {
                tr.kind = OSSA_TRACK_ROTATION;
                tr.components = 4;
                tracks[j].rotation = tr;
            } else if (c == 0) {
                tracks[j].translation = tr;
            } else {
                tracks[j].scale = tr;
            }
        }
    }
    ossa_clip_desc desc = {0};
    desc.name = "bench";
    desc.track_count = JOINTS;
    desc.tracks = tracks;
    desc.table_rate = 60;
    ossa_clip *clip = NULL;
    if (ossa_clip_create(&desc, NULL, &clip) != OSSA_OK) {
        fprintf(stderr, "clip creation failed\n");
        return 1;
    }
    float dur = ossa_clip_duration(clip);
    /* Forward playback at 60 Hz across the whole clip; random access over the clip. */
    float *fwd = malloc(sizeof(float) * FRAMES), *rnd = malloc(sizeof(float) * FRAMES);
    for (int f = 0; f < FRAMES; f++) {
        fwd[f] = clip->start + (float)f / 60.0f;
        rnd[f] = frand(clip->start, clip->end);
    }
    printf("bench_core: %d joints, %d keys per track (%d tracks, LINEAR), clip %.2f s, %d frames x %d runs\n", JOINTS,
           KEYS, JOINTS * 3, (double)dur, FRAMES, runs);
    printf("median ns per character-frame (ratio = reference / this)\n");
    const char *names[4] = {"linear (reference)", "binary", "table (60 Hz)", "cursor"};
    const ossa_lookup lookups[4] = {OSSA_LOOKUP_LINEAR, OSSA_LOOKUP_BINARY, OSSA_LOOKUP_TABLE, OSSA_LOOKUP_CURSOR};
    double fwd_ns[4], rnd_ns[4];
    for (int i = 0; i < 4; i++) fwd_ns[i] = bench_sampling(clip, lookups[i], fwd, FRAMES, runs, rest);
    for (int i = 0; i < 4; i++) rnd_ns[i] = bench_sampling(clip, lookups[i], rnd, FRAMES, runs, rest);
    printf("%-22s %14s %8s %14s %8s\n", "sample lookup", "forward 60Hz", "ratio", "random access", "ratio");
    for (int i = 0; i < 4; i++)
        printf("%-22s %14.0f %7.1fx %14.0f %7.1fx\n", names[i], fwd_ns[i], fwd_ns[0] / fwd_ns[i], rnd_ns[i],
               rnd_ns[0] / rnd_ns[i]);

    /* Local-to-model and palette over a sampled pose. */
    ossa_transform pose[JOINTS];
    ossa_mat4 model[JOINTS], ibm[JOINTS], pal[JOINTS];
    ossa_clip_sample_job sj = {.clip = clip, .time = clip->start + dur * 0.37f, .reference = rest,
                               .reference_count = JOINTS, .output = pose, .output_count = JOINTS};
    ossa_clip_sample_job_run(&sj);
    ossa_local_to_model_job lm = {.parents = parents, .parent_count = JOINTS, .input = rest, .input_count = JOINTS,
                                  .output = model, .output_count = JOINTS};
    ossa_local_to_model_job_run(&lm);
    /* One skin over every joint, bound at the rest pose. */
    uint32_t skin_joints[JOINTS];
    for (int j = 0; j < JOINTS; j++) {
        ossa_mat4_inverse_affine(&model[j], &ibm[j]);
        skin_joints[j] = (uint32_t)j;
    }
    ossa_skin_desc skin_desc = {"bench", JOINTS, skin_joints, ibm, -1};
    ossa_skeleton_desc sd = {JOINTS, parents, rest, NULL, 1, &skin_desc, 0.0f};
    ossa_skeleton *skeleton = NULL;
    if (ossa_skeleton_create(&sd, NULL, &skeleton) != OSSA_OK) {
        fprintf(stderr, "skeleton creation failed\n");
        return 1;
    }
    const int reps = FRAMES * 10;
    double *per = malloc(sizeof(double) * (size_t)runs);
    float acc = 0;
    for (int r = 0; r < runs; r++) {
        double t0 = now_ns();
        for (int f = 0; f < reps; f++) {
            for (uint32_t j = 0; j < JOINTS; j++) model[j] = ossa_pose_joint_to_model(pose, parents, JOINTS, j);
            acc += model[f % JOINTS].m[12];
        }
        per[r] = (now_ns() - t0) / reps;
    }
    double chain_ns = median(per, runs);
    for (int r = 0; r < runs; r++) {
        double t0 = now_ns();
        for (int f = 0; f < reps; f++) {
            pose[f % JOINTS].translation.z = (float)f * 1e-9f; /* keep the loop honest */
            ossa_local_to_model_job job = {.skeleton = skeleton, .input = pose, .input_count = JOINTS,
                                           .output = model, .output_count = JOINTS};
            ossa_local_to_model_job_run(&job);
            acc += model[f % JOINTS].m[12];
        }
        per[r] = (now_ns() - t0) / reps;
    }
    double fwd_pass_ns = median(per, runs);
    for (int r = 0; r < runs; r++) {
        double t0 = now_ns();
        for (int f = 0; f < reps; f++) {
            model[f % JOINTS].m[13] += 1e-9f;
            ossa_palette_job job = {.skeleton = skeleton, .model = model, .model_count = JOINTS, .output = pal,
                                    .output_count = JOINTS};
            ossa_palette_job_run(&job);
            acc += pal[f % JOINTS].m[12];
        }
        per[r] = (now_ns() - t0) / reps;
    }
    double pal_ns = median(per, runs);
    /* The player: one update = cursor sampling + model-space pass (cached for the palette). */
    ossa_player *player = NULL;
    double player_ns = 0;
    if (ossa_player_create(skeleton, NULL, &player) == OSSA_OK) {
        for (int r = 0; r < runs; r++) {
            ossa_player_play(player, ossa_source_editable(clip), 1.0f, true);
            double t0 = now_ns();
            for (int f = 0; f < FRAMES; f++) {
                ossa_player_update(player, 1.0f / 60);
                acc += ossa_player_pose(player)[f % JOINTS].rotation.w;
            }
            per[r] = (now_ns() - t0) / FRAMES;
        }
        player_ns = median(per, runs);
    }
    ossa_player_destroy(player);
    ossa_skeleton_destroy(skeleton);
    sink = acc;
    printf("%-22s %14.0f %7.1fx\n", "model: chain walk (ref)", chain_ns, 1.0);
    printf("%-22s %14.0f %7.1fx\n", "model: forward pass", fwd_pass_ns, chain_ns / fwd_pass_ns);
    printf("%-22s %14.0f\n", "palette (64 joints)", pal_ns);
    printf("frame total (cursor sample + model + palette): %.0f ns\n", fwd_ns[3] + fwd_pass_ns + pal_ns);
    printf("%-22s %14.0f\n", "player update (60 Hz)", player_ns);
    free(per);
    free(fwd);
    free(rnd);
    free(times);
    free(values);
    free(tracks);
    ossa_clip_destroy(clip);
    return 0;
}
