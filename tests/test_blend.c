/* Blend job, masks, additive clips and synced blending (src/anim/blend.c, additive.c):
 * expectations computed independently in double precision from the documented formula. */
#include "test_support.h"
#include "job_check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAXJ 64

static ossa_transform rand_transform(uint64_t *s) {
    ossa_transform t;
    t.translation = ossa_vec3_make(ot_rand_float(s, -2, 2), ot_rand_float(s, -2, 2), ot_rand_float(s, -2, 2));
    t.rotation = ot_rand_quat(s);
    t.scale = ossa_vec3_make(ot_rand_float(s, 0.5f, 2), ot_rand_float(s, 0.5f, 2), ot_rand_float(s, 0.5f, 2));
    return t;
}

static void rand_pose(uint64_t *s, ossa_transform *p, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) p[i] = rand_transform(s);
}

/* Same rotation (q or -q) within tol. */
static void assert_same_rotation(ossa_quat a, ossa_quat b, float tol) {
    double d = fabs((double)a.x * b.x + (double)a.y * b.y + (double)a.z * b.z + (double)a.w * b.w);
    ot_assert_near(d, 1.0, tol);
}

static void assert_transform_near(const ossa_transform *a, const ossa_transform *b, float tol) {
    ot_assert_floats_near(&a->translation.x, &b->translation.x, 3, tol);
    ot_assert_floats_near(&a->scale.x, &b->scale.x, 3, tol);
    assert_same_rotation(a->rotation, b->rotation, tol);
}

static ossa_blend_layer layer(const ossa_transform *p, uint32_t n, float w, const float *mask) {
    ossa_blend_layer l = {p, n, w, mask, mask ? n : 0};
    return l;
}

static ossa_result run_blend(const ossa_blend_layer *layers, uint32_t count, const ossa_blend_layer *add,
                             uint32_t add_count, const ossa_transform *rest, uint32_t n, ossa_transform *out) {
    ossa_blend_job job = {layers, count, add, add_count, rest, n, 0.0f, out, n};
    return ossa_blend_job_run(&job);
}

static void validity(void **state) {
    (void)state;
    ossa_transform rest[4], pose[4], out[4];
    float mask[4] = {1, 1, 1, 1};
    for (int i = 0; i < 4; i++) rest[i] = pose[i] = ossa_transform_identity();
    ossa_blend_job job;
    memset(&job, 0, sizeof job);
    ot_assert_job(ossa_blend_job_validate, NULL, OSSA_ERROR_INVALID_ARGUMENT, "job");
    ot_assert_job(ossa_blend_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "rest");
    job.rest = rest;
    job.rest_count = 4;
    ot_assert_job(ossa_blend_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "output"); /* no output */
    job.output = out;
    ot_assert_job(ossa_blend_job_validate, &job, OSSA_ERROR_BUFFER_TOO_SMALL, "output_count"); /* output_count 0 */
    job.output_count = 3;
    assert_int_equal(ossa_blend_job_run(&job), OSSA_ERROR_BUFFER_TOO_SMALL);
    job.output_count = 4;
    ot_assert_job_ok(ossa_blend_job_validate, &job); /* no layers: the rest pose */
    job.layer_count = 1;
    ot_assert_job(ossa_blend_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "layers"); /* layers NULL */
    ossa_blend_layer l;
    memset(&l, 0, sizeof l);
    job.layers = &l;
    ot_assert_job(ossa_blend_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "layers[0].transforms");
    l.transforms = pose;
    ot_assert_job(ossa_blend_job_validate, &job, OSSA_ERROR_BUFFER_TOO_SMALL, "layers[0].transform_count");
    l.transform_count = 4;
    ot_assert_job_ok(ossa_blend_job_validate, &job);
    l.joint_weights = mask;
    ot_assert_job(ossa_blend_job_validate, &job, OSSA_ERROR_BUFFER_TOO_SMALL, "layers[0].joint_weight_count");
    l.joint_weight_count = 4;
    ot_assert_job_ok(ossa_blend_job_validate, &job);
    l.weight = -1.0f;
    ot_assert_job(ossa_blend_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "layers[0].weight");
    l.weight = NAN;
    ot_assert_job(ossa_blend_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "layers[0].weight");
    l.weight = 1.0f;
    job.threshold = -0.5f;
    ot_assert_job(ossa_blend_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "threshold");
    job.threshold = INFINITY;
    ot_assert_job(ossa_blend_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "threshold");
    job.threshold = 0.0f;
    job.additive_count = 1;
    ot_assert_job(ossa_blend_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "additive_layers"); /* additive NULL */
    ossa_blend_layer a = l;
    a.weight = -0.5f; /* negative additive weights subtract: valid */
    job.additive_layers = &a;
    ot_assert_job_ok(ossa_blend_job_validate, &job);
    a.transform_count = 2;
    ot_assert_job(ossa_blend_job_validate, &job, OSSA_ERROR_BUFFER_TOO_SMALL, "additive_layers[0].transform_count");
    a.transform_count = 4;
    a.weight = INFINITY;
    ot_assert_job(ossa_blend_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "additive_layers[0].weight");
    a.weight = 1.0f;
    /* Joint weights must be finite and >= 0, on normal and additive layers alike (a NaN mask
     * weight on an additive layer would otherwise make a NaN pose). */
    float bad[4] = {1, 1, NAN, 1};
    a.joint_weights = bad;
    ot_assert_job(ossa_blend_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "additive_layers[0].joint_weights");
    bad[2] = -0.25f;
    assert_int_equal(ossa_blend_job_run(&job), OSSA_ERROR_INVALID_ARGUMENT);
    bad[2] = INFINITY;
    ot_assert_job(ossa_blend_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "additive_layers[0].joint_weights");
    a.joint_weights = mask;
    l.joint_weights = bad;
    ot_assert_job(ossa_blend_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "layers[0].joint_weights");
    bad[2] = 0.0f;
    ot_assert_job_ok(ossa_blend_job_validate, &job);
    l.joint_weights = mask;
    assert_int_equal(ossa_blend_job_run(&job), OSSA_OK);
    /* Identity layer + identity additive: identity out. */
    for (int i = 0; i < 4; i++) assert_transform_near(&out[i], &rest[i], 1e-6f);
}

