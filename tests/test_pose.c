/* Poses (src/anim/pose.c): model matrices worked out by hand, the forward pass against the
 * per-joint reference, the general fallback, palettes and blending. */
#include "test_support.h"
#include "job_check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "anim/pose_internal.h" /* internal: the pose kernels, to compare them */
#include "core/cpu.h"           /* internal: the SIMD level and its cap */
#include "math/fast.h"          /* internal: the scalar reference of the affine product */

static ossa_transform trs(float tx, float ty, float tz, ossa_quat r, float s) {
    ossa_transform t = {{tx, ty, tz}, r, {s, s, s}};
    return t;
}

static const ossa_quat RZ90 = {0, 0, 0.70710678f, 0.70710678f};
static const ossa_quat ID = {0, 0, 0, 1};

static void hand_worked_chain(void **state) {
    (void)state;
    /* root: T(1,0,0); child: T(0,2,0) Rz(90); grandchild: T(1,0,0) S(2). */
    ossa_transform locals[3] = {trs(1, 0, 0, ID, 1), trs(0, 2, 0, RZ90, 1), trs(1, 0, 0, ID, 2)};
    int32_t parents[3] = {-1, 0, 1};
    ossa_mat4 out[3];
    ot_local_to_model(locals, parents, 3, out);
    /* M0 = T(1,0,0) */
    const float m0[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1};
    /* M1 = M0 * T(0,2,0) Rz90: x -> y, y -> -x, origin (1,2,0) */
    const float m1[16] = {0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1, 0, 1, 2, 0, 1};
    /* M2 = M1 * T(1,0,0) S(2): axes (0,2,0) (-2,0,0) (0,0,2); origin (1,2,0) + Rz90 (1,0,0) = (1,3,0) */
    const float m2[16] = {0, 2, 0, 0, -2, 0, 0, 0, 0, 0, 2, 0, 1, 3, 0, 1};
    ot_assert_floats_near(out[0].m, m0, 16, 1e-6f);
    ot_assert_floats_near(out[1].m, m1, 16, 1e-6f);
    ot_assert_floats_near(out[2].m, m2, 16, 1e-6f);
    ossa_mat4 one = ossa_pose_joint_to_model(locals, parents, 3, 2);
    ot_assert_floats_near(one.m, m2, 16, 1e-6f);
    ossa_mat4 via_trs = ossa_transform_to_mat4(ossa_pose_joint_to_model_transform(locals, parents, 3, 2));
    ot_assert_floats_near(via_trs.m, m2, 16, 1e-6f);

    /* The same hierarchy listed child first: grandchild(0) -> child(2) -> root(1). */
    ossa_transform shuffled[3] = {locals[2], locals[0], locals[1]};
    int32_t sp[3] = {2, -1, 1};
    assert_false(ossa_pose_parents_first(sp, 3));
    assert_true(ossa_pose_parents_first(parents, 3));
    ot_local_to_model(shuffled, sp, 3, out);
    ot_assert_floats_near(out[1].m, m0, 16, 1e-6f);
    ot_assert_floats_near(out[2].m, m1, 16, 1e-6f);
    ot_assert_floats_near(out[0].m, m2, 16, 1e-6f);

    /* Palette job: model * IBM; with IBM = inverse(model) it is the identity. Skin 0 covers
     * every joint with those IBMs; skin 1 lists joints {2, 0}; skin 2 a non-affine IBM. */
    ossa_mat4 model[3], ibm[3], pal[3];
    ot_local_to_model(locals, parents, 3, model);
    for (int i = 0; i < 3; i++) assert_true(ossa_mat4_inverse(&model[i], &ibm[i]));
    const uint32_t all[3] = {0, 1, 2}, joints[2] = {2, 0}, first[1] = {0};
    ossa_mat4 ib2[2] = {ossa_mat4_identity(), ibm[0]};
    ossa_mat4 proj = ibm[2];
    proj.m[3] = 0.25f;
    proj.m[15] = 2.0f;
    ossa_skin_desc skins[3] = {{"all", 3, all, ibm, -1}, {"two", 2, joints, ib2, -1}, {"proj", 1, first, &proj, -1}};
    ossa_skeleton_desc sd = {3, parents, locals, NULL, 3, skins, 0.0f};
    ossa_skeleton *sk = NULL;
    assert_int_equal(ossa_skeleton_create(&sd, NULL, &sk), OSSA_OK);
    ot_palette(sk, 0, model, pal);
    ossa_mat4 id = ossa_mat4_identity();
    for (int i = 0; i < 3; i++) ot_assert_floats_near(pal[i].m, id.m, 16, 1e-5f);
    /* Skeleton layout: entry j for joint j, identity for joints the skin does not use. */
    ot_palette(sk, 1, model, pal);
    ot_assert_floats_near(pal[2].m, m2, 16, 1e-6f);
    ot_assert_floats_near(pal[0].m, id.m, 16, 1e-6f);
    assert_memory_equal(&pal[1], &id, sizeof id);
    /* Skin layout: entry i for skin joint i. */
    ossa_palette_job job = {.skeleton = sk, .skin = 1, .layout = OSSA_PALETTE_LAYOUT_SKIN, .model = model,
                            .model_count = 3, .output = pal, .output_count = 2};
    assert_int_equal(ossa_palette_job_run(&job), OSSA_OK);
    ot_assert_floats_near(pal[0].m, m2, 16, 1e-6f);
    ot_assert_floats_near(pal[1].m, id.m, 16, 1e-6f);
    /* A non-affine inverse bind takes the full 4x4 product. */
    job.skin = 2;
    assert_int_equal(ossa_palette_job_run(&job), OSSA_OK);
    ossa_mat4 full = ossa_mat4_mul(&model[0], &proj);
    ot_assert_floats_near(pal[0].m, full.m, 16, 1e-6f);
    assert_true(pal[0].m[15] != 1.0f);
    ossa_skeleton_destroy(sk);
}

