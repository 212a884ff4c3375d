/* glTF import on the shared third-party assets (../shared/assets; every case
 * skips with a printed reason when they are absent). Animation values are
 * checked against a reference sampler written here from the glTF spec over
 * accessor data read independently (tests/support/gltf_writer.c), going by each
 * sampler's interpolation (not the clip name); meshes against the raw POSITION
 * data; skins by the bind-pose identity; malformed and validator files by the
 * expected error or warning. */
#include "test_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gltf_writer.h"
#include "ref_math.h"

static const char *const POSITIVE[] = {
    "Woman/Woman.gltf",
    "rigged_simple/rigged_simple.gltf",
    "box_animated/box_animated.gltf",
    "interpolation_test/interpolation_test.gltf",
    "triangle/triangle.gltf",
    "simple_skin/simple_skin.gltf",
    "AnimatedMorphCube/AnimatedMorphCube.gltf",
    "glTF-Asset-Generator/Positive/Animation_Skin/Animation_Skin_00.gltf",
    "glTF-Asset-Generator/Positive/Animation_Skin/Animation_Skin_01.gltf",
    "glTF-Asset-Generator/Positive/Animation_SkinType/Animation_SkinType_00.gltf",
    "glTF-Asset-Generator/Positive/Animation_Node/Animation_Node_00.gltf",
    "glTF-Asset-Generator/Positive/Animation_Node/Animation_Node_03.gltf",
    "glTF-Asset-Generator/Positive/Animation_Node/Animation_Node_05.gltf",
    "glTF-Asset-Generator/Positive/Animation_SamplerType/Animation_SamplerType_00.gltf",
    "glTF-Asset-Generator/Positive/Animation_NodeMisc/Animation_NodeMisc_00.gltf",
    "glTF-Asset-Generator/Positive/Buffer_Interleaved/Buffer_Interleaved_00.gltf",
};
#define POSITIVE_COUNT (sizeof POSITIVE / sizeof POSITIVE[0])

static ossa_asset *load_asset(const char *rel) {
    const char *path = ot_asset(rel);
    if (!path) return NULL;
    ossa_asset *a = NULL;
    ossa_diagnostic d;
    ossa_result r = ossa_gltf_load_file(path, NULL, &a, &d);
    if (r) fail_msg("%s: %s: %s", rel, ossa_result_string(r), d.message);
    return a;
}

/* ------------------------------------------------------------ reference sampler (glTF spec) */

static void ref_channel(const float *times, uint32_t n, const float *out, uint32_t comps, int interp, bool rotation,
                        float t, float *res) {
    /* interp: 0 LINEAR, 1 STEP, 2 CUBICSPLINE */
    uint32_t per = interp == 2 ? 3 : 1;
    const float *val = out + (interp == 2 ? comps : 0); /* value of key k at val + k*per*comps */
    if (n == 1 || t <= times[0]) {
        memcpy(res, val, comps * sizeof(float));
    } else if (t >= times[n - 1]) {
        memcpy(res, val + (size_t)(n - 1) * per * comps, comps * sizeof(float));
    } else {
        uint32_t k = 0;
        while (k + 2 < n && t >= times[k + 1]) k++;
        double dt = (double)times[k + 1] - times[k], u = (t - times[k]) / dt;
        const float *a = val + (size_t)k * per * comps, *b = val + (size_t)(k + 1) * per * comps;
        if (interp == 1) {
            memcpy(res, a, comps * sizeof(float));
        } else if (interp == 0 && !rotation) {
            for (uint32_t c = 0; c < comps; c++) res[c] = (float)(a[c] + (b[c] - a[c]) * u);
        } else if (interp == 0) {
            double d = 0, bb[4];
            for (int c = 0; c < 4; c++) d += (double)a[c] * b[c];
            for (int c = 0; c < 4; c++) bb[c] = d < 0 ? -b[c] : b[c];
            d = fabs(d);
            double wa = 1 - u, wb = u;
            if (d < 0.9995) {
                double th = acos(d > 1 ? 1 : d);
                wa = sin((1 - u) * th) / sin(th), wb = sin(u * th) / sin(th);
            }
            double l = 0, r[4];
            for (int c = 0; c < 4; c++) r[c] = wa * a[c] + wb * bb[c], l += r[c] * r[c];
            for (int c = 0; c < 4; c++) res[c] = (float)(r[c] / sqrt(l));
        } else {
            const float *bout = a + comps, *ain = b - comps; /* out-tangent of k, in-tangent of k+1 */
            double u2 = u * u, u3 = u2 * u, l = 0;
            for (uint32_t c = 0; c < comps; c++) {
                double v = (2 * u3 - 3 * u2 + 1) * a[c] + (u3 - 2 * u2 + u) * dt * bout[c] + (-2 * u3 + 3 * u2) * b[c] +
                           (u3 - u2) * dt * ain[c];
                res[c] = (float)v;
                l += v * v;
            }
            if (rotation)
                for (uint32_t c = 0; c < comps; c++) res[c] = (float)(res[c] / sqrt(l));
        }
    }
}

