/* bench_crowd: a crowd of Woman.gltf characters (../shared/assets or $OSSA_ASSETS) as a game
 * runs it: every character owns its sampling context and plays its own clip (clip i mod the
 * clip count, compressed with the default options) from its own phase; a frame is sample +
 * local-to-model + palette for every character, on 1 and on 2 threads (each thread a contiguous
 * half), 8 characters at a time (their palettes from one palette batch job where the headers
 * declare it). Prints the context bytes and, per thread count, the median time of a frame and the
 * characters per 16.667 ms twice: from the threads' CPU time (the slower thread's: what the
 * frame takes when each thread has a core to itself, robust on a shared machine) and from
 * the wall clock. Only API that 4aa1c1f already had, so bench/baseline/compare.py --standalone can
 * build this same file against a baseline commit, except the contexts: sized for the clips the
 * character plays where the headers declare it (OSSA_SAMPLING_CONTEXT_FOR_CLIPS), else for its
 * joints. Laid out as a game with threads would: the contexts in one arena (through the
 * ossa_allocator the create function takes), each on cache lines of its own; palettes and each
 * thread's pose scratch line-aligned (no line written by both threads); each thread the same
 * half every frame. Built with BENCH_CROWD_PLUGIN it has no main but exports crowd_init,
 * crowd_run and crowd_done, for bench/baseline/inproc.c to run two trees' crowds in one process.
 *   bench_crowd [instances (1000)] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ossa/ossa.h>

#include "bench_util.h"

#define FRAMES 30
#define REPS 9

typedef struct crowd_bench {
    const ossa_skeleton *sk;
    ossa_built_clip **built;
    uint32_t clips, count;
    ossa_sampling_context **ctx;
    size_t ctx_bytes;
    float *phase;
    ossa_mat4 *palettes;
} crowd_bench;

/* A bump allocator over one 64-byte aligned block: every piece starts on its own cache line. */
typedef struct arena {
    unsigned char *base;
    size_t used, capacity;
} arena;

static size_t round_line(size_t n) { return (n + 63u) & ~(size_t)63u; }

static void *arena_alloc(size_t size, void *user) {
    arena *a = user;
    size = round_line(size);
    if (size > a->capacity - a->used) return NULL;
    void *p = a->base + a->used;
    a->used += size;
    return p;
}
static void arena_free(void *ptr, void *user) { (void)ptr, (void)user; }

static void *line_alloc(size_t size) { return aligned_alloc(64, round_line(size)); }

/* Characters a batch: sampled one by one, then their palettes in one palette batch job where
 * the headers declare it (OSSA_PALETTE_BATCH_JOB), else each by the local-to-model and
 * palette jobs (a tree without it). */
enum { BATCH = 16 }; /* one pass of the widest (AVX-512) batch kernel */

typedef struct worker {
    _Alignas(64) crowd_bench *cb; /* each worker on lines of its own (t is written every frame) */
    uint32_t begin, end;
    float t;
    double cpu_ns;
    ossa_transform *locals[BATCH]; /* a batch's local poses */
    ossa_mat4 *model;
    float *scratch;
} worker;

static void sample(const worker *w, uint32_t i, ossa_transform *locals) {
    const crowd_bench *cb = w->cb;
    uint32_t J = cb->sk->joint_count;
    ossa_sample_job sj = {0};
    sj.clip = cb->built[i % cb->clips];
    sj.context = cb->ctx[i];
    sj.time = cb->phase[i] + w->t;
    sj.loop = true;
    sj.output = locals;
    sj.output_count = J;
    sj.reference = cb->sk->rest;
    sj.reference_count = J;
    if (ossa_sample_job_run(&sj) != OSSA_OK) abort();
}

/* Characters [i, i + n) (n <= BATCH): their locals sampled, then their palettes. */
static void pose_batch(const worker *w, uint32_t i, uint32_t n) {
    const crowd_bench *cb = w->cb;
    const ossa_skeleton *sk = cb->sk;
    uint32_t J = sk->joint_count;
    for (uint32_t k = 0; k < n; k++) sample(w, i + k, w->locals[k]);
#if defined(OSSA_PALETTE_BATCH_JOB)
    ossa_mat4 *out[BATCH];
    for (uint32_t k = 0; k < n; k++) out[k] = cb->palettes + (size_t)(i + k) * J;
    ossa_palette_batch_job pb = {0};
    pb.skeleton = sk;
    pb.locals = (const ossa_transform *const *)w->locals;
    pb.outputs = out;
    pb.pose_count = n;
    pb.output_count = J;
    pb.scratch = w->scratch;
    pb.scratch_count = ossa_palette_batch_scratch_count(sk);
    if (ossa_palette_batch_job_run(&pb) != OSSA_OK) abort();
#else
    for (uint32_t k = 0; k < n; k++) {
        ossa_local_to_model_job l2m = {0};
        l2m.skeleton = sk;
        l2m.input = w->locals[k];
        l2m.input_count = J;
        l2m.output = w->model;
        l2m.output_count = J;
        if (ossa_local_to_model_job_run(&l2m) != OSSA_OK) abort();
        ossa_palette_job pal = {0};
        pal.skeleton = sk;
        pal.model = w->model;
        pal.model_count = J;
        pal.output = cb->palettes + (size_t)(i + k) * J;
        pal.output_count = J;
        if (ossa_palette_job_run(&pal) != OSSA_OK) abort();
    }
#endif
}