static void identical_poses_give_that_pose(void **state) {
    (void)state;
    uint64_t s = 11;
    for (int iter = 0; iter < 50; iter++) {
        uint32_t n = 1 + (uint32_t)(ot_rand_u64(&s) % MAXJ);
        ossa_transform pose[MAXJ], rest[MAXJ], out[MAXJ];
        rand_pose(&s, pose, n);
        rand_pose(&s, rest, n);
        ossa_blend_layer layers[4];
        for (int k = 0; k < 4; k++) layers[k] = layer(pose, n, ot_rand_float(&s, 0.05f, 3.0f), NULL);
        assert_int_equal(run_blend(layers, 4, NULL, 0, rest, n, out), OSSA_OK);
        for (uint32_t j = 0; j < n; j++) assert_transform_near(&out[j], &pose[j], 2e-6f);
    }
}

/* Independent double-precision evaluation of the documented formula for one joint. */
static ossa_transform reference_blend(const ossa_transform *const *poses, const float *weights, uint32_t count,
                                      const ossa_transform *rest, float threshold, uint32_t j) {
    double t[3] = {0}, sc[3] = {0}, q[4] = {0}, total = 0;
    for (uint32_t i = 0; i <= count; i++) {
        const ossa_transform *x;
        double w;
        if (i < count) {
            x = &poses[i][j];
            w = weights[i];
        } else {
            if (total >= threshold) break;
            x = &rest[j];
            w = threshold - total;
        }
        if (!(w > 0)) continue;
        double xq[4] = {x->rotation.x, x->rotation.y, x->rotation.z, x->rotation.w};
        double dot = q[0] * xq[0] + q[1] * xq[1] + q[2] * xq[2] + q[3] * xq[3];
        double sign = dot < 0 ? -1 : 1;
        for (int c = 0; c < 4; c++) q[c] += sign * w * xq[c];
        t[0] += w * x->translation.x, t[1] += w * x->translation.y, t[2] += w * x->translation.z;
        sc[0] += w * x->scale.x, sc[1] += w * x->scale.y, sc[2] += w * x->scale.z;
        total += w;
    }
    double len = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    ossa_transform r;
    r.translation = ossa_vec3_make((float)(t[0] / total), (float)(t[1] / total), (float)(t[2] / total));
    r.scale = ossa_vec3_make((float)(sc[0] / total), (float)(sc[1] / total), (float)(sc[2] / total));
    r.rotation = (ossa_quat){(float)(q[0] / len), (float)(q[1] / len), (float)(q[2] / len), (float)(q[3] / len)};
    return r;
}

