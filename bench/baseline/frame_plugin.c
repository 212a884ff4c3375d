/* One tree's single-character frame rows as a plugin (a shared object that links that tree's
 * static libraries and exports only the frame_* functions), so inproc.c can load this tree's and
 * a baseline commit's side by side and alternate them rep by rep in one process. It uses only
 * public API that every tree since 4aa1c1f has. Woman.gltf's `Running` and `PickUp` built with
 * the tree's defaults (with FRAME_WITH_MESH: the mesh's bound, as `ossa pack` builds since format
 * 6); one sampling context a row, kept across reps (forward playback goes on where it stopped).
 * Rows, ns a character-frame: forward 60 Hz `Running` sampling alone and + local-to-model +
 * palette; random-time `Running` the same; random-time `PickUp` + local-to-model + palette;
 * then the lossless clips' forward and random rows (ossa_clip_build_options.lossless). */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include <ossa/ossa.h>

#define EXPORT __attribute__((visibility("default")))

enum { ROWS = 9 };
static const struct {
    const char *name, *clip;
    int random, full, lossless;
} rows[ROWS] = {
    {"forward Running, sampling", "Running", 0, 0, 0},
    {"forward Running, + model + palette", "Running", 0, 1, 0},
    {"random Running, sampling", "Running", 1, 0, 0},
    {"random Running, + model + palette", "Running", 1, 1, 0},
    {"random PickUp, + model + palette", "PickUp", 1, 1, 0},
    {"lossless: forward Running, sampling", "Running", 0, 0, 1},
    {"lossless: forward Running, + model + pal.", "Running", 0, 1, 1},
    {"lossless: random Running, + model + pal.", "Running", 1, 1, 1},
    {"lossless: random PickUp, + model + pal.", "PickUp", 1, 1, 1},
};

static struct {
    ossa_asset *asset;
    ossa_built_clip *built[ROWS];
    ossa_sampling_context *ctx[ROWS];
    float t[ROWS];
    uint64_t seed[ROWS];
    ossa_transform *locals;
    ossa_mat4 *model, *palette;
} S;

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

EXPORT int frame_rows(void) { return ROWS; }
EXPORT const char *frame_row_name(int row) { return rows[row].name; }

/* 0, or -1 when the file does not load or a clip is missing or does not build. */
EXPORT int frame_init(const char *gltf) {
    ossa_diagnostic diag;
    if (ossa_gltf_load_file(gltf, NULL, &S.asset, &diag) != OSSA_OK) return -1;
    const ossa_skeleton *sk = S.asset->skeleton;
    uint32_t J = sk->joint_count;
    for (int r = 0; r < ROWS; r++) {
        ossa_clip_build_options opt = {0};
#if defined(FRAME_WITH_MESH)
        opt.meshes = (const ossa_mesh *const *)S.asset->meshes;
        opt.mesh_count = S.asset->mesh_count;
#endif
        opt.lossless = rows[r].lossless != 0;
        int c = ossa_asset_find_clip(S.asset, rows[r].clip);
        if (c < 0 || ossa_clip_build(S.asset->clips[c], sk, &opt, NULL, &S.built[r], NULL) != OSSA_OK) return -1;
        if (ossa_sampling_context_create(J, 0, NULL, &S.ctx[r]) != OSSA_OK) return -1;
        S.seed[r] = 12345u + (uint64_t)r;
    }
    S.locals = malloc(J * sizeof *S.locals);
    S.model = malloc(J * sizeof *S.model);
    S.palette = malloc(J * sizeof *S.palette);
    return S.locals && S.model && S.palette ? 0 : -1;
}

/* Runs `frames` frames of the row; ns a frame (the caller takes medians over reps). */
EXPORT double frame_run(int row, int frames) {
    const ossa_skeleton *sk = S.asset->skeleton;
    uint32_t J = sk->joint_count;
    float dur = ossa_built_clip_duration(S.built[row]);
    ossa_sample_job job = {.clip = S.built[row], .context = S.ctx[row], .loop = true, .output = S.locals,
                           .output_count = J, .reference = sk->rest, .reference_count = J};
    ossa_local_to_model_job l2m = {.skeleton = sk, .input = S.locals, .input_count = J, .output = S.model, .output_count = J};
    ossa_palette_job pal = {.skeleton = sk, .model = S.model, .model_count = J, .output = S.palette, .output_count = J};
    double t0 = now_ns();
    for (int f = 0; f < frames; f++) {
        if (rows[row].random) {
            S.seed[row] = S.seed[row] * 6364136223846793005ull + 1442695040888963407ull;
            job.time = (float)((double)(S.seed[row] >> 40) * (1.0 / 16777216.0)) * dur;
        } else {
            job.time = S.t[row];
            S.t[row] += 1.0f / 60.0f;
            if (S.t[row] >= dur) S.t[row] -= dur; /* a loop, as the job's own wrap: a jump back */
        }
        if (ossa_sample_job_run(&job) != OSSA_OK) abort();
        if (rows[row].full && (ossa_local_to_model_job_run(&l2m) != OSSA_OK || ossa_palette_job_run(&pal) != OSSA_OK))
            abort();
    }
    return (now_ns() - t0) / frames;
}
