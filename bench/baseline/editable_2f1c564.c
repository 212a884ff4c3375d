/* The "ossa today" rows of issue #10, re-measured on this machine: the editable clips of
 * commit 2f1c564 (the last before the built clips), built against that commit's headers
 * and library by bench/baseline/run.sh. Woman `Running` (or argv[2]), one thread:
 *   forward 60 Hz: ossa_clip_sample with a key cursor, alone and + ossa_pose_to_model +
 *   ossa_pose_palette (the skin's joints); random times: the default lookup, full frame.
 * Prints one line per workload: the median and minimum ns per character-frame of 40 runs
 * of 10,000 frames (thread CPU time). The issue measured 790 / 1,283 / 1,525 ns for these
 * on its machine; their ratio to these is how much slower this machine runs that code. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ossa/ossa.h"

enum { REPS = 40, FRAMES = 10000 };

static double thread_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "../shared/assets/Woman/Woman.gltf";
    const char *name = argc > 2 ? argv[2] : "Running";
    ossa_asset *asset = NULL;
    ossa_diagnostic diag;
    if (ossa_gltf_load_file(path, NULL, &asset, &diag) != OSSA_OK) {
        fprintf(stderr, "%s: cannot load\n", path);
        return 1;
    }
    const ossa_skeleton *sk = asset->skeleton;
    uint32_t J = sk->joint_count;
    const ossa_clip *clip = NULL;
    for (uint32_t i = 0; i < asset->clip_count; i++)
        if (!strcmp(asset->clips[i]->name, name)) clip = asset->clips[i];
    if (!clip || !sk->skin_count) {
        fprintf(stderr, "%s: no clip '%s' or no skin\n", path, name);
        return 1;
    }
    const ossa_skin *skin = &sk->skins[0];
    uint32_t *cursors = calloc(ossa_clip_cursor_count(clip) + 1u, sizeof *cursors);
    ossa_transform *locals = malloc(J * sizeof *locals);
    ossa_mat4 *model = malloc(J * sizeof *model), *palette = malloc(skin->joint_count * sizeof *palette);
    if (!cursors || !locals || !model || !palette) return 1;
    float duration = ossa_clip_duration(clip);
    static const char *rows[3] = {"forward sampling", "forward full frame", "random full frame"};
    for (int w = 0; w < 3; w++) {
        bool random = w == 2, full = w > 0;
        uint64_t seed = 12345;
        double v[REPS];
        for (int r = 0; r < REPS; r++) {
            double t0 = thread_ns();
            for (int f = 0; f < FRAMES; f++) {
                float t = (float)(r * FRAMES + f) / 60.0f;
                if (random) {
                    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                    t = (float)((seed >> 40) * (1.0 / 16777216.0)) * duration;
                }
                ossa_clip_sample(clip, t, true, random ? OSSA_LOOKUP_DEFAULT : OSSA_LOOKUP_CURSOR, cursors, sk->rest,
                                 locals, J);
                if (full) {
                    ossa_pose_to_model(locals, sk->parents, J, model);
                    ossa_pose_palette(model, skin->joints, skin->inverse_bind, skin->joint_count, palette);
                }
            }
            v[r] = (thread_ns() - t0) / FRAMES;
        }
        qsort(v, REPS, sizeof *v, cmp);
        printf("%s: median %.0f min %.0f\n", rows[w], 0.5 * (v[REPS / 2 - 1] + v[REPS / 2]), v[0]);
    }
    return 0;
}
