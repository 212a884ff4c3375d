/* Skeletons (src/anim/skeleton.c): parents-first reordering (child listed before parent),
 * cycles, skins, the bind pose rebuilt from inverse bind matrices, and "reorder then sample"
 * equal to "sample then reorder". */
#include "test_support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const ossa_quat ID = {0, 0, 0, 1};

static ossa_transform tr(float x, float y, float z, ossa_quat r) {
    ossa_transform t = {{x, y, z}, r, {1, 1, 1}};
    return t;
}

static void joint_order_child_first(void **state) {
    (void)state;
    /* desc: 0 -> parent 1 (listed after it), 1 root, 2 -> parent 0 */
    int32_t parents[3] = {1, -1, 0};
    uint32_t order[3], old_to_new[3];
    assert_int_equal(ossa_joint_order(parents, 3, order, old_to_new), OSSA_OK);
    const uint32_t eo[3] = {1, 0, 2}, en[3] = {1, 0, 2};
    assert_memory_equal(order, eo, sizeof eo);
    assert_memory_equal(old_to_new, en, sizeof en);
    /* Already parents-first: unchanged (stable). */
    int32_t sorted[5] = {-1, 0, 0, -1, 3};
    uint32_t o5[5], n5[5];
    assert_int_equal(ossa_joint_order(sorted, 5, o5, n5), OSSA_OK);
    for (uint32_t i = 0; i < 5; i++) assert_int_equal(o5[i], i);
    /* Two roots, children before them: 0->3, 1->2, 2 root, 3 root: order 3,0,2,1. */
    int32_t p4[4] = {3, 2, -1, -1};
    uint32_t o4[4], n4[4];
    assert_int_equal(ossa_joint_order(p4, 4, o4, n4), OSSA_OK);
    const uint32_t e4[4] = {3, 0, 2, 1};
    assert_memory_equal(o4, e4, sizeof e4);
    for (uint32_t i = 0; i < 4; i++) assert_int_equal(n4[o4[i]], i);
}

static void joint_order_rejects_cycles(void **state) {
    (void)state;
    uint32_t o[4], n[4];
    int32_t self[1] = {0};
    int32_t cyc[4] = {-1, 3, 1, 2};
    int32_t range[2] = {-1, 2};
    int32_t neg[2] = {-1, -5};
    assert_int_equal(ossa_joint_order(self, 1, o, n), OSSA_ERROR_INVALID_DATA);
    assert_int_equal(ossa_joint_order(cyc, 4, o, n), OSSA_ERROR_INVALID_DATA);
    assert_int_equal(ossa_joint_order(range, 2, o, n), OSSA_ERROR_INVALID_DATA);
    assert_int_equal(ossa_joint_order(neg, 2, o, n), OSSA_ERROR_INVALID_DATA);
    ossa_skeleton *s = (ossa_skeleton *)1;
    ossa_skeleton_desc d = {4, cyc, NULL, NULL, 0, NULL, 0.0f};
    assert_int_equal(ossa_skeleton_create(&d, NULL, &s), OSSA_ERROR_INVALID_DATA);
    assert_null(s);
}

static ossa_mat4 m_of(ossa_transform t) { return ossa_transform_to_mat4(t); }

