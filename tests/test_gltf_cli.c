/* `ossa info` and `ossa sample` on a generated skinned, morphed, animated file:
 * the printed JSON is parsed back (jsmn) and compared with node transforms,
 * world matrices and skinned vertices computed here from the source data. */
#include "test_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gltf_writer.h"
#include "ref_math.h"

static void ref_inverse_rigid(const float m[16], float o[16]) {
    memset(o, 0, 16 * sizeof(float));
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) o[c * 4 + r] = m[r * 4 + c];
    for (int r = 0; r < 3; r++) o[12 + r] = -(o[r] * m[12] + o[4 + r] * m[13] + o[8 + r] * m[14]);
    o[15] = 1;
}

static void ref_slerp(const float a[4], const float b0[4], double t, float o[4]) {
    double b[4] = {b0[0], b0[1], b0[2], b0[3]};
    double d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    if (d < 0) {
        d = -d;
        for (int i = 0; i < 4; i++) b[i] = -b[i];
    }
    double th = acos(d > 1 ? 1 : d), wa = 1 - t, wb = t;
    if (d < 0.9995) wa = sin((1 - t) * th) / sin(th), wb = sin(t * th) / sin(th);
    double r[4], l = 0;
    for (int i = 0; i < 4; i++) r[i] = wa * a[i] + wb * b[i], l += r[i] * r[i];
    for (int i = 0; i < 4; i++) o[i] = (float)(r[i] / sqrt(l));
}

#define NV 4
typedef struct src {
    rtrs rest[4];
    float ibm[2][16];
    float pos[NV][3], nrm[NV][3], delta[NV][3];
    uint8_t joints[NV][4];
    float weights[NV][4];
    float times[3], rot[3][4], tr[3][3], mw[3];
} src;

static void make_src(src *s) {
    memset(s, 0, sizeof *s);
    uint64_t rng = 42;
    for (int i = 0; i < 4; i++) s->rest[i].q[3] = 1, s->rest[i].s[0] = s->rest[i].s[1] = s->rest[i].s[2] = 1;
    s->rest[0].t[0] = 0.5f;
    s->rest[1].t[1] = 1;
    ossa_quat q = ot_rand_quat(&rng);
    s->rest[1].q[0] = q.x, s->rest[1].q[1] = q.y, s->rest[1].q[2] = q.z, s->rest[1].q[3] = q.w;
    s->rest[2].t[1] = 1;
    s->rest[3].t[0] = s->rest[3].t[1] = s->rest[3].t[2] = 10;
    float w0[16], w1[16], w2[16], l[16];
    ref_mat(&s->rest[0], w0);
    ref_mat(&s->rest[1], l);
    ref_mul(w0, l, w1);
    ref_mat(&s->rest[2], l);
    ref_mul(w1, l, w2);
    ref_inverse_rigid(w1, s->ibm[0]);
    ref_inverse_rigid(w2, s->ibm[1]);
    for (int v = 0; v < NV; v++) {
        for (int k = 0; k < 3; k++) {
            s->pos[v][k] = ot_rand_float(&rng, -1, 1) + (k == 1 ? 1.5f : 0);
            s->delta[v][k] = ot_rand_float(&rng, -0.3f, 0.3f);
        }
        float n[3] = {ot_rand_float(&rng, -1, 1), ot_rand_float(&rng, -1, 1), 1};
        float len = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        for (int k = 0; k < 3; k++) s->nrm[v][k] = n[k] / len;
        s->joints[v][0] = 0, s->joints[v][1] = 1;
        s->weights[v][0] = 0.25f * (float)v;
        s->weights[v][1] = 1 - s->weights[v][0];
    }
    s->times[0] = 1, s->times[1] = 2, s->times[2] = 3;
    for (int k = 0; k < 3; k++) {
        ossa_quat r = ot_rand_quat(&rng);
        s->rot[k][0] = r.x, s->rot[k][1] = r.y, s->rot[k][2] = r.z, s->rot[k][3] = r.w;
        for (int c = 0; c < 3; c++) s->tr[k][c] = ot_rand_float(&rng, -1, 1);
    }
    s->mw[0] = 0, s->mw[1] = 1, s->mw[2] = 0.5f;
}

