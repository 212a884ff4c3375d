/* ossa bench [FILE|demo] [--clip NAME|INDEX] [--rounds N] [--threads N]
 * Medians of the runtime stages on one character: clip sampling (the clip built
 * once at load, compressed at the default precision and lossless, through the
 * sampling job, forward and random; then the editable path: forward playback
 * with cursors, random access with the frame-index table, binary search and the
 * linear reference scan), model space + palette, CPU skinning
 * (LBS with the best kernel and the scalar one, DQS), and a full frame on the
 * compressed built clip (a packed file: its stored built clip), on one
 * thread and on all cores (thread pool: many characters per frame for sampling
 * and palettes, vertex ranges for skinning). --crowd N [--json]: crowd_bench (cmd_crowd.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "commands.h"
#include "render_common.h"
#include "thread_pool.h"

/* One character instance: its own pose buffers and cursors. */
typedef struct instance {
    ossa_transform *locals;
    ossa_mat4 *model, *palettes;
    uint32_t *cursors;
    ossa_sampling_context *context; /* built clips */
    float time;
    uint32_t rnd;
} instance;

typedef struct bench {
    scene s;
    const ossa_clip *clip;
    uint32_t jc, vertex_total;
    instance *inst;
    uint32_t inst_count;
    float *times;           /* random access times */
    uint32_t time_count;
    ossa_lookup lookup;     /* sampling stages */
    ossa_skin_kernel kernel;
    bool dqs;
    ossa_dual_quat *dq;     /* per skin: jc each */
    thread_pool *pool;
    uint32_t mesh;          /* skinning: current mesh in a parallel-for */
    const ossa_mat4 *skin_palettes; /* skinning: palettes of the instance being skinned */
    int kind;               /* skinning stage kind for workers */
    const ossa_built_clip *built;   /* sampling through built clips when set (the sampling job) */
    ossa_built_clip *made[2];       /* built here from the editable clip: compressed, lossless */
    float *weights;                 /* built clips' morph weights (scratch) */
    uint32_t weight_count;
    float start, end;               /* the clip's range */
} bench;

static void sample_one(bench *b, instance *in, bool forward) {
    float t;
    if (forward) {
        t = in->time;
        in->time += 1.0f / 60;
        if (in->time > b->end) in->time -= (b->end - b->start);
    } else {
        in->rnd = in->rnd * 1664525u + 1013904223u;
        t = b->times[(in->rnd >> 8) % b->time_count];
    }
    if (b->built) {
        ossa_sample_job job = {.clip = b->built, .context = in->context, .time = t, .loop = true,
                               .output = in->locals, .output_count = b->jc,
                               .weights = b->weight_count ? b->weights : NULL, .weights_count = b->weight_count,
                               .reference = b->s.asset->skeleton->rest, .reference_count = b->jc};
        ossa_sample_job_run(&job);
        return;
    }
    ossa_clip_sample_job job = {.clip = b->clip, .time = t, .loop = true, .lookup = b->lookup,
                                .cursors = in->cursors, .cursor_count = ossa_clip_cursor_count(b->clip),
                                .reference = b->s.asset->skeleton->rest, .reference_count = b->jc,
                                .output = in->locals, .output_count = b->jc};
    ossa_clip_sample_job_run(&job);
}

static void palette_one(bench *b, instance *in) {
    const ossa_skeleton *sk = b->s.asset->skeleton;
    ossa_local_to_model_job lm = {.skeleton = sk, .input = in->locals, .input_count = b->jc, .output = in->model,
                                  .output_count = b->jc};
    ossa_local_to_model_job_run(&lm);
    for (uint32_t k = 0; k < sk->skin_count; k++) {
        ossa_palette_job pj = {.skeleton = sk, .skin = k, .model = in->model, .model_count = b->jc,
                               .output = in->palettes + (size_t)k * b->jc, .output_count = b->jc};
        ossa_palette_job_run(&pj);
    }
}