static void bind_pose_from_inverse_bind(void **state) {
    (void)state;
    /* desc: 0 "D" -> 3, 1 "A" root, 2 "B" -> 1, 3 "C" -> 2 (C is in no skin). */
    int32_t parents[4] = {3, -1, 1, 2};
    const char *names[4] = {"D", "A", "B", NULL};
    ossa_transform rest[4] = {tr(9, 9, 9, ID), tr(7, 7, 7, ID), tr(5, 5, 5, ID), tr(1, 0, 0, ID)};
    const ossa_quat rz90 = {0, 0, 0.70710678f, 0.70710678f};
    ossa_mat4 wa = m_of(tr(0, 1, 0, ID)), wb = m_of(tr(0, 3, 0, rz90)), wd = m_of(tr(2, 3, 0, ID));
    ossa_mat4 ibm[3];
    assert_true(ossa_mat4_inverse(&wd, &ibm[0]));
    assert_true(ossa_mat4_inverse(&wa, &ibm[1]));
    assert_true(ossa_mat4_inverse(&wb, &ibm[2]));
    const uint32_t skin_joints[3] = {0, 1, 2};
    ossa_skin_desc skin = {"body", 3, skin_joints, ibm, 1};
    ossa_skeleton_desc desc = {4, parents, rest, names, 1, &skin, 0.0f};
    ossa_skeleton *s = NULL;
    assert_int_equal(ossa_skeleton_create(&desc, NULL, &s), OSSA_OK);
    /* New order A, B, C, D. */
    const uint32_t src[4] = {1, 2, 3, 0};
    const int32_t np[4] = {-1, 0, 1, 2};
    assert_memory_equal(s->source_index, src, sizeof src);
    assert_memory_equal(s->parents, np, sizeof np);
    for (uint32_t i = 0; i < 4; i++) assert_int_equal(s->joint_of_source[src[i]], i);
    assert_string_equal(s->names[0], "A");
    assert_string_equal(s->names[2], "");
    assert_int_equal(ossa_skeleton_find_joint(s, "D"), 3);
    assert_int_equal(ossa_skeleton_find_joint(s, "nope"), -1);
    assert_memory_equal(&s->rest[2], &rest[3], sizeof(ossa_transform));
    assert_int_equal(s->skin_count, 1);
    assert_string_equal(s->skins[0].name, "body");
    const uint32_t sj[3] = {3, 0, 1};
    assert_memory_equal(s->skins[0].joints, sj, sizeof sj);
    assert_int_equal(s->skins[0].root, 0);
    assert_memory_equal(&s->skins[0].inverse_bind[1], &ibm[1], sizeof(ossa_mat4));
    /* Bind locals by hand: A = T(0,1,0); B = T(0,2,0) Rz90; C = rest T(1,0,0);
     * world(C) = T(0,4,0) Rz90, so D = Rz(-90) T(0,-4,0) T(2,3,0) = T(-1,-2,0) Rz(-90). */
    const ossa_transform expect[4] = {tr(0, 1, 0, ID), tr(0, 2, 0, rz90), tr(1, 0, 0, ID),
                                      tr(-1, -2, 0, (ossa_quat){0, 0, -0.70710678f, 0.70710678f})};
    for (int j = 0; j < 4; j++) {
        ot_assert_floats_near(&s->bind[j].translation.x, &expect[j].translation.x, 3, 1e-5f);
        ossa_quat q = s->bind[j].rotation;
        if (ossa_quat_dot(q, expect[j].rotation) < 0) q = (ossa_quat){-q.x, -q.y, -q.z, -q.w};
        ot_assert_floats_near(&q.x, &expect[j].rotation.x, 4, 1e-5f);
        ot_assert_floats_near(&s->bind[j].scale.x, &expect[j].scale.x, 3, 1e-5f);
    }
    /* The bind pose reproduces every world bind matrix. */
    ossa_mat4 model[4];
    ot_local_to_model(s->bind, s->parents, 4, model);
    ot_assert_floats_near(model[0].m, wa.m, 16, 1e-5f);
    ot_assert_floats_near(model[1].m, wb.m, 16, 1e-5f);
    ot_assert_floats_near(model[3].m, wd.m, 16, 1e-5f);
    ossa_skeleton_destroy(s);
    ossa_skeleton_destroy(NULL);
}

