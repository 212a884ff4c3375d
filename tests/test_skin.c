/* CPU linear blend skinning (src/skin): every kernel against a slow double-precision
 * reference, ranges, strides, degenerate weights, validation, reference paths. */
#include "test_support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "skin/skin_internal.h"
#include "core/cpu.h" /* internal: the SIMD level and its cap */
#include <stdatomic.h>

#include "skin_reference.h" /* tests/support: the seed's slow skinners */
#include "thread_pool.h"    /* support/: the tools' pool, tested here with the kernels it splits */

#define SENTINEL 1234.5f

typedef struct test_mesh {
    uint32_t n, k, joint_count;
    float *pos, *nrm, *tan, *weights;
    uint16_t *joints;
    ossa_mat4 *palette;
} test_mesh;

static ossa_mat4 random_affine(uint64_t *rng, bool uniform_scale) {
    ossa_transform t;
    t.translation = ossa_vec3_make(ot_rand_float(rng, -2, 2), ot_rand_float(rng, -2, 2), ot_rand_float(rng, -2, 2));
    t.rotation = ot_rand_quat(rng);
    float s = ot_rand_float(rng, 0.5f, 1.5f);
    t.scale = uniform_scale ? ossa_vec3_make(s, s, s)
                            : ossa_vec3_make(s, ot_rand_float(rng, 0.5f, 1.5f), ot_rand_float(rng, 0.5f, 1.5f));
    return ossa_transform_to_mat4(t);
}

/* Weights: mostly normalised; every 7th vertex scaled (sum != 1), every zero_period-th
 * (from vertex 6; 0 = only vertex 37) all zero, every 5th has a zero influence. */
static test_mesh make_mesh_z(uint64_t seed, uint32_t n, uint32_t k, uint32_t joint_count, uint32_t zero_period) {
    uint64_t rng = seed;
    test_mesh m = {n, k, joint_count, NULL, NULL, NULL, NULL, NULL, NULL};
    m.pos = malloc(sizeof(float) * 3 * n);
    m.nrm = malloc(sizeof(float) * 3 * n);
    m.tan = malloc(sizeof(float) * 4 * n);
    m.weights = malloc(sizeof(float) * k * n);
    m.joints = malloc(sizeof(uint16_t) * k * n);
    m.palette = malloc(sizeof(ossa_mat4) * joint_count);
    assert_true(m.pos && m.nrm && m.tan && m.weights && m.joints && m.palette);
    for (uint32_t j = 0; j < joint_count; j++) m.palette[j] = random_affine(&rng, false);
    for (uint32_t v = 0; v < n; v++) {
        for (uint32_t c = 0; c < 3; c++) {
            m.pos[v * 3 + c] = ot_rand_float(&rng, -1, 1);
            m.nrm[v * 3 + c] = ot_rand_float(&rng, -1, 1);
            m.tan[v * 4 + c] = ot_rand_float(&rng, -1, 1);
        }
        m.tan[v * 4 + 3] = (v & 1) ? 1.0f : -1.0f;
        float sum = 0;
        for (uint32_t i = 0; i < k; i++) {
            m.joints[v * k + i] = (uint16_t)(ot_rand_u64(&rng) % joint_count);
            m.weights[v * k + i] = ot_rand_float(&rng, 0, 1);
            if (v % 5 == 0 && i == k - 1) m.weights[v * k + i] = 0;
            sum += m.weights[v * k + i];
        }
        float scale = (v % 7 == 3) ? ot_rand_float(&rng, 0.3f, 1.7f) : 1.0f;
        bool zero = zero_period ? v % zero_period == 6 : v == 37;
        for (uint32_t i = 0; i < k; i++) m.weights[v * k + i] *= zero ? 0.0f : scale / sum;
    }
    return m;
}

static test_mesh make_mesh(uint64_t seed, uint32_t n, uint32_t k, uint32_t joint_count) {
    return make_mesh_z(seed, n, k, joint_count, 13);
}

static void free_mesh(test_mesh *m) {
    free(m->pos), free(m->nrm), free(m->tan), free(m->weights), free(m->joints), free(m->palette);
}