static void update(worker *w) {
    for (uint32_t i = w->begin; i < w->end; i += BATCH) pose_batch(w, i, w->end - i < BATCH ? w->end - i : BATCH);
}

static void *run_frames(void *arg) {
    worker *w = arg;
    double t0 = bench_clock_ns(CLOCK_THREAD_CPUTIME_ID);
    for (int f = 0; f < FRAMES; f++, w->t += 1.0f / 60.0f) update(w);
    w->cpu_ns = bench_clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
    return NULL;
}

/* One run of FRAMES frames on `threads` threads: the time of a frame (ms) from the wall clock
 * (returned) and from the slower thread's CPU time (*cpu_ms); the clip clock *t keeps running
 * between runs, so every run plays on. */
static double run_once(crowd_bench *cb, uint32_t threads, worker *w, float *t, double *cpu_ms) {
    pthread_t th[2];
    double t0 = bench_clock_ns(CLOCK_MONOTONIC);
    for (uint32_t k = 0; k < threads; k++) {
        w[k].cb = cb;
        w[k].begin = (uint32_t)((uint64_t)cb->count * k / threads);
        w[k].end = (uint32_t)((uint64_t)cb->count * (k + 1) / threads);
        w[k].t = *t;
        if (k) pthread_create(&th[k], NULL, run_frames, &w[k]);
    }
    run_frames(&w[0]);
    for (uint32_t k = 1; k < threads; k++) pthread_join(th[k], NULL);
    double ms = (bench_clock_ns(CLOCK_MONOTONIC) - t0) / 1e6 / FRAMES, cpu = 0;
    for (uint32_t k = 0; k < threads; k++) cpu = w[k].cpu_ns > cpu ? w[k].cpu_ns : cpu;
    *cpu_ms = cpu / (1e6 * FRAMES);
    *t += FRAMES / 60.0f;
    return ms;
}

/* A character's context: sized for the clips it plays where the headers declare it
 * (OSSA_SAMPLING_CONTEXT_FOR_CLIPS), else for its joints (a tree without it). */
static ossa_result create_context(const crowd_bench *cb, const ossa_allocator *allocator, ossa_sampling_context **out) {
#if defined(OSSA_SAMPLING_CONTEXT_FOR_CLIPS)
    return ossa_sampling_context_create_for_clips((const ossa_built_clip *const *)cb->built, cb->clips, allocator, out);
#else
    return ossa_sampling_context_create(cb->sk->joint_count, 0, allocator, out);
#endif
}

/* Bytes of one character's context (one made and freed to ask). */
static size_t context_bytes(const crowd_bench *cb) {
    ossa_sampling_context *probe = NULL;
    if (create_context(cb, NULL, &probe) != OSSA_OK) abort();
    size_t n = ossa_sampling_context_size(probe);
    ossa_sampling_context_destroy(probe);
    return n;
}

/* Everything a crowd run needs: the characters, their contexts in one arena, two workers. */
typedef struct crowd {
    ossa_asset *asset;
    crowd_bench cb;
    arena contexts;
    worker w[2];
    float t;
} crowd;