static void skin_range(bench *b, uint32_t mesh, const ossa_mat4 *palettes, uint32_t begin, uint32_t end) {
    scene *s = &b->s;
    const ossa_mesh *m = s->asset->meshes[mesh];
    if (!scene_mesh_is_skinned(s, mesh)) return;
    ossa_skin_job job;
    memset(&job, 0, sizeof job);
    job.begin = begin;
    job.end = end;
    job.vertex_count = m->vertex_count;
    job.influences = m->influences;
    job.joints = m->joints;
    job.weights = m->weights;
    job.method = b->dqs ? OSSA_SKIN_DQS : OSSA_SKIN_LBS;
    job.kernel = b->dqs ? OSSA_SKIN_KERNEL_AUTO : b->kernel;
    job.palette = palettes + (size_t)m->skin * b->jc;
    job.dual_quats = b->dq + (size_t)m->skin * b->jc;
    job.palette_count = b->jc;
    job.positions = m->positions;
    job.out_positions = s->positions[mesh];
    if (m->normals) {
        job.normals = m->normals;
        job.out_normals = s->normals[mesh];
    }
    ossa_skin_job_run(&job);
}

/* ---- stage bodies: run `iters` character-frames (or frames of all instances) ---- */

static void st_sample_forward(bench *b, uint32_t iters) {
    for (uint32_t i = 0; i < iters; i++) sample_one(b, &b->inst[0], true);
}
static void st_sample_random(bench *b, uint32_t iters) {
    for (uint32_t i = 0; i < iters; i++) sample_one(b, &b->inst[0], false);
}
static void st_palette(bench *b, uint32_t iters) {
    for (uint32_t i = 0; i < iters; i++) palette_one(b, &b->inst[0]);
}
static void st_skin(bench *b, uint32_t iters) {
    for (uint32_t i = 0; i < iters; i++)
        for (uint32_t m = 0; m < b->s.asset->mesh_count; m++)
            skin_range(b, m, b->inst[0].palettes, 0, b->s.asset->meshes[m]->vertex_count);
}
static void st_frame(bench *b, uint32_t iters) {
    for (uint32_t i = 0; i < iters; i++) {
        sample_one(b, &b->inst[0], true);
        palette_one(b, &b->inst[0]);
        for (uint32_t m = 0; m < b->s.asset->mesh_count; m++)
            skin_range(b, m, b->inst[0].palettes, 0, b->s.asset->meshes[m]->vertex_count);
    }
}

/* parallel: instances [begin, end) each do one frame of the stage in b->kind */
static void par_instances(uint32_t begin, uint32_t end, void *user) {
    bench *b = user;
    for (uint32_t i = begin; i < end; i++) {
        instance *in = &b->inst[i];
        if (b->kind == 0) sample_one(b, in, true);
        else if (b->kind == 1) palette_one(b, in);
        else if (b->kind == 2) {
            sample_one(b, in, true);
            palette_one(b, in);
        }
    }
}
static void par_vertices(uint32_t begin, uint32_t end, void *user) {
    bench *b = user;
    skin_range(b, b->mesh, b->skin_palettes, begin, end);
}
static void st_par_sample(bench *b, uint32_t iters) {
    b->kind = 0;
    for (uint32_t i = 0; i < iters; i++) thread_pool_parallel_for(b->pool, 0, b->inst_count, 1, par_instances, b);
}
static void st_par_palette(bench *b, uint32_t iters) {
    b->kind = 1;
    for (uint32_t i = 0; i < iters; i++) thread_pool_parallel_for(b->pool, 0, b->inst_count, 1, par_instances, b);
}
static void st_par_skin(bench *b, uint32_t iters) {
    for (uint32_t i = 0; i < iters; i++)
        for (uint32_t m = 0; m < b->s.asset->mesh_count; m++) {
            b->mesh = m;
            b->skin_palettes = b->inst[0].palettes;
            thread_pool_parallel_for(b->pool, 0, b->s.asset->meshes[m]->vertex_count, 512, par_vertices, b);
        }
}
static void st_par_frame(bench *b, uint32_t iters) {
    /* every instance samples and builds its palette in parallel; then each of their meshes is skinned
     * over vertex ranges (the skinning output is shared: a throughput figure) */
    for (uint32_t i = 0; i < iters; i++) {
        b->kind = 2;
        thread_pool_parallel_for(b->pool, 0, b->inst_count, 1, par_instances, b);
        for (uint32_t c = 0; c < b->inst_count; c++)
            for (uint32_t m = 0; m < b->s.asset->mesh_count; m++) {
                b->mesh = m;
                b->skin_palettes = b->inst[c].palettes;
                thread_pool_parallel_for(b->pool, 0, b->s.asset->meshes[m]->vertex_count, 512, par_vertices, b);
            }
    }
}