static void two_layers_equal_weights_hand_formula(void **state) {
    (void)state;
    uint64_t s = 5;
    uint32_t n = 40;
    ossa_transform a[40], b[40], rest[40], out[40];
    rand_pose(&s, a, n);
    rand_pose(&s, b, n);
    rand_pose(&s, rest, n);
    ossa_blend_layer layers[2] = {layer(a, n, 0.5f, NULL), layer(b, n, 0.5f, NULL)};
    assert_int_equal(run_blend(layers, 2, NULL, 0, rest, n, out), OSSA_OK);
    int flipped = 0;
    for (uint32_t j = 0; j < n; j++) {
        /* normalize(qa + qb'), qb' = qb on qa's hemisphere; mean translation and scale. */
        ossa_quat qa = a[j].rotation, qb = b[j].rotation;
        double dot = (double)qa.x * qb.x + (double)qa.y * qb.y + (double)qa.z * qb.z + (double)qa.w * qb.w;
        double sg = dot < 0 ? -1 : 1;
        flipped += dot < 0;
        double q[4] = {qa.x + sg * qb.x, qa.y + sg * qb.y, qa.z + sg * qb.z, qa.w + sg * qb.w};
        double l = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        ot_assert_near(out[j].rotation.x, q[0] / l, 2e-6);
        ot_assert_near(out[j].rotation.y, q[1] / l, 2e-6);
        ot_assert_near(out[j].rotation.z, q[2] / l, 2e-6);
        ot_assert_near(out[j].rotation.w, q[3] / l, 2e-6);
        ot_assert_near(out[j].translation.x, 0.5 * ((double)a[j].translation.x + b[j].translation.x), 1e-6);
        ot_assert_near(out[j].translation.y, 0.5 * ((double)a[j].translation.y + b[j].translation.y), 1e-6);
        ot_assert_near(out[j].translation.z, 0.5 * ((double)a[j].translation.z + b[j].translation.z), 1e-6);
        ot_assert_near(out[j].scale.x, 0.5 * ((double)a[j].scale.x + b[j].scale.x), 1e-6);
        ot_assert_near(out[j].scale.y, 0.5 * ((double)a[j].scale.y + b[j].scale.y), 1e-6);
        ot_assert_near(out[j].scale.z, 0.5 * ((double)a[j].scale.z + b[j].scale.z), 1e-6);
    }
    assert_true(flipped > 0 && flipped < (int)n); /* both hemisphere cases were exercised */
}

static void weights_are_normalised(void **state) {
    (void)state;
    uint64_t s = 77;
    uint32_t n = 16;
    ossa_transform a[16], b[16], c[16], rest[16], out1[16], out2[16];
    rand_pose(&s, a, n);
    rand_pose(&s, b, n);
    rand_pose(&s, c, n);
    rand_pose(&s, rest, n);
    float w[3] = {0.2f, 0.5f, 1.3f};
    ossa_blend_layer l1[3] = {layer(a, n, w[0], NULL), layer(b, n, w[1], NULL), layer(c, n, w[2], NULL)};
    ossa_blend_layer l2[3] = {layer(a, n, w[0] * 7, NULL), layer(b, n, w[1] * 7, NULL), layer(c, n, w[2] * 7, NULL)};
    assert_int_equal(run_blend(l1, 3, NULL, 0, rest, n, out1), OSSA_OK);
    assert_int_equal(run_blend(l2, 3, NULL, 0, rest, n, out2), OSSA_OK);
    const ossa_transform *poses[3] = {a, b, c};
    for (uint32_t j = 0; j < n; j++) {
        assert_transform_near(&out1[j], &out2[j], 2e-6f);
        ossa_transform ref = reference_blend(poses, w, 3, rest, 0.1f, j);
        assert_transform_near(&out1[j], &ref, 4e-6f);
    }
    /* Hand-worked: weights 1 and 3 give (ta + 3 tb) / 4. */
    ossa_blend_layer l3[2] = {layer(a, n, 1, NULL), layer(b, n, 3, NULL)};
    assert_int_equal(run_blend(l3, 2, NULL, 0, rest, n, out1), OSSA_OK);
    ot_assert_near(out1[3].translation.y, (a[3].translation.y + 3.0 * b[3].translation.y) / 4.0, 1e-6);
}

static void rest_fallback_below_threshold(void **state) {
    (void)state;
    uint64_t s = 9;
    uint32_t n = 8;
    ossa_transform a[8], rest[8], out[8];
    rand_pose(&s, a, n);
    rand_pose(&s, rest, n);
    ossa_blend_layer l = layer(a, n, 0.0f, NULL);
    assert_int_equal(run_blend(&l, 1, NULL, 0, rest, n, out), OSSA_OK);
    for (uint32_t j = 0; j < n; j++) assert_transform_near(&out[j], &rest[j], 1e-6f); /* W = 0: rest */
    assert_int_equal(run_blend(NULL, 0, NULL, 0, rest, n, out), OSSA_OK);
    for (uint32_t j = 0; j < n; j++) assert_transform_near(&out[j], &rest[j], 1e-6f);
    /* W = 0.04 < 0.1: the rest pose joins with 0.06: t = 0.4 ta + 0.6 t_rest. */
    l.weight = 0.04f;
    assert_int_equal(run_blend(&l, 1, NULL, 0, rest, n, out), OSSA_OK);
    for (uint32_t j = 0; j < n; j++)
        ot_assert_near(out[j].translation.x, 0.4 * a[j].translation.x + 0.6 * rest[j].translation.x, 1e-5);
    /* Custom threshold: 0.01 -> 0.04 is above it, the pose is a itself. */
    ossa_blend_job job = {&l, 1, NULL, 0, rest, n, 0.01f, out, n};
    assert_int_equal(ossa_blend_job_run(&job), OSSA_OK);
    for (uint32_t j = 0; j < n; j++) assert_transform_near(&out[j], &a[j], 1e-6f);
}