static void rejects_bad_parents(void **state) {
    (void)state;
    ossa_transform locals[2] = {trs(0, 0, 0, ID, 1), trs(0, 0, 0, ID, 1)};
    ossa_mat4 out[2];
    int32_t bad[2] = {-1, 2};
    int32_t bad2[2] = {-2, 0};
    ossa_local_to_model_job job = {.parents = bad, .parent_count = 2, .input = locals, .input_count = 2,
                                   .output = out, .output_count = 2};
    assert_int_equal(ossa_local_to_model_job_run(&job), OSSA_ERROR_INVALID_ARGUMENT);
    job.parents = bad2;
    assert_int_equal(ossa_local_to_model_job_run(&job), OSSA_ERROR_INVALID_ARGUMENT);
    job.parents = bad, job.input = NULL;
    assert_int_equal(ossa_local_to_model_job_run(&job), OSSA_ERROR_INVALID_ARGUMENT);
    job.input = locals, job.parent_count = 0; /* an empty hierarchy: nothing to do */
    assert_int_equal(ossa_local_to_model_job_run(&job), OSSA_OK);
    assert_false(ossa_pose_parents_first(bad2, 2));
    /* A cycle terminates in the chain walk. */
    int32_t cyc[2] = {1, 0};
    job.parents = cyc, job.parent_count = 2;
    assert_int_equal(ossa_local_to_model_job_run(&job), OSSA_OK);
    /* A range is one forward pass: a joint whose parent comes later is rejected there. */
    job.begin = 0, job.end = 1;
    assert_int_equal(ossa_local_to_model_job_run(&job), OSSA_ERROR_INVALID_ARGUMENT);
}

static ossa_transform random_transform(uint64_t *s) {
    ossa_transform t;
    t.translation = ossa_vec3_make(ot_rand_float(s, -2, 2), ot_rand_float(s, -2, 2), ot_rand_float(s, -2, 2));
    t.rotation = ot_rand_quat(s);
    t.scale = ossa_vec3_make(ot_rand_float(s, 0.7f, 1.3f), ot_rand_float(s, 0.7f, 1.3f), ot_rand_float(s, 0.7f, 1.3f));
    return t;
}

/* Full-precision reference: chain walk in double. */
static void reference_model(const ossa_transform *locals, const int32_t *parents, uint32_t j, double out[16]) {
    double m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    for (int32_t k = (int32_t)j; k >= 0; k = parents[k]) {
        ossa_mat4 l = ossa_transform_to_mat4(locals[k]);
        double r[16];
        for (int c = 0; c < 4; c++)
            for (int row = 0; row < 4; row++) {
                double acc = 0;
                for (int i = 0; i < 4; i++) acc += (double)l.m[i * 4 + row] * m[c * 4 + i];
                r[c * 4 + row] = acc;
            }
        memcpy(m, r, sizeof m);
    }
    memcpy(out, m, sizeof m);
}

/* The forward pass ossa_pose_to_model ran before the job existed (scalar affine product,
 * which the SIMD one equals bit for bit: see affine_product_matches_scalar). */
static void old_forward_pass(const ossa_transform *locals, const int32_t *parents, uint32_t n, ossa_mat4 *out) {
    ossa_mat4 local;
    for (uint32_t i = 0; i < n; i++) {
        ossa__trs_to_mat4(&locals[i], &local);
        if (parents[i] < 0) out[i] = local;
        else ossa__mat4_mul_affine_scalar(&out[parents[i]], &local, &out[i]);
    }
}