static int interp_of(const char *s) {
    if (!s || !strcmp(s, "LINEAR")) return 0;
    if (!strcmp(s, "STEP")) return 1;
    return 2;
}

/* Checks every channel of every animation of `rel` at key times, midpoints and outside the range. */
static void check_animations(const char *rel) {
    ossa_asset *a = load_asset(rel);
    if (!a) {
        skip();
        return;
    }
    gr *g = gr_open(ot_asset(rel));
    assert_non_null(g);
    const gj *j = gr_json(g);
    int anims = gj_size(j, gj_find(j, "/animations"));
    assert_int_equal((int)a->clip_count, anims < 0 ? 0 : anims);
    uint32_t jn = a->skeleton->joint_count;
    ossa_transform *pose = calloc(jn, sizeof *pose);
    assert_non_null(pose);
    int checked = 0;
    for (int an = 0; an < anims; an++) {
        const ossa_clip *clip = a->clips[an];
        int chans = gj_size(j, gj_findf(j, "/animations/%d/channels", an));
        for (int c = 0; c < chans; c++) {
            int s = (int)gj_num(j, gj_findf(j, "/animations/%d/channels/%d/sampler", an, c));
            int node = (int)gj_num(j, gj_findf(j, "/animations/%d/channels/%d/target/node", an, c));
            char path[32];
            snprintf(path, sizeof path, "%s", gj_str(j, gj_findf(j, "/animations/%d/channels/%d/target/path", an, c)));
            int interp = interp_of(gj_str(j, gj_findf(j, "/animations/%d/samplers/%d/interpolation", an, s)));
            uint32_t n, one, on, oc;
            float *times = gr_accessor(g, (int)gj_num(j, gj_findf(j, "/animations/%d/samplers/%d/input", an, s)), &n, &one);
            float *out = gr_accessor(g, (int)gj_num(j, gj_findf(j, "/animations/%d/samplers/%d/output", an, s)), &on, &oc);
            bool rotation = !strcmp(path, "rotation"), weights = !strcmp(path, "weights");
            uint32_t comps = weights ? on / n / (interp == 2 ? 3 : 1) : oc;
            uint32_t joint = a->nodes[node].joint;
            int wt = -1;
            for (uint32_t k = 0; k < clip->weight_track_count; k++)
                if (clip->weight_tracks[k].joint == joint) wt = (int)k;
            if (weights) assert_true(wt >= 0);
            /* probe times: keys, midpoints, quarter points, outside */
            for (uint32_t k = 0; k + 1 < n + 1; k++) {
                float probes[4] = {times[k], k + 1 < n ? 0.5f * (times[k] + times[k + 1]) : times[k] + 1.0f,
                                   k + 1 < n ? times[k] + 0.25f * (times[k + 1] - times[k]) : times[0] - 1.0f,
                                   k + 1 < n ? times[k] + 0.9f * (times[k + 1] - times[k]) : times[k] + 100.0f};
                for (int p = 0; p < 4; p++) {
                    float t = probes[p], expect[64], got[64];
                    ref_channel(times, n, out, comps, interp, rotation, t, expect);
                    if (weights) {
                        ot_clip_sample_weights(clip, (uint32_t)wt, t, false, OSSA_LOOKUP_DEFAULT, NULL, got);
                    } else {
                        ot_clip_sample(clip, t, false, OSSA_LOOKUP_DEFAULT, NULL, a->skeleton->rest, pose, jn);
                        const float *src = !strcmp(path, "translation") ? &pose[joint].translation.x
                                           : rotation                   ? &pose[joint].rotation.x
                                                                        : &pose[joint].scale.x;
                        memcpy(got, src, comps * sizeof(float));
                    }
                    float sign = 1;
                    if (rotation && got[0] * expect[0] + got[1] * expect[1] + got[2] * expect[2] + got[3] * expect[3] < 0)
                        sign = -1;
                    for (uint32_t q = 0; q < comps; q++)
                        if (!(fabsf(got[q] - sign * expect[q]) <= 2e-4f * (1 + fabsf(expect[q]))))
                            fail_msg("%s: animation %d channel %d (%s, %s) at t=%g: component %u = %.7g, expected %.7g", rel,
                                     an, c, path, interp == 0 ? "LINEAR" : interp == 1 ? "STEP" : "CUBICSPLINE", t, q,
                                     got[q], sign * expect[q]);
                    checked++;
                }
            }
            free(times);
            free(out);
        }
    }
    printf("[          ] %s: %d channel samples match the reference\n", rel, checked);
    free(pose);
    gr_close(g);
    ossa_asset_destroy(a);
}

