/* Math (src/math): hand-worked quaternion, matrix, transform and curve values, and
 * properties over random inputs. */
#include "test_support.h"

#include <math.h>
#include <string.h>

#define PI_F 3.14159265358979f

static void assert_quat_near(ossa_quat a, ossa_quat b, float tol) {
    ot_assert_near(a.x, b.x, tol);
    ot_assert_near(a.y, b.y, tol);
    ot_assert_near(a.z, b.z, tol);
    ot_assert_near(a.w, b.w, tol);
}

/* Same rotation: q and -q are equal rotations. */
static void assert_same_rotation(ossa_quat a, ossa_quat b, float tol) {
    if (ossa_quat_dot(a, b) < 0) {
        b.x = -b.x; b.y = -b.y; b.z = -b.z; b.w = -b.w;
    }
    assert_quat_near(a, b, tol);
}

static void assert_vec3_near(ossa_vec3 a, ossa_vec3 b, float tol) {
    ot_assert_near(a.x, b.x, tol);
    ot_assert_near(a.y, b.y, tol);
    ot_assert_near(a.z, b.z, tol);
}

static void assert_mat4_near(const ossa_mat4 *a, const ossa_mat4 *b, float tol) {
    ot_assert_floats_near(a->m, b->m, 16, tol);
}

static ossa_transform random_transform(uint64_t *s, bool uniform) {
    ossa_transform t;
    t.translation = ossa_vec3_make(ot_rand_float(s, -5, 5), ot_rand_float(s, -5, 5), ot_rand_float(s, -5, 5));
    t.rotation = ot_rand_quat(s);
    float k = ot_rand_float(s, 0.5f, 2.0f);
    t.scale = uniform ? ossa_vec3_make(k, k, k)
                      : ossa_vec3_make(ot_rand_float(s, 0.5f, 2), ot_rand_float(s, 0.5f, 2), ot_rand_float(s, 0.5f, 2));
    return t;
}

static void vec3_basics(void **state) {
    (void)state;
    ossa_vec3 x = ossa_vec3_make(1, 0, 0), y = ossa_vec3_make(0, 1, 0);
    assert_vec3_near(ossa_vec3_cross(x, y), ossa_vec3_make(0, 0, 1), 0);
    assert_float_equal(ossa_vec3_dot(ossa_vec3_make(1, 2, 3), ossa_vec3_make(4, -5, 6)), 12.0f, 0);
    assert_float_equal(ossa_vec3_length(ossa_vec3_make(3, 4, 12)), 13.0f, 1e-6);
    assert_vec3_near(ossa_vec3_normalize(ossa_vec3_make(0, 3, 4)), ossa_vec3_make(0, 0.6f, 0.8f), 1e-6f);
    assert_vec3_near(ossa_vec3_normalize(ossa_vec3_make(0, 0, 0)), ossa_vec3_make(0, 0, 0), 0);
    assert_vec3_near(ossa_vec3_lerp(ossa_vec3_make(0, 2, 4), ossa_vec3_make(2, 4, 8), 0.25f),
                     ossa_vec3_make(0.5f, 2.5f, 5.0f), 1e-6f);
    assert_vec3_near(ossa_vec3_mul(ossa_vec3_make(1, 2, 3), ossa_vec3_make(2, 3, 4)), ossa_vec3_make(2, 6, 12), 0);
    assert_vec3_near(ossa_vec3_sub(ossa_vec3_make(1, 2, 3), ossa_vec3_make(2, 3, 4)), ossa_vec3_make(-1, -1, -1), 0);
}