static void forward_pass_matches_reference(void **state) {
    (void)state;
    uint64_t s = 99;
    enum { MAXJ = 80 };
    ossa_transform locals[MAXJ];
    int32_t parents[MAXJ];
    ossa_mat4 fast[MAXJ], ranged[MAXJ], old[MAXJ];
    for (int iter = 0; iter < 500; iter++) {
        uint32_t n = 1 + (uint32_t)(ot_rand_u64(&s) % MAXJ);
        for (uint32_t i = 0; i < n; i++) {
            locals[i] = random_transform(&s);
            parents[i] = (i == 0 || ot_rand_u64(&s) % 8 == 0) ? -1 : (int32_t)(ot_rand_u64(&s) % i);
        }
        ot_local_to_model(locals, parents, n, fast);
        old_forward_pass(locals, parents, n, old);
        assert_memory_equal(old, fast, n * sizeof *fast); /* bit-identical to the path it replaced */
        /* split in two ranges (a range (0, 0) would mean every joint, so skip an empty first one) */
        uint32_t split = (uint32_t)(ot_rand_u64(&s) % (n + 1));
        ossa_local_to_model_job job = {.parents = parents, .parent_count = n, .input = locals, .input_count = n,
                                       .output = ranged, .output_count = n, .begin = 0, .end = split};
        if (split) assert_int_equal(ossa_local_to_model_job_run(&job), OSSA_OK);
        job.begin = split, job.end = n;
        assert_int_equal(ossa_local_to_model_job_run(&job), OSSA_OK);
        for (uint32_t j = 0; j < n; j++) {
            double ref[16];
            reference_model(locals, parents, j, ref);
            ossa_mat4 chain = ossa_pose_joint_to_model(locals, parents, n, j);
            for (int e = 0; e < 16; e++) {
                double tol = 1e-4 * (1 + fabs(ref[e]));
                ot_assert_near(fast[j].m[e], ref[e], tol);
                ot_assert_near(chain.m[e], ref[e], tol);
            }
            assert_memory_equal(&ranged[j], &fast[j], sizeof(ossa_mat4));
        }
    }
}

/* The (SIMD where available) affine product used by the forward pass and the palette
 * equals the scalar reference bit for bit. */
static void affine_product_matches_scalar(void **state) {
    (void)state;
    uint64_t s = 123;
    for (int i = 0; i < 20000; i++) {
        ossa_mat4 a = ossa_transform_to_mat4(random_transform(&s)), b = ossa_transform_to_mat4(random_transform(&s));
        ossa_mat4 fast, ref;
        ossa__mat4_mul_affine(&a, &b, &fast);
        ossa__mat4_mul_affine_scalar(&a, &b, &ref);
        assert_memory_equal(&fast, &ref, sizeof fast);
        ossa_mat4 full = ossa_mat4_mul(&a, &b);
        ot_assert_floats_near(fast.m, full.m, 16, 1e-5f);
    }
}

#define CANARY 1234.5f

static void fill_canary(ossa_mat4 *m, uint32_t count) {
    for (uint32_t i = 0; i < count; i++)
        for (int e = 0; e < 16; e++) m[i].m[e] = CANARY;
}
static void assert_canary(const ossa_mat4 *m, uint32_t count) {
    for (uint32_t i = 0; i < count; i++)
        for (int e = 0; e < 16; e++) assert_true(m[i].m[e] == CANARY);
}

/* ozz-style: the zeroed job fails; it passes once every field is set; short spans are
 * BUFFER_TOO_SMALL and write nothing (the canary past the short span survives). */