static void animations_match_reference(void **state) {
    (void)state;
    bool any = false;
    for (size_t i = 0; i < POSITIVE_COUNT; i++) {
        if (!ot_asset(POSITIVE[i])) continue;
        any = true;
        check_animations(POSITIVE[i]);
    }
    if (!any) skip();
}

/* Every ossa_mesh's positions equal the file's POSITION data (sparse/stride honoured). */
static void meshes_match_raw_positions(void **state) {
    (void)state;
    bool any = false;
    for (size_t i = 0; i < POSITIVE_COUNT; i++) {
        ossa_asset *a = ot_asset(POSITIVE[i]) ? load_asset(POSITIVE[i]) : NULL;
        if (!a) continue;
        any = true;
        gr *g = gr_open(ot_asset(POSITIVE[i]));
        assert_non_null(g);
        const gj *j = gr_json(g);
        for (uint32_t m = 0; m < a->mesh_count; m++) {
            const ossa_mesh *mesh = a->meshes[m];
            int acc = (int)gj_num(j, gj_findf(j, "/meshes/%u/primitives/%u/attributes/POSITION", mesh->source_mesh,
                                              mesh->source_primitive));
            uint32_t n, c;
            float *p = gr_accessor(g, acc, &n, &c);
            assert_int_equal(n, mesh->vertex_count);
            assert_int_equal(c, 3);
            ot_assert_floats_near(mesh->positions, p, (size_t)n * 3, 0);
            /* weights renormalised to 1 (or all zero) */
            for (uint32_t v = 0; v < mesh->vertex_count && mesh->influences; v++) {
                double s = 0;
                for (uint32_t k = 0; k < mesh->influences; k++) s += mesh->weights[v * mesh->influences + k];
                assert_true(fabs(s - 1) < 1e-5 || s == 0);
            }
            free(p);
        }
        gr_close(g);
        ossa_asset_destroy(a);
    }
    if (!any) skip();
}

/* ------------------------------------------------------------ skins: bind pose identity */