static void write_src(const src *s, const char *path) {
    gw *w = gw_create();
    int p = gw_data(w, GW_FLOAT, false, NV, "VEC3", s->pos);
    int n = gw_data(w, GW_FLOAT, false, NV, "VEC3", s->nrm);
    int j = gw_data(w, GW_UBYTE, false, NV, "VEC4", s->joints);
    int wt = gw_data(w, GW_FLOAT, false, NV, "VEC4", s->weights);
    int d = gw_data(w, GW_FLOAT, false, NV, "VEC3", s->delta);
    int ibm = gw_data(w, GW_FLOAT, false, 2, "MAT4", s->ibm);
    const uint8_t tri[6] = {0, 1, 2, 0, 2, 3};
    int ix = gw_data(w, GW_UBYTE, false, 6, "SCALAR", tri);
    int ti = gw_data(w, GW_FLOAT, false, 3, "SCALAR", s->times);
    int ro = gw_data(w, GW_FLOAT, false, 3, "VEC4", s->rot);
    int tr = gw_data(w, GW_FLOAT, false, 3, "VEC3", s->tr);
    int mw = gw_data(w, GW_FLOAT, false, 3, "SCALAR", s->mw);
    gw_add(w, "meshes",
           "{\"name\": \"m\", \"weights\": [0.5], \"primitives\": [{\"attributes\": {\"POSITION\": %d, \"NORMAL\": %d, "
           "\"JOINTS_0\": %d, \"WEIGHTS_0\": %d}, \"indices\": %d, \"targets\": [{\"POSITION\": %d}]}]}",
           p, n, j, wt, ix, d);
    gw_add(w, "nodes", "{\"name\": \"root\", \"children\": [1, 3], \"translation\": [%.9g, 0, 0]}", s->rest[0].t[0]);
    gw_add(w, "nodes", "{\"name\": \"upper\", \"children\": [2], \"translation\": [0, 1, 0], \"rotation\": [%.9g, %.9g, %.9g, %.9g]}",
           s->rest[1].q[0], s->rest[1].q[1], s->rest[1].q[2], s->rest[1].q[3]);
    gw_add(w, "nodes", "{\"name\": \"lower\", \"translation\": [0, 1, 0]}");
    gw_add(w, "nodes", "{\"name\": \"skinned \\\"mesh\\\"\", \"mesh\": 0, \"skin\": 0, \"translation\": [10, 10, 10]}");
    gw_add(w, "skins", "{\"joints\": [1, 2], \"inverseBindMatrices\": %d}", ibm);
    gw_add(w, "animations",
           "{\"name\": \"wave\", \"samplers\": [{\"input\": %d, \"output\": %d}, {\"input\": %d, \"output\": %d}, "
           "{\"input\": %d, \"output\": %d}], \"channels\": ["
           "{\"sampler\": 0, \"target\": {\"node\": 1, \"path\": \"rotation\"}},"
           "{\"sampler\": 1, \"target\": {\"node\": 2, \"path\": \"translation\"}},"
           "{\"sampler\": 2, \"target\": {\"node\": 3, \"path\": \"weights\"}}]}",
           ti, ro, ti, tr, ti, mw);
    gw_add(w, "scenes", "{\"nodes\": [0]}");
    gw_top(w, "\"scene\": 0");
    assert_int_equal(gw_save(&w, GW_GLB, path), 0);
}