static void local_to_model_job_validation(void **state) {
    (void)state;
    ossa_transform locals[3] = {trs(1, 0, 0, ID, 1), trs(0, 2, 0, RZ90, 1), trs(1, 0, 0, ID, 2)};
    const int32_t parents[3] = {-1, 0, 1};
    ossa_mat4 out[4];
    ossa_local_to_model_job job = {0};
    ot_assert_job(ossa_local_to_model_job_validate, NULL, OSSA_ERROR_INVALID_ARGUMENT, "job");
    ot_assert_job(ossa_local_to_model_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "skeleton"); /* neither skeleton nor parents */
    job.parents = parents, job.parent_count = 3;
    ot_assert_job(ossa_local_to_model_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "input");
    job.input = locals, job.input_count = 3;
    ot_assert_job(ossa_local_to_model_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "output");
    job.output = out;
    ot_assert_job(ossa_local_to_model_job_validate, &job, OSSA_ERROR_BUFFER_TOO_SMALL, "output_count");
    /* output one short: nothing written, the canary in the last slot survives */
    fill_canary(out, 4);
    job.output_count = 2;
    assert_int_equal(ossa_local_to_model_job_run(&job), OSSA_ERROR_BUFFER_TOO_SMALL);
    assert_canary(out, 4);
    job.output_count = 3;
    ot_assert_job_ok(ossa_local_to_model_job_validate, &job);
    assert_int_equal(ossa_local_to_model_job_run(&job), OSSA_OK);
    assert_canary(out + 3, 1);
    ossa_mat4 ref[3];
    for (uint32_t j = 0; j < 3; j++) ref[j] = ossa_pose_joint_to_model(locals, parents, 3, j);
    for (uint32_t j = 0; j < 3; j++) ot_assert_floats_near(out[j].m, ref[j].m, 16, 1e-6f);
    job.input_count = 2; /* input one short */
    ot_assert_job(ossa_local_to_model_job_validate, &job, OSSA_ERROR_BUFFER_TOO_SMALL, "input_count");
    job.input_count = 3;
    /* a parent out of range, or after its child inside a range */
    const int32_t bad_parents[3] = {-1, 3, 1}, late_parents[3] = {-1, 2, -1};
    job.parents = bad_parents;
    ot_assert_job(ossa_local_to_model_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "parents");
    job.parents = late_parents;
    ot_assert_job_ok(ossa_local_to_model_job_validate, &job); /* the whole pose: the chain walk handles any order */
    job.begin = 1, job.end = 2;
    ot_assert_job(ossa_local_to_model_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "parents");
    job.parents = parents;
    /* ranges: begin > end and end > N are INVALID_ARGUMENT */
    job.begin = 2, job.end = 1;
    ot_assert_job(ossa_local_to_model_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "begin");
    job.begin = 1, job.end = 4;
    ot_assert_job(ossa_local_to_model_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "end");
    /* a range writes only its joints */
    fill_canary(out, 4);
    job.begin = 0, job.end = 1;
    assert_int_equal(ossa_local_to_model_job_run(&job), OSSA_OK);
    assert_canary(out + 1, 3);
    job.begin = 1, job.end = 3;
    assert_int_equal(ossa_local_to_model_job_run(&job), OSSA_OK);
    for (uint32_t j = 0; j < 3; j++) ot_assert_floats_near(out[j].m, ref[j].m, 16, 1e-6f);
    /* a skeleton instead of the parents span: the same bits */
    ossa_skeleton_desc sd = {3, parents, locals, NULL, 0, NULL, 0.0f};
    ossa_skeleton *sk = NULL;
    assert_int_equal(ossa_skeleton_create(&sd, NULL, &sk), OSSA_OK);
    ossa_local_to_model_job by_skeleton = {.skeleton = sk, .input = locals, .input_count = 3, .output = ref,
                                           .output_count = 3};
    assert_int_equal(ossa_local_to_model_job_run(&by_skeleton), OSSA_OK);
    assert_memory_equal(ref, out, sizeof ref);
    by_skeleton.output_count = 2;
    assert_int_equal(ossa_local_to_model_job_run(&by_skeleton), OSSA_ERROR_BUFFER_TOO_SMALL);
    ot_assert_job(ossa_local_to_model_job_validate, &by_skeleton, OSSA_ERROR_BUFFER_TOO_SMALL, "output_count");
    ossa_skeleton_destroy(sk);
}

static void palette_job_validation(void **state) {
    (void)state;
    const int32_t parents[3] = {-1, 0, 0};
    ossa_transform locals[3] = {trs(1, 0, 0, ID, 1), trs(0, 2, 0, RZ90, 1), trs(1, 0, 0, ID, 2)};
    ossa_mat4 model[3], out[4];
    ot_local_to_model(locals, parents, 3, model);
    const uint32_t joints[2] = {2, 1};
    ossa_mat4 ibm[2];
    assert_true(ossa_mat4_inverse(&model[1], &ibm[0]));
    ibm[1] = ossa_mat4_identity();
    ossa_skin_desc skin = {"s", 2, joints, ibm, -1};
    ossa_skeleton_desc sd = {3, parents, locals, NULL, 1, &skin, 0.0f};
    ossa_skeleton *sk = NULL;
    assert_int_equal(ossa_skeleton_create(&sd, NULL, &sk), OSSA_OK);
    ossa_palette_job job = {0};
    ot_assert_job(ossa_palette_job_validate, NULL, OSSA_ERROR_INVALID_ARGUMENT, "job");
    ot_assert_job(ossa_palette_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "skeleton");
    job.skeleton = sk;
    ot_assert_job(ossa_palette_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "model");
    job.model = model;
    ot_assert_job(ossa_palette_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "output");
    job.output = out;
    ot_assert_job(ossa_palette_job_validate, &job, OSSA_ERROR_BUFFER_TOO_SMALL, "model_count");
    job.model_count = 3;
    ot_assert_job(ossa_palette_job_validate, &job, OSSA_ERROR_BUFFER_TOO_SMALL, "output_count");
    /* skeleton layout needs joint_count entries: one short writes nothing */
    fill_canary(out, 4);
    job.output_count = 2;
    assert_int_equal(ossa_palette_job_run(&job), OSSA_ERROR_BUFFER_TOO_SMALL);
    assert_canary(out, 4);
    job.output_count = 3;
    ot_assert_job_ok(ossa_palette_job_validate, &job);
    assert_int_equal(ossa_palette_job_run(&job), OSSA_OK);
    assert_canary(out + 3, 1);
    ossa_mat4 e2 = ossa_mat4_mul(&model[2], &ibm[0]), id = ossa_mat4_identity();
    for (int k = 0; k < 16; k++) assert_true(out[2].m[k] == e2.m[k] && out[1].m[k] == model[1].m[k]);
    assert_memory_equal(&out[0], &id, sizeof id);
    /* skin layout needs skin.joint_count entries */
    fill_canary(out, 4);
    job.layout = OSSA_PALETTE_LAYOUT_SKIN, job.output_count = 1;
    assert_int_equal(ossa_palette_job_run(&job), OSSA_ERROR_BUFFER_TOO_SMALL);
    assert_canary(out, 4);
    job.output_count = 2;
    assert_int_equal(ossa_palette_job_run(&job), OSSA_OK);
    assert_canary(out + 2, 2);
    for (int k = 0; k < 16; k++) assert_true(out[0].m[k] == e2.m[k] && out[1].m[k] == model[1].m[k]);
    /* bad skin index or layout */
    job.skin = 1;
    ot_assert_job(ossa_palette_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "skin");
    job.skin = 0, job.layout = (ossa_palette_layout)7;
    ot_assert_job(ossa_palette_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "layout");
    ossa_skeleton_destroy(sk);
}