/* Slow reference in double: Σ wᵢ (Mᵢ v) per influence, normals/tangents renormalised. */
static void reference(const test_mesh *m, uint32_t v, float p[3], float n[3], float t[4]) {
    double ap[3] = {0}, an[3] = {0}, at[3] = {0}, sum = 0;
    for (uint32_t i = 0; i < m->k; i++) sum += m->weights[v * m->k + i];
    if (sum == 0) {
        memcpy(p, m->pos + v * 3, 12), memcpy(n, m->nrm + v * 3, 12), memcpy(t, m->tan + v * 4, 16);
        return;
    }
    for (uint32_t i = 0; i < m->k; i++) {
        const float *x = m->palette[m->joints[v * m->k + i]].m;
        double w = m->weights[v * m->k + i];
        for (int r = 0; r < 3; r++) {
            ap[r] += w * ((double)x[r] * m->pos[v * 3] + (double)x[4 + r] * m->pos[v * 3 + 1] +
                          (double)x[8 + r] * m->pos[v * 3 + 2] + x[12 + r]);
            an[r] += w * ((double)x[r] * m->nrm[v * 3] + (double)x[4 + r] * m->nrm[v * 3 + 1] +
                          (double)x[8 + r] * m->nrm[v * 3 + 2]);
            at[r] += w * ((double)x[r] * m->tan[v * 4] + (double)x[4 + r] * m->tan[v * 4 + 1] +
                          (double)x[8 + r] * m->tan[v * 4 + 2]);
        }
    }
    double ln = sqrt(an[0] * an[0] + an[1] * an[1] + an[2] * an[2]);
    double lt = sqrt(at[0] * at[0] + at[1] * at[1] + at[2] * at[2]);
    for (int r = 0; r < 3; r++) {
        p[r] = (float)ap[r];
        n[r] = (float)(an[r] / ln);
        t[r] = (float)(at[r] / lt);
    }
    t[3] = m->tan[v * 4 + 3];
}

static ossa_skin_job packed_job(const test_mesh *m, uint32_t begin, uint32_t end, float *op, float *on, float *ot) {
    ossa_skin_job job = {0};
    job.begin = begin, job.end = end, job.vertex_count = m->n, job.influences = m->k;
    job.joints = m->joints, job.weights = m->weights;
    job.palette = m->palette, job.palette_count = m->joint_count;
    job.positions = m->pos, job.normals = m->nrm, job.tangents = m->tan;
    job.out_positions = op, job.out_normals = on, job.out_tangents = ot;
    return job;
}

/* Runs job (LBS unless it says otherwise) with `kernel` in its kernel field. */
static ossa_result run_kernel(ossa_skin_job *job, ossa_skin_kernel kernel) {
    job->kernel = kernel;
    return ossa_skin_job_run(job);
}

static float *filled(size_t count) {
    float *f = malloc(sizeof(float) * count);
    assert_non_null(f);
    for (size_t i = 0; i < count; i++) f[i] = SENTINEL;
    return f;
}

static void near_rel(float a, float b, float tol) {
    float scale = fabsf(b) > 1.0f ? fabsf(b) : 1.0f;
    if (!(fabsf(a - b) <= tol * scale)) fail_msg("%.9g vs %.9g (tol %.3g)", a, b, tol * scale);
}

/* Checks the packed outputs of [begin, end) against the reference and the rest untouched. */
static void check_outputs(const test_mesh *m, uint32_t begin, uint32_t end, const float *op, const float *on,
                          const float *ot, float tol) {
    for (uint32_t v = 0; v < m->n; v++) {
        if (v < begin || v >= end) {
            for (uint32_t c = 0; c < 3; c++) assert_true(op[v * 3 + c] == SENTINEL && on[v * 3 + c] == SENTINEL);
            for (uint32_t c = 0; c < 4; c++) assert_true(ot[v * 4 + c] == SENTINEL);
            continue;
        }
        float p[3], n[3], t[4];
        reference(m, v, p, n, t);
        for (uint32_t c = 0; c < 3; c++) {
            near_rel(op[v * 3 + c], p[c], tol);
            near_rel(on[v * 3 + c], n[c], tol);
            near_rel(ot[v * 4 + c], t[c], tol);
        }
        assert_true(ot[v * 4 + 3] == t[3]);
    }
}