/* Reference pose at clip time t (already clamped/wrapped), or the rest pose. */
static void reference(const src *s, bool animated, double t, rtrs local[4], float world[4][16], float *morph) {
    memcpy(local, s->rest, 4 * sizeof *local);
    *morph = 0.5f;
    if (animated) {
        int k = t >= 2 ? 1 : 0;
        double u = (t - s->times[k]) / (s->times[k + 1] - s->times[k]);
        if (u > 1) u = 1;
        ref_slerp(s->rot[k], s->rot[k + 1], u, local[1].q);
        for (int c = 0; c < 3; c++) local[2].t[c] = (float)(s->tr[k][c] + (s->tr[k + 1][c] - s->tr[k][c]) * u);
        *morph = (float)(s->mw[k] + (s->mw[k + 1] - s->mw[k]) * u);
    }
    static const int parent[4] = {-1, 0, 1, 0};
    for (int i = 0; i < 4; i++) {
        float m[16];
        ref_mat(&local[i], m);
        if (parent[i] < 0) memcpy(world[i], m, sizeof m);
        else ref_mul(world[parent[i]], m, world[i]);
    }
}

static char *run_tool(const char *args, int expect_status) {
    const char *tool = ot_tool();
    if (!tool) return NULL;
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "\"%s\" %s", tool, args);
    char *out = NULL;
    int st = ot_run(cmd, &out);
    if (st != expect_status) fail_msg("'%s' exited %d (expected %d): %s", cmd, st, expect_status, out ? out : "");
    return out;
}

static void check_sample(const src *s, const gj *j, int sample, bool animated, double t, uint32_t vertices) {
    rtrs local[4];
    float world[4][16], mw;
    reference(s, animated, t, local, world, &mw);
    for (int i = 0; i < 4; i++) {
        assert_int_equal((int)gj_num(j, gj_findf(j, "/samples/%d/nodes/%d/index", sample, i)), i);
        for (int c = 0; c < 3; c++) {
            ot_assert_near(gj_num(j, gj_findf(j, "/samples/%d/nodes/%d/translation/%d", sample, i, c)), local[i].t[c], 1e-5);
            ot_assert_near(gj_num(j, gj_findf(j, "/samples/%d/nodes/%d/scale/%d", sample, i, c)), local[i].s[c], 1e-5);
        }
        double dot = 0, q[4];
        for (int c = 0; c < 4; c++) {
            q[c] = gj_num(j, gj_findf(j, "/samples/%d/nodes/%d/rotation/%d", sample, i, c));
            dot += q[c] * local[i].q[c];
        }
        for (int c = 0; c < 4; c++) ot_assert_near(q[c], (dot < 0 ? -1 : 1) * local[i].q[c], 2e-5);
        for (int e = 0; e < 16; e++)
            ot_assert_near(gj_num(j, gj_findf(j, "/samples/%d/nodes/%d/world/%d", sample, i, e)), world[i][e], 5e-5);
        /* "weights" only on the node whose mesh has morph targets: the sampled (or default) weight */
        if (i == 3) {
            assert_int_equal(gj_size(j, gj_findf(j, "/samples/%d/nodes/3/weights", sample)), 1);
            ot_assert_near(gj_num(j, gj_findf(j, "/samples/%d/nodes/3/weights/0", sample)), mw, 1e-6);
        } else {
            assert_true(gj_findf(j, "/samples/%d/nodes/%d/weights", sample, i) < 0);
        }
    }
    assert_int_equal(gj_size(j, gj_findf(j, "/samples/%d/skinned", sample)), 1);
    assert_int_equal((int)gj_num(j, gj_findf(j, "/samples/%d/skinned/0/node", sample)), 3);
    assert_int_equal((int)gj_num(j, gj_findf(j, "/samples/%d/skinned/0/mesh", sample)), 0);
    assert_int_equal((int)gj_num(j, gj_findf(j, "/samples/%d/skinned/0/primitive", sample)), 0);
    assert_int_equal(gj_size(j, gj_findf(j, "/samples/%d/skinned/0/positions", sample)), (int)vertices);
    float pal[2][16];
    ref_mul(world[1], s->ibm[0], pal[0]);
    ref_mul(world[2], s->ibm[1], pal[1]);
    for (uint32_t v = 0; v < vertices; v++) {
        float p[3], pe[3] = {0, 0, 0}, ne[3] = {0, 0, 0};
        for (int c = 0; c < 3; c++) p[c] = s->pos[v][c] + mw * s->delta[v][c];
        for (int k = 0; k < 2; k++) {
            const float *m = pal[s->joints[v][k]];
            float wgt = s->weights[v][k];
            for (int r = 0; r < 3; r++) {
                pe[r] += wgt * (m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r]);
                ne[r] += wgt * (m[r] * s->nrm[v][0] + m[4 + r] * s->nrm[v][1] + m[8 + r] * s->nrm[v][2]);
            }
        }
        float nl = sqrtf(ne[0] * ne[0] + ne[1] * ne[1] + ne[2] * ne[2]);
        for (int r = 0; r < 3; r++) {
            ot_assert_near(gj_num(j, gj_findf(j, "/samples/%d/skinned/0/positions/%u/%d", sample, v, r)), pe[r], 1e-4);
            ot_assert_near(gj_num(j, gj_findf(j, "/samples/%d/skinned/0/normals/%u/%d", sample, v, r)), ne[r] / nl, 1e-4);
        }
    }
}