static void quat_hand_values(void **state) {
    (void)state;
    ossa_vec3 z = ossa_vec3_make(0, 0, 1);
    ossa_quat q90 = ossa_quat_from_axis_angle(z, PI_F / 2);
    assert_quat_near(q90, (ossa_quat){0, 0, 0.70710678f, 0.70710678f}, 1e-6f);
    /* 90 degrees about z maps x to y. */
    assert_vec3_near(ossa_quat_rotate(q90, ossa_vec3_make(1, 0, 0)), ossa_vec3_make(0, 1, 0), 1e-6f);
    /* Hamilton product: two 90 degree turns make 180 about z = (0,0,1,0). */
    assert_quat_near(ossa_quat_mul(q90, q90), (ossa_quat){0, 0, 1, 0}, 1e-6f);
    /* i * j = k */
    assert_quat_near(ossa_quat_mul((ossa_quat){1, 0, 0, 0}, (ossa_quat){0, 1, 0, 0}), (ossa_quat){0, 0, 1, 0}, 0);
    /* inverse: conjugate / |q|^2 */
    assert_quat_near(ossa_quat_inverse((ossa_quat){0, 0, 2, 0}), (ossa_quat){0, 0, -0.5f, 0}, 1e-7f);
    assert_quat_near(ossa_quat_inverse((ossa_quat){0, 0, 0, 0}), ossa_quat_identity(), 0);
    assert_quat_near(ossa_quat_normalize((ossa_quat){0, 0, 0, 0}), ossa_quat_identity(), 0);
    assert_quat_near(ossa_quat_normalize((ossa_quat){NAN, 0, 0, 1}), ossa_quat_identity(), 0);
    assert_quat_near(ossa_quat_normalize((ossa_quat){0, 3, 0, 4}), (ossa_quat){0, 0.6f, 0, 0.8f}, 1e-7f);
    /* neighbourhood flips b when the dot is negative */
    ossa_quat b = {0, 0, -0.6f, -0.8f};
    assert_quat_near(ossa_quat_neighborhood(ossa_quat_identity(), b), (ossa_quat){0, 0, 0.6f, 0.8f}, 0);
    assert_quat_near(ossa_quat_neighborhood((ossa_quat){0, 0, -1, 0}, b), b, 0);
}

static void slerp_hand_values(void **state) {
    (void)state;
    ossa_quat a = ossa_quat_identity();
    ossa_quat b = {0, 0, sinf(PI_F / 4), cosf(PI_F / 4)}; /* 90 deg about z */
    /* Halfway is 45 degrees: (0, 0, sin 22.5, cos 22.5). */
    assert_quat_near(ossa_quat_slerp(a, b, 0.5f), (ossa_quat){0, 0, 0.38268343f, 0.92387953f}, 1e-6f);
    /* A third of the way is 30 degrees: (0, 0, sin 15, cos 15). Slerp, unlike nlerp, is uniform in angle. */
    assert_quat_near(ossa_quat_slerp(a, b, 1.0f / 3), (ossa_quat){0, 0, 0.25881905f, 0.96592583f}, 1e-6f);
    /* nlerp at 1/3 is NOT 30 degrees: normalise (0,0,0.2357,0.9024) -> z = 0.2527. */
    ossa_quat n = ossa_quat_nlerp(a, b, 1.0f / 3);
    ot_assert_near(n.z, 0.23570226f / sqrtf(0.23570226f * 0.23570226f + 0.90236893f * 0.90236893f), 1e-6f);
    /* Shorter arc: -b is the same rotation, the result is the same quaternion. */
    ossa_quat nb = {-b.x, -b.y, -b.z, -b.w};
    assert_quat_near(ossa_quat_slerp(a, nb, 0.5f), (ossa_quat){0, 0, 0.38268343f, 0.92387953f}, 1e-6f);
    /* Endpoints. */
    assert_quat_near(ossa_quat_slerp(a, b, 0), a, 1e-6f);
    assert_quat_near(ossa_quat_slerp(a, b, 1), b, 1e-6f);
    /* Nearly parallel: falls back to nlerp, still unit and between the inputs. */
    ossa_quat c = ossa_quat_from_axis_angle(ossa_vec3_make(0, 0, 1), 1e-4f);
    ossa_quat m = ossa_quat_slerp(a, c, 0.5f);
    ot_assert_near(sqrtf(ossa_quat_dot(m, m)), 1.0, 1e-6);
    ot_assert_near(m.z, sinf(0.25e-4f), 1e-7f);
}