static void every_kernel_matches_reference(void **state) {
    (void)state;
    for (uint32_t case_ = 0; case_ < 4; case_++) {
        uint32_t k = case_ & 1 ? 8 : 4;
        test_mesh m = make_mesh_z(42 + case_, 1001, k, 37, case_ < 2 ? 13 : 0); /* SIMD blocks need non-zero runs */
        const uint32_t ranges[][2] = {{0, 1001}, {3, 998}, {5, 6}, {17, 17}, {1000, 1001}, {16, 48}, {1, 33}};
        for (int kern = OSSA_SKIN_KERNEL_AUTO; kern <= OSSA_SKIN_KERNEL_AVX512; kern++) {
            if (kern != OSSA_SKIN_KERNEL_AUTO && !ossa_skin_kernel_available((ossa_skin_kernel)kern)) {
                ot_skip_part("kernel %s not available (the CPU, the OSSA_SIMD cap or a scalar-only build)",
                             ossa_skin_kernel_name((ossa_skin_kernel)kern));
                continue;
            }
            for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++) {
                float *op = filled(3 * m.n), *on = filled(3 * m.n), *ot = filled(4 * m.n);
                ossa_skin_job job = packed_job(&m, ranges[r][0], ranges[r][1], op, on, ot);
                assert_int_equal(run_kernel(&job, (ossa_skin_kernel)kern), OSSA_OK);
                check_outputs(&m, ranges[r][0], ranges[r][1], op, on, ot, 1e-5f);
                free(op), free(on), free(ot);
            }
        }
        free_mesh(&m);
    }
}

static void simd_kernels_match_scalar_kernel(void **state) {
    (void)state;
    for (uint32_t k = 4; k <= 8; k += 4) {
        test_mesh m = make_mesh_z(7 * k, 4099, k, 130, k == 4 ? 0 : 1000);
        float *sp = filled(3 * m.n), *sn = filled(3 * m.n), *st = filled(4 * m.n);
        ossa_skin_job job = packed_job(&m, 1, 4098, sp, sn, st);
        assert_int_equal(run_kernel(&job, OSSA_SKIN_KERNEL_SCALAR), OSSA_OK);
        for (int kern = OSSA_SKIN_KERNEL_SSE; kern <= OSSA_SKIN_KERNEL_AVX512; kern++) {
            if (!ossa_skin_kernel_available((ossa_skin_kernel)kern)) continue;
            float *op = filled(3 * m.n), *on = filled(3 * m.n), *ot = filled(4 * m.n);
            job = packed_job(&m, 1, 4098, op, on, ot);
            assert_int_equal(run_kernel(&job, (ossa_skin_kernel)kern), OSSA_OK);
            for (uint32_t i = 0; i < 3 * m.n; i++) near_rel(op[i], sp[i], 1e-5f), near_rel(on[i], sn[i], 1e-5f);
            for (uint32_t i = 0; i < 4 * m.n; i++) near_rel(ot[i], st[i], 1e-5f);
            free(op), free(on), free(ot);
        }
        free(sp), free(sn), free(st);
        free_mesh(&m);
    }
}

/* Interleaved input (pos, nrm, tan, uv: 48 bytes) and interleaved output (40 bytes),
 * against the packed layout. */
static void strided_streams_match_packed(void **state) {
    (void)state;
    test_mesh m = make_mesh(99, 333, 4, 9);
    float *in = malloc(sizeof(float) * 12 * m.n), *out = filled(10 * m.n);
    assert_true(in && out);
    for (uint32_t v = 0; v < m.n; v++) {
        memcpy(in + v * 12, m.pos + v * 3, 12), memcpy(in + v * 12 + 3, m.nrm + v * 3, 12);
        memcpy(in + v * 12 + 6, m.tan + v * 4, 16), in[v * 12 + 10] = in[v * 12 + 11] = -7.0f;
    }
    for (int kern = OSSA_SKIN_KERNEL_SCALAR; kern <= OSSA_SKIN_KERNEL_AVX512; kern++) {
        if (!ossa_skin_kernel_available((ossa_skin_kernel)kern)) continue;
        for (uint32_t i = 0; i < 10 * m.n; i++) out[i] = SENTINEL;
        ossa_skin_job job = packed_job(&m, 2, 331, out, out + 3, out + 6);
        job.positions = in, job.normals = in + 3, job.tangents = in + 6;
        job.positions_stride = job.normals_stride = job.tangents_stride = 48;
        job.out_positions_stride = job.out_normals_stride = job.out_tangents_stride = 40;
        assert_int_equal(run_kernel(&job, (ossa_skin_kernel)kern), OSSA_OK);
        float *pp = filled(3 * m.n), *pn = filled(3 * m.n), *pt = filled(4 * m.n);
        ossa_skin_job packed = packed_job(&m, 2, 331, pp, pn, pt);
        assert_int_equal(run_kernel(&packed, (ossa_skin_kernel)kern), OSSA_OK);
        for (uint32_t v = 2; v < 331; v++) { /* same kernel, same bits whatever the layout */
            assert_memory_equal(out + v * 10, pp + v * 3, 12);
            assert_memory_equal(out + v * 10 + 3, pn + v * 3, 12);
            assert_memory_equal(out + v * 10 + 6, pt + v * 4, 16);
        }
        free(pp), free(pn), free(pt);
        for (uint32_t v = 0; v < m.n; v++) {
            const float *o = out + v * 10;
            if (v < 2 || v >= 331) {
                for (int c = 0; c < 10; c++) assert_true(o[c] == SENTINEL);
                continue;
            }
            float p[3], n[3], t[4];
            reference(&m, v, p, n, t);
            for (uint32_t c = 0; c < 3; c++) near_rel(o[c], p[c], 1e-5f), near_rel(o[3 + c], n[c], 1e-5f);
            for (uint32_t c = 0; c < 4; c++) near_rel(o[6 + c], t[c], 1e-5f);
        }
    }
    free(in), free(out);
    free_mesh(&m);
}