typedef void (*stage_fn)(bench *b, uint32_t iters);

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct timing { double median, best; } timing;

/* Median and fastest wall time of one iteration in ns over `rounds` batches of ~2 ms each
 * (the fastest batch is the least disturbed by other processes). */
static timing measure(bench *b, stage_fn fn, uint32_t rounds) {
    uint32_t iters = 1;
    for (;;) { /* calibrate */
        double t0 = now_seconds();
        fn(b, iters);
        double dt = now_seconds() - t0;
        if (dt > 2e-3 || iters >= (1u << 24)) break;
        iters *= dt < 2e-4 ? 8 : 2;
    }
    timing out = {NAN, NAN};
    double *ns = malloc(sizeof(double) * rounds);
    if (!ns) return out;
    for (uint32_t r = 0; r < rounds; r++) {
        double t0 = now_seconds();
        fn(b, iters);
        ns[r] = (now_seconds() - t0) * 1e9 / iters;
    }
    qsort(ns, rounds, sizeof *ns, cmp_double);
    out.median = rounds % 2 ? ns[rounds / 2] : 0.5 * (ns[rounds / 2 - 1] + ns[rounds / 2]);
    out.best = ns[0];
    free(ns);
    return out;
}

static timing per(timing t, double n) {
    t.median /= n;
    t.best /= n;
    return t;
}

static void row(const char *stage, const char *how, uint32_t threads, timing t, double vertices) {
    char per_vertex[32] = "-";
    if (vertices > 0) snprintf(per_vertex, sizeof per_vertex, "%.2f", t.median / vertices);
    printf("%-22s %-18s %7u %14.0f %10.0f %10s %13.0f\n", stage, how, threads, t.median, t.best, per_vertex,
           1e9 / t.median);
    fflush(stdout);
}

static void free_instances(bench *b) {
    for (uint32_t i = 0; b->inst && i < b->inst_count; i++) {
        free(b->inst[i].locals);
        free(b->inst[i].model);
        free(b->inst[i].palettes);
        free(b->inst[i].cursors);
        ossa_sampling_context_destroy(b->inst[i].context);
    }
    free(b->inst);
}

/* The command line. */
typedef struct bench_args {
    const char *file, *clip_arg;
    long rounds, threads, crowd_count;
    bool json;
} bench_args;

static int bench_usage(const char *a, bool more) {
    bool help = a[1] == 'h' || a[2] == 'h';
    if (!help) cli_unknown_option("bench", a, !more);
    fprintf(help ? stdout : stderr,
            "usage: ossa bench [FILE|demo] [--clip NAME|INDEX] [--rounds N] [--threads N] [--crowd N [--json]]\n"
            "  medians (ns per character-frame and per vertex) of sampling, model space + palette,\n"
            "  skinning and a full frame, single-threaded and on all cores (--threads 0 = all)\n"
            "  --crowd N: a crowd of N instances instead: CPU ms per frame (sampling + palettes) on 1 and\n"
            "  --threads threads, characters per 16.7 ms, GPU ms per frame (upload + instanced draw); every\n"
            "  instance has its own sampling state. --json: one JSON object (context_bytes, instances,\n"
            "  threads, ms_per_frame_1t/_nt, characters_per_16ms_1t/_nt; built clips, no GPU)\n");
    return help ? 0 : 2;
}