static void slerp_and_nlerp_stay_unit(void **state) {
    (void)state;
    uint64_t s = 7;
    for (int i = 0; i < 5000; i++) {
        ossa_quat a = ot_rand_quat(&s), b = ot_rand_quat(&s);
        float t = ot_rand_float(&s, 0, 1);
        ossa_quat q = ossa_quat_slerp(a, b, t), n = ossa_quat_nlerp(a, b, t);
        ot_assert_near(sqrtf(ossa_quat_dot(q, q)), 1.0, 1e-5);
        ot_assert_near(sqrtf(ossa_quat_dot(n, n)), 1.0, 1e-5);
        /* Shorter arc: the angle to a is t times the whole (shorter) angle. */
        float whole = 2 * acosf(fminf(1.0f, fabsf(ossa_quat_dot(a, b))));
        float part = 2 * acosf(fminf(1.0f, fabsf(ossa_quat_dot(a, q))));
        ot_assert_near(part, t * whole, 2e-3);
    }
}

/* Slerp against the textbook formula evaluated in double: the result is the same rotation
 * within float rounding for every angle (the series path and the acos path alike). */
static void slerp_matches_double_reference(void **state) {
    (void)state;
    uint64_t s = 13;
    for (int i = 0; i < 20000; i++) {
        ossa_quat a = ot_rand_quat(&s), b = ot_rand_quat(&s);
        if (i % 2) { /* small angles, the common case between keys */
            ossa_quat d = ossa_quat_from_axis_angle(ossa_vec3_normalize(ossa_vec3_make(ot_rand_float(&s, -1, 1), 1,
                                                    ot_rand_float(&s, -1, 1))), ot_rand_float(&s, 0, 1.6f));
            b = ossa_quat_mul(d, a);
        }
        float t = ot_rand_float(&s, 0, 1);
        double ax = a.x, ay = a.y, az = a.z, aw = a.w, bx = b.x, by = b.y, bz = b.z, bw = b.w;
        double d = ax * bx + ay * by + az * bz + aw * bw;
        if (d < 0) { d = -d; bx = -bx; by = -by; bz = -bz; bw = -bw; }
        if (d > 1) d = 1;
        double th = acos(d), wa = 1 - t, wb = t;
        if (th > 1e-7) { wa = sin((1 - t) * th) / sin(th); wb = sin(t * th) / sin(th); }
        double r[4] = {ax * wa + bx * wb, ay * wa + by * wb, az * wa + bz * wb, aw * wa + bw * wb};
        double len = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
        ossa_quat q = ossa_quat_slerp(a, b, t);
        ot_assert_near(q.x, r[0] / len, 2e-6);
        ot_assert_near(q.y, r[1] / len, 2e-6);
        ot_assert_near(q.z, r[2] / len, 2e-6);
        ot_assert_near(q.w, r[3] / len, 2e-6);
    }
}

static void quat_mul_composes_rotations(void **state) {
    (void)state;
    uint64_t s = 11;
    for (int i = 0; i < 1000; i++) {
        ossa_quat a = ot_rand_quat(&s), b = ot_rand_quat(&s);
        ossa_vec3 v = ossa_vec3_make(ot_rand_float(&s, -3, 3), ot_rand_float(&s, -3, 3), ot_rand_float(&s, -3, 3));
        assert_vec3_near(ossa_quat_rotate(ossa_quat_mul(a, b), v), ossa_quat_rotate(a, ossa_quat_rotate(b, v)), 1e-4f);
        assert_same_rotation(ossa_quat_mul(a, ossa_quat_inverse(a)), ossa_quat_identity(), 1e-5f);
    }
}

static void curve_hand_values(void **state) {
    (void)state;
    /* t = 0.5: h00 = 0.5, h10 = 0.125, h01 = 0.5, h11 = -0.125. */
    assert_float_equal(ossa_hermite(0.5f, 1, 2, 3, -4), 0.5f * 1 + 0.125f * 2 + 0.5f * 3 + 0.125f * 4, 1e-6);
    assert_float_equal(ossa_hermite(0.5f, 0, 1, 1, 1), 0.5f, 1e-6);
    assert_float_equal(ossa_hermite(0, 7, 100, 9, 100), 7, 0);
    assert_float_equal(ossa_hermite(1, 7, 100, 9, 100), 9, 0);
    /* t = 0.25: h00 = 0.84375, h10 = 0.140625, h01 = 0.15625, h11 = -0.046875. */
    assert_float_equal(ossa_hermite(0.25f, 1, 6, 5, 2), 0.84375f + 0.140625f * 6 + 0.15625f * 5 - 0.046875f * 2, 1e-6);
    /* Bezier t = 0.5: weights 1/8, 3/8, 3/8, 1/8. */
    assert_float_equal(ossa_bezier(0.5f, 0, 1, 2, 3), 1.5f, 1e-6);
    assert_float_equal(ossa_bezier(0.25f, 1, 0, 0, 0), 0.421875f, 1e-7);
    assert_float_equal(ossa_bezier(0.25f, 0, 0, 0, 1), 0.015625f, 1e-7);
}