/* The palette job against the hand-written loop it replaces (pal[joints[i]] = model x IBM
 * with ossa_mat4_mul, identity elsewhere): equal floats on random skins. */
static void palette_matches_hand_written(void **state) {
    (void)state;
    uint64_t s = 7;
    enum { MAXJ = 40 };
    for (int iter = 0; iter < 200; iter++) {
        uint32_t n = 1 + (uint32_t)(ot_rand_u64(&s) % MAXJ);
        int32_t parents[MAXJ];
        ossa_transform locals[MAXJ];
        for (uint32_t i = 0; i < n; i++) {
            locals[i] = random_transform(&s);
            parents[i] = i == 0 ? -1 : (int32_t)(ot_rand_u64(&s) % i);
        }
        uint32_t sj = 1 + (uint32_t)(ot_rand_u64(&s) % n), joints[MAXJ];
        ossa_mat4 ibm[MAXJ], model[MAXJ], pal[MAXJ], compact[MAXJ], hand[MAXJ];
        for (uint32_t i = 0; i < sj; i++) {
            joints[i] = (uint32_t)(ot_rand_u64(&s) % n);
            ibm[i] = ossa_transform_to_mat4(random_transform(&s));
        }
        ossa_skin_desc skin = {"r", sj, joints, ibm, -1};
        ossa_skeleton_desc sd = {n, parents, locals, NULL, 1, &skin, 0.0f};
        ossa_skeleton *sk = NULL;
        assert_int_equal(ossa_skeleton_create(&sd, NULL, &sk), OSSA_OK);
        ot_local_to_model(sk->rest, sk->parents, n, model);
        ot_palette(sk, 0, model, pal);
        ossa_palette_job job = {.skeleton = sk, .layout = OSSA_PALETTE_LAYOUT_SKIN, .model = model, .model_count = n,
                                .output = compact, .output_count = sj};
        assert_int_equal(ossa_palette_job_run(&job), OSSA_OK);
        const ossa_skin *k = &sk->skins[0];
        for (uint32_t j = 0; j < n; j++) hand[j] = ossa_mat4_identity();
        for (uint32_t i = 0; i < k->joint_count; i++) {
            ossa_mat4 e = ossa_mat4_mul(&model[k->joints[i]], &k->inverse_bind[i]);
            hand[k->joints[i]] = e;
            for (int c = 0; c < 16; c++) assert_true(compact[i].m[c] == e.m[c]);
        }
        for (uint32_t j = 0; j < n; j++)
            for (int c = 0; c < 16; c++) assert_true(pal[j].m[c] == hand[j].m[c]);
        /* the skin's `unused` list is the ascending complement of its joints */
        bool listed[MAXJ] = {false};
        for (uint32_t i = 0; i < k->joint_count; i++) listed[k->joints[i]] = true;
        uint32_t u = 0;
        for (uint32_t j = 0; j < n; j++)
            if (!listed[j]) {
                assert_true(u < k->unused_count);
                assert_int_equal(k->unused[u++], j);
            }
        assert_int_equal(u, k->unused_count);
        ossa_skeleton_destroy(sk);
    }
}