/* A small named skeleton: 0 root, 1 hips, 2 spine, 3 head, 4 arm (under spine), 5 leg (under hips). */
static ossa_skeleton *named_skeleton(void) {
    static const int32_t parents[6] = {-1, 0, 1, 2, 2, 1};
    static const char *const names[6] = {"root", "hips", "Spine", "head", "arm", "leg"};
    ossa_skeleton_desc d;
    memset(&d, 0, sizeof d);
    d.joint_count = 6;
    d.parents = parents;
    d.names = names;
    ossa_skeleton *sk = NULL;
    assert_int_equal(ossa_skeleton_create(&d, NULL, &sk), OSSA_OK);
    return sk;
}

static bool below(const ossa_skeleton *sk, uint32_t j, uint32_t root) {
    for (int32_t p = (int32_t)j; p >= 0; p = sk->parents[p])
        if ((uint32_t)p == root) return true;
    return false;
}

static void mask_subtree_and_masked_joints_untouched(void **state) {
    (void)state;
    ossa_skeleton *sk = named_skeleton();
    float mask[6];
    assert_int_equal(ossa_blend_mask_from_name(sk, "Spine", 1, 0, mask, 6), OSSA_OK);
    uint32_t spine = (uint32_t)ossa_skeleton_find_joint(sk, "Spine");
    for (uint32_t j = 0; j < 6; j++) ot_assert_near(mask[j], below(sk, j, spine) ? 1.0 : 0.0, 0);
    assert_int_equal(ossa_blend_mask_from_name(sk, "nope", 1, 0, mask, 6), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_blend_mask_from_name(sk, "Spine", 1, 0, mask, 5), OSSA_ERROR_BUFFER_TOO_SMALL);
    assert_int_equal(ossa_blend_mask_subtree(sk, 6, 1, 0, mask, 6), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_blend_mask_subtree(NULL, 0, 1, 0, mask, 6), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_blend_mask_from_name(sk, "Spine", 1, 0, mask, 6), OSSA_OK);

    uint64_t s = 3;
    ossa_transform base[6], upper[6], out[6];
    rand_pose(&s, base, 6);
    rand_pose(&s, upper, 6);
    /* Base over the whole body, upper-body layer masked: an override (base weight 0 inside). */
    float base_mask[6];
    for (int j = 0; j < 6; j++) base_mask[j] = 1.0f - mask[j];
    ossa_blend_layer l[2] = {layer(base, 6, 1, base_mask), layer(upper, 6, 1, mask)};
    assert_int_equal(run_blend(l, 2, NULL, 0, sk->rest, 6, out), OSSA_OK);
    for (uint32_t j = 0; j < 6; j++) {
        const ossa_transform *want = mask[j] > 0 ? &upper[j] : &base[j];
        ot_assert_floats_near(&out[j].translation.x, &want->translation.x, 3, 1e-6f);
        ot_assert_floats_near(&out[j].scale.x, &want->scale.x, 3, 1e-6f);
        assert_same_rotation(out[j].rotation, want->rotation, 1e-6f);
    }
    ossa_skeleton_destroy(sk);
}

/* A random clip over n joints: linear translation, rotation and scale tracks on some joints,
 * cubic translation on others. Key storage is static (the clip copies it). */
static ossa_clip *random_clip(uint64_t *s, uint32_t n, bool cubic) {
    static float times[4] = {0.0f, 0.4f, 0.9f, 1.5f};
    static float vals[MAXJ][3][4 * 12];
    ossa_transform_track tracks[MAXJ];
    memset(tracks, 0, sizeof tracks);
    uint32_t count = 0;
    for (uint32_t j = 0; j < n; j++) {
        if (ot_rand_u64(s) % 4 == 0) continue; /* unanimated joint */
        ossa_transform_track *t = &tracks[count++];
        t->joint = j;
        bool cub = cubic && (j % 2);
        ossa_track *tr[3] = {&t->translation, &t->rotation, &t->scale};
        for (int c = 0; c < 3; c++) {
            if (c == 2 && ot_rand_u64(s) % 2) continue; /* no scale track */
            uint32_t comps = c == 1 ? 4 : 3;
            bool cc = cub && c == 0;
            tr[c]->kind = c == 1 ? OSSA_TRACK_ROTATION : OSSA_TRACK_VECTOR;
            tr[c]->interp = cc ? OSSA_INTERP_CUBIC : OSSA_INTERP_LINEAR;
            tr[c]->components = comps;
            tr[c]->key_count = 4;
            tr[c]->times = times;
            tr[c]->values = vals[j][c];
            for (uint32_t k = 0; k < 4; k++) {
                float *v = vals[j][c] + k * comps * (cc ? 3 : 1);
                for (uint32_t e = 0; e < (cc ? 3u : 1u); e++) {
                    if (c == 1) {
                        ossa_quat q = ot_rand_quat(s);
                        memcpy(v + e * 4, &q, sizeof q);
                    } else {
                        for (uint32_t i = 0; i < 3; i++)
                            v[e * 3 + i] = c == 2 ? ot_rand_float(s, 0.5f, 1.5f) : ot_rand_float(s, -1, 1);
                    }
                }
            }
        }
    }
    ossa_clip_desc d;
    memset(&d, 0, sizeof d);
    d.name = "random";
    d.looping = true;
    d.track_count = count;
    d.tracks = tracks;
    ossa_clip *clip = NULL;
    assert_int_equal(ossa_clip_create(&d, NULL, &clip), OSSA_OK);
    return clip;
}