static gj *parse_output(char *out) {
    gj *j = gj_parse(out, strlen(out));
    if (!j) fail_msg("output is not JSON: %.300s", out);
    return j;
}

static void sample_clip(void **state) {
    (void)state;
    if (!ot_tool()) skip();
    src s;
    make_src(&s);
    char path[512], args[1024];
    snprintf(path, sizeof path, "%s", ot_tmp("cli_wave.glb"));
    write_src(&s, path);
    snprintf(args, sizeof args, "sample \"%s\" --clip wave --time 1.5 --time 2.75 --time 9 --time -4 --vertices all", path);
    char *out = run_tool(args, 0);
    gj *j = parse_output(out);
    assert_string_equal(gj_str(j, gj_find(j, "/clip/name")), "wave");
    ot_assert_near(gj_num(j, gj_find(j, "/clip/index")), 0, 0);
    ot_assert_near(gj_num(j, gj_find(j, "/clip/start")), 1, 0);
    ot_assert_near(gj_num(j, gj_find(j, "/clip/end")), 3, 0);
    assert_int_equal(gj_size(j, gj_find(j, "/samples")), 4);
    /* "time" is the time actually sampled: 9 clamps to the end, -4 to the start */
    ot_assert_near(gj_num(j, gj_find(j, "/samples/0/time")), 1.5, 0);
    ot_assert_near(gj_num(j, gj_find(j, "/samples/1/time")), 2.75, 0);
    ot_assert_near(gj_num(j, gj_find(j, "/samples/2/time")), 3, 0);
    ot_assert_near(gj_num(j, gj_find(j, "/samples/3/time")), 1, 0);
    assert_string_equal(gj_str(j, gj_find(j, "/samples/0/nodes/3/name")), "skinned \\\"mesh\\\"");
    check_sample(&s, j, 0, true, 1.5, NV);
    check_sample(&s, j, 1, true, 2.75, NV);
    check_sample(&s, j, 2, true, 3.0, NV); /* clamped */
    check_sample(&s, j, 3, true, 1.0, NV);
    gj_free(j);
    free(out);
    /* --loop wraps into [1, 3]: 3.5 → 1.5; clip by index; first N vertices */
    snprintf(args, sizeof args, "sample \"%s\" --clip 0 --loop --time 3.5 --vertices 2", path);
    out = run_tool(args, 0);
    j = parse_output(out);
    ot_assert_near(gj_num(j, gj_find(j, "/samples/0/time")), 1.5, 0); /* wrapped */
    check_sample(&s, j, 0, true, 1.5, 2);
    gj_free(j);
    free(out);
    /* a NaN time is an error naming the option */
    snprintf(args, sizeof args, "sample \"%s\" --clip 0 --time nan 2>&1", path);
    out = run_tool(args, 2);
    assert_non_null(strstr(out, "--time 'nan' is not a number"));
    free(out);
}