static void blend(void **state) {
    (void)state;
    ossa_transform a[2] = {trs(0, 0, 0, ID, 1), trs(2, 2, 2, RZ90, 3)};
    ossa_transform b[2] = {trs(4, 0, 0, RZ90, 3), trs(2, 2, 2, (ossa_quat){0, 0, -0.70710678f, -0.70710678f}, 3)};
    ossa_transform rest[2] = {trs(0, 0, 0, ID, 1), trs(0, 0, 0, ID, 1)}, out[2];
    ossa_blend_layer layers[2] = {{a, 2, 0.5f, NULL, 0}, {b, 2, 0.5f, NULL, 0}};
    ossa_blend_job job = {.layers = layers, .layer_count = 2, .rest = rest, .rest_count = 2, .output = out,
                          .output_count = 2};
    assert_int_equal(ossa_blend_job_run(&job), OSSA_OK);
    ot_assert_near(out[0].translation.x, 2, 1e-6);
    ot_assert_near(out[0].scale.y, 2, 1e-6);
    /* nlerp halfway between identity and 90 degrees is 45 degrees. */
    ot_assert_near(out[0].rotation.z, 0.38268343f, 1e-6);
    ot_assert_near(out[0].rotation.w, 0.92387953f, 1e-6);
    /* b[1] is -a[1]: shorter arc, no collapse through zero. */
    ot_assert_near(out[1].rotation.z, 0.70710678f, 1e-6);
    ot_assert_near(out[1].rotation.w, 0.70710678f, 1e-6);
    /* all the weight on b gives b */
    layers[0].weight = 0.0f;
    layers[1].weight = 1.0f;
    assert_int_equal(ossa_blend_job_run(&job), OSSA_OK);
    ot_assert_near(out[0].translation.x, 4, 0);
    ot_assert_near(out[0].rotation.z, 0.70710678f, 1e-6);
}

/* Floats equal as values (so -0 == +0: a SIMD root is identity * local, not a copy). */
static void assert_mats_equal(const ossa_mat4 *a, const ossa_mat4 *b, uint32_t count) {
    for (uint32_t i = 0; i < count; i++)
        for (int e = 0; e < 16; e++) {
            if (a[i].m[e] != b[i].m[e]) fail_msg("matrix %u element %d: %.9g vs %.9g", i, e, a[i].m[e], b[i].m[e]);
        }
}

/* A random hierarchy of n joints (parents first, many chains: the kernels' register path) with
 * random locals (every third iteration strongly non-uniform scales, some negative: mirrors) and
 * a skin over a random subset of its joints in random order, with random inverse binds (every
 * fifth iteration some projective: the 4x4 product). Returns the skin's joint count. */
static uint32_t random_rig(uint64_t *s, int iter, uint32_t n, ossa_transform *locals, int32_t *parents,
                           uint32_t *skin_joints, ossa_mat4 *ib) {
    for (uint32_t i = 0; i < n; i++) {
        locals[i] = random_transform(s);
        if (iter % 3 == 0) {
            float *sc = &locals[i].scale.x;
            for (int a = 0; a < 3; a++) sc[a] = ot_rand_float(s, 0.05f, 20.0f) * (ot_rand_u64(s) % 4 ? 1.0f : -1.0f);
        }
        parents[i] = (i == 0 || ot_rand_u64(s) % 8 == 0) ? -1 : (int32_t)(ot_rand_u64(s) % i);
        if (i && ot_rand_u64(s) % 2) parents[i] = (int32_t)i - 1;
    }
    uint32_t count = 0;
    for (uint32_t i = 0; i < n; i++)
        if (ot_rand_u64(s) % 4) skin_joints[count++] = i;
    for (uint32_t i = count; i > 1; i--) {
        uint32_t k = (uint32_t)(ot_rand_u64(s) % i), t = skin_joints[i - 1];
        skin_joints[i - 1] = skin_joints[k], skin_joints[k] = t;
    }
    for (uint32_t i = 0; i < count; i++) {
        ib[i] = ossa_transform_to_mat4(random_transform(s));
        if (iter % 5 == 0 && i % 3 == 0) ib[i].m[3] = 0.25f;
    }
    return count;
}

/* Every kernel the CPU has (under the OSSA_SIMD cap of this run) computes the
 * scalar kernel's values, for both jobs, whole and ranged, random hierarchies and skins. */
