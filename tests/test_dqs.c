/* Dual quaternion skinning (src/skin/dqs.c): conversion, rigid equivalence with LBS,
 * hemisphere correction, volume preservation on a twisted cylinder. */
#include "test_support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static ossa_mat4 random_rigid(uint64_t *rng) {
    ossa_transform t = {{ot_rand_float(rng, -3, 3), ot_rand_float(rng, -3, 3), ot_rand_float(rng, -3, 3)},
                        ot_rand_quat(rng), {1, 1, 1}};
    return ossa_transform_to_mat4(t);
}

/* Applies a unit dual quaternion to a point with the textbook formula
 * p' = r p r* + 2 d r* (vector part), independently of the library. */
static ossa_vec3 dq_point(ossa_dual_quat q, ossa_vec3 p) {
    ossa_vec3 r = ossa_quat_rotate(q.real, p);
    ossa_quat rc = {-q.real.x, -q.real.y, -q.real.z, q.real.w};
    ossa_quat t = ossa_quat_mul(q.dual, rc);
    return ossa_vec3_make(r.x + 2 * t.x, r.y + 2 * t.y, r.z + 2 * t.z);
}

/* ossa_dual_quat_job over count matrices into out (count entries); fails the test unless OK. */
static void to_dual_quats(const ossa_mat4 *palette, uint32_t count, ossa_dual_quat *out) {
    ossa_dual_quat_job job = {.palette = palette, .palette_count = count, .output = out, .output_count = count};
    assert_int_equal(ossa_dual_quat_job_run(&job), OSSA_OK);
}

/* Runs job as DQS over dq (palette_count entries) with `kernel`. */
static ossa_result run_dqs(ossa_skin_job *job, const ossa_dual_quat *dq, ossa_skin_kernel kernel) {
    job->method = OSSA_SKIN_DQS, job->dual_quats = dq, job->kernel = kernel;
    return ossa_skin_job_run(job);
}

/* Runs job as LBS over its palette with `kernel`. */
static ossa_result run_lbs(ossa_skin_job *job, ossa_skin_kernel kernel) {
    job->method = OSSA_SKIN_LBS, job->kernel = kernel;
    return ossa_skin_job_run(job);
}

/* ozz-style: the zeroed job fails; each required field added in turn names the next one
 * missing; a short output is BUFFER_TOO_SMALL naming "output" and writes nothing. */