static void mat4_hand_values(void **state) {
    (void)state;
    /* T(1,2,3) * Rz(90) * S(2): columns (0,2,0), (-2,0,0), (0,0,2), (1,2,3). */
    ossa_transform t = {{1, 2, 3}, {0, 0, 0.70710678f, 0.70710678f}, {2, 2, 2}};
    ossa_mat4 m = ossa_transform_to_mat4(t);
    ossa_mat4 expect = {{0, 2, 0, 0, -2, 0, 0, 0, 0, 0, 2, 0, 1, 2, 3, 1}};
    assert_mat4_near(&m, &expect, 1e-6f);
    assert_vec3_near(ossa_mat4_transform_point(&m, ossa_vec3_make(1, 0, 0)), ossa_vec3_make(1, 4, 3), 1e-6f);
    assert_vec3_near(ossa_mat4_transform_vector(&m, ossa_vec3_make(1, 0, 0)), ossa_vec3_make(0, 2, 0), 1e-6f);
    assert_vec3_near(ossa_transform_point(t, ossa_vec3_make(1, 0, 0)), ossa_vec3_make(1, 4, 3), 1e-6f);
    assert_vec3_near(ossa_transform_vector(t, ossa_vec3_make(0, 1, 0)), ossa_vec3_make(-2, 0, 0), 1e-6f);
    /* Inverse by hand: S(1/2) Rz(-90) T(-1,-2,-3). Columns (0,-.5,0), (.5,0,0), (0,0,.5), (-1,.5,-1.5). */
    ossa_mat4 inv, inv_aff;
    assert_true(ossa_mat4_inverse(&m, &inv));
    assert_true(ossa_mat4_inverse_affine(&m, &inv_aff));
    ossa_mat4 expect_inv = {{0, -0.5f, 0, 0, 0.5f, 0, 0, 0, 0, 0, 0.5f, 0, -1, 0.5f, -1.5f, 1}};
    assert_mat4_near(&inv, &expect_inv, 1e-6f);
    assert_mat4_near(&inv_aff, &expect_inv, 1e-6f);
    /* Product order: a * b applies b first. */
    ossa_mat4 tr = ossa_transform_to_mat4((ossa_transform){{5, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}});
    ossa_mat4 sc = ossa_transform_to_mat4((ossa_transform){{0, 0, 0}, {0, 0, 0, 1}, {3, 3, 3}});
    ossa_mat4 ts = ossa_mat4_mul(&tr, &sc);
    assert_vec3_near(ossa_mat4_transform_point(&ts, ossa_vec3_make(1, 0, 0)), ossa_vec3_make(8, 0, 0), 0);
    /* Singular: false and identity. */
    ossa_mat4 zero = {{0}};
    ossa_mat4 id = ossa_mat4_identity();
    assert_false(ossa_mat4_inverse(&zero, &inv));
    assert_mat4_near(&inv, &id, 0);
    assert_false(ossa_mat4_inverse_affine(&zero, &inv));
    assert_mat4_near(&inv, &id, 0);
}

static void mat4_inverse_property(void **state) {
    (void)state;
    uint64_t s = 3;
    ossa_mat4 id = ossa_mat4_identity();
    for (int i = 0; i < 2000; i++) {
        ossa_mat4 m = ossa_transform_to_mat4(random_transform(&s, false));
        /* A general (projective) matrix too. */
        ossa_mat4 g = m;
        g.m[3] = ot_rand_float(&s, -0.3f, 0.3f);
        g.m[7] = ot_rand_float(&s, -0.3f, 0.3f);
        ossa_mat4 inv, aff, gi;
        assert_true(ossa_mat4_inverse(&m, &inv));
        assert_true(ossa_mat4_inverse_affine(&m, &aff));
        assert_mat4_near(&inv, &aff, 1e-4f);
        ossa_mat4 p = ossa_mat4_mul(&m, &inv);
        assert_mat4_near(&p, &id, 1e-4f);
        if (ossa_mat4_inverse(&g, &gi)) {
            ossa_mat4 q = ossa_mat4_mul(&gi, &g);
            assert_mat4_near(&q, &id, 1e-3f);
        }
    }
}