/* CLI_GO_ON, or the exit code (after printing why). */
static int parse_bench_args(int argc, char **argv, bench_args *o) {
    *o = (bench_args){.rounds = 15};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool more = i + 1 < argc;
        char *end = NULL;
        if (!strcmp(a, "--json")) {
            o->json = true;
        } else if (!strcmp(a, "--clip") && more) {
            o->clip_arg = argv[++i];
        } else if (!strcmp(a, "--crowd") && more) {
            o->crowd_count = strtol(argv[++i], &end, 10);
            if (!*argv[i] || *end || o->crowd_count < 1 || o->crowd_count > 1000000) {
                fprintf(stderr, "ossa bench: --crowd expects an instance count (1..1000000)\n");
                return 2;
            }
        } else if ((!strcmp(a, "--rounds") || !strcmp(a, "--threads")) && more) {
            long v = strtol(argv[++i], &end, 10);
            if (!*argv[i] || *end || v < (a[2] == 'r' ? 1 : 0) || v > 1024) {
                fprintf(stderr, "ossa bench: %s expects an integer (1..1024)\n", a);
                return 2;
            }
            *(a[2] == 'r' ? &o->rounds : &o->threads) = v;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h") || (a[0] == '-' && a[1])) {
            return bench_usage(a, more);
        } else if (!take_file_arg("bench", a, !more, &o->file)) {
            return 2;
        }
    }
    if (o->json && !o->crowd_count) {
        fprintf(stderr, "ossa bench: --json needs --crowd N\n");
        return 2;
    }
    return CLI_GO_ON;
}

/* The clip benched (--clip, else the first): an editable one is built here at the default
 * precision and lossless (made[0], made[1]); a packed file's built clip is benched as stored
 * (*compressed). Its range and weight count into b. False after printing why. */
static bool prepare_clips(bench *b, const char *clip_arg, const ossa_built_clip **compressed) {
    const ossa_asset *a = b->s.asset;
    bool editable = a->clip_count > 0; /* a packed file has built clips only */
    if ((!editable && !a->built_clip_count) || !b->jc) {
        fprintf(stderr, "ossa bench: %s has no clips to sample\n", b->s.label);
        return false;
    }
    int ci = clip_arg ? scene_find_clip(&b->s, clip_arg, "bench") : 0; /* a packed file: its built clips */
    if (ci < 0) return false;
    b->clip = editable ? a->clips[ci] : NULL;
    for (int k = 0; editable && k < 2; k++) {
        ossa_clip_build_options o = {.lossless = k == 1};
        ossa_result br = ossa_clip_build(b->clip, a->skeleton, &o, NULL, &b->made[k], NULL);
        if (br) {
            fprintf(stderr, "ossa bench: building clip '%s' failed (%s)\n", b->clip->name, ossa_result_string(br));
            return false;
        }
    }
    *compressed = editable ? b->made[0] : a->built_clips[ci];
    b->start = ossa_built_clip_start(*compressed);
    b->end = ossa_built_clip_end(*compressed);
    b->weight_count = ossa_built_clip_weight_count(*compressed);
    if (editable && ossa_built_clip_weight_count(b->made[1]) > b->weight_count)
        b->weight_count = ossa_built_clip_weight_count(b->made[1]);
    return true;
}

/* The thread pool, 16 instances a thread (each its own buffers, cursors and sampling context,
 * spread over the clip), the random times and the skinning scratch. False after printing why. */