static void check_bind_pose(const char *rel) {
    ossa_asset *a = load_asset(rel);
    if (!a) return;
    const ossa_skeleton *sk = a->skeleton;
    uint32_t n = sk->joint_count;
    float(*world)[16] = calloc(n, sizeof *world);
    assert_non_null(world);
    for (uint32_t j = 0; j < n; j++) {
        float local[16];
        ref_mat_transform(&sk->bind[j], local);
        if (sk->parents[j] < 0) memcpy(world[j], local, sizeof local);
        else ref_mul(world[sk->parents[j]], local, world[j]);
    }
    assert_true(sk->skin_count >= 1);
    for (uint32_t s = 0; s < sk->skin_count; s++) {
        const ossa_skin *skin = &sk->skins[s];
        float first[16];
        for (uint32_t k = 0; k < skin->joint_count; k++) {
            float m[16];
            ref_mul(world[skin->joints[k]], skin->inverse_bind[k].m, m);
            if (k == 0) memcpy(first, m, sizeof m);
            for (int e = 0; e < 16; e++)
                if (!(fabsf(m[e] - first[e]) <= 2e-3f * (1 + fabsf(first[e]))))
                    fail_msg("%s: skin %u joint %u: world*IBM[%d] = %g, joint 0 gives %g", rel, s, k, e, m[e], first[e]);
        }
        /* the mesh is undeformed: every skinned vertex is first * v */
        for (uint32_t mi = 0; mi < a->mesh_count; mi++) {
            const ossa_mesh *mesh = a->meshes[mi];
            if (mesh->skin != (int32_t)s || !mesh->influences) continue;
            ossa_mat4 *palette = calloc(n, sizeof *palette);
            float *out = calloc((size_t)mesh->vertex_count * 3, sizeof(float));
            assert_non_null(palette);
            assert_non_null(out);
            for (uint32_t j = 0; j < n; j++) palette[j] = ossa_mat4_identity();
            for (uint32_t k = 0; k < skin->joint_count; k++) ref_mul(world[skin->joints[k]], skin->inverse_bind[k].m, palette[skin->joints[k]].m);
            ossa_skin_job job;
            memset(&job, 0, sizeof job);
            job.end = mesh->vertex_count;
            job.vertex_count = mesh->vertex_count;
            job.influences = mesh->influences;
            job.joints = mesh->joints;
            job.weights = mesh->weights;
            job.palette = palette;
            job.palette_count = n;
            job.positions = mesh->positions;
            job.out_positions = out;
            job.kernel = OSSA_SKIN_KERNEL_SCALAR;
            assert_int_equal(ossa_skin_job_run(&job), OSSA_OK);
            for (uint32_t v = 0; v < mesh->vertex_count; v++) {
                const float *p = mesh->positions + 3 * v;
                for (uint32_t r = 0; r < 3; r++) {
                    float e = first[r] * p[0] + first[4 + r] * p[1] + first[8 + r] * p[2] + first[12 + r];
                    ot_assert_near(out[3 * v + r], e, 2e-3 * (1 + fabs(e)));
                }
            }
            free(palette);
            free(out);
        }
    }
    printf("[          ] %s: bind pose world x IBM is one matrix for every joint\n", rel);
    free(world);
    ossa_asset_destroy(a);
}

static void skins_bind_pose(void **state) {
    (void)state;
    if (!ot_asset("simple_skin/simple_skin.gltf")) skip();
    check_bind_pose("simple_skin/simple_skin.gltf");
    check_bind_pose("rigged_simple/rigged_simple.gltf");
    check_bind_pose("glTF-Asset-Generator/Positive/Animation_Skin/Animation_Skin_00.gltf");
    check_bind_pose("glTF-Asset-Generator/Positive/Animation_SkinType/Animation_SkinType_00.gltf");
    check_bind_pose("Woman/Woman.gltf");
}


/* ------------------------------------------------------------ `ossa sample` vs a fully independent skinning */

