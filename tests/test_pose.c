/* Poses (src/anim/pose.c): model matrices worked out by hand, the forward pass against the
 * per-joint reference, the general fallback, palettes and blending. */
#include "test_support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "math/fast.h" /* internal: the scalar reference of the affine product */

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
    assert_int_equal(ossa_pose_to_model(locals, parents, 3, out), OSSA_OK);
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
    assert_int_equal(ossa_pose_to_model(shuffled, sp, 3, out), OSSA_OK);
    ot_assert_floats_near(out[1].m, m0, 16, 1e-6f);
    ot_assert_floats_near(out[2].m, m1, 16, 1e-6f);
    ot_assert_floats_near(out[0].m, m2, 16, 1e-6f);

    /* Palette: model * IBM; with IBM = inverse(model) it is the identity. */
    ossa_mat4 model[3], ibm[3], pal[3];
    ossa_pose_to_model(locals, parents, 3, model);
    for (int i = 0; i < 3; i++) assert_true(ossa_mat4_inverse(&model[i], &ibm[i]));
    ossa_pose_palette(model, NULL, ibm, 3, pal);
    ossa_mat4 id = ossa_mat4_identity();
    for (int i = 0; i < 3; i++) ot_assert_floats_near(pal[i].m, id.m, 16, 1e-5f);
    /* With a joint list: out[i] = model[joints[i]] * ibm[i]. */
    const uint32_t joints[2] = {2, 0};
    ossa_mat4 ib2[2] = {ossa_mat4_identity(), ibm[0]};
    ossa_pose_palette(model, joints, ib2, 2, pal);
    ot_assert_floats_near(pal[0].m, m2, 16, 1e-6f);
    ot_assert_floats_near(pal[1].m, id.m, 16, 1e-6f);
    /* A non-affine inverse bind takes the full 4x4 product. */
    ossa_mat4 proj = ibm[2];
    proj.m[3] = 0.25f;
    proj.m[15] = 2.0f;
    ossa_pose_palette(model, NULL, &proj, 1, pal);
    ossa_mat4 full = ossa_mat4_mul(&model[0], &proj);
    ot_assert_floats_near(pal[0].m, full.m, 16, 1e-6f);
    assert_true(pal[0].m[15] != 1.0f);
}

static void rejects_bad_parents(void **state) {
    (void)state;
    ossa_transform locals[2] = {trs(0, 0, 0, ID, 1), trs(0, 0, 0, ID, 1)};
    ossa_mat4 out[2];
    int32_t bad[2] = {-1, 2};
    int32_t bad2[2] = {-2, 0};
    assert_int_equal(ossa_pose_to_model(locals, bad, 2, out), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_pose_to_model(locals, bad2, 2, out), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_pose_to_model(NULL, bad, 2, out), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_pose_to_model(locals, bad, 0, out), OSSA_OK);
    assert_false(ossa_pose_parents_first(bad2, 2));
    /* A cycle terminates in the chain walk. */
    int32_t cyc[2] = {1, 0};
    assert_int_equal(ossa_pose_to_model(locals, cyc, 2, out), OSSA_OK);
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

static void forward_pass_matches_reference(void **state) {
    (void)state;
    uint64_t s = 99;
    enum { MAXJ = 80 };
    ossa_transform locals[MAXJ];
    int32_t parents[MAXJ];
    ossa_mat4 fast[MAXJ], ranged[MAXJ];
    for (int iter = 0; iter < 500; iter++) {
        uint32_t n = 1 + (uint32_t)(ot_rand_u64(&s) % MAXJ);
        for (uint32_t i = 0; i < n; i++) {
            locals[i] = random_transform(&s);
            parents[i] = (i == 0 || ot_rand_u64(&s) % 8 == 0) ? -1 : (int32_t)(ot_rand_u64(&s) % i);
        }
        assert_int_equal(ossa_pose_to_model(locals, parents, n, fast), OSSA_OK);
        uint32_t split = (uint32_t)(ot_rand_u64(&s) % (n + 1));
        ossa_pose_to_model_range(locals, parents, 0, split, ranged);
        ossa_pose_to_model_range(locals, parents, split, n, ranged);
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

static void blend(void **state) {
    (void)state;
    ossa_transform a[2] = {trs(0, 0, 0, ID, 1), trs(2, 2, 2, RZ90, 3)};
    ossa_transform b[2] = {trs(4, 0, 0, RZ90, 3), trs(2, 2, 2, (ossa_quat){0, 0, -0.70710678f, -0.70710678f}, 3)};
    ossa_transform out[2];
    ossa_pose_blend(a, b, 0.5f, 2, out);
    ot_assert_near(out[0].translation.x, 2, 1e-6);
    ot_assert_near(out[0].scale.y, 2, 1e-6);
    /* nlerp halfway between identity and 90 degrees is 45 degrees. */
    ot_assert_near(out[0].rotation.z, 0.38268343f, 1e-6);
    ot_assert_near(out[0].rotation.w, 0.92387953f, 1e-6);
    /* b[1] is -a[1]: shorter arc, no collapse through zero. */
    ot_assert_near(out[1].rotation.z, 0.70710678f, 1e-6);
    ot_assert_near(out[1].rotation.w, 0.70710678f, 1e-6);
    /* t = 1 gives b (up to the sign chosen for the shorter arc), aliasing allowed. */
    ossa_pose_blend(a, b, 1.0f, 2, a);
    ot_assert_near(a[0].translation.x, 4, 0);
    ot_assert_near(a[0].rotation.z, 0.70710678f, 1e-6);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hand_worked_chain),
        cmocka_unit_test(rejects_bad_parents),
        cmocka_unit_test(forward_pass_matches_reference),
        cmocka_unit_test(affine_product_matches_scalar),
        cmocka_unit_test(blend),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