/* Every command prints its full help on --help and exits 0. */
static void help_exits_zero(void **state) {
    (void)state;
    if (!ot_tool()) skip();
    const char *cmds[] = {"info", "sample", "render", "bench", "plot", "view", "demo"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        char args[64], want[64];
        bool draws = !strcmp(cmds[i], "render") || !strcmp(cmds[i], "view") || !strcmp(cmds[i], "demo");
        if (draws && !ot_gl_tool()) {
            ot_skip_part("'ossa %s --help': the tool was built without GL", cmds[i]);
            continue;
        }
        snprintf(args, sizeof args, "%s --help", cmds[i]);
        snprintf(want, sizeof want, "usage: ossa %s", cmds[i]);
        char *out = run_tool(args, 0);
        if (!out || !strstr(out, want)) fail_msg("'ossa %s' printed: %s", args, out ? out : "(nothing)");
        assert_true(strchr(strchr(out, '\n') + 1, '\n') != NULL); /* more than the one usage line */
        free(out);
    }
}

static void sample_rest_pose(void **state) {
    (void)state;
    if (!ot_tool()) skip();
    src s;
    make_src(&s);
    char path[512], args[1024];
    snprintf(path, sizeof path, "%s", ot_tmp("cli_rest.glb"));
    write_src(&s, path);
    snprintf(args, sizeof args, "sample \"%s\"", path);
    char *out = run_tool(args, 0);
    gj *j = parse_output(out);
    assert_true(gj_is_null(j, gj_find(j, "/clip")));
    assert_int_equal(gj_size(j, gj_find(j, "/samples")), 1);
    ot_assert_near(gj_num(j, gj_find(j, "/samples/0/time")), 0, 0);
    check_sample(&s, j, 0, false, 0, NV);
    gj_free(j);
    free(out);
    snprintf(args, sizeof args, "sample \"%s\" --clip nope", path);
    free(run_tool(args, 1));
    free(run_tool("sample", 2));
    snprintf(args, sizeof args, "sample \"%s\" 2>/dev/null", ot_tmp("does_not_exist.gltf"));
    free(run_tool(args, 1));
}

static void info_json_and_text(void **state) {
    (void)state;
    if (!ot_tool()) skip();
    src s;
    make_src(&s);
    char path[512], args[1024];
    snprintf(path, sizeof path, "%s", ot_tmp("cli_info.glb"));
    write_src(&s, path);
    snprintf(args, sizeof args, "info \"%s\" --json", path);
    char *out = run_tool(args, 0);
    gj *j = parse_output(out);
    assert_int_equal(gj_size(j, gj_find(j, "/nodes")), 4);
    ot_assert_near(gj_num(j, gj_find(j, "/scene")), 0, 0);
    ot_assert_near(gj_num(j, gj_find(j, "/nodes/2/parent")), 1, 0);
    assert_int_equal(gj_size(j, gj_find(j, "/nodes/0/children")), 2);
    assert_int_equal(gj_size(j, gj_find(j, "/nodes/1/joint_of")), 1);
    assert_int_equal(gj_size(j, gj_find(j, "/nodes/0/joint_of")), 0);
    ot_assert_near(gj_num(j, gj_find(j, "/nodes/3/skin")), 0, 0);
    ot_assert_near(gj_num(j, gj_find(j, "/skins/0/joints/0")), 1, 0);
    ot_assert_near(gj_num(j, gj_find(j, "/skins/0/joints/1")), 2, 0);
    ot_assert_near(gj_num(j, gj_find(j, "/primitives/0/vertices")), NV, 0);
    ot_assert_near(gj_num(j, gj_find(j, "/primitives/0/influences")), 4, 0);
    ot_assert_near(gj_num(j, gj_find(j, "/primitives/0/targets")), 1, 0);
    ot_assert_near(gj_num(j, gj_find(j, "/meshes/0/targets")), 1, 0);
    assert_string_equal(gj_str(j, gj_find(j, "/clips/0/name")), "wave");
    ot_assert_near(gj_num(j, gj_find(j, "/clips/0/duration")), 2, 0);
    ot_assert_near(gj_num(j, gj_find(j, "/clips/0/channels/rotation")), 1, 0);
    ot_assert_near(gj_num(j, gj_find(j, "/clips/0/channels/translation")), 1, 0);
    ot_assert_near(gj_num(j, gj_find(j, "/clips/0/channels/weights")), 1, 0);
    assert_string_equal(gj_str(j, gj_find(j, "/clips/0/interpolations/0")), "LINEAR");
    assert_int_equal(gj_size(j, gj_find(j, "/warnings")), 0);
    gj_free(j);
    free(out);
    snprintf(args, sizeof args, "info \"%s\"", path);
    out = run_tool(args, 0);
    assert_non_null(strstr(out, "[2] lower  joint of skin 0"));
    assert_non_null(strstr(out, "'wave': 2 s"));
    assert_non_null(strstr(out, "4 vertices"));
    free(out);
}