/* Positions only (normals/tangents optional), separate odd strides. */
static void positions_only(void **state) {
    (void)state;
    test_mesh m = make_mesh_z(5, 257, 8, 20, 0);
    float *out = filled(5 * m.n);
    for (int kern = OSSA_SKIN_KERNEL_SCALAR; kern <= OSSA_SKIN_KERNEL_AVX512; kern++) {
        if (!ossa_skin_kernel_available((ossa_skin_kernel)kern)) continue;
        ossa_skin_job job = packed_job(&m, 0, m.n, out, NULL, NULL);
        job.normals = job.tangents = NULL;
        job.out_positions_stride = 20;
        assert_int_equal(run_kernel(&job, (ossa_skin_kernel)kern), OSSA_OK);
        for (uint32_t v = 0; v < m.n; v++) {
            float p[3], n[3], t[4];
            reference(&m, v, p, n, t);
            for (uint32_t c = 0; c < 3; c++) near_rel(out[v * 5 + c], p[c], 1e-5f);
            assert_true(out[v * 5 + 3] == SENTINEL && out[v * 5 + 4] == SENTINEL);
        }
    }
    free(out);
    free_mesh(&m);
}

/* Weights (0.5 x4) on one joint: p' = 2·M·p; a zero-weight vertex (non-unit normal) is copied. */
static void weights_not_summing_to_one_and_zero_weights(void **state) {
    (void)state;
    uint64_t rng = 3;
    ossa_mat4 pal[2] = {random_affine(&rng, false), random_affine(&rng, false)};
    uint16_t joints[8] = {1, 1, 1, 1, 0, 1, 0, 1};
    float weights[8] = {0.5f, 0.5f, 0.5f, 0.5f, 0, 0, 0, 0};
    float pos[6] = {0.3f, -0.2f, 0.9f, 4, 5, 6}, nrm[6] = {0, 0, 1, 0, 3, 0}, tan[8] = {1, 0, 0, -1, 0, 0, 2, 1};
    for (int kern = OSSA_SKIN_KERNEL_SCALAR; kern <= OSSA_SKIN_KERNEL_AVX512; kern++) {
        if (!ossa_skin_kernel_available((ossa_skin_kernel)kern)) continue;
        float op[6], on[6], ot[8];
        ossa_skin_job job = {.end = 2, .vertex_count = 2, .influences = 4, .joints = joints, .weights = weights,
                             .palette = pal, .palette_count = 2, .positions = pos, .normals = nrm, .tangents = tan,
                             .out_positions = op, .out_normals = on, .out_tangents = ot};
        assert_int_equal(run_kernel(&job, (ossa_skin_kernel)kern), OSSA_OK);
        ossa_vec3 e = ossa_mat4_transform_point(&pal[1], ossa_vec3_make(pos[0], pos[1], pos[2]));
        near_rel(op[0], 2 * e.x, 1e-5f), near_rel(op[1], 2 * e.y, 1e-5f), near_rel(op[2], 2 * e.z, 1e-5f);
        ossa_vec3 en = ossa_vec3_normalize(ossa_mat4_transform_vector(&pal[1], ossa_vec3_make(0, 0, 1)));
        near_rel(on[0], en.x, 1e-5f), near_rel(on[1], en.y, 1e-5f), near_rel(on[2], en.z, 1e-5f);
        assert_true(ot[3] == -1.0f);
        assert_memory_equal(op + 3, pos + 3, 12);
        assert_memory_equal(on + 3, nrm + 3, 12);
        assert_memory_equal(ot + 4, tan + 4, 16);
    }
}

