/* bench_graph: animation graphs per character-frame on Woman.gltf (43 joints):
 *   the graph update of the example graph (base: a synced 1-D blend space Idle /
 *   Walking / Running at speed 2.5, so Walking + Running play; upper: Punch masked from Spine)
 *   in steady state, next to the player doing the same layers by hand (Walking + Running in a
 *   sync group, Punch on an override layer masked from Spine; the player also runs
 *   local-to-model, which the graph leaves to the caller);
 *   the same graph over a scripted 8 s (speed ramp, a jump every 2 s by inertialization, punches
 *   by inertialization, cross-fades back: transitions included);
 *   the inertialization apply job and the dead-blending apply job per character-frame next to
 *   a 2-layer blend job (poses sampled beforehand).
 * Both on built clips (ossa_clip_build defaults: compressed, 0.1 mm) and editable clips. Each
 * figure is the median over runs of (run time / frames), CPU time (CLOCK_THREAD_CPUTIME_ID).
 * Usage: bench_graph [Woman.gltf] [runs (default 9)]; default path $OSSA_ASSETS/Woman/Woman.gltf
 * or ../shared/assets/Woman/Woman.gltf. Prints "skipped" and exits 0 when the file is absent. */
#include <ossa/ossa.h>
#include <ossa/graph_json.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"

#define FRAMES 480

static double now_ns(void) { return bench_clock_ns(CLOCK_THREAD_CPUTIME_ID); }
static volatile float sink;

static const char *GRAPH =
    "{\"parameters\": {\"speed\": 2.5, \"jump\": \"trigger\", \"armed\": false},"
    " \"layers\": [{\"name\": \"base\", \"start\": \"move\","
    "  \"states\": {\"move\": {\"blend1d\": {\"parameter\": \"speed\", \"clips\": [[\"Idle\", 0.0], [\"Walking\", 1.4],"
    "   [\"Running\", 4.0]], \"sync\": true}}, \"jump\": {\"clip\": \"Jump\", \"loop\": false}},"
    "  \"transitions\": [{\"from\": \"move\", \"to\": \"jump\", \"when\": \"jump\", \"duration\": 0.2, \"blend\": \"inertialize\"},"
    "   {\"from\": \"jump\", \"to\": \"move\", \"exit_time\": 0.9, \"duration\": 0.3, \"blend\": \"crossfade\"}]},"
    "  {\"name\": \"upper\", \"mask\": \"Spine\", \"start\": \"punch\","
    "   \"states\": {\"none\": {\"empty\": true}, \"punch\": {\"clip\": \"Punch\"}},"
    "   \"transitions\": [{\"from\": \"none\", \"to\": \"punch\", \"when\": \"armed\", \"duration\": 0.15, \"blend\": \"inertialize\"},"
    "    {\"from\": \"punch\", \"to\": \"none\", \"when\": \"!armed\", \"duration\": 0.2, \"blend\": \"crossfade\"}]}]}";

/* Graph update per frame: steady (parameters fixed) or scripted (transitions). */
static double bench_graph(const ossa_asset *a, const ossa_graph_clip *clips, uint32_t clip_count, bool scripted,
                          int runs) {
    ossa_graph_desc *desc = NULL;
    ossa_graph *g = NULL;
    ossa_graph_instance *inst = NULL;
    if (ossa_graph_desc_load_memory(GRAPH, strlen(GRAPH), NULL, &desc, NULL) != OSSA_OK ||
        ossa_graph_create(desc, a->skeleton, clips, clip_count, NULL, &g, NULL) != OSSA_OK ||
        ossa_graph_instance_create(g, NULL, &inst) != OSSA_OK)
        return -1.0;
    uint32_t n = a->skeleton->joint_count;
    if (!scripted) printf("    instance size: %zu bytes\n", ossa_graph_instance_size(g));
    ossa_transform *pose = malloc(sizeof *pose * n);
    ossa_graph_value p[3];
    ossa_graph_parameters_init(g, p, 3);
    double *per = malloc(sizeof(double) * (size_t)runs);
    for (int r = 0; r < runs; r++) {
        ossa_graph_instance_reset(inst);
        double t0 = now_ns();
        for (int f = 0; f < FRAMES; f++) {
            if (scripted) {
                p[0].number = 4.0f * (float)(f % 240) / 240.0f;
                p[1].flag = f % 120 == 60;
                p[2].flag = (f / 90) % 2 == 1;
            }
            ossa_graph_output out = {.pose = pose, .pose_count = n};
            ossa_graph_update(inst, 1.0f / 60.0f, p, 3, &out);
            sink += pose[1].rotation.x;
        }
        per[r] = (now_ns() - t0) / FRAMES;
    }
    double m = median(per, runs);
    free(per), free(pose);
    ossa_graph_instance_destroy(inst);
    ossa_graph_destroy(g);
    ossa_graph_desc_destroy(desc);
    return m;
}

