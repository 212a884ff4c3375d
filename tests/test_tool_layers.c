/* `ossa sample` layer flags (tools/ossa/layers_cli.c, docs/layers.md) on a generated glTF:
 * weights, --sync, --mask, --additive and --root-motion against hand-worked values; the same
 * override layers on the file packed (built clips only) against the glTF. */
#include "test_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gltf_writer.h"

#define PI 3.14159265358979323846

/* Hips (root) ─ Spine ─ Head. "A" (2 s): hips x 0 → 4, spine 0 → 90° about Z.
 * "B" (1 s): hips x 10 (constant), spine 0 → -90° about Z. */
static const char *write_file(void) {
    static char path[1024];
    snprintf(path, sizeof path, "%s", ot_tmp("layers.glb"));
    const float s45 = 0.70710678f;
    const float ta[2] = {0, 2}, tb[2] = {0, 1};
    const float ha[6] = {0, 0, 0, 4, 0, 0}, hb[6] = {10, 0, 0, 10, 0, 0};
    const float ra[8] = {0, 0, 0, 1, 0, 0, s45, s45}, rb[8] = {0, 0, 0, 1, 0, 0, -s45, s45};
    gw *w = gw_create();
    int a_t = gw_data(w, GW_FLOAT, false, 2, "SCALAR", ta), b_t = gw_data(w, GW_FLOAT, false, 2, "SCALAR", tb);
    int a_h = gw_data(w, GW_FLOAT, false, 2, "VEC3", ha), b_h = gw_data(w, GW_FLOAT, false, 2, "VEC3", hb);
    int a_r = gw_data(w, GW_FLOAT, false, 2, "VEC4", ra), b_r = gw_data(w, GW_FLOAT, false, 2, "VEC4", rb);
    gw_add(w, "nodes", "{\"name\": \"Hips\", \"children\": [1]}");
    gw_add(w, "nodes", "{\"name\": \"Spine\", \"children\": [2], \"translation\": [0, 1, 0]}");
    gw_add(w, "nodes", "{\"name\": \"Head\", \"translation\": [0, 1, 0]}");
    const char *anim = "{\"name\": \"%s\", \"samplers\": [{\"input\": %d, \"output\": %d}, {\"input\": %d, \"output\": %d}], "
                       "\"channels\": [{\"sampler\": 0, \"target\": {\"node\": 0, \"path\": \"translation\"}}, "
                       "{\"sampler\": 1, \"target\": {\"node\": 1, \"path\": \"rotation\"}}]}";
    gw_add(w, "animations", anim, "A", a_t, a_h, a_t, a_r);
    gw_add(w, "animations", anim, "B", b_t, b_h, b_t, b_r);
    gw_add(w, "scenes", "{\"nodes\": [0]}");
    gw_top(w, "\"scene\": 0");
    assert_int_equal(gw_save(&w, GW_GLB, path), 0);
    return path;
}

/* `ossa sample FILE ARGS`: its JSON when it exits 0 as expected; else NULL, and *output
 * (when given) gets what it printed. */
static gj *sample_file(const char *file, const char *args, int expect, char **output) {
    const char *tool = ot_tool();
    if (!tool) return NULL;
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "\"%s\" sample \"%s\" %s --vertices 0 2>&1", tool, file, args);
    char *out = NULL;
    int st = ot_run(cmd, &out);
    if (st != expect) fail_msg("'%s' exited %d (expected %d): %s", cmd, st, expect, out ? out : "");
    gj *j = expect == 0 ? gj_parse(out, strlen(out)) : NULL;
    if (expect == 0 && !j) fail_msg("not JSON: %s", out);
    if (output) *output = out;
    else free(out);
    return j;
}

static gj *sample(const char *args, int expect) { return sample_file(write_file(), args, expect, NULL); }