static void decompose_roundtrip(void **state) {
    (void)state;
    uint64_t s = 5;
    for (int i = 0; i < 2000; i++) {
        ossa_transform t = random_transform(&s, false), d;
        ossa_mat4 m = ossa_transform_to_mat4(t);
        assert_true(ossa_mat4_decompose(&m, 1e-4f, &d));
        assert_vec3_near(d.translation, t.translation, 1e-5f);
        assert_vec3_near(d.scale, t.scale, 1e-4f);
        assert_same_rotation(d.rotation, t.rotation, 1e-4f);
    }
    /* Reflection becomes a negative x scale and reproduces the matrix. */
    ossa_mat4 r = ossa_transform_to_mat4((ossa_transform){{1, 2, 3}, {0, 0, 0.70710678f, 0.70710678f}, {2, -3, 4}});
    ossa_transform d;
    assert_true(ossa_mat4_decompose(&r, 1e-4f, &d));
    assert_true(d.scale.x < 0);
    ossa_mat4 back = ossa_transform_to_mat4(d);
    assert_mat4_near(&back, &r, 1e-5f);
    /* Shear and perspective are reported. */
    ossa_mat4 shear = ossa_mat4_identity();
    shear.m[4] = 0.5f; /* x += 0.5 y */
    assert_false(ossa_mat4_decompose(&shear, 1e-4f, &d));
    ossa_mat4 persp = ossa_mat4_identity();
    persp.m[11] = -1;
    assert_false(ossa_mat4_decompose(&persp, 1e-4f, &d));
    /* tolerance 0 = default: a clean TRS matrix still decomposes. */
    assert_true(ossa_mat4_decompose(&r, 0, &d));
    ossa_mat4 flat = ossa_mat4_identity();
    flat.m[10] = 0;
    assert_false(ossa_mat4_decompose(&flat, 1e-4f, &d));
}

static void transform_combine_and_inverse(void **state) {
    (void)state;
    uint64_t s = 9;
    ossa_mat4 id = ossa_mat4_identity();
    for (int i = 0; i < 2000; i++) {
        ossa_transform p = random_transform(&s, true), c = random_transform(&s, false);
        ossa_mat4 mp = ossa_transform_to_mat4(p), mc = ossa_transform_to_mat4(c);
        ossa_mat4 prod = ossa_mat4_mul(&mp, &mc);
        ossa_mat4 comb = ossa_transform_to_mat4(ossa_transform_combine(p, c));
        assert_mat4_near(&comb, &prod, 1e-4f);
        ossa_vec3 v = ossa_vec3_make(ot_rand_float(&s, -2, 2), ot_rand_float(&s, -2, 2), ot_rand_float(&s, -2, 2));
        assert_vec3_near(ossa_transform_point(c, v), ossa_mat4_transform_point(&mc, v), 1e-4f);
        assert_vec3_near(ossa_transform_vector(c, v), ossa_mat4_transform_vector(&mc, v), 1e-4f);
        /* Exact for uniform scale. */
        ossa_mat4 pi = ossa_transform_to_mat4(ossa_transform_inverse(p));
        ossa_mat4 q = ossa_mat4_mul(&mp, &pi);
        assert_mat4_near(&q, &id, 1e-4f);
    }
    ossa_transform ident = ossa_transform_identity();
    ossa_mat4 im = ossa_transform_to_mat4(ident);
    assert_mat4_near(&im, &id, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(vec3_basics),
        cmocka_unit_test(quat_hand_values),
        cmocka_unit_test(slerp_hand_values),
        cmocka_unit_test(slerp_and_nlerp_stay_unit),
        cmocka_unit_test(slerp_matches_double_reference),
        cmocka_unit_test(quat_mul_composes_rotations),
        cmocka_unit_test(curve_hand_values),
        cmocka_unit_test(mat4_hand_values),
        cmocka_unit_test(mat4_inverse_property),
        cmocka_unit_test(decompose_roundtrip),
        cmocka_unit_test(transform_combine_and_inverse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