/* count characters of the Woman.gltf at path, or NULL (*diag says why) when it does not load. */
static crowd *crowd_make(const char *path, uint32_t count, ossa_diagnostic *diag) {
    crowd *c = line_alloc(sizeof *c); /* the workers are aligned to their own lines */
    if (!c) abort();
    memset(c, 0, sizeof *c);
    if (ossa_gltf_load_file(path, NULL, &c->asset, diag) != OSSA_OK || !count) {
        free(c);
        return NULL;
    }
    crowd_bench *cb = &c->cb;
    *cb = (crowd_bench){c->asset->skeleton, calloc(c->asset->clip_count, sizeof(void *)), c->asset->clip_count, count,
                        calloc(count, sizeof(void *)), 0, calloc(count, sizeof(float)), NULL};
    uint32_t J = cb->sk->joint_count;
    cb->palettes = line_alloc((size_t)count * J * sizeof(ossa_mat4));
    ossa_clip_build_options opt;
    memset(&opt, 0, sizeof opt);
    for (uint32_t i = 0; i < cb->clips; i++)
        if (ossa_clip_build(c->asset->clips[i], cb->sk, &opt, NULL, &cb->built[i], NULL) != OSSA_OK) abort();
    cb->ctx_bytes = context_bytes(cb);
    size_t bytes = (size_t)count * round_line(cb->ctx_bytes);
    c->contexts = (arena){line_alloc(bytes), 0, bytes};
    ossa_allocator in_arena = {arena_alloc, arena_free, &c->contexts};
    uint32_t seed = 12345u;
    for (uint32_t i = 0; i < count; i++) {
        if (create_context(cb, &in_arena, &cb->ctx[i]) != OSSA_OK) abort();
        seed = seed * 1664525u + 1013904223u;
        cb->phase[i] = (float)(seed >> 8) / 16777216.0f * ossa_built_clip_duration(cb->built[i % cb->clips]);
    }
    for (int k = 0; k < 2; k++) {
        for (int b = 0; b < BATCH; b++) c->w[k].locals[b] = line_alloc(J * sizeof(ossa_transform));
        c->w[k].model = line_alloc(J * sizeof(ossa_mat4));
#if defined(OSSA_PALETTE_BATCH_JOB)
        c->w[k].scratch = line_alloc((size_t)ossa_palette_batch_scratch_count(cb->sk) * sizeof(float));
#else
        c->w[k].scratch = NULL;
#endif
    }
    double cpu;
    run_once(cb, 1, c->w, &c->t, &cpu); /* warm-up */
    return c;
}

static void crowd_free(crowd *c) {
    crowd_bench *cb = &c->cb;
    for (int k = 0; k < 2; k++) {
        for (int b = 0; b < BATCH; b++) free(c->w[k].locals[b]);
        free(c->w[k].model);
        free(c->w[k].scratch);
    }
    for (uint32_t i = 0; i < cb->count; i++) ossa_sampling_context_destroy(cb->ctx[i]);
    free(c->contexts.base);
    for (uint32_t i = 0; i < cb->clips; i++) ossa_built_clip_destroy(cb->built[i]);
    free(cb->built);
    free(cb->ctx);
    free(cb->phase);
    free(cb->palettes);
    ossa_asset_destroy(c->asset);
    free(c);
}

#if defined(BENCH_CROWD_PLUGIN)
/* As a plugin of bench/baseline/inproc.c (one tree's crowd beside another's in one process). */
static crowd *plugin_crowd;
__attribute__((visibility("default"))) int crowd_init(const char *path, unsigned count) {
    ossa_diagnostic diag;
    plugin_crowd = crowd_make(path, count, &diag);
    return plugin_crowd ? 0 : -1;
}
/* One run of FRAMES frames: the slower thread's CPU ms a frame. */
__attribute__((visibility("default"))) double crowd_run(unsigned threads) {
    double cpu;
    run_once(&plugin_crowd->cb, threads, plugin_crowd->w, &plugin_crowd->t, &cpu);
    return cpu;
}
__attribute__((visibility("default"))) void crowd_done(void) { crowd_free(plugin_crowd); }
#else
int main(int argc, char **argv) {
    uint32_t count = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 1000u;
    const char *root = getenv("OSSA_ASSETS");
    char path[512];
    snprintf(path, sizeof path, "%s/Woman/Woman.gltf", root && *root ? root : "../shared/assets");
    ossa_diagnostic diag = {0};
    crowd *c = crowd_make(path, count, &diag);
    if (!c) {
        printf("Woman.gltf: skipped (%s: %s)\n", path, count ? diag.message : "no characters");
        return 0;
    }
    printf("Woman.gltf crowd: %u characters, each with its own sampling context of %zu B (%u joints), clip i mod %u\n",
           count, ossa_sampling_context_size(c->cb.ctx[0]), c->cb.sk->joint_count, c->cb.clips);
    for (uint32_t threads = 1; threads <= 2; threads++) {
        double ms[REPS], cpu[REPS];
        for (int rep = 0; rep < REPS; rep++) ms[rep] = run_once(&c->cb, threads, c->w, &c->t, &cpu[rep]);
        double cpu_ms = median(cpu, REPS), wall_ms = median(ms, REPS);
        printf("crowd, %u thread(s), thread CPU time: %.3f ms a frame, %.0f characters per 16.7 ms\n", threads, cpu_ms,
               (double)count * (1000.0 / 60.0) / cpu_ms);
        printf("crowd, %u thread(s), wall clock: %.3f ms a frame, %.0f characters per 16.7 ms\n", threads, wall_ms,
               (double)count * (1000.0 / 60.0) / wall_ms);
    }
    crowd_free(c);
    return 0;
}
#endif