static void kernels_match_scalar(void **state) {
    (void)state;
    ossa__simd_set_cap(-1);
    ossa__simd_level best = ossa__simd();
    print_message("pose kernel under test: %s\n", ossa__simd_name(best));
    uint64_t s = 4242;
    enum { MAXJ = 70 };
    ossa_transform locals[MAXJ];
    int32_t parents[MAXJ];
    ossa_mat4 ref[MAXJ], fast[MAXJ], pal_ref[2][MAXJ], pal_fast[2][MAXJ];
    for (int iter = 0; iter < 300; iter++) {
        uint32_t n = 1 + (uint32_t)(ot_rand_u64(&s) % MAXJ), skin_joints[MAXJ];
        ossa_mat4 ib[MAXJ];
        uint32_t count = random_rig(&s, iter, n, locals, parents, skin_joints, ib);
        ossa_skin_desc skin = {.joint_count = count, .joints = skin_joints, .inverse_bind = ib, .root = -1};
        ossa_skeleton_desc sd = {.joint_count = n, .parents = parents, .skin_count = count ? 1 : 0, .skins = &skin};
        ossa_skeleton *sk = NULL;
        assert_int_equal(ossa_skeleton_create(&sd, NULL, &sk), OSSA_OK);
        /* the skeleton may reorder joints: run on its own hierarchy */
        for (int k = OSSA__SIMD_SCALAR; k <= (int)best; k++) {
            ossa__simd_set_cap(k);
            ossa_mat4 *out = k == OSSA__SIMD_SCALAR ? ref : fast;
            uint32_t split = (uint32_t)(ot_rand_u64(&s) % (n + 1));
            ossa_local_to_model_job job = {.skeleton = sk, .input = locals, .input_count = n, .output = out,
                                           .output_count = n, .begin = 0, .end = split};
            if ((iter + k) % 2 && split) assert_int_equal(ossa_local_to_model_job_run(&job), OSSA_OK);
            job.begin = (iter + k) % 2 ? split : 0, job.end = (iter + k) % 2 ? n : 0;
            assert_int_equal(ossa_local_to_model_job_run(&job), OSSA_OK);
            if (k != OSSA__SIMD_SCALAR) assert_mats_equal(fast, ref, n);
#if !defined(OSSA_SCALAR_ONLY)
            if (k == OSSA__SIMD_AVX512) { /* the kernel itself, whole */
                memset(fast, 0, sizeof fast);
                ossa__to_model_avx512(locals, sk->parents, 0, n, fast);
                assert_mats_equal(fast, ref, n);
            }
#endif
            if (!count) continue;
            for (int layout = 0; layout < 2; layout++) {
                ossa_mat4 *pal = k == OSSA__SIMD_SCALAR ? pal_ref[layout] : pal_fast[layout];
                ossa_palette_job pj = {.skeleton = sk, .layout = (ossa_palette_layout)layout, .model = out,
                                       .model_count = n, .output = pal, .output_count = n};
                assert_int_equal(ossa_palette_job_run(&pj), OSSA_OK);
                if (k != OSSA__SIMD_SCALAR) {
                    assert_mats_equal(pal_fast[layout], pal_ref[layout], layout ? count : n); /* level k's kernel */
                } else {
                    /* and the scalar palette is the 4x4 product */
                    for (uint32_t i = 0; i < count; i++) {
                        uint32_t j = sk->skins[0].joints[i];
                        ossa_mat4 full = ossa_mat4_mul(&out[j], &sk->skins[0].inverse_bind[i]);
                        ot_assert_floats_near(pal[layout ? i : j].m, full.m, 16, 1e-6f);
                    }
                }
            }
        }
        ossa__simd_set_cap(-1);
        ossa_skeleton_destroy(sk);
    }
}

/* The palette batch job against the two jobs pose by pose at the scalar level: equal floats
 * for every pose of batches of 0 to 37 poses (whole passes of 16, 8 and 4 lanes and every
 * tail), both layouts, at every level the CPU has; the identities of the SKELETON layout;
 * nothing past output_count. */
static void palette_batch_matches_per_pose(void **state) {
    (void)state;
    ossa__simd_set_cap(-1);
    ossa__simd_level best = ossa__simd();
    uint64_t s = 99;
    enum { MAXJ = 40, MAXP = 37 };
    static ossa_transform locals[MAXP][MAXJ];
    static ossa_mat4 ref[MAXP][MAXJ + 1], out[MAXP][MAXJ + 1];
    int32_t parents[MAXJ];
    for (int iter = 0; iter < 2 * (MAXP + 1); iter++) {
        uint32_t n = 1 + (uint32_t)(ot_rand_u64(&s) % MAXJ), poses = (uint32_t)(iter % (MAXP + 1)), skin_joints[MAXJ];
        ossa_mat4 ib[MAXJ];
        uint32_t count = random_rig(&s, iter, n, locals[0], parents, skin_joints, ib);
        for (uint32_t k = 1; k < poses; k++)
            for (uint32_t j = 0; j < n; j++) locals[k][j] = random_transform(&s);
        ossa_skin_desc skin = {.joint_count = count, .joints = skin_joints, .inverse_bind = ib, .root = -1};
        ossa_skeleton_desc sd = {.joint_count = n, .parents = parents, .skin_count = 1, .skins = &skin};
        ossa_skeleton *sk = NULL;
        assert_int_equal(ossa_skeleton_create(&sd, NULL, &sk), OSSA_OK);
        uint32_t scratch_count = ossa_palette_batch_scratch_count(sk);
        assert_int_equal(scratch_count, 192u * n);
        float *scratch = malloc(scratch_count * sizeof(float));
        const ossa_transform *in[MAXP];
        ossa_mat4 *outs[MAXP];
        for (uint32_t k = 0; k < poses; k++) in[k] = locals[k], outs[k] = out[k];
        for (int layout = 0; layout < 2; layout++) {
            uint32_t entries = layout ? count : n;
            ossa__simd_set_cap(OSSA__SIMD_SCALAR);
            for (uint32_t k = 0; k < poses; k++) {
                ossa_mat4 model[MAXJ];
                ossa_local_to_model_job lm = {.skeleton = sk, .input = locals[k], .input_count = n, .output = model,
                                              .output_count = n};
                assert_int_equal(ossa_local_to_model_job_run(&lm), OSSA_OK);
                ossa_palette_job pj = {.skeleton = sk, .layout = (ossa_palette_layout)layout, .model = model,
                                       .model_count = n, .output = ref[k], .output_count = entries};
                assert_int_equal(ossa_palette_job_run(&pj), OSSA_OK);
            }
            for (int level = OSSA__SIMD_SCALAR; level <= (int)best; level++) {
                ossa__simd_set_cap(level);
                for (uint32_t k = 0; k < poses; k++) fill_canary(out[k], entries + 1);
                ossa_palette_batch_job job = {.skeleton = sk, .layout = (ossa_palette_layout)layout, .locals = in,
                                              .outputs = outs, .pose_count = poses, .output_count = entries,
                                              .scratch = scratch, .scratch_count = scratch_count};
                assert_int_equal(ossa_palette_batch_job_run(&job), OSSA_OK);
                for (uint32_t k = 0; k < poses; k++) {
                    assert_mats_equal(out[k], ref[k], entries);
                    assert_canary(out[k] + entries, 1);
                }
            }
        }
        ossa__simd_set_cap(-1);
        free(scratch);
        ossa_skeleton_destroy(sk);
    }
}