static bool prepare_instances(bench *b, long threads) {
    const ossa_skeleton *sk = b->s.asset->skeleton;
    b->weights = calloc((size_t)b->weight_count + 1, sizeof *b->weights);
    b->pool = thread_pool_create((uint32_t)threads);
    if (!b->pool) {
        fprintf(stderr, "ossa bench: cannot start the thread pool\n");
        return false;
    }
    b->inst_count = thread_pool_size(b->pool) * 16;
    b->inst = calloc(b->inst_count, sizeof *b->inst);
    b->time_count = 1024;
    b->times = malloc(sizeof(float) * b->time_count);
    uint32_t skins = sk->skin_count ? sk->skin_count : 1, cursors = b->clip ? ossa_clip_cursor_count(b->clip) : 1;
    b->dq = calloc((size_t)skins * b->jc, sizeof *b->dq);
    bool ok = b->inst && b->times && b->dq && b->weights;
    for (uint32_t i = 0; ok && i < b->inst_count; i++) {
        instance *in = &b->inst[i];
        in->locals = calloc(b->jc, sizeof *in->locals);
        in->model = calloc(b->jc, sizeof *in->model);
        in->palettes = calloc((size_t)skins * b->jc, sizeof *in->palettes);
        in->cursors = calloc(cursors ? cursors : 1, sizeof *in->cursors);
        ok = in->locals && in->model && in->palettes && in->cursors &&
             ossa_sampling_context_create(b->jc, b->weight_count, NULL, &in->context) == OSSA_OK;
        if (!ok) break;
        for (size_t j = 0; j < (size_t)skins * b->jc; j++) in->palettes[j] = ossa_mat4_identity();
        in->time = b->start + (b->end - b->start) * (float)i / (float)b->inst_count;
        in->rnd = 12345u + i * 7919u;
        memcpy(in->locals, sk->rest, sizeof *in->locals * b->jc);
    }
    if (!ok) {
        fprintf(stderr, "ossa bench: out of memory\n");
        return false;
    }
    uint32_t rnd = 99;
    for (uint32_t i = 0; i < b->time_count; i++) {
        rnd = rnd * 1664525u + 1013904223u;
        b->times[i] = b->start + (b->end - b->start) * (float)(rnd >> 8) / (float)(1u << 24);
    }
    return true;
}

/* A posed palette for the skinning stages (instance 0 at its time, sampled from `built`) and
 * its dual quaternions; the skinned vertex total into b, the largest influence count returned. */
static uint32_t prepare_skinning(bench *b, const ossa_built_clip *built) {
    const ossa_asset *a = b->s.asset;
    uint32_t influences = 0;
    for (uint32_t m = 0; m < a->mesh_count; m++)
        if (scene_mesh_is_skinned(&b->s, m)) {
            b->vertex_total += a->meshes[m]->vertex_count;
            if (a->meshes[m]->influences > influences) influences = a->meshes[m]->influences;
        }
    b->lookup = OSSA_LOOKUP_BINARY;
    b->built = built;
    sample_one(b, &b->inst[0], false);
    palette_one(b, &b->inst[0]);
    for (uint32_t k = 0; k < a->skeleton->skin_count; k++) {
        ossa_dual_quat_job dj = {.palette = b->inst[0].palettes + (size_t)k * b->jc, .palette_count = b->jc,
                                 .output = b->dq + (size_t)k * b->jc, .output_count = b->jc};
        ossa_dual_quat_job_run(&dj);
    }
    return influences;
}

/* The sampling rows: the built clips (compressed, lossless) through the sampling job, then the
 * editable clip's lookups. */
static void sampling_rows(bench *b, const ossa_built_clip *compressed, uint32_t R) {
    bool editable = b->clip != NULL;
    const ossa_built_clip *variants[2] = {compressed, editable ? b->made[1] : NULL};
    const char *names[2][2] = {{"built, forward", "built, random"}, {"lossless, forward", "lossless, random"}};
    if (!editable && ossa_built_clip_lossless(compressed)) names[0][0] = names[1][0], names[0][1] = names[1][1];
    for (int k = 0; k < 2; k++) {
        if (!variants[k]) continue;
        b->built = variants[k];
        row("sample", names[k][0], 1, measure(b, st_sample_forward, R), 0);
        row("sample", names[k][1], 1, measure(b, st_sample_random, R), 0);
    }
    b->built = NULL;
    if (!editable) return;
    static const struct { ossa_lookup lookup; const char *name; bool forward; } lookups[] = {
        {OSSA_LOOKUP_CURSOR, "forward, cursor", true},
        {OSSA_LOOKUP_TABLE, "random, table", false},
        {OSSA_LOOKUP_BINARY, "random, binary", false},
        {OSSA_LOOKUP_LINEAR, "random, linear", false},
    };
    for (size_t k = 0; k < sizeof lookups / sizeof lookups[0]; k++) {
        b->lookup = lookups[k].lookup;
        row("sample", lookups[k].name, 1, measure(b, lookups[k].forward ? st_sample_forward : st_sample_random, R), 0);
    }
    b->lookup = OSSA_LOOKUP_BINARY;
}

/* The rows on one thread after sampling, then every stage on all the pool's threads, on the
 * compressed built clip (as render and view run). */