/* Local matrix of node i at time t (clip `an`, or the rest pose when an < 0), from the raw file. */
static void raw_local(gr *g, int an, int i, float t, float m[16]) {
    const gj *j = gr_json(g);
    int mt = gj_findf(j, "/nodes/%d/matrix", i);
    float tr[3] = {0, 0, 0}, q[4] = {0, 0, 0, 1}, sc[3] = {1, 1, 1};
    for (int k = 0; k < 3; k++) {
        int tt = gj_findf(j, "/nodes/%d/translation/%d", i, k), st = gj_findf(j, "/nodes/%d/scale/%d", i, k);
        if (tt >= 0) tr[k] = (float)gj_num(j, tt);
        if (st >= 0) sc[k] = (float)gj_num(j, st);
    }
    for (int k = 0; k < 4; k++) {
        int rt = gj_findf(j, "/nodes/%d/rotation/%d", i, k);
        if (rt >= 0) q[k] = (float)gj_num(j, rt);
    }
    bool animated = false;
    for (int c = 0; an >= 0 && c < gj_size(j, gj_findf(j, "/animations/%d/channels", an)); c++) {
        if ((int)gj_num(j, gj_findf(j, "/animations/%d/channels/%d/target/node", an, c)) != i) continue;
        const char *path = gj_str(j, gj_findf(j, "/animations/%d/channels/%d/target/path", an, c));
        char p[16];
        snprintf(p, sizeof p, "%s", path ? path : "");
        int smp = (int)gj_num(j, gj_findf(j, "/animations/%d/channels/%d/sampler", an, c));
        int interp = interp_of(gj_str(j, gj_findf(j, "/animations/%d/samplers/%d/interpolation", an, smp)));
        uint32_t n, one, on, oc;
        float *times = gr_accessor(g, (int)gj_num(j, gj_findf(j, "/animations/%d/samplers/%d/input", an, smp)), &n, &one);
        float *out = gr_accessor(g, (int)gj_num(j, gj_findf(j, "/animations/%d/samplers/%d/output", an, smp)), &on, &oc);
        float *dst = !strcmp(p, "translation") ? tr : !strcmp(p, "rotation") ? q : !strcmp(p, "scale") ? sc : NULL;
        if (dst) ref_channel(times, n, out, oc, interp, dst == q, t, dst), animated = true;
        free(times);
        free(out);
    }
    if (mt >= 0 && !animated) {
        for (int k = 0; k < 16; k++) m[k] = (float)gj_num(j, gj_findf(j, "/nodes/%d/matrix/%d", i, k));
        return;
    }
    ossa_transform x = {{tr[0], tr[1], tr[2]}, {q[0], q[1], q[2], q[3]}, {sc[0], sc[1], sc[2]}};
    ref_mat_transform(&x, m);
}

static void raw_world(gr *g, int an, float t, int count, float (*world)[16]) {
    const gj *j = gr_json(g);
    int *parent = malloc(sizeof(int) * (size_t)count);
    assert_non_null(parent);
    for (int i = 0; i < count; i++) parent[i] = -1;
    for (int i = 0; i < count; i++)
        for (int c = 0; c < gj_size(j, gj_findf(j, "/nodes/%d/children", i)); c++)
            parent[(int)gj_num(j, gj_findf(j, "/nodes/%d/children/%d", i, c))] = i;
    for (int i = 0; i < count; i++) {
        float m[16], acc[16];
        raw_local(g, an, i, t, acc);
        for (int p = parent[i]; p >= 0; p = parent[p]) {
            raw_local(g, an, p, t, m);
            ref_mul(m, acc, acc);
        }
        memcpy(world[i], acc, sizeof acc);
    }
    free(parent);
}