static void create_rejects_bad_input(void **state) {
    (void)state;
    int32_t parents[2] = {-1, 0};
    const uint32_t bad_joint[1] = {5};
    ossa_skin_desc skin = {NULL, 1, bad_joint, NULL, -1};
    ossa_skeleton_desc desc = {2, parents, NULL, NULL, 1, &skin, 0.0f};
    ossa_skeleton *s = NULL;
    assert_int_equal(ossa_skeleton_create(&desc, NULL, &s), OSSA_ERROR_INVALID_DATA);
    assert_null(s);
    skin.joints = NULL;
    assert_int_equal(ossa_skeleton_create(&desc, NULL, &s), OSSA_ERROR_INVALID_ARGUMENT);
    desc.skin_count = 0;
    desc.parents = NULL;
    assert_int_equal(ossa_skeleton_create(&desc, NULL, &s), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_skeleton_create(NULL, NULL, &s), OSSA_ERROR_INVALID_ARGUMENT);
    /* Defaults: identity rest, empty names, identity IBM. */
    desc.parents = parents;
    const uint32_t j1[1] = {1};
    ossa_skin_desc skin2 = {NULL, 1, j1, NULL, -1};
    desc.skin_count = 1;
    desc.skins = &skin2;
    assert_int_equal(ossa_skeleton_create(&desc, NULL, &s), OSSA_OK);
    ossa_transform id = ossa_transform_identity();
    assert_memory_equal(&s->rest[1], &id, sizeof id);
    assert_string_equal(s->names[1], "");
    assert_string_equal(s->skins[0].name, "");
    ossa_mat4 idm = ossa_mat4_identity();
    assert_memory_equal(&s->skins[0].inverse_bind[0], &idm, sizeof idm);
    assert_true(s->metres_per_unit == 0.0f); /* not declared */
    ossa_skeleton_destroy(s);
    /* the declared unit: kept; negative or not finite refused */
    desc.metres_per_unit = 0.0254f;
    assert_int_equal(ossa_skeleton_create(&desc, NULL, &s), OSSA_OK);
    assert_true(s->metres_per_unit == 0.0254f);
    ossa_skeleton_destroy(s);
    const float bad_units[3] = {-1.0f, NAN, INFINITY};
    for (int i = 0; i < 3; i++) {
        desc.metres_per_unit = bad_units[i];
        assert_int_equal(ossa_skeleton_create(&desc, NULL, &s), OSSA_ERROR_INVALID_ARGUMENT);
        assert_null(s);
    }
}

/* ---- counting allocator ---- */
typedef struct counter { int allocs, frees; } counter;
static void *count_alloc(size_t n, void *u) { ((counter *)u)->allocs++; return malloc(n); }
static void count_free(void *p, void *u) { ((counter *)u)->frees++; free(p); }

static void uses_the_given_allocator(void **state) {
    (void)state;
    counter c = {0, 0};
    ossa_allocator a = {count_alloc, count_free, &c};
    int32_t parents[3] = {2, -1, 1};
    ossa_skeleton_desc desc = {3, parents, NULL, NULL, 0, NULL, 0.0f};
    ossa_skeleton *s = NULL;
    assert_int_equal(ossa_skeleton_create(&desc, &a, &s), OSSA_OK);
    assert_true(c.allocs >= 1);
    ossa_skeleton_destroy(s);
    assert_int_equal(c.allocs, c.frees);
}

/* Allocator that fails from the n-th allocation on: every object reports OUT_OF_MEMORY
 * and leaks nothing, whichever allocation fails. */
typedef struct failing { int left, live; } failing;
static void *fail_alloc(size_t n, void *u) {
    failing *f = u;
    if (f->left-- <= 0) return NULL;
    f->live++;
    return malloc(n);
}
static void fail_free(void *p, void *u) {
    ((failing *)u)->live--;
    free(p);
}

static void out_of_memory_leaks_nothing(void **state) {
    (void)state;
    int32_t parents[3] = {2, -1, 1};
    const uint32_t joints[2] = {0, 2};
    ossa_skin_desc skin = {"s", 2, joints, NULL, -1};
    ossa_skeleton_desc desc = {3, parents, NULL, NULL, 1, &skin, 0.0f};
    for (int n = 0; n < 4; n++) {
        failing f = {n, 0};
        ossa_allocator a = {fail_alloc, fail_free, &f};
        ossa_skeleton *s = NULL;
        ossa_result r = ossa_skeleton_create(&desc, &a, &s);
        if (r == OSSA_OK) {
            ossa_player *p = NULL;
            ossa_result pr = ossa_player_create(s, &a, &p);
            assert_true(pr == OSSA_OK || pr == OSSA_ERROR_OUT_OF_MEMORY);
            ossa_player_destroy(p);
            ossa_skeleton_destroy(s);
        } else {
            assert_int_equal(r, OSSA_ERROR_OUT_OF_MEMORY);
            assert_null(s);
        }
        assert_int_equal(f.live, 0);
    }
}

/* Real skins: the rebuilt bind pose reproduces every skin joint's world bind matrix,
 * i.e. model(bind) * IBM = identity (relative to the matrix scale). */