static void dual_quat_job_validation(void **state) {
    (void)state;
    ossa_diagnostic diag;
    assert_int_equal(ossa_dual_quat_job_validate(NULL, &diag), OSSA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(diag.path, "job");
    assert_int_equal(ossa_dual_quat_job_run(NULL), OSSA_ERROR_INVALID_ARGUMENT);
    uint64_t rng = 3;
    ossa_mat4 pal[2] = {random_rigid(&rng), random_rigid(&rng)};
    ossa_dual_quat out[2], fill[2];
    memset(out, 0x7f, sizeof out);
    memcpy(fill, out, sizeof out);
    ossa_dual_quat_job job = {0};
    assert_int_equal(ossa_dual_quat_job_validate(&job, &diag), OSSA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(diag.path, "palette");
    assert_int_equal(ossa_dual_quat_job_run(&job), OSSA_ERROR_INVALID_ARGUMENT);
    job.palette = pal;
    assert_int_equal(ossa_dual_quat_job_validate(&job, &diag), OSSA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(diag.path, "output");
    job.output = out;
    assert_int_equal(ossa_dual_quat_job_validate(&job, &diag), OSSA_OK); /* empty spans */
    job.palette_count = 2, job.output_count = 1;
    assert_int_equal(ossa_dual_quat_job_validate(&job, &diag), OSSA_ERROR_BUFFER_TOO_SMALL);
    assert_string_equal(diag.path, "output");
    assert_true(strncmp(diag.message, "output: ", 8) == 0);
    assert_int_equal(ossa_dual_quat_job_run(&job), OSSA_ERROR_BUFFER_TOO_SMALL);
    assert_memory_equal(out, fill, sizeof out); /* nothing written */
    job.output_count = 2;
    assert_int_equal(ossa_dual_quat_job_run(&job), OSSA_OK);
    for (int j = 0; j < 2; j++) { /* each entry moves a point as its matrix does */
        ossa_vec3 p = {0.3f, -0.7f, 1.1f}, a = dq_point(out[j], p), b = ossa_mat4_transform_point(&pal[j], p);
        ot_assert_near(a.x, b.x, 1e-4), ot_assert_near(a.y, b.y, 1e-4), ot_assert_near(a.z, b.z, 1e-4);
    }
}

static void palette_to_dual_quats_round_trip(void **state) {
    (void)state;
    uint64_t rng = 1;
    for (int i = 0; i < 200; i++) {
        ossa_mat4 m = random_rigid(&rng);
        if (i % 3 == 0) { /* uniform scale is ignored */
            for (uint32_t c = 0; c < 3; c++)
                for (uint32_t r = 0; r < 3; r++) m.m[c * 4 + r] *= 2.5f;
        }
        ossa_dual_quat q;
        to_dual_quats(&m, 1, &q);
        ot_assert_near(ossa_quat_dot(q.real, q.real), 1, 1e-5);
        ot_assert_near(ossa_quat_dot(q.real, q.dual), 0, 1e-5); /* unit dual quaternion */
        ossa_vec3 p = {ot_rand_float(&rng, -1, 1), ot_rand_float(&rng, -1, 1), ot_rand_float(&rng, -1, 1)};
        ossa_vec3 a = dq_point(q, p);
        ossa_vec3 b = ossa_mat4_transform_point(&m, p);
        if (i % 3 == 0) { /* expected: rotation + translation only */
            ossa_vec3 t = {m.m[12], m.m[13], m.m[14]};
            b = ossa_vec3_add(ossa_vec3_scale(ossa_vec3_sub(b, t), 1.0f / 2.5f), t);
        }
        ot_assert_near(a.x, b.x, 1e-4), ot_assert_near(a.y, b.y, 1e-4), ot_assert_near(a.z, b.z, 1e-4);
    }
}

typedef struct vbuf {
    uint32_t n;
    float *pos, *nrm, *tan, *w;
    uint16_t *j;
} vbuf;

static vbuf make_vertices(uint64_t *rng, uint32_t n, uint32_t k, uint32_t joints, bool single) {
    vbuf b = {n, malloc(12 * n), malloc(12 * n), malloc(16 * n), malloc(4 * k * n), malloc(2 * k * n)};
    assert_true(b.pos && b.nrm && b.tan && b.w && b.j);
    for (uint32_t v = 0; v < n; v++) {
        float sum = 0;
        for (uint32_t c = 0; c < 3; c++) {
            b.pos[v * 3 + c] = ot_rand_float(rng, -1, 1);
            b.nrm[v * 3 + c] = ot_rand_float(rng, -1, 1);
            b.tan[v * 4 + c] = ot_rand_float(rng, -1, 1);
        }
        b.tan[v * 4 + 3] = -1;
        for (uint32_t i = 0; i < k; i++) {
            b.j[v * k + i] = (uint16_t)(ot_rand_u64(rng) % joints);
            b.w[v * k + i] = single ? (i == 0 ? 1.0f : 0.0f) : ot_rand_float(rng, 0, 1);
            sum += b.w[v * k + i];
        }
        for (uint32_t i = 0; i < k; i++) b.w[v * k + i] /= sum;
    }
    return b;
}

static void free_vertices(vbuf *b) {
    free(b->pos), free(b->nrm), free(b->tan), free(b->w), free(b->j);
}

static void run_both(const vbuf *b, uint32_t k, const ossa_mat4 *pal, uint32_t count, float *lbs, float *dqs) {
    ossa_dual_quat *dq = malloc(sizeof *dq * count);
    assert_non_null(dq);
    to_dual_quats(pal, count, dq);
    ossa_skin_job job = {0};
    job.end = b->n, job.vertex_count = b->n, job.influences = k, job.joints = b->j, job.weights = b->w, job.palette = pal;
    job.palette_count = count, job.positions = b->pos, job.normals = b->nrm, job.tangents = b->tan;
    job.out_positions = lbs, job.out_normals = lbs + 3 * b->n, job.out_tangents = lbs + 6 * b->n;
    assert_int_equal(run_lbs(&job, OSSA_SKIN_KERNEL_SCALAR), OSSA_OK);
    job.out_positions = dqs, job.out_normals = dqs + 3 * b->n, job.out_tangents = dqs + 6 * b->n;
    assert_int_equal(run_dqs(&job, dq, OSSA_SKIN_KERNEL_AUTO), OSSA_OK);
    free(dq);
}

/* One influence per vertex, or every joint with the same rigid transform: DQS == LBS. */
static void dqs_equals_lbs_for_rigid_transforms(void **state) {
    (void)state;
    uint64_t rng = 5;
    for (uint32_t k = 4; k <= 8; k += 4) {
        enum { J = 16 };
        ossa_mat4 pal[J];
        for (int j = 0; j < J; j++) pal[j] = random_rigid(&rng);
        vbuf b = make_vertices(&rng, 500, k, J, true);
        float *lbs = malloc(40 * b.n), *dqs = malloc(40 * b.n);
        run_both(&b, k, pal, J, lbs, dqs);
        ot_assert_floats_near(lbs, dqs, 10 * b.n, 2e-5f);
        free_vertices(&b);

        ossa_mat4 same = random_rigid(&rng);
        for (int j = 0; j < J; j++) pal[j] = same;
        b = make_vertices(&rng, 500, k, J, false);
        run_both(&b, k, pal, J, lbs, dqs);
        ot_assert_floats_near(lbs, dqs, 10 * b.n, 2e-5f);
        free_vertices(&b);
        free(lbs), free(dqs);
    }
}

/* q and -q are the same rotation: negating one joint's dual quaternion changes nothing. */
static void hemisphere_correction(void **state) {
    (void)state;
    uint64_t rng = 9;
    enum { J = 6 };
    ossa_mat4 pal[J];
    for (int j = 0; j < J; j++) pal[j] = random_rigid(&rng);
    ossa_dual_quat dq[J], flipped[J];
    to_dual_quats(pal, J, dq);
    memcpy(flipped, dq, sizeof dq);
    for (int j = 1; j < J; j += 2) {
        ossa_quat r = flipped[j].real, d = flipped[j].dual;
        flipped[j].real = (ossa_quat){-r.x, -r.y, -r.z, -r.w};
        flipped[j].dual = (ossa_quat){-d.x, -d.y, -d.z, -d.w};
    }
    vbuf b = make_vertices(&rng, 300, 4, J, false);
    float *a = malloc(24 * b.n), *c = malloc(24 * b.n);
    ossa_skin_job job = {0};
    job.end = b.n, job.vertex_count = b.n, job.influences = 4, job.joints = b.j, job.weights = b.w, job.palette_count = J;
    job.positions = b.pos, job.normals = b.nrm, job.out_positions = a, job.out_normals = a + 3 * b.n;
    assert_int_equal(run_dqs(&job, dq, OSSA_SKIN_KERNEL_AUTO), OSSA_OK);
    job.out_positions = c, job.out_normals = c + 3 * b.n;
    assert_int_equal(run_dqs(&job, flipped, OSSA_SKIN_KERNEL_AUTO), OSSA_OK);
    ot_assert_floats_near(a, c, 6 * b.n, 1e-5f);
    free(a), free(c);
    free_vertices(&b);
}

/* A cylinder along x (radius 1, length 2), joint 0 at x=0, joint 1 at x=1 twisted 180°
 * about x. The middle ring (weights 0.5/0.5): LBS collapses it to the axis, DQS keeps r. */
static void twisted_cylinder_keeps_volume(void **state) {
    (void)state;
    enum { RINGS = 9, SEG = 16, N = RINGS * SEG };
    float pos[N * 3], nrm[N * 3], w[N * 4], lbs[N * 3], dqs[N * 3], lbn[N * 3], dqn[N * 3];
    uint16_t jt[N * 4];
    for (int r = 0; r < RINGS; r++)
        for (int s = 0; s < SEG; s++) {
            int v = r * SEG + s;
            float a = 2.0f * 3.14159265f * (float)s / SEG, x = 2.0f * (float)r / (RINGS - 1);
            pos[v * 3] = x, pos[v * 3 + 1] = cosf(a), pos[v * 3 + 2] = sinf(a);
            nrm[v * 3] = 0, nrm[v * 3 + 1] = cosf(a), nrm[v * 3 + 2] = sinf(a);
            float t = x < 0.5f ? 0 : x > 1.5f ? 1 : x - 0.5f; /* 0 → 1 across [0.5, 1.5] */
            jt[v * 4] = 0, jt[v * 4 + 1] = 1, jt[v * 4 + 2] = jt[v * 4 + 3] = 0;
            w[v * 4] = 1 - t, w[v * 4 + 1] = t, w[v * 4 + 2] = w[v * 4 + 3] = 0;
        }
    /* bind: joint 1 at (1,0,0); pose: joint 1 rotated 180° about its local x */
    ossa_transform bind1 = {{1, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}};
    ossa_transform pose1 = {{1, 0, 0}, ossa_quat_from_axis_angle(ossa_vec3_make(1, 0, 0), 3.14159265f), {1, 1, 1}};
    ossa_mat4 model[2] = {ossa_mat4_identity(), ossa_transform_to_mat4(pose1)}, ibm[2] = {ossa_mat4_identity()}, pal[2];
    ossa_mat4 b1 = ossa_transform_to_mat4(bind1);
    assert_true(ossa_mat4_inverse(&b1, &ibm[1]));
    for (int j = 0; j < 2; j++) pal[j] = ossa_mat4_mul(&model[j], &ibm[j]);
    ossa_dual_quat dq[2];
    to_dual_quats(pal, 2, dq);
    ossa_skin_job job = {.end = N, .vertex_count = N, .influences = 4, .joints = jt, .weights = w, .palette = pal,
                         .palette_count = 2, .positions = pos, .normals = nrm, .out_positions = lbs,
                         .out_normals = lbn};
    assert_int_equal(run_lbs(&job, OSSA_SKIN_KERNEL_AUTO), OSSA_OK);
    job.out_positions = dqs, job.out_normals = dqn;
    assert_int_equal(run_dqs(&job, dq, OSSA_SKIN_KERNEL_AUTO), OSSA_OK);
    for (int r = 0; r < RINGS; r++) {
        float lbs_min = 1e9f, dqs_min = 1e9f, dqs_max = 0;
        for (int s = 0; s < SEG; s++) {
            int v = r * SEG + s;
            float rl = hypotf(lbs[v * 3 + 1], lbs[v * 3 + 2]), rd = hypotf(dqs[v * 3 + 1], dqs[v * 3 + 2]);
            lbs_min = fminf(lbs_min, rl), dqs_min = fminf(dqs_min, rd), dqs_max = fmaxf(dqs_max, rd);
            ot_assert_near(dqs[v * 3], pos[v * 3], 1e-5); /* twisting about x keeps x */
            /* DQS normal stays radial: parallel to the skinned (y, z) */
            ot_assert_near(dqn[v * 3 + 1] * dqs[v * 3 + 2] - dqn[v * 3 + 2] * dqs[v * 3 + 1], 0, 1e-4);
        }
        ot_assert_near(dqs_min, 1, 1e-4), ot_assert_near(dqs_max, 1, 1e-4);
        if (r == RINGS / 2) {
            print_message("middle ring radius: LBS %.6f, DQS %.6f (bind 1)\n", lbs_min, dqs_min);
            assert_true(lbs_min < 1e-4f);
        }
    }
}

static void degenerate_inputs(void **state) {
    (void)state;
    ossa_mat4 pal[2] = {ossa_mat4_identity(), ossa_mat4_identity()};
    pal[1].m[12] = 5;
    ossa_dual_quat dq[2];
    to_dual_quats(pal, 2, dq);
    uint16_t jt[8] = {1, 0, 0, 0, 1, 1, 0, 2};
    float w[8] = {0, 0, 0, 0, 1, 0, 0, 0}, pos[6] = {1, 2, 3, 4, 5, 6}, nrm[6] = {0, 2, 0, 0, 1, 0}, out[6], on[6];
    ossa_skin_job job = {.end = 1, .vertex_count = 2, .influences = 4, .joints = jt, .weights = w, .palette_count = 2,
                         .positions = pos, .normals = nrm, .out_positions = out, .out_normals = on};
    assert_int_equal(run_dqs(&job, dq, OSSA_SKIN_KERNEL_AUTO), OSSA_OK); /* zero weights: copied unchanged */
    assert_memory_equal(out, pos, 12);
    assert_memory_equal(on, nrm, 12);
    assert_int_equal(run_dqs(&job, NULL, OSSA_SKIN_KERNEL_AUTO), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_skin_job_run(NULL), OSSA_ERROR_INVALID_ARGUMENT);
    job.end = 2; /* vertex 1 uses joint 2 >= palette_count */
    out[3] = 99;
    assert_int_equal(run_dqs(&job, dq, OSSA_SKIN_KERNEL_AUTO), OSSA_ERROR_INVALID_DATA);
    assert_true(out[3] == 99.0f);
    jt[7] = 0;
    assert_int_equal(run_dqs(&job, dq, OSSA_SKIN_KERNEL_AUTO), OSSA_OK);
    ot_assert_near(out[3], 9, 1e-6), ot_assert_near(out[4], 5, 1e-6), ot_assert_near(out[5], 6, 1e-6);
}

/* Every DQS kernel against the scalar one: random rigid palettes, hemisphere flips, 4 and
 * 8 influences, zero-weight vertices, odd ranges, interleaved output; SSE has none. */
static void dqs_kernels_agree(void **state) {
    (void)state;
    uint64_t rng = 21;
    enum { J = 24, N = 1003 };
    ossa_mat4 pal[J];
    for (int j = 0; j < J; j++) pal[j] = random_rigid(&rng);
    ossa_dual_quat dq[J];
    to_dual_quats(pal, J, dq);
    for (int j = 1; j < J; j += 3) { /* same rotations, opposite hemispheres */
        ossa_quat r = dq[j].real, d = dq[j].dual;
        dq[j].real = (ossa_quat){-r.x, -r.y, -r.z, -r.w}, dq[j].dual = (ossa_quat){-d.x, -d.y, -d.z, -d.w};
    }
    for (uint32_t k = 4; k <= 8; k += 4) {
        vbuf b = make_vertices(&rng, N, k, J, false);
        for (uint32_t v = 5; v < N; v += 97)
            for (uint32_t i = 0; i < k; i++) b.w[v * k + i] = 0; /* copied unchanged */
        float *ref = malloc(40 * N), *out = malloc(40 * N);
        assert_true(ref && out);
        const uint32_t ranges[][2] = {{0, N}, {3, 990}, {7, 8}, {16, 32}};
        for (size_t r = 0; r < 4; r++) {
            ossa_skin_job job = {0};
            job.begin = ranges[r][0], job.end = ranges[r][1], job.vertex_count = N, job.influences = k, job.joints = b.j;
            job.weights = b.w, job.palette_count = J, job.positions = b.pos, job.normals = b.nrm, job.tangents = b.tan;
            job.out_positions = ref, job.out_normals = ref + 3 * N, job.out_tangents = ref + 6 * N;
            assert_int_equal(run_dqs(&job, dq, OSSA_SKIN_KERNEL_SCALAR), OSSA_OK);
            for (int kern = OSSA_SKIN_KERNEL_AUTO; kern <= OSSA_SKIN_KERNEL_AVX512; kern++) {
                if (kern == OSSA_SKIN_KERNEL_SSE ||
                    (kern != OSSA_SKIN_KERNEL_AUTO && !ossa_skin_kernel_available((ossa_skin_kernel)kern))) {
                    assert_int_equal(run_dqs(&job, dq, (ossa_skin_kernel)kern), OSSA_ERROR_UNSUPPORTED);
                    continue;
                }
                /* interleaved output: position, normal, tangent per 40-byte vertex */
                ossa_skin_job o = job;
                o.out_positions = out, o.out_normals = out + 3, o.out_tangents = out + 6;
                o.out_positions_stride = o.out_normals_stride = o.out_tangents_stride = 40;
                assert_int_equal(run_dqs(&o, dq, (ossa_skin_kernel)kern), OSSA_OK);
                for (uint32_t v = job.begin; v < job.end; v++) {
                    for (uint32_t c = 0; c < 3; c++) {
                        ot_assert_near(out[v * 10 + c], ref[v * 3 + c], 1e-5);
                        ot_assert_near(out[v * 10 + 3 + c], ref[3 * N + v * 3 + c], 1e-5);
                    }
                    for (uint32_t c = 0; c < 4; c++) ot_assert_near(out[v * 10 + 6 + c], ref[6 * N + v * 4 + c], 1e-5);
                    if (v % 97 == 5) assert_memory_equal(out + v * 10, b.pos + v * 3, 12);
                }
            }
        }
        assert_int_equal(ossa_skin_job_run(NULL), OSSA_ERROR_INVALID_ARGUMENT);
        free(ref), free(out);
        free_vertices(&b);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(dual_quat_job_validation),
        cmocka_unit_test(palette_to_dual_quats_round_trip),
        cmocka_unit_test(dqs_equals_lbs_for_rigid_transforms),
        cmocka_unit_test(hemisphere_correction),
        cmocka_unit_test(twisted_cylinder_keeps_volume),
        cmocka_unit_test(degenerate_inputs),
        cmocka_unit_test(dqs_kernels_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
