/* bench_retarget: the run-time retarget job per character-frame with Woman.gltf (43 joints;
 * ../shared/assets or $OSSA_ASSETS) as the target, next to the local-to-model job on the same
 * skeleton, and the offline bake per clip.
 *   job:   64 source poses (Woman's Walking, or the demo character's walk), each retargeted
 *          onto Woman; without contacts, and with contacts (state carried from pose to pose);
 *   local-to-model: the same 64 Woman poses to model matrices (the baseline);
 *   bake:  Woman's Walking -> the demo character, the demo's walk -> Woman, and CMU 01_01.bvh
 *          -> Woman when Debian's assimp-testmodels is installed (with contacts, the default).
 * Figures: median over runs of (run time / frames), CLOCK_THREAD_CPUTIME_ID; bakes: median
 * time per clip. Usage: bench_retarget [runs (default 15)] */
#include <ossa/import.h>
#include <ossa/ossa.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "demo_character.h" /* support/ */

#define POSES 64

static double now_ns(void) { return bench_clock_ns(CLOCK_THREAD_CPUTIME_ID); }
static volatile float sink;

static ossa_retarget_rig *make_rig(const ossa_skeleton *source, const ossa_skeleton *target, bool fix) {
    ossa_retarget_map sm, tm;
    ossa_diagnostic diag;
    if (ossa_retarget_map_auto(source, &sm, &diag) != OSSA_OK || ossa_retarget_map_auto(target, &tm, &diag) != OSSA_OK) {
        printf("bench_retarget: map: %s\n", diag.message);
        return NULL;
    }
    ossa_retarget_rig_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.source = source;
    desc.source_map = &sm;
    desc.target = target;
    desc.target_map = &tm;
    desc.tpose_fix = fix;
    ossa_retarget_rig *rig = NULL;
    if (ossa_retarget_rig_create(&desc, NULL, &rig, &diag) != OSSA_OK) printf("bench_retarget: rig: %s\n", diag.message);
    return rig;
}

/* POSES source poses of clip, evenly over its duration. */
static ossa_transform *sample_poses(const ossa_clip *clip, const ossa_skeleton *s) {
    ossa_transform *poses = malloc(sizeof *poses * POSES * s->joint_count);
    for (int p = 0; p < POSES; p++) {
        ossa_clip_sample_job job;
        memset(&job, 0, sizeof job);
        job.clip = clip;
        job.time = clip->start + (clip->end - clip->start) * (float)p / POSES;
        job.reference = s->rest;
        job.reference_count = s->joint_count;
        job.output = poses + (size_t)p * s->joint_count;
        job.output_count = s->joint_count;
        ossa_clip_sample_job_run(&job);
    }
    return poses;
}

/* Median ns per frame of the retarget job over the poses. */
static double bench_job(const ossa_retarget_rig *rig, const ossa_transform *poses, bool contacts, int runs) {
    uint32_t S = rig->source->joint_count, T = rig->target->joint_count;
    ossa_transform *out = malloc(sizeof *out * T), *scratch = malloc(sizeof *scratch * (S + T));
    double *per = malloc(sizeof(double) * (size_t)runs);
    ossa_retarget_contacts state;
    memset(&state, 0, sizeof state);
    ossa_retarget_job job;
    memset(&job, 0, sizeof job);
    job.rig = rig;
    job.input_count = S;
    job.output = out;
    job.output_count = T;
    job.scratch = scratch;
    job.scratch_count = S + T;
    job.contacts = contacts ? &state : NULL;
    job.delta_time = 1.0f / 30.0f;
    for (int r = 0; r < runs; r++) {
        double t0 = now_ns();
        for (int rep = 0; rep < 16; rep++) {
            for (int p = 0; p < POSES; p++) {
                job.input = poses + (size_t)p * S;
                ossa_retarget_job_run(&job);
            }
        }
        per[r] = (now_ns() - t0) / (16.0 * POSES);
        sink += out[0].rotation.w;
    }
    double m = median(per, runs);
    free(per), free(out), free(scratch);
    return m;
}

static double bench_local_to_model(const ossa_skeleton *s, const ossa_transform *poses, int runs) {
    ossa_mat4 *models = malloc(sizeof *models * s->joint_count);
    double *per = malloc(sizeof(double) * (size_t)runs);
    ossa_local_to_model_job job;
    memset(&job, 0, sizeof job);
    job.skeleton = s;
    job.input_count = s->joint_count;
    job.output = models;
    job.output_count = s->joint_count;
    for (int r = 0; r < runs; r++) {
        double t0 = now_ns();
        for (int rep = 0; rep < 16; rep++) {
            for (int p = 0; p < POSES; p++) {
                job.input = poses + (size_t)p * s->joint_count;
                ossa_local_to_model_job_run(&job);
            }
        }
        per[r] = (now_ns() - t0) / (16.0 * POSES);
        sink += models[1].m[0];
    }
    double m = median(per, runs);
    free(per), free(models);
    return m;
}