static void check_bind_pose(const char *relative) {
    ossa_asset *asset = ot_load_asset(relative);
    const ossa_skeleton *sk = asset->skeleton;
    assert_true(sk->skin_count > 0);
    ossa_mat4 *model = malloc(sizeof *model * sk->joint_count);
    ot_local_to_model(sk->bind, sk->parents, sk->joint_count, model);
    for (uint32_t k = 0; k < sk->skin_count; k++) {
        const ossa_skin *skin = &sk->skins[k];
        for (uint32_t i = 0; i < skin->joint_count; i++) {
            /* First skin naming a joint defines its bind; later skins may disagree. */
            bool first = true;
            for (uint32_t k2 = 0; k2 < k && first; k2++)
                for (uint32_t i2 = 0; i2 < sk->skins[k2].joint_count; i2++)
                    if (sk->skins[k2].joints[i2] == skin->joints[i]) first = false;
            if (!first) continue;
            ossa_mat4 world;
            assert_true(ossa_mat4_inverse(&skin->inverse_bind[i], &world));
            const ossa_mat4 *m = &model[skin->joints[i]];
            double scale = 1;
            for (int e = 0; e < 16; e++) scale = fmax(scale, fabs(world.m[e]));
            for (int e = 0; e < 16; e++) ot_assert_near(m->m[e], world.m[e], 2e-4 * scale);
        }
    }
    free(model);
    ossa_asset_destroy(asset);
}

static void bind_pose_woman(void **state) { (void)state; check_bind_pose("Woman/Woman.gltf"); }
static void bind_pose_simple_skin(void **state) { (void)state; check_bind_pose("simple_skin/simple_skin.gltf"); }
static void bind_pose_rigged_simple(void **state) { (void)state; check_bind_pose("rigged_simple/rigged_simple.gltf"); }
static void bind_pose_generator(void **state) {
    (void)state;
    check_bind_pose("glTF-Asset-Generator/Positive/Animation_Skin/Animation_Skin_01.gltf");
}

/* ---- reorder then sample == sample then reorder ---- */

static void random_track(uint64_t *s, ossa_track *t, float *times, float *values, ossa_track_kind kind, uint32_t comps) {
    memset(t, 0, sizeof *t);
    t->kind = kind;
    t->components = comps;
    t->interp = (ossa_interp)(1 + ot_rand_u64(s) % 3);
    uint32_t n = (uint32_t)(ot_rand_u64(s) % 6); /* 0 = absent */
    float time = ot_rand_float(s, -1, 1);
    for (uint32_t k = 0; k < n; k++) {
        times[k] = time;
        time += ot_rand_float(s, 0.05f, 0.7f);
    }
    uint32_t per = t->interp == OSSA_INTERP_CUBIC ? 3 : 1;
    for (uint32_t v = 0; v < n * per; v++) {
        if (kind == OSSA_TRACK_ROTATION) {
            ossa_quat q = ot_rand_quat(s);
            memcpy(values + v * 4, &q, sizeof q);
        } else {
            for (uint32_t c = 0; c < comps; c++) values[v * comps + c] = ot_rand_float(s, -2, 2);
        }
    }
    t->key_count = n;
    t->times = times;
    t->values = values;
}