static void pose_and_skin_rows(bench *b, const ossa_built_clip *compressed, uint32_t R, ossa_skin_kernel best) {
    double vt = b->vertex_total, n = b->inst_count;
    uint32_t nthreads = thread_pool_size(b->pool);
    b->built = compressed;
    row("model space + palette", "", 1, measure(b, st_palette, R), 0);
    if (b->vertex_total) {
        b->kernel = best;
        row("skin LBS", ossa_skin_kernel_name(best), 1, measure(b, st_skin, R), vt);
        if (best != OSSA_SKIN_KERNEL_SCALAR) {
            b->kernel = OSSA_SKIN_KERNEL_SCALAR;
            row("skin LBS", "scalar", 1, measure(b, st_skin, R), vt);
            b->kernel = best;
        }
        b->dqs = true;
        row("skin DQS", "", 1, measure(b, st_skin, R), vt);
        b->dqs = false;
    }
    row("full frame", "built + LBS", 1, measure(b, st_frame, R), vt);
    row("sample", "built, forward", nthreads, per(measure(b, st_par_sample, R), n), 0);
    row("model space + palette", "", nthreads, per(measure(b, st_par_palette, R), n), 0);
    if (b->vertex_total) {
        row("skin LBS", ossa_skin_kernel_name(best), nthreads, measure(b, st_par_skin, R), vt);
        b->dqs = true;
        row("skin DQS", "", nthreads, measure(b, st_par_skin, R), vt);
        b->dqs = false;
    }
    row("full frame", "built + LBS", nthreads, per(measure(b, st_par_frame, R), n), vt);
}

static void print_bench_header(const bench *b, const ossa_built_clip *compressed, uint32_t influences, long rounds,
                               ossa_skin_kernel best) {
    printf("ossa bench: %s, clip '%s' (%.2f s, %u tracks), %u joints, %u skinned vertices (%u influences), "
           "%u meshes; built clip %zu bytes (%s)\n",
           b->s.label, ossa_built_clip_name(compressed), (double)(b->end - b->start), ossa_built_clip_track_count(compressed),
           b->jc, b->vertex_total, influences, b->s.asset->mesh_count, ossa_built_clip_byte_size(compressed),
           ossa_built_clip_lossless(compressed) ? "lossless" : "compressed");
    printf("  medians (and best) of %ld rounds; %u threads; best skinning kernel: %s; all-core rows run %u characters per "
           "frame and report throughput\n\n",
           rounds, thread_pool_size(b->pool), ossa_skin_kernel_name(best), b->inst_count);
    printf("%-22s %-18s %7s %14s %10s %10s %13s\n", "stage", "variant", "threads", "ns/char-frame", "(best)",
           "ns/vertex", "char-frames/s");
}

int cmd_bench(int argc, char **argv) {
    bench_args o;
    int rc = parse_bench_args(argc, argv, &o);
    if (rc != CLI_GO_ON) return rc;
    if (o.crowd_count)
        return crowd_bench(o.file, (uint32_t)o.crowd_count, (uint32_t)o.threads, (uint32_t)(o.rounds * 10), o.json);
    bench b;
    memset(&b, 0, sizeof b);
    if (!scene_load(&b.s, o.file, "bench")) return 1;
    b.jc = b.s.joint_count;
    const ossa_built_clip *compressed = NULL;
    rc = 1;
    if (prepare_clips(&b, o.clip_arg, &compressed) && prepare_instances(&b, o.threads)) {
        uint32_t influences = prepare_skinning(&b, compressed);
        ossa_skin_kernel best = ossa_skin_kernel_best();
        print_bench_header(&b, compressed, influences, o.rounds, best);
        sampling_rows(&b, compressed, (uint32_t)o.rounds);
        pose_and_skin_rows(&b, compressed, (uint32_t)o.rounds, best);
        rc = 0;
    }
    free_instances(&b);
    free(b.times);
    free(b.dq);
    free(b.weights);
    ossa_built_clip_destroy(b.made[0]);
    ossa_built_clip_destroy(b.made[1]);
    thread_pool_destroy(b.pool);
    scene_free(&b.s);
    return rc;
}