static void bad_joint_index_writes_nothing(void **state) {
    (void)state;
    test_mesh m = make_mesh(11, 64, 4, 8);
    m.joints[40 * 4 + 2] = 8; /* == palette_count */
    for (int kern = OSSA_SKIN_KERNEL_AUTO; kern <= OSSA_SKIN_KERNEL_AVX512; kern++) {
        if (kern && !ossa_skin_kernel_available((ossa_skin_kernel)kern)) continue;
        float *op = filled(3 * m.n), *on = filled(3 * m.n), *ot = filled(4 * m.n);
        ossa_skin_job job = packed_job(&m, 0, m.n, op, on, ot);
        assert_int_equal(run_kernel(&job, (ossa_skin_kernel)kern), OSSA_ERROR_INVALID_DATA);
        for (uint32_t i = 0; i < 3 * m.n; i++) assert_true(op[i] == SENTINEL && on[i] == SENTINEL);
        job.end = 40; /* the bad vertex is outside the range: fine */
        assert_int_equal(run_kernel(&job, (ossa_skin_kernel)kern), OSSA_OK);
        free(op), free(on), free(ot);
    }
    free_mesh(&m);
}

/* Validation fails with `expected`, naming `field` in diag->path and at the start of the
 * message; _run fails alike (and so writes nothing). */
static void expect_invalid(ossa_skin_job job, ossa_result expected, const char *field) {
    ossa_diagnostic diag;
    memset(&diag, 0, sizeof diag);
    assert_int_equal(ossa_skin_job_validate(&job, &diag), expected);
    assert_string_equal(diag.path, field);
    assert_true(strncmp(diag.message, field, strlen(field)) == 0 && diag.message[strlen(field)] == ':');
    assert_int_equal(ossa_skin_job_validate(&job, NULL), expected); /* diag is optional */
    assert_int_equal(ossa_skin_job_run(&job), expected);
}

/* ozz-style: the zeroed job fails; each required field added in turn names the next one
 * missing, until the job validates. */