static void reorder_then_sample_equals_sample_then_reorder(void **state) {
    (void)state;
    uint64_t s = 4242;
    enum { MAXJ = 40 };
    static float times[MAXJ][3][8], values[MAXJ][3][8 * 12];
    for (int iter = 0; iter < 300; iter++) {
        uint32_t n = 1 + (uint32_t)(ot_rand_u64(&s) % MAXJ);
        /* A parents-first forest, then scrambled into desc order by a random permutation. */
        int32_t sorted_parent[MAXJ];
        uint32_t perm[MAXJ];
        for (uint32_t i = 0; i < n; i++) {
            sorted_parent[i] = (i == 0 || ot_rand_u64(&s) % 6 == 0) ? -1 : (int32_t)(ot_rand_u64(&s) % i);
            perm[i] = i;
        }
        for (uint32_t i = n; i-- > 1;) {
            uint32_t j = (uint32_t)(ot_rand_u64(&s) % (i + 1));
            uint32_t tmp = perm[i]; perm[i] = perm[j]; perm[j] = tmp;
        }
        int32_t parents[MAXJ];
        ossa_transform rest[MAXJ];
        for (uint32_t i = 0; i < n; i++) {
            parents[perm[i]] = sorted_parent[i] < 0 ? -1 : (int32_t)perm[sorted_parent[i]];
            rest[i].translation = ossa_vec3_make(ot_rand_float(&s, -1, 1), ot_rand_float(&s, -1, 1), 0.5f);
            rest[i].rotation = ot_rand_quat(&s);
            rest[i].scale = ossa_vec3_make(1, ot_rand_float(&s, 0.5f, 1.5f), 1);
        }
        ossa_transform_track tracks[MAXJ];
        uint32_t track_count = 0;
        for (uint32_t j = 0; j < n; j++) {
            if (ot_rand_u64(&s) % 3 == 0) continue;
            ossa_transform_track *tt = &tracks[track_count++];
            tt->joint = j;
            random_track(&s, &tt->translation, times[j][0], values[j][0], OSSA_TRACK_VECTOR, 3);
            random_track(&s, &tt->rotation, times[j][1], values[j][1], OSSA_TRACK_ROTATION, 4);
            random_track(&s, &tt->scale, times[j][2], values[j][2], OSSA_TRACK_VECTOR, 3);
        }
        ossa_clip_desc cd = {0};
        cd.track_count = track_count;
        cd.tracks = tracks;
        ossa_clip *clip = NULL, *reordered = NULL;
        assert_int_equal(ossa_clip_create(&cd, NULL, &clip), OSSA_OK);
        assert_int_equal(ossa_clip_create(&cd, NULL, &reordered), OSSA_OK);
        ossa_skeleton_desc sd = {n, parents, rest, NULL, 0, NULL, 0.0f};
        ossa_skeleton *sk = NULL;
        assert_int_equal(ossa_skeleton_create(&sd, NULL, &sk), OSSA_OK);
        assert_true(ossa_pose_parents_first(sk->parents, n));
        for (uint32_t j = 0; j < n; j++) {
            int32_t p = parents[sk->source_index[j]];
            assert_int_equal(sk->parents[j], p < 0 ? -1 : (int32_t)sk->joint_of_source[p]);
        }
        assert_int_equal(ossa_clip_remap_joints(reordered, sk->joint_of_source, n), OSSA_OK);
        for (uint32_t i = 1; i < reordered->track_count; i++)
            assert_true(reordered->tracks[i - 1].joint < reordered->tracks[i].joint);
        ossa_transform a[MAXJ], b[MAXJ];
        ossa_mat4 ma[MAXJ], mb[MAXJ];
        for (int p = 0; p < 10; p++) {
            float t = ot_rand_float(&s, -2, 5);
            bool loop = p & 1;
            ot_clip_sample(clip, t, loop, OSSA_LOOKUP_BINARY, NULL, rest, a, n);
            ot_clip_sample(reordered, t, loop, OSSA_LOOKUP_TABLE, NULL, sk->rest, b, n);
            for (uint32_t j = 0; j < n; j++) assert_memory_equal(&b[j], &a[sk->source_index[j]], sizeof(ossa_transform));
            ot_local_to_model(a, parents, n, ma);
            ot_local_to_model(b, sk->parents, n, mb);
            for (uint32_t j = 0; j < n; j++) {
                const ossa_mat4 *x = &ma[sk->source_index[j]];
                for (int e = 0; e < 16; e++) ot_assert_near(mb[j].m[e], x->m[e], 1e-4 * (1 + fabs(x->m[e])));
            }
        }
        ossa_clip_destroy(clip);
        ossa_clip_destroy(reordered);
        ossa_skeleton_destroy(sk);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(joint_order_child_first),
        cmocka_unit_test(joint_order_rejects_cycles),
        cmocka_unit_test(bind_pose_from_inverse_bind),
        cmocka_unit_test(create_rejects_bad_input),
        cmocka_unit_test(uses_the_given_allocator),
        cmocka_unit_test(out_of_memory_leaks_nothing),
        cmocka_unit_test(bind_pose_woman),
        cmocka_unit_test(bind_pose_simple_skin),
        cmocka_unit_test(bind_pose_rigged_simple),
        cmocka_unit_test(bind_pose_generator),
        cmocka_unit_test(reorder_then_sample_equals_sample_then_reorder),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