static ossa_skeleton *random_skeleton(uint64_t *s, uint32_t n) {
    int32_t parents[MAXJ];
    ossa_transform rest[MAXJ];
    for (uint32_t j = 0; j < n; j++) {
        parents[j] = j == 0 ? -1 : (int32_t)(ot_rand_u64(s) % j);
        rest[j] = rand_transform(s);
    }
    ossa_skeleton_desc d;
    memset(&d, 0, sizeof d);
    d.joint_count = n;
    d.parents = parents;
    d.rest = rest;
    ossa_skeleton *sk = NULL;
    assert_int_equal(ossa_skeleton_create(&d, NULL, &sk), OSSA_OK);
    return sk;
}

static void additive_identity_and_roundtrip(void **state) {
    (void)state;
    uint64_t s = 21;
    for (int iter = 0; iter < 12; iter++) {
        uint32_t n = 1 + (uint32_t)(ot_rand_u64(&s) % 20);
        ossa_skeleton *sk = random_skeleton(&s, n);
        ossa_clip *clip = random_clip(&s, n, iter % 2);
        ossa_transform ref_pose[MAXJ], base[MAXJ], delta[MAXJ], want[MAXJ], out[MAXJ], ident[MAXJ];
        for (uint32_t j = 0; j < n; j++) ident[j] = ossa_transform_identity();
        /* Reference = the first frame (NULL) or a random pose. */
        bool first = iter % 3 != 0;
        rand_pose(&s, ref_pose, n);
        if (first) ot_clip_sample(clip, clip->start, false, OSSA_LOOKUP_BINARY, NULL, sk->rest, ref_pose, n);
        ossa_clip *add = NULL;
        assert_int_equal(ossa_clip_make_additive(clip, sk, first ? NULL : ref_pose, NULL, &add), OSSA_OK);
        assert_int_equal(add->track_count, n);
        for (float t = 0.0f; t <= 1.5f; t += 0.125f) {
            /* The additive clip fills every joint itself: the reference passed to sampling is unused. */
            ot_clip_sample(add, t, false, OSSA_LOOKUP_BINARY, NULL, ident, delta, n);
            ot_clip_sample(clip, t, false, OSSA_LOOKUP_BINARY, NULL, sk->rest, want, n);
            memcpy(base, ref_pose, n * sizeof *base);
            ossa_blend_layer b = layer(base, n, 1, NULL), a = layer(delta, n, 1, NULL);
            assert_int_equal(run_blend(&b, 1, &a, 1, sk->rest, n, out), OSSA_OK);
            for (uint32_t j = 0; j < n; j++) {
                /* Linear tracks reproduce exactly (up to float); cubic translation tangents
                 * are unchanged by the delta, so those also match. Rotations: conj(r)*q is
                 * linear in q so slerp(conj(r)qa, conj(r)qb) = conj(r) slerp(qa, qb). */
                ot_assert_floats_near(&out[j].translation.x, &want[j].translation.x, 3, 2e-5f);
                ot_assert_floats_near(&out[j].scale.x, &want[j].scale.x, 3, 2e-5f);
                assert_same_rotation(out[j].rotation, want[j].rotation, 2e-5f);
            }
        }
        /* It can be built: a lossless build samples like the editable additive clip (no joint
         * falls back to the rest pose, since every joint has a full track). */
        ossa_clip_build_options lossless = {0};
        lossless.lossless = true;
        ossa_built_clip *built = NULL;
        ossa_sampling_context *ctx = NULL;
        assert_int_equal(ossa_clip_build(add, sk, &lossless, NULL, &built, NULL), OSSA_OK);
        assert_int_equal(ossa_sampling_context_create(n, 0, NULL, &ctx), OSSA_OK);
        for (float t = 0.0f; t <= 1.5f; t += 0.3f) {
            ossa_sample_job sj = {.clip = built, .context = ctx, .time = t, .output = out, .output_count = n,
                                  .reference = sk->rest, .reference_count = n};
            assert_int_equal(ossa_sample_job_run(&sj), OSSA_OK);
            ot_clip_sample(add, t, false, OSSA_LOOKUP_BINARY, NULL, ident, delta, n);
            for (uint32_t j = 0; j < n; j++) assert_transform_near(&out[j], &delta[j], 1e-5f);
        }
        ossa_sampling_context_destroy(ctx);
        ossa_built_clip_destroy(built);
        /* The additive of the reference pose itself is the identity. */
        ot_clip_sample(add, clip->start, false, OSSA_LOOKUP_BINARY, NULL, ident, delta, n);
        if (first)
            for (uint32_t j = 0; j < n; j++) assert_transform_near(&delta[j], &ident[j], 2e-6f);
        /* Applying an identity delta at any weight leaves a pose unchanged. */
        rand_pose(&s, base, n);
        ossa_blend_layer b = layer(base, n, 1, NULL), a = layer(ident, n, ot_rand_float(&s, -1, 2), NULL);
        assert_int_equal(run_blend(&b, 1, &a, 1, sk->rest, n, out), OSSA_OK);
        for (uint32_t j = 0; j < n; j++) assert_transform_near(&out[j], &base[j], 2e-6f);
        ossa_clip_destroy(add);
        ossa_clip_destroy(clip);
        ossa_skeleton_destroy(sk);
    }
    assert_int_equal(ossa_clip_make_additive(NULL, NULL, NULL, NULL, NULL), OSSA_ERROR_INVALID_ARGUMENT);
}