static void info_on_assets(void **state) {
    (void)state;
    const char *woman = ot_asset("Woman/Woman.gltf");
    if (!woman || !ot_tool()) skip();
    char args[1024];
    snprintf(args, sizeof args, "info \"%s\" --json", woman);
    char *out = run_tool(args, 0);
    gj *j = parse_output(out);
    assert_int_equal(gj_size(j, gj_find(j, "/clips")), 10);
    assert_int_equal(gj_size(j, gj_find(j, "/skins/0/joints")), 41);
    ot_assert_near(gj_num(j, gj_find(j, "/primitives/0/vertices")), 5718, 0);
    gj_free(j);
    free(out);
    snprintf(args, sizeof args, "sample \"%s\" --clip Walking --time 0.6 --vertices 3", woman);
    out = run_tool(args, 0);
    j = parse_output(out);
    assert_int_equal(gj_size(j, gj_find(j, "/samples/0/nodes")), 43);
    assert_int_equal(gj_size(j, gj_find(j, "/samples/0/skinned/0/positions")), 3);
    gj_free(j);
    free(out);
}


/* Non-finite numbers print as null, so the output stays valid JSON. */
static void sample_non_finite_is_null(void **state) {
    (void)state;
    if (!ot_tool()) skip();
    gw *w = gw_create();
    gw_add(w, "nodes", "{\"name\": \"big\", \"children\": [1], \"scale\": [3e38, 1, 1]}");
    gw_add(w, "nodes", "{\"name\": \"bigger\", \"scale\": [10, 1, 1]}");
    size_t n;
    uint8_t *bytes = gw_finish(w, GW_EMBEDDED, NULL, NULL, &n);
    char path[512], args[1024];
    snprintf(path, sizeof path, "%s", ot_tmp("cli_inf.gltf"));
    assert_int_equal(gw_write_file(path, bytes, n), 0);
    snprintf(args, sizeof args, "sample \"%s\" --time 0", path);
    char *out = run_tool(args, 0);
    gj *j = parse_output(out);
    assert_true(gj_is_null(j, gj_find(j, "/samples/0/nodes/1/world/0")));
    ot_assert_near(gj_num(j, gj_find(j, "/samples/0/nodes/1/world/5")), 1, 0);
    gj_free(j);
    free(out);
    free(bytes);
    gw_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sample_clip),
        cmocka_unit_test(sample_rest_pose),
        cmocka_unit_test(info_json_and_text),
        cmocka_unit_test(info_on_assets),
        cmocka_unit_test(sample_non_finite_is_null),
        cmocka_unit_test(help_exits_zero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