/* Median ms per bake of clip; *frames = the clip's key times. */
static double bench_bake(const ossa_retarget_rig *rig, const ossa_clip *clip, int runs, uint32_t *frames) {
    double *per = malloc(sizeof(double) * (size_t)runs);
    for (int r = 0; r < runs; r++) {
        ossa_clip *out = NULL;
        double t0 = now_ns();
        ossa_retarget_bake(rig, clip, NULL, NULL, &out);
        per[r] = (now_ns() - t0) / 1e6;
        *frames = out && out->track_count ? out->tracks[0].rotation.key_count : 0;
        ossa_clip_destroy(out);
    }
    double m = median(per, runs);
    free(per);
    return m;
}

static void bake_line(const char *what, const ossa_skeleton *source, const ossa_skeleton *target,
                      const ossa_clip *clip, int runs) {
    ossa_retarget_rig *rig = make_rig(source, target, true);
    if (!rig) return;
    uint32_t frames = 0;
    double ms = bench_bake(rig, clip, runs, &frames);
    printf("bake %-34s %5u frames  %8.2f ms per clip  %6.2f us per frame\n", what, frames, ms,
           frames ? 1000.0 * ms / frames : 0.0);
    ossa_retarget_rig_destroy(rig);
}

int main(int argc, char **argv) {
    int runs = argc > 1 ? atoi(argv[1]) : 15;
    if (runs < 1) runs = 1;
    const char *root = getenv("OSSA_ASSETS");
    char path[1024];
    snprintf(path, sizeof path, "%s/Woman/Woman.gltf", root && *root ? root : "../shared/assets");
    ossa_asset *woman = NULL, *demo = demo_character_create();
    ossa_diagnostic diag = {{0}, {0}};
    if (!demo || ossa_gltf_load_file(path, NULL, &woman, &diag) != OSSA_OK) {
        printf("bench_retarget: skipped (%s: %s)\n", path, diag.message);
        ossa_asset_destroy(demo);
        return 0;
    }
    const ossa_skeleton *ws = woman->skeleton, *ds = demo->skeleton;
    const ossa_clip *walking = woman->clips[ossa_asset_find_clip(woman, "Walking")];
    const ossa_clip *walk = demo->clips[ossa_asset_find_clip(demo, "walk")];
    ossa_transform *woman_poses = sample_poses(walking, ws), *demo_poses = sample_poses(walk, ds);
    ossa_retarget_rig *self = make_rig(ws, ws, false), *from_demo = make_rig(ds, ws, true);
    if (!self || !from_demo) return 1;
    printf("bench_retarget: Woman.gltf target (%u joints), %d poses x 16, median of %d runs (ns per frame)\n",
           ws->joint_count, POSES, runs);
    double l2m = bench_local_to_model(ws, woman_poses, runs);
    double a = bench_job(self, woman_poses, false, runs), b = bench_job(from_demo, demo_poses, false, runs);
    double c = bench_job(from_demo, demo_poses, true, runs);
    printf("local-to-model job, Woman                 %8.1f ns\n", l2m);
    printf("retarget job Woman -> Woman               %8.1f ns  (%.2fx local-to-model)\n", a, a / l2m);
    printf("retarget job demo (17) -> Woman           %8.1f ns  (%.2fx)\n", b, b / l2m);
    printf("retarget job demo -> Woman, with contacts %8.1f ns  (%.2fx)\n", c, c / l2m);
    int bake_runs = runs < 5 ? runs : 5;
    bake_line("Woman Walking -> demo", ws, ds, walking, bake_runs);
    bake_line("demo walk -> Woman", ds, ws, walk, bake_runs);
    ossa_asset *cmu = NULL;
    const char *bvh = "/usr/share/assimp/models/BVH/01_01.bvh";
    if (ossa_import_file(bvh, OSSA_IMPORTER_AUTO, NULL, &cmu, &diag) == OSSA_OK && cmu->clip_count) {
        bake_line("CMU 01_01.bvh (22.9 s) -> Woman", cmu->skeleton, ws, cmu->clips[0], bake_runs);
    } else {
        printf("bake CMU 01_01.bvh: skipped (%s absent: Debian package assimp-testmodels)\n", bvh);
    }
    ossa_asset_destroy(cmu);
    ossa_retarget_rig_destroy(self);
    ossa_retarget_rig_destroy(from_demo);
    free(woman_poses), free(demo_poses);
    ossa_asset_destroy(woman);
    ossa_asset_destroy(demo);
    return 0;
}