static void palette_batch_job_validation(void **state) {
    (void)state;
    const int32_t parents[3] = {-1, 0, 0};
    ossa_transform locals[3] = {trs(1, 0, 0, ID, 1), trs(0, 2, 0, RZ90, 1), trs(1, 0, 0, ID, 2)};
    const uint32_t joints[2] = {2, 1};
    ossa_skin_desc skin = {"s", 2, joints, NULL, -1};
    ossa_skeleton_desc sd = {3, parents, locals, NULL, 1, &skin, 0.0f};
    ossa_skeleton *sk = NULL;
    assert_int_equal(ossa_skeleton_create(&sd, NULL, &sk), OSSA_OK);
    assert_int_equal(ossa_palette_batch_scratch_count(NULL), 0);
    float scratch[3 * 192];
    ossa_mat4 out[2][4];
    const ossa_transform *in[2] = {locals, NULL};
    ossa_mat4 *outs[2] = {out[0], out[1]};
    ossa_palette_batch_job job = {0};
    ot_assert_job(ossa_palette_batch_job_validate, NULL, OSSA_ERROR_INVALID_ARGUMENT, "job");
    ot_assert_job(ossa_palette_batch_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "skeleton");
    job.skeleton = sk;
    ot_assert_job(ossa_palette_batch_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "locals");
    job.locals = in;
    ot_assert_job(ossa_palette_batch_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "outputs");
    job.outputs = outs;
    ot_assert_job(ossa_palette_batch_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "scratch");
    job.scratch = scratch;
    job.pose_count = 2;
    ot_assert_job(ossa_palette_batch_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "locals"); /* locals[1] */
    in[1] = locals;
    ot_assert_job(ossa_palette_batch_job_validate, &job, OSSA_ERROR_BUFFER_TOO_SMALL, "output_count");
    job.output_count = 3;
    ot_assert_job(ossa_palette_batch_job_validate, &job, OSSA_ERROR_BUFFER_TOO_SMALL, "scratch_count");
    job.scratch_count = 3 * 192 - 1;
    ot_assert_job(ossa_palette_batch_job_validate, &job, OSSA_ERROR_BUFFER_TOO_SMALL, "scratch_count");
    job.scratch_count = 3 * 192;
    outs[1] = NULL;
    ot_assert_job(ossa_palette_batch_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "outputs");
    outs[1] = out[1];
    /* nothing is written on failure */
    fill_canary(out[0], 4);
    job.output_count = 2;
    assert_int_equal(ossa_palette_batch_job_run(&job), OSSA_ERROR_BUFFER_TOO_SMALL);
    assert_canary(out[0], 4);
    job.output_count = 3;
    ot_assert_job_ok(ossa_palette_batch_job_validate, &job);
    job.layout = OSSA_PALETTE_LAYOUT_SKIN, job.output_count = 2; /* the skin's 2 entries suffice */
    ot_assert_job_ok(ossa_palette_batch_job_validate, &job);
    job.skin = 1;
    ot_assert_job(ossa_palette_batch_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "skin");
    job.skin = 0, job.layout = (ossa_palette_layout)7;
    ot_assert_job(ossa_palette_batch_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "layout");
    ossa_skeleton_destroy(sk);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hand_worked_chain),
        cmocka_unit_test(rejects_bad_parents),
        cmocka_unit_test(forward_pass_matches_reference),
        cmocka_unit_test(affine_product_matches_scalar),
        cmocka_unit_test(kernels_match_scalar),
        cmocka_unit_test(local_to_model_job_validation),
        cmocka_unit_test(palette_job_validation),
        cmocka_unit_test(palette_matches_hand_written),
        cmocka_unit_test(palette_batch_matches_per_pose),
        cmocka_unit_test(palette_batch_job_validation),
        cmocka_unit_test(blend),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