/* The player with the same layers: Walking 0.4 + Running 0.6 synced, Punch masked from Spine. */
static double bench_player(const ossa_asset *a, const ossa_clip_source *src, int runs) {
    ossa_player *p = NULL;
    ossa_player_create(a->skeleton, NULL, &p);
    uint32_t l1, l2;
    ossa_player_add_layer(p, OSSA_PLAYER_LAYER_OVERRIDE, &l1);
    ossa_player_add_layer(p, OSSA_PLAYER_LAYER_OVERRIDE, &l2);
    ossa_player_play(p, src[0], 1, true);
    ossa_player_layer_play(p, l1, src[1], 1, true);
    ossa_player_layer_play(p, l2, src[2], 1, true);
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

/* Inertialization apply, dead-blend apply and a 2-layer blend job on sampled poses. */
static void bench_jobs(const ossa_asset *a, const ossa_clip *walk, const ossa_clip *run, int runs, double out[3]) {
    const ossa_skeleton *sk = a->skeleton;
    uint32_t n = sk->joint_count;
    ossa_transform *pw = malloc(sizeof *pw * n), *pr = malloc(sizeof *pr * n), *res = malloc(sizeof *res * n);
    ossa_clip_sample_job sj = {.clip = walk, .time = 0.3f, .loop = true, .reference = sk->rest, .reference_count = n,
                               .output = pw, .output_count = n};
    ossa_clip_sample_job_run(&sj);
    sj.clip = run, sj.time = 0.2f, sj.output = pr;
    ossa_clip_sample_job_run(&sj);
    ossa_inertialize_joint *is = malloc(sizeof *is * n);
    ossa_dead_blend_joint *ds = malloc(sizeof *ds * n);
    ossa_inertialize_record_job ir = {.previous = pw, .previous_count = n, .before = pr, .before_count = n,
                                      .target = pr, .target_count = n, .duration = 0.3f, .dt = 1.0f / 60,
                                      .state = is, .state_count = n};
    ossa_inertialize_record_job_run(&ir);
    ossa_dead_blend_record_job dr = {.previous = pw, .previous_count = n, .before = pr, .before_count = n,
                                     .dt = 1.0f / 60, .state = ds, .state_count = n};
    ossa_dead_blend_record_job_run(&dr);
    double *per = malloc(sizeof(double) * (size_t)runs);
    for (int which = 0; which < 3; which++) {
        for (int r = 0; r < runs; r++) {
            double t0 = now_ns();
            for (int f = 0; f < FRAMES; f++) {
                float t = 0.3f * (float)f / FRAMES;
                if (which == 0) {
                    ossa_inertialize_apply_job j = {.state = is, .state_count = n, .target = pr, .target_count = n,
                                                    .time = t, .output = res, .output_count = n};
                    ossa_inertialize_apply_job_run(&j);
                } else if (which == 1) {
                    ossa_dead_blend_apply_job j = {.state = ds, .state_count = n, .target = pr, .target_count = n,
                                                   .time = t, .duration = 0.3f, .output = res, .output_count = n};
                    ossa_dead_blend_apply_job_run(&j);
                } else {
                    ossa_blend_layer l[2] = {{pw, n, 1.0f - t, NULL, 0}, {pr, n, t + 0.01f, NULL, 0}};
                    ossa_blend_job j = {.layers = l, .layer_count = 2, .rest = sk->rest, .rest_count = n,
                                        .output = res, .output_count = n};
                    ossa_blend_job_run(&j);
                }
                sink += res[1].rotation.x;
            }
            per[r] = (now_ns() - t0) / FRAMES;
        }
        out[which] = median(per, runs);
    }
    free(per), free(is), free(ds), free(pw), free(pr), free(res);
}

int main(int argc, char **argv) {
    char fallback[1024];
    const char *path = argc > 1 ? argv[1] : NULL;
    if (!path) {
        const char *assets = getenv("OSSA_ASSETS");
        snprintf(fallback, sizeof fallback, "%s/Woman/Woman.gltf", assets ? assets : "../shared/assets");
        path = fallback;
    }
    int runs = argc > 2 ? atoi(argv[2]) : 9;
    if (runs < 1) runs = 1;
    ossa_asset *a = NULL;
    if (ossa_gltf_load_file(path, NULL, &a, NULL) != OSSA_OK) {
        printf("bench_graph: skipped (%s not loadable)\n", path);
        return 0;
    }
    const char *names[] = {"Idle", "Walking", "Running", "Jump", "Punch"};
    ossa_graph_clip editable[5], built[5];
    ossa_built_clip *b[5] = {NULL};
    for (int i = 0; i < 5; i++) {
        int32_t c = ossa_asset_find_clip(a, names[i]);
        if (c < 0 || ossa_clip_build(a->clips[c], a->skeleton, NULL, NULL, &b[i], NULL) != OSSA_OK) {
            printf("bench_graph: skipped (clip %s missing or not built)\n", names[i]);
            return 0;
        }
        editable[i] = (ossa_graph_clip){names[i], ossa_source_editable(a->clips[c]), NULL};
        built[i] = (ossa_graph_clip){names[i], ossa_source_built(b[i]), NULL};
    }
    ossa_clip_source pe[3] = {editable[1].source, editable[2].source, editable[4].source};
    ossa_clip_source pb[3] = {built[1].source, built[2].source, built[4].source};
    printf("bench_graph: %s, %u joints, %d runs x %d frames, ns per character-frame (median)\n", path,
           a->skeleton->joint_count, runs, FRAMES);
    for (int k = 0; k < 2; k++) {
        const ossa_graph_clip *clips = k ? editable : built;
        printf("  %s clips:\n", k ? "editable" : "built");
        double g = bench_graph(a, clips, 5, false, runs);
        double p = bench_player(a, k ? pe : pb, runs);
        double s = bench_graph(a, clips, 5, true, runs);
        printf("    graph update, example graph, steady (walk+run synced, punch masked): %8.0f ns\n", g);
        printf("    player update, the same layers by hand (+ local-to-model):           %8.0f ns\n", p);
        printf("    ratio graph / player:                                                 %8.2f\n", g / p);
        printf("    graph update, scripted 8 s with transitions:                          %8.0f ns\n", s);
    }
    double jobs[3];
    bench_jobs(a, a->clips[ossa_asset_find_clip(a, "Walking")], a->clips[ossa_asset_find_clip(a, "Running")], runs,
               jobs);
    printf("  inertialization apply job:   %8.0f ns\n", jobs[0]);
    printf("  dead-blending apply job:     %8.0f ns\n", jobs[1]);
    printf("  blend job, 2 layers:         %8.0f ns\n", jobs[2]);
    for (int i = 0; i < 5; i++) ossa_built_clip_destroy(b[i]);
    ossa_asset_destroy(a);
    return 0;
}