static void check_cli_skinning(const char *rel, float t) {
    const char *path = ot_asset(rel);
    if (!path) return;
    char full[1024], cmd[2048];
    snprintf(full, sizeof full, "%s", path);
    gr *g = gr_open(full);
    assert_non_null(g);
    const gj *j = gr_json(g);
    int nodes = gj_size(j, gj_find(j, "/nodes"));
    bool has_anim = gj_find(j, "/animations/0") >= 0;
    float(*world)[16] = calloc((size_t)nodes, sizeof *world);
    assert_non_null(world);
    raw_world(g, has_anim ? 0 : -1, t, nodes, world);
    if (has_anim) snprintf(cmd, sizeof cmd, "\"%s\" sample \"%s\" --clip 0 --time %.9g --vertices all", ot_tool(), full, t);
    else snprintf(cmd, sizeof cmd, "\"%s\" sample \"%s\" --vertices all", ot_tool(), full);
    char *out = NULL;
    assert_int_equal(ot_run(cmd, &out), 0);
    gj *o = gj_parse(out, strlen(out));
    assert_non_null(o);
    /* nodes' world matrices */
    for (int i = 0; i < nodes; i++)
        for (int e = 0; e < 16; e++)
            ot_assert_near(gj_num(o, gj_findf(o, "/samples/0/nodes/%d/world/%d", i, e)), world[i][e],
                           1e-4 * (1 + fabsf(world[i][e])));
    int checked = 0;
    for (int s = 0; s < gj_size(o, gj_find(o, "/samples/0/skinned")); s++) {
        int node = (int)gj_num(o, gj_findf(o, "/samples/0/skinned/%d/node", s));
        int mesh = (int)gj_num(o, gj_findf(o, "/samples/0/skinned/%d/mesh", s));
        int prim = (int)gj_num(o, gj_findf(o, "/samples/0/skinned/%d/primitive", s));
        int skin = (int)gj_num(j, gj_findf(j, "/nodes/%d/skin", node));
        int joints = gj_size(j, gj_findf(j, "/skins/%d/joints", skin));
        int ibm_acc = gj_findf(j, "/skins/%d/inverseBindMatrices", skin);
        uint32_t n, c;
        float *ibm = ibm_acc >= 0 ? gr_accessor(g, (int)gj_num(j, ibm_acc), &n, &c) : NULL;
        float(*pal)[16] = calloc((size_t)joints, sizeof *pal);
        assert_non_null(pal);
        for (int k = 0; k < joints; k++) {
            int jn = (int)gj_num(j, gj_findf(j, "/skins/%d/joints/%d", skin, k));
            float id[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
            ref_mul(world[jn], ibm ? ibm + 16 * k : id, pal[k]);
        }
        uint32_t nv, pc, jc, wc;
        float *pos = gr_accessor(g, (int)gj_num(j, gj_findf(j, "/meshes/%d/primitives/%d/attributes/POSITION", mesh, prim)), &nv, &pc);
        float *jts = gr_accessor(g, (int)gj_num(j, gj_findf(j, "/meshes/%d/primitives/%d/attributes/JOINTS_0", mesh, prim)), &n, &jc);
        float *wts = gr_accessor(g, (int)gj_num(j, gj_findf(j, "/meshes/%d/primitives/%d/attributes/WEIGHTS_0", mesh, prim)), &n, &wc);
        assert_int_equal(gj_size(o, gj_findf(o, "/samples/0/skinned/%d/positions", s)), (int)nv);
        for (uint32_t v = 0; v < nv; v++) {
            double e[3] = {0, 0, 0}, sum = 0;
            for (uint32_t k = 0; k < 4; k++) sum += wts[v * 4 + k];
            for (uint32_t k = 0; k < 4; k++) {
                const float *m = pal[(int)jts[v * 4 + k]];
                double w = sum > 0 ? wts[v * 4 + k] / sum : 0;
                const float *p = pos + 3 * v;
                for (int r = 0; r < 3; r++) e[r] += w * (m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r]);
            }
            for (int r = 0; r < 3; r++)
                ot_assert_near(gj_num(o, gj_findf(o, "/samples/0/skinned/%d/positions/%u/%d", s, v, r)), e[r],
                               2e-4 * (1 + fabs(e[r])));
            checked++;
        }
        free(pos);
        free(jts);
        free(wts);
        free(ibm);
        free(pal);
    }
    printf("[          ] ossa sample %s at t=%g: %d skinned vertices match independent skinning\n", rel, t, checked);
    assert_true(checked > 0);
    gj_free(o);
    free(out);
    free(world);
    gr_close(g);
}

static void cli_skinning_matches_raw_data(void **state) {
    (void)state;
    if (!ot_tool() || !ot_asset("simple_skin/simple_skin.gltf")) skip();
    const float times[] = {0.0f, 0.7f, 1.9f, 3.3f};
    for (size_t i = 0; i < sizeof times / sizeof times[0]; i++) {
        check_cli_skinning("simple_skin/simple_skin.gltf", times[i]);
        check_cli_skinning("rigged_simple/rigged_simple.gltf", times[i] * 0.5f);
        check_cli_skinning("glTF-Asset-Generator/Positive/Animation_Skin/Animation_Skin_01.gltf", times[i] * 0.5f);
        check_cli_skinning("glTF-Asset-Generator/Positive/Animation_SkinType/Animation_SkinType_00.gltf", times[i] * 0.5f);
    }
    check_cli_skinning("glTF-Asset-Generator/Positive/Animation_Skin/Animation_Skin_00.gltf", 0.0f);
    check_cli_skinning("Woman/Woman.gltf", 0.35f);
}