/* The file packed (lossless, so its built clips reproduce the editable ones to float rounding). */
static const char *write_packed(void) {
    static char path[1024];
    snprintf(path, sizeof path, "%s", ot_tmp("layers.ossa"));
    char cmd[3072], *out = NULL;
    snprintf(cmd, sizeof cmd, "\"%s\" pack \"%s\" \"%s\" --lossless 2>&1", ot_tool(), write_file(), path);
    if (ot_run(cmd, &out) != 0) fail_msg("pack failed: %s", out ? out : "");
    free(out);
    return path;
}

static double num(const gj *j, const char *fmt, int a, int b) {
    char p[256];
    snprintf(p, sizeof p, fmt, a, b);
    int t = gj_find(j, p);
    if (t < 0) fail_msg("no %s", p);
    return gj_num(j, t);
}

/* Angle about Z of node i's rotation (radians). */
static double angle_z(const gj *j, int sample_index, int node) {
    double z = num(j, "/samples/%d/nodes/%d/rotation/2", sample_index, node);
    double w = num(j, "/samples/%d/nodes/%d/rotation/3", sample_index, node);
    return 2 * atan2(z, w);
}

static void weights_and_layers_json(void **state) {
    (void)state;
    if (!ot_tool()) skip();
    /* At 0.5 s: A hips x 1, B hips x 10; weights 1 and 3 -> (1 + 30) / 4 = 7.75.
     * Spine: A 22.5°, B -45° (B at 0.5 of its 1 s) -> the blend job's nlerp. */
    gj *j = sample("--clip A --clip B --weights 1,3 --time 0.5", 0);
    ot_assert_near(num(j, "/samples/%d/nodes/%d/translation/0", 0, 0), 7.75, 1e-5);
    assert_string_equal(gj_str(j, gj_find(j, "/clip/name")), "A");
    assert_int_equal(gj_size(j, gj_find(j, "/samples/0/layers")), 2);
    assert_string_equal(gj_str(j, gj_find(j, "/samples/0/layers/1/clip")), "B");
    assert_string_equal(gj_str(j, gj_find(j, "/samples/0/layers/1/mode")), "override");
    ot_assert_near(num(j, "/samples/%d/layers/%d/weight", 0, 1), 3, 0);
    ot_assert_near(num(j, "/samples/%d/layers/%d/time", 0, 1), 0.5, 1e-6);
    assert_true(gj_is_null(j, gj_find(j, "/samples/0/layers/0/mask")));
    double qa[4] = {0, 0, sin(PI / 16), cos(PI / 16)}, qb[4] = {0, 0, sin(-PI / 8), cos(-PI / 8)};
    double q[4], l = 0;
    for (int c = 0; c < 4; c++) q[c] = 0.25 * qa[c] + 0.75 * qb[c], l += q[c] * q[c];
    ot_assert_near(angle_z(j, 0, 1), 2 * atan2(q[2] / sqrt(l), q[3] / sqrt(l)), 1e-5);
    gj_free(j);
    /* B's time is clamped to its end when not looping. */
    j = sample("--clip A --clip B --time 1.5", 0);
    ot_assert_near(num(j, "/samples/%d/layers/%d/time", 0, 1), 1.0, 1e-6);
    gj_free(j);
}

static void sync_shares_the_phase(void **state) {
    (void)state;
    if (!ot_tool()) skip();
    /* Weights 1, 1: cycle (2 + 1) / 2 = 1.5 s; t = 0.75 is phase 0.5: A at 1.0 s, B at 0.5 s.
     * t = 2.25 loops to phase 0.5 again. */
    gj *j = sample("--clip A --clip B --sync --loop --time 0.75 --time 2.25", 0);
    for (int s = 0; s < 2; s++) {
        ot_assert_near(num(j, "/samples/%d/layers/%d/time", s, 0), 1.0, 1e-5);
        ot_assert_near(num(j, "/samples/%d/layers/%d/time", s, 1), 0.5, 1e-5);
    }
    gj_free(j);
    /* The same clip twice, synced, at any weights: the clip itself. */
    j = sample("--clip A --clip A --sync --weights 0.2,0.8 --time 0.5", 0);
    ot_assert_near(num(j, "/samples/%d/nodes/%d/translation/0", 0, 0), 1.0, 1e-5);
    ot_assert_near(angle_z(j, 0, 1), PI / 8, 1e-5);
    gj_free(j);
}