static void job_validation(void **state) {
    (void)state;
    ossa_mat4 pal = ossa_mat4_identity();
    pal.m[12] = 10; /* translate x by 10 */
    ossa_dual_quat dq;
    ossa_dual_quat_job to_dq = {.palette = &pal, .palette_count = 1, .output = &dq, .output_count = 1};
    assert_int_equal(ossa_dual_quat_job_run(&to_dq), OSSA_OK);
    uint16_t joints[4] = {0};
    float weights[4] = {1, 0, 0, 0}, pos[3] = {1, 2, 3}, out[4], nrm[3] = {0, 1, 0};
    ossa_diagnostic diag;
    assert_int_equal(ossa_skin_job_validate(NULL, &diag), OSSA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(diag.path, "job");
    assert_int_equal(ossa_skin_job_run(NULL), OSSA_ERROR_INVALID_ARGUMENT);

    ossa_skin_job job = {0};
    expect_invalid(job, OSSA_ERROR_INVALID_ARGUMENT, "influences");
    job.influences = 4;
    expect_invalid(job, OSSA_ERROR_INVALID_ARGUMENT, "joints");
    job.joints = joints;
    expect_invalid(job, OSSA_ERROR_INVALID_ARGUMENT, "weights");
    job.weights = weights;
    expect_invalid(job, OSSA_ERROR_INVALID_ARGUMENT, "palette");
    job.palette = &pal;
    expect_invalid(job, OSSA_ERROR_INVALID_ARGUMENT, "palette_count");
    job.palette_count = 1;
    expect_invalid(job, OSSA_ERROR_INVALID_ARGUMENT, "positions");
    job.positions = pos;
    expect_invalid(job, OSSA_ERROR_INVALID_ARGUMENT, "out_positions");
    job.out_positions = out;
    assert_int_equal(ossa_skin_job_validate(&job, NULL), OSSA_OK); /* empty range */
    job.end = 1; /* the range exceeds the streams' vertex_count (0): a short span, nothing written */
    out[0] = out[1] = out[2] = out[3] = SENTINEL;
    expect_invalid(job, OSSA_ERROR_BUFFER_TOO_SMALL, "vertex_count");
    for (int i = 0; i < 4; i++) assert_true(out[i] == SENTINEL);
    job.vertex_count = 1;
    assert_int_equal(ossa_skin_job_validate(&job, &diag), OSSA_OK);
    assert_int_equal(ossa_skin_job_run(&job), OSSA_OK);
    assert_true(out[3] == SENTINEL); /* past the one vertex: untouched */
    near_rel(out[0], 11, 0), near_rel(out[1], 2, 0), near_rel(out[2], 3, 0);

    /* DQS reads dual_quats, which LBS left unset */
    ossa_skin_job dqs = job;
    dqs.method = OSSA_SKIN_DQS;
    expect_invalid(dqs, OSSA_ERROR_INVALID_ARGUMENT, "dual_quats");
    dqs.dual_quats = &dq;
    out[0] = out[1] = out[2] = SENTINEL;
    assert_int_equal(ossa_skin_job_run(&dqs), OSSA_OK);
    near_rel(out[0], 11, 1e-6f), near_rel(out[1], 2, 1e-6f), near_rel(out[2], 3, 1e-6f);
    dqs.palette = NULL; /* the span DQS does not read may be unset, or set (above) */
    assert_int_equal(ossa_skin_job_validate(&dqs, NULL), OSSA_OK);
    dqs.kernel = OSSA_SKIN_KERNEL_SSE; /* no SSE DQS kernel, whatever the CPU */
    expect_invalid(dqs, OSSA_ERROR_UNSUPPORTED, "kernel");
    ossa_skin_job lbs = job;
    lbs.dual_quats = &dq; /* LBS with dual_quats set: accepted, not read */
    assert_int_equal(ossa_skin_job_validate(&lbs, NULL), OSSA_OK);

    /* each wrong field of a valid job, named */
    ossa_skin_job bad = job;
    bad.method = (ossa_skin_method)7;
    expect_invalid(bad, OSSA_ERROR_INVALID_ARGUMENT, "method");
    bad = job, bad.kernel = (ossa_skin_kernel)99;
    expect_invalid(bad, OSSA_ERROR_INVALID_ARGUMENT, "kernel");
    bad = job, bad.influences = 5;
    expect_invalid(bad, OSSA_ERROR_INVALID_ARGUMENT, "influences");
    bad = job, bad.begin = 2;
    expect_invalid(bad, OSSA_ERROR_INVALID_ARGUMENT, "begin");
    bad = job, bad.palette_count = 0;
    expect_invalid(bad, OSSA_ERROR_INVALID_ARGUMENT, "palette_count");
    bad = job, bad.normals = nrm; /* normals without out_normals */
    expect_invalid(bad, OSSA_ERROR_INVALID_ARGUMENT, "out_normals");
    bad = job, bad.out_normals = out; /* out_normals for a mesh without normals */
    expect_invalid(bad, OSSA_ERROR_INVALID_ARGUMENT, "normals");
    bad = job, bad.tangents = pos;
    expect_invalid(bad, OSSA_ERROR_INVALID_ARGUMENT, "out_tangents");
    bad = job, bad.out_tangents = out; /* output without input */
    expect_invalid(bad, OSSA_ERROR_INVALID_ARGUMENT, "tangents");
    bad = job, bad.positions_stride = 8;
    expect_invalid(bad, OSSA_ERROR_INVALID_ARGUMENT, "positions_stride");
    bad = job, bad.out_positions_stride = 14;
    expect_invalid(bad, OSSA_ERROR_INVALID_ARGUMENT, "out_positions_stride");
    bad = job, bad.tangents = pos, bad.out_tangents = out, bad.tangents_stride = 12;
    expect_invalid(bad, OSSA_ERROR_INVALID_ARGUMENT, "tangents_stride");
    bad = job, bad.positions = (const float *)(const void *)((const char *)pos + 1);
    expect_invalid(bad, OSSA_ERROR_INVALID_ARGUMENT, "positions");
    bad = job, bad.joints = (const uint16_t *)(const void *)((const char *)joints + 1);
    expect_invalid(bad, OSSA_ERROR_INVALID_ARGUMENT, "joints");
    assert_true(out[3] == SENTINEL);
}

/* An explicit kernel the CPU lacks (or that a cap hides) fails validation as UNSUPPORTED
 * naming "kernel"; AUTO always runs. */
static void unavailable_kernel_is_unsupported(void **state) {
    (void)state;
    ossa_mat4 pal = ossa_mat4_identity();
    uint16_t joints[4] = {0};
    float weights[4] = {1, 0, 0, 0}, pos[3] = {1, 2, 3}, out[3];
    ossa_skin_job job = {0};
    job.end = 1, job.vertex_count = 1, job.influences = 4, job.joints = joints, job.weights = weights;
    job.palette = &pal, job.palette_count = 1, job.positions = pos, job.out_positions = out;
    for (int kern = OSSA_SKIN_KERNEL_SCALAR; kern <= OSSA_SKIN_KERNEL_AVX512; kern++)
        assert_int_equal(run_kernel(&job, (ossa_skin_kernel)kern),
                         ossa_skin_kernel_available((ossa_skin_kernel)kern) ? OSSA_OK : OSSA_ERROR_UNSUPPORTED);
    assert_true(ossa_skin_kernel_available(OSSA_SKIN_KERNEL_SCALAR));
    assert_false(ossa_skin_kernel_available(OSSA_SKIN_KERNEL_AUTO));
    /* Cap the SIMD level (as OSSA_SIMD=scalar|sse4|... does) so every path is exercised. */
    for (int cap = OSSA_SKIN_KERNEL_SCALAR; cap <= OSSA_SKIN_KERNEL_AVX512; cap++) {
        ossa__simd_set_cap(cap - 1); /* the kernels are the levels, plus one */
        assert_true((int)ossa_skin_kernel_best() <= cap);
        for (int kern = cap + 1; kern <= OSSA_SKIN_KERNEL_AVX512; kern++) {
            assert_false(ossa_skin_kernel_available((ossa_skin_kernel)kern));
            job.kernel = (ossa_skin_kernel)kern;
            expect_invalid(job, OSSA_ERROR_UNSUPPORTED, "kernel");
        }
        assert_int_equal(run_kernel(&job, OSSA_SKIN_KERNEL_AUTO), OSSA_OK);
    }
    /* OSSA_SIMD caps the choice (read again after a negative cap) */
    const char *saved = getenv("OSSA_SIMD");
    char *keep = saved ? strdup(saved) : NULL;
    const char *names[] = {"scalar", "sse4", "avx2", "avx512"};
    for (int cap = OSSA_SKIN_KERNEL_SCALAR; cap <= OSSA_SKIN_KERNEL_AVX512; cap++) {
        setenv("OSSA_SIMD", names[cap - 1], 1);
        ossa__simd_set_cap(-1);
        assert_true((int)ossa_skin_kernel_best() <= cap);
        if ((int)ossa__simd_cpu() + 1 >= cap) assert_int_equal(ossa_skin_kernel_best(), cap);
    }
    setenv("OSSA_SIMD", "sse", 1); /* not a level's name: reported once on stderr, ignored */
    ossa__simd_set_cap(-1);
    assert_int_equal((int)ossa__simd(), (int)ossa__simd_cpu());
    if (keep) setenv("OSSA_SIMD", keep, 1); /* this run's cap (the _only tests) again */
    else unsetenv("OSSA_SIMD");
    free(keep);
    ossa__simd_set_cap(-1);
    print_message("best kernel on this CPU: %s\n", ossa_skin_kernel_name(ossa_skin_kernel_best()));
    assert_string_equal(ossa_skin_kernel_name(OSSA_SKIN_KERNEL_SCALAR), "scalar");
}

/* The seed's two-array and TRS-transform variants agree with the pre-multiplied palette. */
static void reference_paths_match_palette(void **state) {
    (void)state;
    uint64_t rng = 77;
    enum { J = 12 };
    ossa_transform model[J], ibm[J];
    ossa_mat4 mm[J], mi[J], pal[J];
    for (int j = 0; j < J; j++) {
        float s0 = ot_rand_float(&rng, 0.5f, 2), s1 = ot_rand_float(&rng, 0.5f, 2);
        model[j] = (ossa_transform){{ot_rand_float(&rng, -2, 2), ot_rand_float(&rng, -2, 2), ot_rand_float(&rng, -2, 2)},
                                    ot_rand_quat(&rng), {s0, s0, s0}};
        ibm[j] = (ossa_transform){{ot_rand_float(&rng, -2, 2), ot_rand_float(&rng, -2, 2), ot_rand_float(&rng, -2, 2)},
                                  ot_rand_quat(&rng), {s1, s1, s1}};
        mm[j] = ossa_transform_to_mat4(model[j]), mi[j] = ossa_transform_to_mat4(ibm[j]);
    }
    for (int j = 0; j < J; j++) pal[j] = ossa_mat4_mul(&mm[j], &mi[j]);
    for (uint32_t k = 4; k <= 8; k += 4) {
        test_mesh m = make_mesh(k, 200, k, J);
        memcpy(m.palette, pal, sizeof pal);
        float *op = filled(3 * m.n), *on = filled(3 * m.n), *ot = filled(4 * m.n);
        ossa_skin_job job = packed_job(&m, 1, 199, op, on, ot);
        assert_int_equal(ot_skin_lbs_two_arrays(&job, mm, mi), OSSA_OK);
        check_outputs(&m, 1, 199, op, on, ot, 1e-4f);
        assert_int_equal(ot_skin_lbs_transforms(&job, model, ibm), OSSA_OK);
        check_outputs(&m, 1, 199, op, on, ot, 1e-4f);
        assert_int_equal(ot_skin_lbs_transforms(&job, NULL, ibm), OSSA_ERROR_INVALID_ARGUMENT);
        free(op), free(on), free(ot);
        free_mesh(&m);
    }
}

typedef struct pool_ctx {
    ossa_skin_job job;
    ossa_skin_kernel kernel;
    atomic_int failed;
    atomic_uchar *visits;
} pool_ctx;

static void pool_skin(uint32_t begin, uint32_t end, void *user) {
    pool_ctx *c = user;
    ossa_skin_job job = c->job;
    job.begin = begin, job.end = end;
    for (uint32_t v = begin; v < end; v++) atomic_fetch_add(&c->visits[v], 1);
    if (run_kernel(&job, c->kernel) != OSSA_OK) atomic_store(&c->failed, 1);
}

/* Split over the pool = one call, bit for bit (kernels give a vertex the same arithmetic
 * wherever a range starts), every vertex visited once. */
static void thread_pool_split_matches_single_call(void **state) {
    (void)state;
    test_mesh m = make_mesh_z(31, 50021, 4, 40, 1000);
    float *ref = filled(10 * m.n), *out = filled(10 * m.n);
    const uint32_t threads[] = {1, 2, 3}, grains[] = {0, 1, 17, 4096, 100000};
    pool_ctx c;
    c.visits = calloc(m.n, 1);
    assert_non_null(c.visits);
    for (size_t t = 0; t < 3 * 4; t++) {
        c.kernel = (ossa_skin_kernel)(OSSA_SKIN_KERNEL_SCALAR + t / 3);
        if (!ossa_skin_kernel_available(c.kernel)) continue;
        ossa_skin_job job = packed_job(&m, 0, m.n, ref, ref + 3 * m.n, ref + 6 * m.n);
        assert_int_equal(run_kernel(&job, c.kernel), OSSA_OK);
        thread_pool *pool = thread_pool_create(threads[t % 3]);
        assert_non_null(pool);
        assert_int_equal(thread_pool_size(pool), threads[t % 3]);
        for (size_t g = 0; g < 5; g++) {
            for (uint32_t i = 0; i < 10 * m.n; i++) out[i] = SENTINEL;
            memset((void *)c.visits, 0, m.n);
            c.job = packed_job(&m, 0, m.n, out, out + 3 * m.n, out + 6 * m.n);
            atomic_init(&c.failed, 0);
            thread_pool_parallel_for(pool, 0, m.n, grains[g], pool_skin, &c);
            assert_int_equal(atomic_load(&c.failed), 0);
            for (uint32_t v = 0; v < m.n; v++) assert_int_equal(c.visits[v], 1);
            assert_memory_equal(out, ref, sizeof(float) * 10 * m.n);
        }
        thread_pool_parallel_for(pool, 5, 5, 1, pool_skin, &c); /* empty range: no call */
        thread_pool_destroy(pool);
    }
    thread_pool_destroy(NULL);
    free((void *)c.visits), free(ref), free(out);
    free_mesh(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(job_validation),
        cmocka_unit_test(every_kernel_matches_reference),
        cmocka_unit_test(simd_kernels_match_scalar_kernel),
        cmocka_unit_test(strided_streams_match_packed),
        cmocka_unit_test(positions_only),
        cmocka_unit_test(weights_not_summing_to_one_and_zero_weights),
        cmocka_unit_test(bad_joint_index_writes_nothing),
        cmocka_unit_test(unavailable_kernel_is_unsupported),
        cmocka_unit_test(reference_paths_match_palette),
        cmocka_unit_test(thread_pool_split_matches_single_call),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