static void additive_weight_and_mask_hand_worked(void **state) {
    (void)state;
    /* Base identity; delta: translation (2, 0, 0), 90° about Z, scale 3. Weight 0.5:
     * t = (1, 0, 0), q = nlerp(identity, dq, 0.5) = 45° about Z, s = 1 + 0.5 * 2 = 2. */
    ossa_transform base[2], delta[2], rest[2], out[2];
    for (int i = 0; i < 2; i++) {
        base[i] = rest[i] = ossa_transform_identity();
        delta[i].translation = ossa_vec3_make(2, 0, 0);
        delta[i].rotation = ossa_quat_from_axis_angle(ossa_vec3_make(0, 0, 1), 1.5707963f);
        delta[i].scale = ossa_vec3_make(3, 3, 3);
    }
    float mask[2] = {1, 0};
    ossa_blend_layer b = layer(base, 2, 1, NULL), a = layer(delta, 2, 0.5f, mask);
    assert_int_equal(run_blend(&b, 1, &a, 1, rest, 2, out), OSSA_OK);
    ot_assert_near(out[0].translation.x, 1.0, 1e-6);
    ot_assert_near(out[0].scale.y, 2.0, 1e-6);
    ossa_quat q45 = ossa_quat_from_axis_angle(ossa_vec3_make(0, 0, 1), 0.78539816f);
    assert_same_rotation(out[0].rotation, q45, 1e-6f);
    assert_transform_near(&out[1], &base[1], 0); /* masked out */
    /* Weight -1 subtracts: the delta then its negative give the base rotation and translation back. */
    ossa_blend_layer two[2] = {layer(delta, 2, 1, NULL), layer(delta, 2, -1, NULL)};
    assert_int_equal(run_blend(&b, 1, two, 2, rest, 2, out), OSSA_OK);
    assert_same_rotation(out[0].rotation, base[0].rotation, 1e-6f);
    ot_assert_near(out[0].translation.x, 0.0, 1e-6);
}

static void blend_space_and_sync(void **state) {
    (void)state;
    const float pos[3] = {0.0f, 1.5f, 4.0f};
    float w[3];
    assert_int_equal(ossa_blend_space_1d(pos, 3, 2.75f, w), OSSA_OK);
    ot_assert_near(w[0], 0, 0), ot_assert_near(w[1], 0.5, 1e-6), ot_assert_near(w[2], 0.5, 1e-6);
    assert_int_equal(ossa_blend_space_1d(pos, 3, -3.0f, w), OSSA_OK);
    ot_assert_near(w[0], 1, 0);
    assert_int_equal(ossa_blend_space_1d(pos, 3, 9.0f, w), OSSA_OK);
    ot_assert_near(w[2], 1, 0);
    assert_int_equal(ossa_blend_space_1d(pos, 3, 1.5f, w), OSSA_OK);
    ot_assert_near(w[1], 1, 0);
    const float bad[2] = {1.0f, 1.0f};
    assert_int_equal(ossa_blend_space_1d(bad, 2, 1.0f, w), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_blend_space_1d(pos, 3, NAN, w), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_blend_space_1d(pos, 0, 1.0f, w), OSSA_ERROR_INVALID_ARGUMENT);
    /* Walk 1.2 s and run 0.7 s at 0.3 / 0.7: D = 0.3 * 1.2 + 0.7 * 0.7 = 0.85 s. */
    const float dur[2] = {1.2f, 0.7f}, ww[2] = {0.3f, 0.7f};
    ot_assert_near(ossa_sync_duration(dur, ww, 2), 0.85, 1e-6);
    const float zero[2] = {0, 0};
    ot_assert_near(ossa_sync_duration(dur, zero, 2), 0, 0);
    ot_assert_near(ossa_sync_advance(0.9f, 0.17f, 0.85f), 0.1, 1e-6);
    ot_assert_near(ossa_sync_advance(0.1f, -0.17f, 0.85f), 0.9, 1e-6);
    ot_assert_near(ossa_sync_advance(0.25f, 1.0f, 0.0f), 0.25, 0);
    float p = ossa_sync_advance(0.0f, -1e-9f, 1.0f);
    assert_true(p >= 0.0f && p < 1.0f);
}