static void mask_overrides_the_subtree(void **state) {
    (void)state;
    if (!ot_tool()) skip();
    /* B masked to Spine's subtree: hips from A alone (x 1), spine from B alone (-45°). */
    gj *j = sample("--clip A --clip B --mask Spine --time 0.5", 0);
    ot_assert_near(num(j, "/samples/%d/nodes/%d/translation/0", 0, 0), 1.0, 1e-6);
    ot_assert_near(angle_z(j, 0, 1), -PI / 4, 1e-5);
    assert_string_equal(gj_str(j, gj_find(j, "/samples/0/layers/1/mask")), "Spine");
    gj_free(j);
}

static void additive_on_top(void **state) {
    (void)state;
    if (!ot_tool()) skip();
    /* B's delta against its first frame at 0.5 s: spine -45°, hips 0. At weight 0.5 it is
     * nlerp(identity, -45°, 0.5) = -22.5°, on top of A's 22.5°: 0. Weight 1: -22.5°. */
    gj *j = sample("--clip A --additive B:0.5 --time 0.5", 0);
    ot_assert_near(angle_z(j, 0, 1), 0, 1e-5);
    ot_assert_near(num(j, "/samples/%d/nodes/%d/translation/0", 0, 0), 1.0, 1e-6);
    assert_string_equal(gj_str(j, gj_find(j, "/samples/0/layers/1/mode")), "additive");
    ot_assert_near(num(j, "/samples/%d/layers/%d/weight", 0, 1), 0.5, 0);
    gj_free(j);
    j = sample("--clip A --additive B --time 0.5", 0);
    ot_assert_near(angle_z(j, 0, 1), -PI / 8, 1e-5);
    gj_free(j);
}

static void root_motion_moves_the_root(void **state) {
    (void)state;
    if (!ot_tool()) skip();
    /* A walks 4 units per 2 s loop: at 1.5 s the root is at x 3; at 3 s (looping) at 6. The
     * hips' world matrix keeps the original trajectory continued over loops. */
    gj *j = sample("--clip A --root-motion --loop --time 1.5 --time 3", 0);
    ot_assert_near(num(j, "/samples/%d/root/translation/%d", 0, 0), 3, 1e-5);
    ot_assert_near(num(j, "/samples/%d/root/translation/%d", 1, 0), 6, 1e-5);
    ot_assert_near(num(j, "/samples/%d/nodes/0/world/%d", 0, 12), 3, 1e-5);
    ot_assert_near(num(j, "/samples/%d/nodes/0/world/%d", 1, 12), 6, 1e-5);
    gj_free(j);
}

/* A packed file (built clips only): override layers with weights, masks and --sync give the
 * glTF's poses and the hand-worked values above; --additive and --root-motion, which derive
 * new clips from editable ones, are refused with a message saying why. */