/* ------------------------------------------------------------ the main model */

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void woman(void **state) {
    (void)state;
    const char *rel = "Woman/Woman.gltf";
    if (!ot_asset(rel)) skip();
    double t[5];
    ossa_asset *a = NULL;
    for (int i = 0; i < 5; i++) {
        ossa_asset_destroy(a);
        double t0 = now();
        a = load_asset(rel);
        t[i] = now() - t0;
    }
    qsort(t, 5, sizeof t[0], cmp_double);
    printf("[          ] Woman.gltf load: median %.2f ms of 5 (this build type)\n", t[2] * 1e3);
    assert_int_equal(a->node_count, 43);
    assert_int_equal(a->skeleton->skin_count, 1);
    assert_int_equal(a->skeleton->skins[0].joint_count, 41);
    assert_int_equal(a->mesh_count, 1);
    assert_int_equal(a->meshes[0]->vertex_count, 5718);
    assert_int_equal(a->meshes[0]->influences, 4);
    assert_int_equal(a->clip_count, 10);
    static const struct { const char *name; float duration; } CLIPS[] = {
        {"Running", 0.7f}, {"Jump2", 1.0f}, {"PickUp", 5.967f}, {"SitIdle", 6.4f}, {"Idle", 8.333f},
        {"Punch", 1.0f},   {"Sitting", 4.433f}, {"Walking", 1.2f}, {"Jump", 2.6f}, {"Lean_Left", 8.333f},
    };
    for (int c = 0; c < 10; c++) {
        assert_int_equal(ossa_asset_find_clip(a, CLIPS[c].name), c);
        ot_assert_near(ossa_clip_duration(a->clips[c]), CLIPS[c].duration, 2e-3);
        uint32_t channels = 0;
        for (uint32_t k = 0; k < a->clips[c]->track_count; k++) {
            const ossa_transform_track *tt = &a->clips[c]->tracks[k];
            channels += (tt->translation.key_count > 0 ? 1u : 0u) + (tt->rotation.key_count > 0 ? 1u : 0u) +
                        (tt->scale.key_count > 0 ? 1u : 0u);
            assert_int_equal(tt->rotation.interp, OSSA_INTERP_LINEAR);
        }
        assert_int_equal(channels, 102);
    }
    assert_int_equal(a->warning_count, 0);
    /* the same clips bound by joint name to the loaded skeleton */
    ossa_asset *c = NULL;
    ossa_diagnostic d;
    assert_int_equal(ossa_gltf_load_clips(ot_asset(rel), a->skeleton, NULL, &c, &d), OSSA_OK);
    assert_int_equal(c->clip_count, 10);
    assert_int_equal(c->warning_count, 0);
    for (int k = 0; k < 10; k++) {
        assert_int_equal(c->clips[k]->track_count, a->clips[k]->track_count);
        for (uint32_t t2 = 0; t2 < c->clips[k]->track_count; t2++) {
            assert_int_equal(c->clips[k]->tracks[t2].joint, a->clips[k]->tracks[t2].joint);
            assert_int_equal(c->clips[k]->tracks[t2].rotation.key_count, a->clips[k]->tracks[t2].rotation.key_count);
        }
    }
    ossa_asset_destroy(c);
    ossa_asset_destroy(a);
}

/* ------------------------------------------------------------ malformed and validator files */

typedef struct expectation {
    const char *file;
    ossa_result result;     /* OSSA_OK: loads, with `needle` among the warnings when set */
    const char *needle;     /* substring of the diagnostic or of a warning */
} expectation;