/* A copy of `clip` with every key time multiplied by k (cubic tangents, per second, divided
 * by k so the curve keeps its shape): sampled at k * t it equals the clip at t. The key
 * storage is malloc'd into *store (freed by the caller after the copy is made). */
static ossa_clip *time_scaled(const ossa_clip *clip, float k, float **store) {
    size_t total = 0;
    for (uint32_t i = 0; i < clip->track_count; i++) {
        const ossa_track *tr[3] = {&clip->tracks[i].translation, &clip->tracks[i].rotation, &clip->tracks[i].scale};
        for (int c = 0; c < 3; c++) {
            uint32_t per = tr[c]->components * (tr[c]->interp == OSSA_INTERP_CUBIC ? 3u : 1u);
            total += (size_t)tr[c]->key_count * (1u + per);
        }
    }
    float *mem = malloc(sizeof(float) * (total + 1));
    ossa_transform_track tracks[MAXJ];
    assert_non_null(mem);
    assert_true(clip->track_count <= MAXJ);
    float *at = mem;
    for (uint32_t i = 0; i < clip->track_count; i++) {
        tracks[i] = clip->tracks[i];
        ossa_track *tr[3] = {&tracks[i].translation, &tracks[i].rotation, &tracks[i].scale};
        for (int c = 0; c < 3; c++) {
            ossa_track *t = tr[c];
            bool cubic = t->interp == OSSA_INTERP_CUBIC;
            uint32_t comps = t->components, per = comps * (cubic ? 3u : 1u);
            memset(&t->table, 0, sizeof t->table);
            if (!t->key_count) continue;
            float *times = at, *vals = at + t->key_count;
            at += (size_t)t->key_count * (1u + per);
            for (uint32_t e = 0; e < t->key_count; e++) times[e] = t->times[e] * k;
            memcpy(vals, t->values, sizeof(float) * t->key_count * per);
            if (cubic) /* [in-tangent, value, out-tangent] per key */
                for (uint32_t e = 0; e < t->key_count; e++)
                    for (uint32_t v = 0; v < comps; v++) {
                        vals[e * per + v] /= k;
                        vals[e * per + 2 * comps + v] /= k;
                    }
            t->times = times;
            t->values = vals;
        }
    }
    ossa_clip_desc d;
    memset(&d, 0, sizeof d);
    d.name = "scaled";
    d.looping = true;
    d.track_count = clip->track_count;
    d.tracks = tracks;
    ossa_clip *out = NULL;
    assert_int_equal(ossa_clip_create(&d, NULL, &out), OSSA_OK);
    *store = mem;
    return out;
}

/* Issue #11: a synced blend of a clip with itself at any weight equals the clip. Two
 * time-scaled copies of one clip (1.0 s and 1.6 s) are driven by the 1-D blend space and a
 * shared phase (cycle = ossa_sync_duration of the two); sampled at that phase and blended,
 * they equal the original clip sampled at the same phase, for weights across [0, 1]. */