static void packed_file_layers(void **state) {
    (void)state;
    if (!ot_tool()) skip();
    const char *packed = write_packed();
    static const char *const ARGS[] = {
        "--clip A --clip B --weights 1,3 --time 0.5 --time 1.5",
        "--clip A --clip B --sync --loop --time 0.75 --time 2.25",
        "--clip A --clip A --sync --weights 0.2,0.8 --time 0.5",
        "--clip A --clip B --mask Spine --time 0.5 --time 1.9",
    };
    for (size_t a = 0; a < sizeof ARGS / sizeof ARGS[0]; a++) {
        gj *g = sample(ARGS[a], 0), *p = sample_file(packed, ARGS[a], 0, NULL);
        for (int t = 0; t < 2 && gj_find(g, t ? "/samples/1" : "/samples/0") >= 0; t++) {
            for (int n = 0; n < 3; n++) {
                for (int k = 0; k < 3; k++) {
                    char path[128];
                    snprintf(path, sizeof path, "/samples/%d/nodes/%d/translation/%d", t, n, k);
                    ot_assert_near(gj_num(p, gj_find(p, path)), gj_num(g, gj_find(g, path)), 1e-5);
                }
                ot_assert_near(angle_z(p, t, n), angle_z(g, t, n), 1e-5);
            }
            ot_assert_near(num(p, "/samples/%d/layers/%d/time", t, 1), num(g, "/samples/%d/layers/%d/time", t, 1), 1e-6);
            assert_string_equal(gj_str(p, gj_find(p, "/samples/0/layers/1/clip")),
                                gj_str(g, gj_find(g, "/samples/0/layers/1/clip")));
        }
        gj_free(g);
        gj_free(p);
    }
    /* hand-worked, as in mask_overrides_the_subtree: hips from A (x 1), spine from B (-45°) */
    gj *j = sample_file(packed, "--clip A --clip B --mask Spine --time 0.5", 0, NULL);
    ot_assert_near(num(j, "/samples/%d/nodes/%d/translation/0", 0, 0), 1.0, 1e-6);
    ot_assert_near(angle_z(j, 0, 1), -PI / 4, 1e-5);
    gj_free(j);
    char *out = NULL;
    sample_file(packed, "--clip A --additive B:0.5 --time 0.5", 1, &out);
    assert_non_null(strstr(out, "--additive needs editable clips"));
    assert_non_null(strstr(out, "built clips only"));
    free(out);
    sample_file(packed, "--clip A --root-motion --time 0.5", 1, &out);
    assert_non_null(strstr(out, "--root-motion needs editable clips"));
    free(out);
    sample_file(packed, "--clip A --clip Nope", 1, &out);
    assert_non_null(strstr(out, "no clip 'Nope' (2 clips)"));
    free(out);
}

static void errors(void **state) {
    (void)state;
    if (!ot_tool()) skip();
    sample("--mask Spine --clip A", 2);
    sample("--clip A --clip B --weights 1,2,3", 1);
    sample("--clip A --clip B --weights 1,x", 1);
    sample("--clip A --mask Nope", 1);
    sample("--clip A --additive Nope:0.5", 1);
    sample("--clip A --additive B:zz", 1); /* no clip named "B:zz" */
}

/* An FBX-Biped-style rig as glTF (issue 28): RootNode ─ {Light (constant translation channel),
 * Armature (-90° about X, scale 0.01, constant translation channel) ─ Hips (local +Z up) ─
 * Leg, Prop (static)}. "walk" (1 s, 9 keys): the hips travel 139 units along model +Z with a
 * sideways sway and a bob, the leg swings. The hips' keys are written in the Armature's
 * frame from the model-space positions. */