static const expectation MALFORMED[] = {
    {"malformed/IndexOutOfRange/IndexOutOfRange.gltf", OSSA_ERROR_INVALID_DATA, "index 255"},
    {"malformed/IndexOutOfRange/AllIndicesOutOfRange.gltf", OSSA_ERROR_INVALID_DATA, "index 65535"},
    {"malformed/IncorrectVertexArrays/Cube.gltf", OSSA_ERROR_INVALID_DATA, "exceeds buffer 0"},
    {"malformed/RecursiveNodes/RecursiveNodes.gltf", OSSA_ERROR_INVALID_DATA, "cycle"},
    {"malformed/TestNoRootNode/NoScene.gltf", OSSA_ERROR_INVALID_DATA, "scene: scenes index 0 out of range"},
    {"malformed/TestNoRootNode/SceneWithoutNodes.gltf", OSSA_OK, NULL},
    {"malformed/MissingBin/BoxTextured.gltf", OSSA_ERROR_IO, "buffers[0]: cannot open"},
    {"malformed/SchemaFailures/sceneWrongType.gltf", OSSA_ERROR_INVALID_DATA, "scene: expected a number"},
    {"malformed/wrongTypes/badArray.gltf", OSSA_ERROR_INVALID_DATA, "meshes[0].primitives: expected an array"},
    {"malformed/wrongTypes/badObject.gltf", OSSA_OK, "pbrMetallicRoughness is not an object"},
    {"malformed/wrongTypes/badNumber.gltf", OSSA_OK, "normalTexture.scale is not a number"},
    {"malformed/wrongTypes/badString.gltf", OSSA_OK, "scenes[0].name: expected a string"},
    {"malformed/wrongTypes/badUint.gltf", OSSA_OK, "baseColorTexture.index is not a non-negative integer"},
    {"malformed/wrongTypes/badExtension.gltf", OSSA_OK, "extensions has a non-object value"},
    {"malformed/BoxBadNormals-glTF-Binary/BoxBadNormals.glb", OSSA_OK, "8 of 24 normals are not unit length"},
    {"malformed/BoxWithInfinites-glTF-Binary/BoxWithInfinites.glb", OSSA_ERROR_INVALID_DATA, "is not finite"},
    /* glTF-Validator unit tests: broken ones whose fault touches data ossa reads */
    {"glTF-Validator-tests/animation/valid.gltf", OSSA_OK, NULL},
    {"glTF-Validator-tests/animation/sampler_output_count_invalid.gltf", OSSA_ERROR_INVALID_DATA,
     "animations[0].samplers[0]: output count 2, expected 1 for LINEAR"},
    {"glTF-Validator-tests/animation/unresolved_channel_target.gltf", OSSA_ERROR_INVALID_DATA, "target.node"},
    {"glTF-Validator-tests/animation_data/invalid_input_values.gltf", OSSA_ERROR_INVALID_DATA, "not strictly increasing"},
    {"glTF-Validator-tests/skin/valid.gltf", OSSA_OK, NULL},
    {"glTF-Validator-tests/skin/unresolved_joint.gltf", OSSA_ERROR_INVALID_DATA, "skins[0].joints[0]"},
    {"glTF-Validator-tests/skin_data/invalid_ibm.gltf", OSSA_OK, "is not affine"},
    {"glTF-Validator-tests/accessor_data/get_elements_sparse.gltf", OSSA_OK, NULL},
    {"glTF-Validator-tests/glb/valid.glb", OSSA_OK, NULL},
    {"glTF-Validator-tests/glb/length_mismatch.glb", OSSA_ERROR_PARSE, "GLB: header length"},
};

static void malformed_and_validator_files(void **state) {
    (void)state;
    int ran = 0;
    for (size_t i = 0; i < sizeof MALFORMED / sizeof MALFORMED[0]; i++) {
        const expectation *e = &MALFORMED[i];
        const char *path = ot_asset(e->file);
        if (!path) continue;
        ran++;
        ossa_asset *a = NULL;
        ossa_diagnostic d;
        ossa_result r = ossa_gltf_load_file(path, NULL, &a, &d);
        if (r != e->result)
            fail_msg("%s: %s (%s), expected %s", e->file, ossa_result_string(r), d.message, ossa_result_string(e->result));
        if (r) {
            assert_null(a);
            if (e->needle && !strstr(d.message, e->needle)) fail_msg("%s: diagnostic '%s' lacks '%s'", e->file, d.message, e->needle);
            printf("[          ] %s -> %s: %s\n", e->file, ossa_result_string(r), d.message);
        } else {
            bool found = e->needle == NULL;
            for (uint32_t w = 0; w < a->warning_count; w++)
                if (e->needle && strstr(a->warnings[w], e->needle)) found = true;
            if (!found) fail_msg("%s: no warning containing '%s' (%u warnings)", e->file, e->needle, a->warning_count);
            printf("[          ] %s -> OK, %u warning(s)%s%s\n", e->file, a->warning_count, a->warning_count ? ": " : "",
                   a->warning_count ? a->warnings[0] : "");
            ossa_asset_destroy(a);
        }
    }
    if (!ran) skip();
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(woman),
        cmocka_unit_test(animations_match_reference),
        cmocka_unit_test(meshes_match_raw_positions),
        cmocka_unit_test(skins_bind_pose),
        cmocka_unit_test(malformed_and_validator_files),
        cmocka_unit_test(cli_skinning_matches_raw_data),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