static void synced_blend_of_clip_with_itself_is_the_clip(void **state) {
    (void)state;
    uint64_t s = 99;
    uint32_t n = 12;
    ossa_skeleton *sk = random_skeleton(&s, n);
    ossa_clip *clip = random_clip(&s, n, true);
    float d = ossa_clip_duration(clip);
    float *store_a = NULL, *store_b = NULL;
    ossa_clip *ca = time_scaled(clip, 1.0f / d, &store_a), *cb = time_scaled(clip, 1.6f / d, &store_b);
    free(store_a), free(store_b);
    ot_assert_near(ossa_clip_duration(ca), 1.0, 1e-6);
    ot_assert_near(ossa_clip_duration(cb), 1.6, 1e-6);
    const float positions[2] = {1.0f, 2.5f}; /* e.g. walk and run speeds */
    const float durs[2] = {ossa_clip_duration(ca), ossa_clip_duration(cb)};
    ossa_transform a[MAXJ], b[MAXJ], want[MAXJ], out[MAXJ];
    float phase = 0.0f;
    for (int iter = 0; iter < 45; iter++) {
        float x = iter < 5 ? 1.0f + 0.375f * (float)iter : ot_rand_float(&s, 0.5f, 3.0f); /* 0, .25 .. 1, then random */
        float w[2];
        assert_int_equal(ossa_blend_space_1d(positions, 2, x, w), OSSA_OK);
        float cycle = ossa_sync_duration(durs, w, 2);
        ot_assert_near(cycle, w[0] * 1.0 + w[1] * 1.6, 1e-5);
        phase = ossa_sync_advance(phase, ot_rand_float(&s, -2, 2), cycle);
        ot_clip_sample(ca, ca->start + phase * durs[0], true, OSSA_LOOKUP_BINARY, NULL, sk->rest, a, n);
        ot_clip_sample(cb, cb->start + phase * durs[1], true, OSSA_LOOKUP_BINARY, NULL, sk->rest, b, n);
        ot_clip_sample(clip, clip->start + phase * d, true, OSSA_LOOKUP_BINARY, NULL, sk->rest, want, n);
        ossa_blend_layer l[2] = {layer(a, n, w[0], NULL), layer(b, n, w[1], NULL)};
        assert_int_equal(run_blend(l, 2, NULL, 0, sk->rest, n, out), OSSA_OK);
        for (uint32_t j = 0; j < n; j++) assert_transform_near(&out[j], &want[j], 2e-5f);
    }
    ossa_clip_destroy(ca);
    ossa_clip_destroy(cb);
    ossa_clip_destroy(clip);
    ossa_skeleton_destroy(sk);
}

/* Properties over random skeletons, poses, weights and masks: the job equals the
 * double-precision reference of the formula; rotations are unit; translations stay in the
 * layers' bounding box; layer order does not matter beyond the rotation sign. */
static void property_random(void **state) {
    (void)state;
    uint64_t s = 1234;
    for (int iter = 0; iter < 60; iter++) {
        uint32_t n = 1 + (uint32_t)(ot_rand_u64(&s) % MAXJ);
        uint32_t count = (uint32_t)(ot_rand_u64(&s) % 5);
        static ossa_transform poses[5][MAXJ];
        static float masks[5][MAXJ];
        ossa_transform rest[MAXJ], out[MAXJ], out_rev[MAXJ];
        ossa_blend_layer layers[5], rev[5];
        float wj[5];
        const ossa_transform *pp[5];
        rand_pose(&s, rest, n);
        for (uint32_t i = 0; i < count; i++) {
            rand_pose(&s, poses[i], n);
            bool masked = ot_rand_u64(&s) % 2;
            for (uint32_t j = 0; j < n; j++) masks[i][j] = ot_rand_float(&s, 0, 1);
            float w = ot_rand_u64(&s) % 5 == 0 ? 0.0f : ot_rand_float(&s, 0, 2);
            layers[i] = layer(poses[i], n, w, masked ? masks[i] : NULL);
            pp[i] = poses[i];
        }
        for (uint32_t i = 0; i < count; i++) rev[i] = layers[count - 1 - i];
        assert_int_equal(run_blend(layers, count, NULL, 0, rest, n, out), OSSA_OK);
        assert_int_equal(run_blend(rev, count, NULL, 0, rest, n, out_rev), OSSA_OK);
        for (uint32_t j = 0; j < n; j++) {
            for (uint32_t i = 0; i < count; i++)
                wj[i] = layers[i].weight * (layers[i].joint_weights ? layers[i].joint_weights[j] : 1.0f);
            ossa_transform ref = reference_blend(pp, wj, count, rest, 0.1f, j);
            ot_assert_floats_near(&out[j].translation.x, &ref.translation.x, 3, 1e-5f);
            ot_assert_floats_near(&out[j].scale.x, &ref.scale.x, 3, 1e-5f);
            assert_same_rotation(out[j].rotation, ref.rotation, 1e-5f);
            ossa_quat q = out[j].rotation;
            ot_assert_near(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w, 1.0, 1e-5);
            float lo = rest[j].translation.x, hi = lo;
            for (uint32_t i = 0; i < count; i++) {
                lo = fminf(lo, poses[i][j].translation.x);
                hi = fmaxf(hi, poses[i][j].translation.x);
            }
            assert_true(out[j].translation.x >= lo - 1e-5f && out[j].translation.x <= hi + 1e-5f);
            ot_assert_floats_near(&out[j].translation.x, &out_rev[j].translation.x, 3, 1e-5f);
        }
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(validity),
        cmocka_unit_test(identical_poses_give_that_pose),
        cmocka_unit_test(two_layers_equal_weights_hand_formula),
        cmocka_unit_test(weights_are_normalised),
        cmocka_unit_test(rest_fallback_below_threshold),
        cmocka_unit_test(mask_subtree_and_masked_joints_untouched),
        cmocka_unit_test(additive_identity_and_roundtrip),
        cmocka_unit_test(additive_weight_and_mask_hand_worked),
        cmocka_unit_test(blend_space_and_sync),
        cmocka_unit_test(synced_blend_of_clip_with_itself_is_the_clip),
        cmocka_unit_test(property_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