static const char *write_biped(void) {
    static char path[1024];
    snprintf(path, sizeof path, "%s", ot_tmp("biped.glb"));
    enum { K = 9 };
    float times[K], ht[K * 3], lr[K * 4], ends[2] = {0, 1}, light[6] = {4, 5, -1, 4, 5, -1};
    float arm[6] = {0.3f, 0, -0.2f, 0.3f, 0, -0.2f};
    const float s45 = 0.70710678f;
    for (int k = 0; k < K; k++) {
        double u = k / (K - 1.0), w = 2 * PI * u;
        times[k] = (float)u;
        /* model (x, y, z) = (2.9 sin w, 102.7 + 3 cos 2w, 139 u); Armature: A = T(0.3, 0, -0.2) Rx(-90°) S(0.01),
         * so local = A⁻¹ · model = (100 (x - 0.3), -100 (z + 0.2), 100 y) */
        double x = 2.9 * sin(w), y = 102.7 + 3 * cos(2 * w), z = 139 * u;
        ht[k * 3 + 0] = (float)(100 * (x - 0.3)), ht[k * 3 + 1] = (float)(-100 * (z + 0.2)), ht[k * 3 + 2] = (float)(100 * y);
        double a = 0.2 * sin(w);
        lr[k * 4 + 0] = (float)sin(a), lr[k * 4 + 1] = 0, lr[k * 4 + 2] = 0, lr[k * 4 + 3] = (float)cos(a);
    }
    gw *g = gw_create();
    int t = gw_data(g, GW_FLOAT, false, K, "SCALAR", times), e = gw_data(g, GW_FLOAT, false, 2, "SCALAR", ends);
    int h = gw_data(g, GW_FLOAT, false, K, "VEC3", ht), l = gw_data(g, GW_FLOAT, false, K, "VEC4", lr);
    int li = gw_data(g, GW_FLOAT, false, 2, "VEC3", light), ar = gw_data(g, GW_FLOAT, false, 2, "VEC3", arm);
    gw_add(g, "nodes", "{\"name\": \"RootNode\", \"children\": [1, 2, 5]}");
    gw_add(g, "nodes", "{\"name\": \"Light\", \"translation\": [4, 5, -1]}");
    gw_add(g, "nodes", "{\"name\": \"Armature\", \"children\": [3], \"translation\": [0.3, 0, -0.2], "
                       "\"rotation\": [%.8f, 0, 0, %.8f], \"scale\": [0.01, 0.01, 0.01]}", -s45, s45);
    gw_add(g, "nodes", "{\"name\": \"Hips\", \"children\": [4], \"translation\": [0, 0, 10270]}");
    gw_add(g, "nodes", "{\"name\": \"Leg\", \"translation\": [1000, 0, -4500]}");
    gw_add(g, "nodes", "{\"name\": \"Prop\", \"translation\": [500, 0, 500]}");
    gw_add(g, "animations",
           "{\"name\": \"walk\", \"samplers\": [{\"input\": %d, \"output\": %d}, {\"input\": %d, \"output\": %d}, "
           "{\"input\": %d, \"output\": %d}, {\"input\": %d, \"output\": %d}], \"channels\": ["
           "{\"sampler\": 0, \"target\": {\"node\": 1, \"path\": \"translation\"}}, "
           "{\"sampler\": 1, \"target\": {\"node\": 2, \"path\": \"translation\"}}, "
           "{\"sampler\": 2, \"target\": {\"node\": 3, \"path\": \"translation\"}}, "
           "{\"sampler\": 3, \"target\": {\"node\": 4, \"path\": \"rotation\"}}]}",
           e, li, e, ar, t, h, t, l);
    gw_add(g, "scenes", "{\"nodes\": [0]}");
    gw_top(g, "\"scene\": 0");
    assert_int_equal(gw_save(&g, GW_GLB, path), 0);
    return path;
}

/* --root-motion on the Biped-style walk, looping over three cycles: every node's world matrix
 * equals the original's at the same clip time moved 139 units along +Z per completed cycle
 * (the hips at t = 0.1 s stay at (2.9 sin 0.2π, ...), not hundreds of units off), and the
 * reported root follows the hips' ground path instead of standing still. */
static void root_motion_biped_rig(void **state) {
    (void)state;
    if (!ot_tool()) skip();
    const char *file = write_biped();
    static const double T[] = {0.1, 0.25, 0.6, 1.1, 1.875, 2.3};
    char args[512] = "--clip walk --loop", *p = args + strlen(args);
    for (size_t i = 0; i < sizeof T / sizeof T[0]; i++) p += snprintf(p, sizeof args - (size_t)(p - args), " --time %g", T[i]);
    gj *orig = sample_file(file, args, 0, NULL);
    strcat(args, " --root-motion");
    gj *rm = sample_file(file, args, 0, NULL);
    for (int i = 0; i < (int)(sizeof T / sizeof T[0]); i++) {
        double n = floor(T[i]), u = T[i] - n;
        for (int node = 0; node < 6; node++)
            for (int e = 0; e < 16; e++) {
                char path[128];
                snprintf(path, sizeof path, "/samples/%d/nodes/%d/world/%d", i, node, e);
                double want = gj_num(orig, gj_find(orig, path)) + (e == 14 ? 139 * n : 0);
                ot_assert_near(gj_num(rm, gj_find(rm, path)), want, e >= 12 ? 2e-3 : 2e-5);
            }
        /* the hips (node 3) on their model path (the key values are exact at the keys, lerped between) */
        if (fabs(u * 8 - floor(u * 8 + 0.5)) < 1e-9) {
            ot_assert_near(num(rm, "/samples/%d/nodes/3/world/%d", i, 12), 2.9 * sin(2 * PI * u), 2e-3);
            ot_assert_near(num(rm, "/samples/%d/nodes/3/world/%d", i, 14), 139 * T[i], 2e-3);
        }
        /* the root follows the hips on the ground */
        ot_assert_near(num(rm, "/samples/%d/root/translation/%d", i, 2), num(rm, "/samples/%d/nodes/3/world/%d", i, 14), 2e-3);
        ot_assert_near(num(rm, "/samples/%d/root/translation/%d", i, 1), 0, 0);
    }
    gj_free(orig);
    gj_free(rm);
}

