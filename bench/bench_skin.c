/* CPU skinning benchmark: ns per vertex for every kernel (positions + normals +
 * tangents, 4 and 8 influences) on a generated mesh, the best kernel on 2 threads,
 * and a roofline: bytes per vertex against measured memory bandwidth.
 * Usage: bench_skin [--vertices N] [--reps R] [--threads T]   (medians over R runs) */
#include <ossa/ossa.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>
#include <time.h>

#include "thread_pool.h" /* support/ */
#include "bench_util.h"

static double now_ns(void) { return bench_clock_ns(CLOCK_MONOTONIC); }

static uint64_t rng_state = 0x1234567;
static float frand(float lo, float hi) {
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (hi - lo) * (float)(rng_state >> 40) / 16777216.0f;
}

typedef struct mesh_buf {
    uint32_t n, k, joints_count;
    float *pos, *nrm, *tan, *w, *op, *on, *ot;
    uint16_t *j;
    ossa_mat4 *palette;
} mesh_buf;

static void *xmalloc(size_t n) {
    void *p = malloc(n);
    if (!p) {
        fprintf(stderr, "out of memory (%zu bytes)\n", n);
        exit(1);
    }
    memset(p, 0, n); /* touch the pages before timing */
    return p;
}

static mesh_buf make_mesh(uint32_t n, uint32_t k, uint32_t joint_count) {
    mesh_buf m = {n, k, joint_count, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    m.pos = xmalloc(12ull * n), m.nrm = xmalloc(12ull * n), m.tan = xmalloc(16ull * n);
    m.op = xmalloc(12ull * n), m.on = xmalloc(12ull * n), m.ot = xmalloc(16ull * n);
    m.w = xmalloc(4ull * k * n), m.j = xmalloc(2ull * k * n);
    m.palette = xmalloc(sizeof(ossa_mat4) * joint_count);
    for (uint32_t i = 0; i < joint_count; i++) {
        ossa_transform t = {{frand(-1, 1), frand(-1, 1), frand(-1, 1)},
                            ossa_quat_normalize((ossa_quat){frand(-1, 1), frand(-1, 1), frand(-1, 1), frand(-1, 1)}),
                            {1, 1, 1}};
        m.palette[i] = ossa_transform_to_mat4(t);
    }
    for (uint32_t v = 0; v < n; v++) {
        for (uint32_t c = 0; c < 3; c++)
            m.pos[v * 3 + c] = frand(-1, 1), m.nrm[v * 3 + c] = frand(-1, 1), m.tan[v * 4 + c] = frand(-1, 1);
        m.tan[v * 4 + 3] = 1;
        /* neighbouring vertices share nearby joints, as in real meshes */
        uint32_t base = (uint32_t)((uint64_t)v * joint_count / n);
        float sum = 0;
        for (uint32_t i = 0; i < k; i++) {
            m.j[(size_t)v * k + i] = (uint16_t)((base + i) % joint_count);
            sum += m.w[(size_t)v * k + i] = frand(0.01f, 1);
        }
        for (uint32_t i = 0; i < k; i++) m.w[(size_t)v * k + i] /= sum;
    }
    return m;
}

static void free_mesh(mesh_buf *m) {
    free(m->pos), free(m->nrm), free(m->tan), free(m->op), free(m->on), free(m->ot), free(m->w), free(m->j);
    free(m->palette);
}

typedef struct run_ctx {
    ossa_skin_job job; /* whole mesh, with the row's method and kernel; ranges are cut from it */
    _Atomic int failed;
} run_ctx;

static void skin_range(uint32_t begin, uint32_t end, void *user) {
    run_ctx *c = user;
    ossa_skin_job job = c->job;
    job.begin = begin, job.end = end;
    if (ossa_skin_job_run(&job) != OSSA_OK) c->failed = 1;
}

typedef struct row {
    const char *name;
    ossa_skin_kernel kernel;
    bool dqs, threads;
    double median, min; /* wall-clock ns per vertex */
    double cpu;         /* median thread-CPU-time ns per vertex (single-thread rows; robust to preemption) */
} row;

/* Times every row once per round, round-robin (so a noisy neighbour hits all rows alike),
 * reps rounds after one warm-up; each timing skins the whole job `inner` times. DQS rows
 * read job->dual_quats. */
static void measure_rows(const ossa_skin_job *job, thread_pool *pool, row *rows, int count, int reps, int inner) {
    double t[16][64], cpu[16][64];
    uint32_t n = job->end;
    if (reps > 64) reps = 64;
    for (int r = -1; r < reps; r++)
        for (int i = 0; i < count; i++) {
            run_ctx c = {*job, 0};
            c.job.method = rows[i].dqs ? OSSA_SKIN_DQS : OSSA_SKIN_LBS, c.job.kernel = rows[i].kernel;
            double c0 = bench_clock_ns(CLOCK_THREAD_CPUTIME_ID), t0 = now_ns();
            for (int it = 0; it < inner; it++) {
                if (rows[i].threads) thread_pool_parallel_for(pool, 0, n, 4096, skin_range, &c);
                else skin_range(0, n, &c);
            }
            if (c.failed) {
                fprintf(stderr, "%s failed\n", rows[i].name);
                exit(1);
            }
            if (r >= 0) t[i][r] = (now_ns() - t0) / ((double)n * inner);
            if (r >= 0) cpu[i][r] = (bench_clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0) / ((double)n * inner);
        }
    for (int i = 0; i < count; i++) {
        rows[i].median = median(t[i], reps);
        rows[i].min = t[i][0]; /* sorted by median() */
        rows[i].cpu = rows[i].threads ? 0 : median(cpu[i], reps);
    }
}

/* The rows every mesh is measured with: LBS per available kernel, best kernel on the pool,
 * then the same for DQS (scalar, AVX2, AVX-512 when available). */
static int make_rows(row *rows, thread_pool *pool, bool dqs) {
    static char names[16][48];
    int n = 0;
    for (int pass = 0; pass < (dqs ? 2 : 1); pass++)
        for (int kern = OSSA_SKIN_KERNEL_SCALAR; kern <= OSSA_SKIN_KERNEL_AVX512 + 1; kern++) {
            bool mt = kern > OSSA_SKIN_KERNEL_AVX512;
            ossa_skin_kernel kk = mt ? OSSA_SKIN_KERNEL_AUTO : (ossa_skin_kernel)kern;
            if (!mt && !ossa_skin_kernel_available(kk)) continue;
            if (pass == 1 && kk == OSSA_SKIN_KERNEL_SSE) continue; /* no SSE DQS kernel */
            const char *base = mt ? ossa_skin_kernel_name(ossa_skin_kernel_best()) : ossa_skin_kernel_name(kk);
            snprintf(names[n], sizeof names[n], mt ? "%s%s x%u thr" : "%s%s", pass ? "dqs " : "", base,
                     thread_pool_size(pool));
            rows[n] = (row){names[n], kk, pass == 1, mt, 0, 0, 0};
            n++;
        }
    return n;
}

typedef struct bw_ctx {
    char *src, *dst;
    size_t size;
} bw_ctx;

static void copy_range(uint32_t begin, uint32_t end, void *user) {
    bw_ctx *b = user;
    size_t chunk = b->size / 64;
    for (uint32_t i = begin; i < end; i++) memcpy(b->dst + i * chunk, b->src + i * chunk, chunk);
}

/* Memory bandwidth in bytes per ns (GB/s), counting read + write bytes of a large memcpy. */
static double bandwidth(thread_pool *pool, int reps) {
    bw_ctx b = {NULL, NULL, 256ull << 20};
    b.src = xmalloc(b.size), b.dst = xmalloc(b.size);
    double t[64];
    if (reps > 64) reps = 64;
    for (int r = -1; r < reps; r++) {
        double t0 = now_ns();
        if (pool) thread_pool_parallel_for(pool, 0, 64, 1, copy_range, &b);
        else copy_range(0, 64, &b);
        if (r >= 0) t[r] = 2.0 * (double)b.size / (now_ns() - t0);
    }
    free(b.src), free(b.dst);
    return median(t, reps);
}

/* ossa_morph_job: positions + normals with `targets` targets (all weights non-zero). */
static void bench_morph(uint32_t n, uint32_t targets, thread_pool *pool, int reps, double bw1) {
    ossa_morph_target *t = xmalloc(sizeof *t * targets);
    ossa_mesh mesh = {0};
    mesh.vertex_count = n, mesh.positions = xmalloc(12ull * n), mesh.normals = xmalloc(12ull * n);
    mesh.target_count = targets, mesh.targets = t;
    float *w = xmalloc(sizeof(float) * targets), *op = xmalloc(12ull * n), *on = xmalloc(12ull * n);
    for (uint32_t i = 0; i < targets; i++) {
        t[i].positions = xmalloc(12ull * n), t[i].normals = xmalloc(12ull * n), t[i].tangents = NULL;
        w[i] = 0.1f * (float)(i + 1);
    }
    double times[64];
    if (reps > 64) reps = 64;
    for (int r = -1; r < reps; r++) {
        double t0 = now_ns();
        ossa_morph_job job = {.mesh = &mesh, .weights = w, .weight_count = targets, .end = n, .out_positions = op,
                              .out_positions_count = n, .out_normals = on, .out_normals_count = n};
        if (ossa_morph_job_run(&job) != OSSA_OK) exit(1);
        if (r >= 0) times[r] = (now_ns() - t0) / n;
    }
    double ns = median(times, reps), bytes = 24.0 * (2 + targets);
    printf("\nmorph (ossa_morph_job, %u targets, positions + normals): %.2f ns/vert, %.0f bytes/vert, %.1f GB/s, "
           "%.0f%% of memcpy\n", targets, ns, bytes, bytes / ns, 100.0 * bytes / ns / bw1);
    (void)pool;
    for (uint32_t i = 0; i < targets; i++) free(t[i].positions), free(t[i].normals);
    free(t), free(mesh.positions), free(mesh.normals), free(w), free(op), free(on);
}

/* Woman.gltf (../shared/assets or $OSSA_ASSETS): every skinned mesh, rest-pose palette
 * (model × inverse bind over the mesh's skin), cache-resident, so repeated per run.
 * (Threaded rows print wall time in the cpu slot.) */
static void bench_woman(thread_pool *pool, int reps) {
    const char *root = getenv("OSSA_ASSETS");
    char path[4096];
    snprintf(path, sizeof path, "%s/Woman/Woman.gltf", root && *root ? root : "../shared/assets");
    ossa_asset *asset = NULL;
    ossa_diagnostic diag;
    ossa_result r = ossa_gltf_load_file(path, NULL, &asset, &diag);
    if (r != OSSA_OK) {
        printf("\nWoman.gltf: skipped (%s: %s %s)\n", path, ossa_result_string(r), diag.message);
        return;
    }
    const ossa_skeleton *sk = asset->skeleton;
    ossa_mat4 *model = xmalloc(sizeof(ossa_mat4) * sk->joint_count), *pal = xmalloc(sizeof(ossa_mat4) * sk->joint_count);
    ossa_local_to_model_job lm = {.skeleton = sk, .input = sk->rest, .input_count = sk->joint_count, .output = model,
                                  .output_count = sk->joint_count};
    ossa_local_to_model_job_run(&lm);
    for (uint32_t mi = 0; mi < asset->mesh_count; mi++) {
        const ossa_mesh *m = asset->meshes[mi];
        if (!m->influences || m->skin < 0 || !m->vertex_count) continue;
        ossa_palette_job pj = {.skeleton = sk, .skin = (uint32_t)m->skin, .model = model,
                               .model_count = sk->joint_count, .output = pal, .output_count = sk->joint_count};
        ossa_palette_job_run(&pj);
        float *op = xmalloc(12ull * m->vertex_count), *on = xmalloc(12ull * m->vertex_count);
        float *ot = xmalloc(16ull * m->vertex_count);
        ossa_skin_job job = {.end = m->vertex_count, .vertex_count = m->vertex_count, .influences = m->influences,
                             .joints = m->joints, .weights = m->weights, .palette = pal,
                             .palette_count = sk->joint_count, .positions = m->positions, .normals = m->normals,
                             .tangents = m->tangents, .out_positions = op, .out_normals = m->normals ? on : NULL,
                             .out_tangents = m->tangents ? ot : NULL};
        int inner = (int)(2000000 / m->vertex_count) + 1;
        printf("\nWoman.gltf mesh %u: %u vertices, %u influences%s%s (x%d per run)\n", mi, m->vertex_count,
               m->influences, m->normals ? ", normals" : "", m->tangents ? ", tangents" : "", inner);
        row rows[16];
        int count = make_rows(rows, pool, false);
        measure_rows(&job, pool, rows, count, reps, inner);
        for (int i = 0; i < count; i++)
            printf("  %-18s %9.2f ns/vert (min %.2f, cpu %.2f)  x%.2f\n", rows[i].name, rows[i].median, rows[i].min,
                   rows[i].threads ? rows[i].median : rows[i].cpu, rows[0].median / rows[i].median);
        free(op), free(on), free(ot);
    }
    free(model), free(pal);
    ossa_asset_destroy(asset);
}

int main(int argc, char **argv) {
    uint32_t n = 1000000, threads = 2;
    int reps = 11;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--vertices")) n = (uint32_t)strtoul(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--reps")) reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--threads")) threads = (uint32_t)strtoul(argv[i + 1], NULL, 10);
    }
    if (n == 0 || reps < 1) return 2;
    thread_pool *pool = thread_pool_create(threads);
    double bw1 = bandwidth(NULL, reps < 5 ? reps : 5), bw2 = bandwidth(pool, reps < 5 ? reps : 5);
    printf("memory bandwidth (256 MiB memcpy, read+write): %.1f GB/s on 1 thread, %.1f GB/s on %u threads\n", bw1,
           bw2, thread_pool_size(pool));
    printf("mesh: %u generated vertices, positions + normals + tangents, 64 joints; median of %d runs\n"
           "(ns/vert: wall clock; cpu ns: this thread's CPU time, single-thread rows, robust to preemption)\n", n, reps);
    for (uint32_t k = 4; k <= 8; k += 4) {
        mesh_buf m = make_mesh(n, k, 64);
        double bytes = 12 + 12 + 16 + 2.0 * k + 4.0 * k + 12 + 12 + 16;
        printf("\n%u influences: %.0f bytes moved per vertex (inputs + outputs)\n", k, bytes);
        printf("  %-18s %9s %8s %8s %9s %8s %12s\n", "kernel", "ns/vert", "(min)", "cpu ns", "x scalar", "GB/s",
               "% of memcpy");
        ossa_dual_quat *dq = xmalloc(sizeof *dq * m.joints_count);
        ossa_dual_quat_job dj = {.palette = m.palette, .palette_count = m.joints_count, .output = dq,
                                 .output_count = m.joints_count};
        if (ossa_dual_quat_job_run(&dj) != OSSA_OK) exit(1);
        ossa_skin_job job = {.end = m.n, .vertex_count = m.n, .influences = m.k, .joints = m.j, .weights = m.w,
                             .palette = m.palette, .dual_quats = dq, .palette_count = m.joints_count,
                             .positions = m.pos, .normals = m.nrm, .tangents = m.tan, .out_positions = m.op,
                             .out_normals = m.on, .out_tangents = m.ot};
        row rows[16];
        int count = make_rows(rows, pool, true);
        measure_rows(&job, pool, rows, count, reps, 1);
        for (int i = 0; i < count; i++) {
            double roof = rows[i].threads ? bw2 : bw1, gbs = bytes / rows[i].median;
            char cpu[16] = "-";
            if (!rows[i].threads) snprintf(cpu, sizeof cpu, "%.2f", rows[i].cpu);
            printf("  %-18s %9.2f %8.2f %8s %9.2f %8.1f %11.0f%%\n", rows[i].name, rows[i].median, rows[i].min, cpu,
                   rows[0].median / rows[i].median, gbs, 100.0 * gbs / roof);
        }
        free(dq);
        free_mesh(&m);
    }
    bench_morph(n, 4, pool, reps, bw1);
    bench_woman(pool, reps);
    thread_pool_destroy(pool);
    return 0;
}