/* Rotation keys stored with w >= 0 (an exporter's habit): 0°, 120°, then 240° stored as -120°.
 * The slerp takes the short arc through 180°, so the sampled quaternions cross the hemisphere
 * boundary; along the --time sequence `ossa sample` keeps consecutive rotations on one side
 * (dot >= 0), and each is still the rotation by the expected angle about Y. */
static void sample_quaternions_keep_their_sign(void **state) {
    (void)state;
    if (!ot_tool()) skip();
    static char path[1024];
    snprintf(path, sizeof path, "%s", ot_tmp("spin.glb"));
    const float times[3] = {0, 1, 2}, s60 = 0.8660254f;
    const float rot[12] = {0, 0, 0, 1, 0, s60, 0, 0.5f, 0, -s60, 0, 0.5f};
    gw *g = gw_create();
    int t = gw_data(g, GW_FLOAT, false, 3, "SCALAR", times), r = gw_data(g, GW_FLOAT, false, 3, "VEC4", rot);
    gw_add(g, "nodes", "{\"name\": \"Spin\"}");
    gw_add(g, "animations", "{\"name\": \"spin\", \"samplers\": [{\"input\": %d, \"output\": %d}], "
                            "\"channels\": [{\"sampler\": 0, \"target\": {\"node\": 0, \"path\": \"rotation\"}}]}", t, r);
    gw_add(g, "scenes", "{\"nodes\": [0]}");
    assert_int_equal(gw_save(&g, GW_GLB, path), 0);
    const double T[] = {0, 0.5, 1, 1.25, 1.5, 1.75, 2, 2.5};
    const double deg[] = {0, 60, 120, 150, 180, 210, 240, 240};
    gj *j = sample_file(path, "--clip spin --time 0 --time 0.5 --time 1 --time 1.25 --time 1.5 --time 1.75 --time 2 --time 2.5", 0, NULL);
    double prev[4] = {0, 0, 0, 1};
    for (int i = 0; i < 8; i++) {
        double q[4];
        for (int c = 0; c < 4; c++) q[c] = num(j, "/samples/%d/nodes/0/rotation/%d", i, c);
        double dot = q[0] * prev[0] + q[1] * prev[1] + q[2] * prev[2] + q[3] * prev[3];
        if (i && dot < 0) fail_msg("time %g: rotation flips sign (dot %g with the previous sample)", T[i], dot);
        double h = deg[i] * PI / 360; /* the same rotation: (0, sin h, 0, cos h) up to sign */
        ot_assert_near(fabs(q[1] * sin(h) + q[3] * cos(h)), 1, 1e-5);
        memcpy(prev, q, sizeof q);
    }
    gj_free(j);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(weights_and_layers_json),
        cmocka_unit_test(sync_shares_the_phase),
        cmocka_unit_test(mask_overrides_the_subtree),
        cmocka_unit_test(additive_on_top),
        cmocka_unit_test(root_motion_moves_the_root),
        cmocka_unit_test(root_motion_biped_rig),
        cmocka_unit_test(sample_quaternions_keep_their_sign),
        cmocka_unit_test(packed_file_layers),
        cmocka_unit_test(errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
