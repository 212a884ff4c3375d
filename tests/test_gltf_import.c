/* glTF import (src/import) on generated files: every container, sparse accessors,
 * u8/u16 joints, normalised weights, 8 influences, a node given as a matrix, a
 * skinned mesh node with its own transform, clips not starting at 0, quantised
 * rotations; each import is checked against the in-memory data it came from,
 * with reference math written here. Then errors, warnings, limits, truncation. */
#include "test_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gltf_writer.h"
#include "ref_math.h"

/* ------------------------------------------------------------ reference math (independent of src/math) */

static void ref_inverse_affine(const float m[16], float o[16]) {
    double a = m[0], b = m[4], c = m[8], d = m[1], e = m[5], f = m[9], g = m[2], h = m[6], i = m[10];
    double det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g);
    double inv[9] = {(e * i - f * h) / det, -(b * i - c * h) / det, (b * f - c * e) / det,
                     -(d * i - f * g) / det, (a * i - c * g) / det, -(a * f - c * d) / det,
                     (d * h - e * g) / det, -(a * h - b * g) / det, (a * e - b * d) / det};
    /* inv is row-major rows of the 3x3 inverse */
    memset(o, 0, 16 * sizeof(float));
    for (int r = 0; r < 3; r++)
        for (int col = 0; col < 3; col++) o[col * 4 + r] = (float)inv[r * 3 + col];
    for (int r = 0; r < 3; r++)
        o[12 + r] = (float)-(inv[r * 3 + 0] * m[12] + inv[r * 3 + 1] * m[13] + inv[r * 3 + 2] * m[14]);
    o[15] = 1;
}

static void ref_slerp(const float a[4], const float b0[4], float t, float o[4]) {
    double b[4] = {b0[0], b0[1], b0[2], b0[3]};
    double d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    if (d < 0) {
        d = -d;
        for (int i = 0; i < 4; i++) b[i] = -b[i];
    }
    double wa, wb;
    if (d > 0.9995) {
        wa = 1 - t, wb = t;
    } else {
        double th = acos(d);
        wa = sin((1 - t) * th) / sin(th), wb = sin(t * th) / sin(th);
    }
    double l = 0;
    double r[4];
    for (int i = 0; i < 4; i++) {
        r[i] = wa * a[i] + wb * b[i];
        l += r[i] * r[i];
    }
    for (int i = 0; i < 4; i++) o[i] = (float)(r[i] / sqrt(l));
}

static float ref_hermite(float s, float p0, float m0, float p1, float m1) {
    float s2 = s * s, s3 = s2 * s;
    return (2 * s3 - 3 * s2 + 1) * p0 + (s3 - 2 * s2 + s) * m0 + (-2 * s3 + 3 * s2) * p1 + (s3 - s2) * m1;
}

static void assert_quat_near(const float *a, const float *b, float tol) {
    float d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    float sgn = d < 0 ? -1.0f : 1.0f;
    for (int i = 0; i < 4; i++) ot_assert_near(a[i], sgn * b[i], tol);
}

/* ------------------------------------------------------------ the generated character */

#define NV 6
static const char *const NODE_NAMES[5] = {"head", "root", "spine", "hip", "body"};
static const int NODE_PARENT[5] = {2, -1, 3, 1, 1};
static const uint32_t SKIN_JOINTS[3] = {3, 2, 0};

typedef struct src_scene {
    rtrs node[5];
    float ibm[3][16];
    float pos[NV][3], pos_final[NV][3], nrm[NV][3];
    uint8_t j0[NV][4];
    uint8_t w0[NV][4];
    uint16_t j1[NV][4];
    float w1[NV][4];
    uint16_t indices[NV];
    uint8_t sparse_idx[2];
    float sparse_val[2][3];
    float target_sparse[2][3];  /* morph deltas of vertices 0 and 5 (no bufferView) */
    uint16_t p1_joints[NV][4];
    float p1_weights[NV][4];
    float times[3];
    float hip_t[3][3];
    int16_t spine_q[3][4];      /* normalised SHORT rotations */
    float head_s[3][3];
    float root_cubic[3][3][4];  /* key: in, value, out */
    float wtimes[2], wvals[2];
} src_scene;

static void make_scene(src_scene *s, uint64_t seed) {
    memset(s, 0, sizeof *s);
    uint64_t rng = seed;
    for (int i = 0; i < 5; i++) {
        rtrs *x = &s->node[i];
        for (int k = 0; k < 3; k++) x->t[k] = ot_rand_float(&rng, -1, 1), x->s[k] = 1;
        ossa_quat q = ot_rand_quat(&rng);
        x->q[0] = q.x, x->q[1] = q.y, x->q[2] = q.z, x->q[3] = q.w;
    }
    s->node[1].s[0] = s->node[1].s[1] = s->node[1].s[2] = 2.0f; /* the matrix node: uniform scale 2 */
    s->node[2].s[1] = 1.5f;
    s->node[4].t[0] = 5.0f; /* mesh node's own transform (ignored by skinning) */
    /* world rest matrices → inverse bind matrices */
    float world[5][16];
    int order[5] = {1, 3, 2, 0, 4};
    for (int o = 0; o < 5; o++) {
        int i = order[o];
        float local[16];
        ref_mat(&s->node[i], local);
        if (NODE_PARENT[i] < 0) memcpy(world[i], local, sizeof local);
        else ref_mul(world[NODE_PARENT[i]], local, world[i]);
    }
    for (int k = 0; k < 3; k++) ref_inverse_affine(world[SKIN_JOINTS[k]], s->ibm[k]);
    for (int v = 0; v < NV; v++) {
        for (int k = 0; k < 3; k++) s->pos[v][k] = ot_rand_float(&rng, -1, 1);
        float n[3] = {ot_rand_float(&rng, -1, 1), ot_rand_float(&rng, -1, 1), 0.5f};
        float l = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        for (int k = 0; k < 3; k++) s->nrm[v][k] = n[k] / l;
        for (int k = 0; k < 4; k++) {
            s->j0[v][k] = (uint8_t)((v + k) % 3);
            s->w0[v][k] = (uint8_t)(10 + 20 * k + v);
            s->j1[v][k] = (uint16_t)((v + 2 * k) % 3);
            s->w1[v][k] = 0.05f * (float)(k + 1);
            s->p1_joints[v][k] = (uint16_t)((v * 7 + k) % 3);
            s->p1_weights[v][k] = v == 3 ? 0.0f : 0.1f * (float)(k + v % 2); /* vertex 3: all zero */
        }
        s->indices[v] = (uint16_t)(NV - 1 - v);
    }
    memcpy(s->pos_final, s->pos, sizeof s->pos);
    s->sparse_idx[0] = 1, s->sparse_idx[1] = 4;
    for (int e = 0; e < 2; e++)
        for (int k = 0; k < 3; k++) {
            s->sparse_val[e][k] = 10.0f + (float)(e * 3 + k);
            s->pos_final[s->sparse_idx[e]][k] = s->sparse_val[e][k];
            s->target_sparse[e][k] = 0.5f * (float)(k + 1) * (e ? -1.0f : 1.0f);
        }
    s->times[0] = 1.0f, s->times[1] = 1.5f, s->times[2] = 2.0f;
    for (int k = 0; k < 3; k++) {
        for (int c = 0; c < 3; c++) {
            s->hip_t[k][c] = ot_rand_float(&rng, -2, 2);
            s->head_s[k][c] = ot_rand_float(&rng, 0.5f, 2);
        }
        ossa_quat q = ot_rand_quat(&rng);
        float qq[4] = {q.x, q.y, q.z, q.w};
        for (int c = 0; c < 4; c++) s->spine_q[k][c] = (int16_t)lrintf(qq[c] * 32767.0f);
        ossa_quat v = ot_rand_quat(&rng);
        float vv[4] = {v.x, v.y, v.z, v.w};
        for (int c = 0; c < 4; c++) {
            s->root_cubic[k][0][c] = ot_rand_float(&rng, -0.5f, 0.5f);
            s->root_cubic[k][1][c] = vv[c];
            s->root_cubic[k][2][c] = ot_rand_float(&rng, -0.5f, 0.5f);
        }
    }
    s->wtimes[0] = 0, s->wtimes[1] = 1;
    s->wvals[0] = 0, s->wvals[1] = 1;
}

/* Writes the scene into a writer. */
static gw *write_scene(const src_scene *s) {
    gw *w = gw_create();
    /* POSITION with sparse substitution */
    int pv = gw_view(w, s->pos, sizeof s->pos, 0);
    int siv = gw_view(w, s->sparse_idx, sizeof s->sparse_idx, 0);
    int svv = gw_view(w, s->sparse_val, sizeof s->sparse_val, 0);
    char sparse[256];
    snprintf(sparse, sizeof sparse,
             "\"sparse\": {\"count\": 2, \"indices\": {\"bufferView\": %d, \"componentType\": 5121}, "
             "\"values\": {\"bufferView\": %d}}",
             siv, svv);
    int pos = gw_accessor(w, pv, 0, GW_FLOAT, false, NV, "VEC3", sparse);
    /* NORMAL interleaved with a padding float: byteStride 16 */
    float inter[NV][4];
    for (int v = 0; v < NV; v++) inter[v][0] = s->nrm[v][0], inter[v][1] = s->nrm[v][1], inter[v][2] = s->nrm[v][2], inter[v][3] = 99;
    int nview = gw_view(w, inter, sizeof inter, 16);
    int nrm = gw_accessor(w, nview, 0, GW_FLOAT, false, NV, "VEC3", NULL);
    int j0 = gw_data(w, GW_UBYTE, false, NV, "VEC4", s->j0);
    int w0 = gw_data(w, GW_UBYTE, true, NV, "VEC4", s->w0);
    int j1 = gw_data(w, GW_USHORT, false, NV, "VEC4", s->j1);
    int w1 = gw_data(w, GW_FLOAT, false, NV, "VEC4", s->w1);
    int idx = gw_data(w, GW_USHORT, false, NV, "SCALAR", s->indices);
    /* morph target with no bufferView: zeros + sparse on vertices 0 and 5 */
    uint8_t tidx[2] = {0, 5};
    int tiv = gw_view(w, tidx, sizeof tidx, 0);
    int tvv = gw_view(w, s->target_sparse, sizeof s->target_sparse, 0);
    snprintf(sparse, sizeof sparse,
             "\"sparse\": {\"count\": 2, \"indices\": {\"bufferView\": %d, \"componentType\": 5121}, "
             "\"values\": {\"bufferView\": %d}}",
             tiv, tvv);
    int tgt = gw_accessor(w, -1, 0, GW_FLOAT, false, NV, "VEC3", sparse);
    int tzero = gw_accessor(w, -1, 0, GW_FLOAT, false, NV, "VEC3", NULL);
    int pj = gw_data(w, GW_USHORT, false, NV, "VEC4", s->p1_joints);
    int pw = gw_data(w, GW_FLOAT, false, NV, "VEC4", s->p1_weights);
    gw_add(w, "meshes",
           "{\"name\": \"bodymesh\", \"weights\": [0.25], \"primitives\": ["
           "{\"attributes\": {\"POSITION\": %d, \"NORMAL\": %d, \"JOINTS_0\": %d, \"WEIGHTS_0\": %d, \"JOINTS_1\": %d, "
           "\"WEIGHTS_1\": %d}, \"indices\": %d, \"targets\": [{\"POSITION\": %d}]},"
           "{\"attributes\": {\"POSITION\": %d, \"JOINTS_0\": %d, \"WEIGHTS_0\": %d}, \"mode\": 4, \"targets\": [{\"POSITION\": %d}]},"
           "{\"attributes\": {\"POSITION\": %d}, \"mode\": 1, \"targets\": [{\"POSITION\": %d}]}]}",
           pos, nrm, j0, w0, j1, w1, idx, tgt, pos, pj, pw, tzero, pos, tzero);
    int ibm = gw_data(w, GW_FLOAT, false, 3, "MAT4", s->ibm);
    gw_add(w, "skins", "{\"name\": \"skin0\", \"joints\": [%u, %u, %u], \"inverseBindMatrices\": %d, \"skeleton\": 1}",
           SKIN_JOINTS[0], SKIN_JOINTS[1], SKIN_JOINTS[2], ibm);
    /* nodes; node 1 as a matrix */
    float m1[16];
    ref_mat(&s->node[1], m1);
    for (int i = 0; i < 5; i++) {
        const rtrs *x = &s->node[i];
        char kids[64] = "";
        if (i == 1) snprintf(kids, sizeof kids, "\"children\": [3, 4], ");
        if (i == 2) snprintf(kids, sizeof kids, "\"children\": [0], ");
        if (i == 3) snprintf(kids, sizeof kids, "\"children\": [2], ");
        if (i == 1) {
            char mat[512];
            int o = 0;
            for (int k = 0; k < 16; k++) o += snprintf(mat + o, sizeof mat - (size_t)o, "%s%.9g", k ? ", " : "", m1[k]);
            gw_add(w, "nodes", "{\"name\": \"%s\", %s\"matrix\": [%s]}", NODE_NAMES[i], kids, mat);
        } else {
            gw_add(w, "nodes",
                   "{\"name\": \"%s\", %s%s\"translation\": [%.9g, %.9g, %.9g], \"rotation\": [%.9g, %.9g, %.9g, %.9g], "
                   "\"scale\": [%.9g, %.9g, %.9g]}",
                   NODE_NAMES[i], kids, i == 4 ? "\"mesh\": 0, \"skin\": 0, " : "", x->t[0], x->t[1], x->t[2], x->q[0],
                   x->q[1], x->q[2], x->q[3], x->s[0], x->s[1], x->s[2]);
        }
    }
    gw_add(w, "scenes", "{\"nodes\": [1]}");
    gw_top(w, "\"scene\": 0");
    /* animation 0 "walk" (1 s .. 2 s) */
    int ti = gw_data(w, GW_FLOAT, false, 3, "SCALAR", s->times);
    int ht = gw_data(w, GW_FLOAT, false, 3, "VEC3", s->hip_t);
    int sq = gw_data(w, GW_SHORT, true, 3, "VEC4", s->spine_q);
    int hs = gw_data(w, GW_FLOAT, false, 3, "VEC3", s->head_s);
    int rc = gw_data(w, GW_FLOAT, false, 9, "VEC4", s->root_cubic);
    gw_add(w, "animations",
           "{\"name\": \"walk\", \"samplers\": ["
           "{\"input\": %d, \"output\": %d},"
           "{\"input\": %d, \"output\": %d, \"interpolation\": \"LINEAR\"},"
           "{\"input\": %d, \"output\": %d, \"interpolation\": \"STEP\"},"
           "{\"input\": %d, \"output\": %d, \"interpolation\": \"CUBICSPLINE\"}],"
           "\"channels\": ["
           "{\"sampler\": 0, \"target\": {\"node\": 3, \"path\": \"translation\"}},"
           "{\"sampler\": 1, \"target\": {\"node\": 2, \"path\": \"rotation\"}},"
           "{\"sampler\": 2, \"target\": {\"node\": 0, \"path\": \"scale\"}},"
           "{\"sampler\": 3, \"target\": {\"node\": 1, \"path\": \"rotation\"}},"
           "{\"sampler\": 0, \"target\": {\"node\": 0, \"path\": \"pointer\"}},"
           "{\"sampler\": 2, \"target\": {\"node\": 0, \"path\": \"scale\"}}]}",
           ti, ht, ti, sq, ti, hs, ti, rc);
    int wt = gw_data(w, GW_FLOAT, false, 2, "SCALAR", s->wtimes);
    int wv = gw_data(w, GW_FLOAT, false, 2, "SCALAR", s->wvals);
    gw_add(w, "animations",
           "{\"samplers\": [{\"input\": %d, \"output\": %d}], \"channels\": [{\"sampler\": 0, \"target\": {\"node\": 4, "
           "\"path\": \"weights\"}}]}",
           wt, wv);
    return w;
}

static bool has_warning(const ossa_asset *a, const char *needle) {
    for (uint32_t i = 0; i < a->warning_count; i++)
        if (strstr(a->warnings[i], needle)) return true;
    return false;
}

static void check_scene(const ossa_asset *a, const src_scene *s) {
    assert_non_null(a);
    assert_non_null(a->skeleton);
    const ossa_skeleton *sk = a->skeleton;
    assert_int_equal(a->node_count, 5);
    assert_int_equal(sk->joint_count, 5);
    assert_int_equal(a->scene, 0);
    for (uint32_t j = 0; j < sk->joint_count; j++) assert_true(sk->parents[j] < (int32_t)j);
    for (int i = 0; i < 5; i++) {
        const ossa_node_info *n = &a->nodes[i];
        assert_string_equal(n->name, NODE_NAMES[i]);
        assert_int_equal(n->parent, NODE_PARENT[i]);
        assert_int_equal(n->joint, sk->joint_of_source[i]);
        assert_int_equal(sk->source_index[n->joint], i);
        int32_t pj = sk->parents[n->joint];
        assert_int_equal(pj, NODE_PARENT[i] < 0 ? -1 : (int32_t)sk->joint_of_source[NODE_PARENT[i]]);
        const ossa_transform *r = &sk->rest[n->joint];
        const rtrs *x = &s->node[i];
        float tol = i == 1 ? 2e-5f : 1e-6f;
        ot_assert_near(r->translation.x, x->t[0], tol);
        ot_assert_near(r->translation.y, x->t[1], tol);
        ot_assert_near(r->translation.z, x->t[2], tol);
        ot_assert_near(r->scale.x, x->s[0], tol);
        ot_assert_near(r->scale.y, x->s[1], tol);
        ot_assert_near(r->scale.z, x->s[2], tol);
        assert_quat_near(&r->rotation.x, x->q, tol);
        assert_int_equal(n->had_matrix, i == 1);
        assert_false(n->matrix_not_trs);
        assert_int_equal(n->mesh, i == 4 ? 0 : -1);
        assert_int_equal(n->skin, i == 4 ? 0 : -1);
    }
    /* skin */
    assert_int_equal(sk->skin_count, 1);
    assert_string_equal(sk->skins[0].name, "skin0");
    assert_int_equal(sk->skins[0].joint_count, 3);
    assert_int_equal(sk->skins[0].root, (int32_t)sk->joint_of_source[1]);
    for (int k = 0; k < 3; k++) {
        assert_int_equal(sk->skins[0].joints[k], sk->joint_of_source[SKIN_JOINTS[k]]);
        ot_assert_floats_near(sk->skins[0].inverse_bind[k].m, s->ibm[k], 16, 0);
    }
    /* meshes: 2 triangle primitives, the LINES one is a warning */
    assert_int_equal(a->mesh_info_count, 1);
    assert_string_equal(a->mesh_infos[0].name, "bodymesh");
    assert_int_equal(a->mesh_infos[0].primitive_count, 3);
    assert_int_equal(a->mesh_infos[0].target_count, 1);
    assert_true(has_warning(a, "meshes[0].primitives[2]: mode 1 (LINES)"));
    assert_true(has_warning(a, "unknown path 'pointer'"));
    assert_true(has_warning(a, "first wins"));
    assert_int_equal(a->mesh_count, 2);
    const ossa_mesh *m = a->meshes[0];
    assert_int_equal(m->vertex_count, NV);
    assert_int_equal(m->influences, 8);
    assert_int_equal(m->skin, 0);
    assert_int_equal(m->node, (int32_t)sk->joint_of_source[4]);
    assert_int_equal(m->source_mesh, 0);
    assert_int_equal(m->source_primitive, 0);
    assert_int_equal(m->index_count, NV);
    for (int v = 0; v < NV; v++) {
        assert_int_equal(m->indices[v], s->indices[v]);
        ot_assert_floats_near(m->positions + 3 * v, s->pos_final[v], 3, 0);
        ot_assert_floats_near(m->normals + 3 * v, s->nrm[v], 3, 0);
        double raw[8], sum = 0;
        for (int k = 0; k < 4; k++) {
            raw[k] = s->w0[v][k] / 255.0;
            raw[4 + k] = s->w1[v][k];
        }
        for (int k = 0; k < 8; k++) sum += raw[k];
        for (int k = 0; k < 8; k++) {
            uint32_t skin_j = k < 4 ? s->j0[v][k] : s->j1[v][k - 4];
            assert_int_equal(m->joints[v * 8 + k], sk->joint_of_source[SKIN_JOINTS[skin_j]]);
            ot_assert_near(m->weights[v * 8 + k], raw[k] / sum, 1e-6);
        }
    }
    assert_int_equal(m->target_count, 1);
    ot_assert_near(m->default_weights[0], 0.25, 0);
    for (int v = 0; v < NV; v++)
        for (int k = 0; k < 3; k++) {
            float expect = v == 0 ? s->target_sparse[0][k] : v == 5 ? s->target_sparse[1][k] : 0.0f;
            ot_assert_near(m->targets[0].positions[3 * v + k], expect, 0);
        }
    const ossa_mesh *m1 = a->meshes[1];
    assert_int_equal(m1->influences, 4);
    assert_int_equal(m1->index_count, 0);
    assert_int_equal(m1->source_primitive, 1);
    for (int v = 0; v < NV; v++) {
        double sum = 0;
        for (int k = 0; k < 4; k++) sum += s->p1_weights[v][k];
        for (int k = 0; k < 4; k++) {
            ot_assert_near(m1->weights[v * 4 + k], sum > 0 ? s->p1_weights[v][k] / sum : 0.0, 1e-6);
            assert_int_equal(m1->joints[v * 4 + k], sk->joint_of_source[SKIN_JOINTS[s->p1_joints[v][k]]]);
        }
        for (int k = 0; k < 3; k++) ot_assert_near(m1->targets[0].positions[3 * v + k], 0, 0);
    }
    /* clips */
    assert_int_equal(a->clip_count, 2);
    assert_int_equal(ossa_asset_find_clip(a, "walk"), 0);
    const ossa_clip *c = a->clips[0];
    assert_string_equal(c->name, "walk");
    ot_assert_near(c->start, 1.0, 0);
    ot_assert_near(c->end, 2.0, 0);
    assert_int_equal(c->track_count, 4);
    ossa_transform pose[5];
    const float probe[] = {0.25f, 1.0f, 1.2f, 1.5f, 1.8f, 2.0f, 7.0f};
    for (size_t p = 0; p < sizeof probe / sizeof probe[0]; p++) {
        float t = probe[p];
        ot_clip_sample(c, t, false, OSSA_LOOKUP_DEFAULT, NULL, sk->rest, pose, 5);
        float tc = t < 1 ? 1 : t > 2 ? 2 : t;
        int k = tc >= 1.5f ? 1 : 0;
        if (tc >= 2.0f) k = 1;
        float u = (tc - s->times[k]) / (s->times[k + 1] - s->times[k]);
        /* hip translation, LINEAR */
        const ossa_transform *hip = &pose[sk->joint_of_source[3]];
        for (int cc = 0; cc < 3; cc++)
            ot_assert_near((&hip->translation.x)[cc], s->hip_t[k][cc] + (s->hip_t[k + 1][cc] - s->hip_t[k][cc]) * u, 1e-5);
        /* spine rotation, LINEAR slerp of normalised SHORT keys */
        float qa[4], qb[4], qe[4];
        for (int cc = 0; cc < 4; cc++) {
            qa[cc] = fmaxf(s->spine_q[k][cc] / 32767.0f, -1.0f);
            qb[cc] = fmaxf(s->spine_q[k + 1][cc] / 32767.0f, -1.0f);
        }
        float la = sqrtf(qa[0] * qa[0] + qa[1] * qa[1] + qa[2] * qa[2] + qa[3] * qa[3]);
        float lb = sqrtf(qb[0] * qb[0] + qb[1] * qb[1] + qb[2] * qb[2] + qb[3] * qb[3]);
        for (int cc = 0; cc < 4; cc++) qa[cc] /= la, qb[cc] /= lb;
        ref_slerp(qa, qb, u, qe);
        assert_quat_near(&pose[sk->joint_of_source[2]].rotation.x, qe, 2e-5f);
        /* head scale, STEP: left key (the last key at the end) */
        int sk_key = tc >= 2.0f ? 2 : k;
        for (int cc = 0; cc < 3; cc++) ot_assert_near((&pose[sk->joint_of_source[0]].scale.x)[cc], s->head_s[sk_key][cc], 0);
        /* root rotation, CUBICSPLINE (tangents × Δt), normalised */
        float dt = s->times[k + 1] - s->times[k], qc[4], l = 0;
        for (int cc = 0; cc < 4; cc++) {
            qc[cc] = ref_hermite(u, s->root_cubic[k][1][cc], dt * s->root_cubic[k][2][cc], s->root_cubic[k + 1][1][cc],
                                 dt * s->root_cubic[k + 1][0][cc]);
            l += qc[cc] * qc[cc];
        }
        for (int cc = 0; cc < 4; cc++) qc[cc] /= sqrtf(l);
        assert_quat_near(&pose[sk->joint_of_source[1]].rotation.x, qc, 2e-5f);
        /* root translation/scale come from the rest pose (not animated) */
        ot_assert_near(pose[sk->joint_of_source[1]].scale.x, 2.0, 2e-5);
    }
    const ossa_clip *c1 = a->clips[1];
    assert_string_equal(c1->name, "");
    assert_int_equal(c1->track_count, 0);
    assert_int_equal(c1->weight_track_count, 1);
    assert_int_equal(c1->weight_tracks[0].joint, sk->joint_of_source[4]);
    assert_int_equal(c1->weight_tracks[0].weights.components, 1);
    float wv = -1;
    ot_clip_sample_weights(c1, 0, 0.3f, false, OSSA_LOOKUP_DEFAULT, NULL, &wv);
    ot_assert_near(wv, 0.3, 1e-6);
}

static uint8_t *read_bytes(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *d = malloc((size_t)n + 1);
    assert_non_null(d);
    assert_int_equal(fread(d, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *size = (size_t)n;
    return d;
}

static void load_ok(const void *data, size_t size, const char *base_dir, const src_scene *s) {
    ossa_load_options o;
    memset(&o, 0, sizeof o);
    o.base_dir = base_dir;
    ossa_asset *a = NULL;
    ossa_diagnostic d;
    ossa_result r = ossa_gltf_load_memory(data, size, &o, &a, &d);
    if (r) fail_msg("load_memory: %s: %s", ossa_result_string(r), d.message);
    check_scene(a, s);
    ossa_asset_destroy(a);
}

static void load_file_ok(const char *path, const src_scene *s) {
    ossa_asset *a = NULL;
    ossa_diagnostic d;
    ossa_result r = ossa_gltf_load_file(path, NULL, &a, &d);
    if (r) fail_msg("load_file %s: %s: %s", path, ossa_result_string(r), d.message);
    check_scene(a, s);
    ossa_asset_destroy(a);
}

static void generated_embedded(void **state) {
    (void)state;
    src_scene s;
    make_scene(&s, 1);
    gw *w = write_scene(&s);
    size_t n;
    uint8_t *bytes = gw_finish(w, GW_EMBEDDED, NULL, NULL, &n);
    load_ok(bytes, n, NULL, &s);
    /* The data: URI is decoded per accessor range from the JSON text; with an escape in it
     * ("application\/octet-stream") it is unescaped and decoded whole first: both give the scene. */
    {
        const char *at = strstr((const char *)bytes, "application/octet-stream");
        assert_non_null(at);
        size_t k = (size_t)(at - (const char *)bytes) + strlen("application");
        uint8_t *esc = malloc(n + 1);
        assert_non_null(esc);
        memcpy(esc, bytes, k);
        esc[k] = '\\';
        memcpy(esc + k + 1, bytes + k, n - k);
        load_ok(esc, n + 1, NULL, &s);
        free(esc);
    }
    char path[512];
    snprintf(path, sizeof path, "%s", ot_tmp("gen_embedded.gltf"));
    assert_int_equal(gw_write_file(path, bytes, n), 0);
    load_file_ok(path, &s);
    free(bytes);
    gw_destroy(w);
}

static void generated_external(void **state) {
    (void)state;
    src_scene s;
    make_scene(&s, 2);
    gw *w = write_scene(&s);
    size_t n;
    char bin[512], path[512], dir[512];
    snprintf(bin, sizeof bin, "%s", ot_tmp("gen data.bin"));
    uint8_t *bytes = gw_finish(w, GW_EXTERNAL, "gen%20data.bin", bin, &n);
    snprintf(path, sizeof path, "%s", ot_tmp("gen_external.gltf"));
    assert_int_equal(gw_write_file(path, bytes, n), 0);
    load_file_ok(path, &s);
    snprintf(dir, sizeof dir, "%s", ot_tmp(""));
    load_ok(bytes, n, dir, &s);
    /* from memory without base_dir: a clean IO error naming the buffer */
    ossa_asset *a = NULL;
    ossa_diagnostic d;
    assert_int_equal(ossa_gltf_load_memory(bytes, n, NULL, &a, &d), OSSA_ERROR_IO);
    assert_null(a);
    assert_string_equal(d.path, "/buffers/0");
    free(bytes);
    gw_destroy(w);
}

static void generated_glb(void **state) {
    (void)state;
    src_scene s;
    make_scene(&s, 3);
    gw *w = write_scene(&s);
    size_t n;
    uint8_t *bytes = gw_finish(w, GW_GLB, NULL, NULL, &n);
    load_ok(bytes, n, NULL, &s);
    char path[512];
    snprintf(path, sizeof path, "%s", ot_tmp("gen.glb"));
    assert_int_equal(gw_write_file(path, bytes, n), 0);
    load_file_ok(path, &s);
    size_t n2;
    uint8_t *again = read_bytes(path, &n2);
    assert_int_equal(n2, n);
    free(again);
    free(bytes);
    gw_destroy(w);
}

/* Every prefix of a GLB and of a .gltf must fail cleanly (or load), never crash. */
static void truncated_prefixes(void **state) {
    (void)state;
    src_scene s;
    make_scene(&s, 4);
    gw *w = write_scene(&s);
    for (int c = 0; c < 2; c++) {
        size_t n;
        uint8_t *bytes = gw_finish(w, c ? GW_GLB : GW_EMBEDDED, NULL, NULL, &n);
        for (size_t len = 1; len < n; len += (c ? 1 : 3)) {
            uint8_t *copy = malloc(len);
            assert_non_null(copy);
            memcpy(copy, bytes, len);
            ossa_asset *a = NULL;
            ossa_diagnostic d;
            ossa_result r = ossa_gltf_load_memory(copy, len, NULL, &a, &d);
            if (c == 1 || len < n - 4) { /* a .gltf may lose trailing whitespace and still be complete */
                if (r == OSSA_OK) fail_msg("prefix %zu of %zu loaded", len, n);
                assert_null(a);
                assert_true(d.message[0] != 0);
            }
            ossa_asset_destroy(a);
            free(copy);
        }
        free(bytes);
    }
    gw_destroy(w);
}

/* Random byte corruption: any result is fine, a crash or leak is not (ASan). */
static void corrupted_bytes(void **state) {
    (void)state;
    src_scene s;
    make_scene(&s, 5);
    gw *w = write_scene(&s);
    uint64_t rng = 77;
    for (int c = 0; c < 2; c++) {
        size_t n;
        uint8_t *bytes = gw_finish(w, c ? GW_GLB : GW_EMBEDDED, NULL, NULL, &n);
        uint8_t *copy = malloc(n);
        assert_non_null(copy);
        for (int it = 0; it < 400; it++) {
            memcpy(copy, bytes, n);
            int flips = 1 + (int)(ot_rand_u64(&rng) % 4);
            for (int f = 0; f < flips; f++) {
                size_t at = (size_t)(ot_rand_u64(&rng) % n);
                static const char pool[] = "0123456789-.,:[]{}\"e ";
                copy[at] = (ot_rand_u64(&rng) & 1) ? (uint8_t)pool[ot_rand_u64(&rng) % (sizeof pool - 1)]
                                                   : (uint8_t)ot_rand_u64(&rng);
            }
            ossa_asset *a = NULL;
            ossa_diagnostic d;
            ossa_result r = ossa_gltf_load_memory(copy, n, NULL, &a, &d);
            assert_true(r == OSSA_OK ? a != NULL : a == NULL);
            ossa_asset_destroy(a);
        }
        free(copy);
        free(bytes);
    }
    gw_destroy(w);
}

/* ------------------------------------------------------------ errors and warnings on small documents */

static ossa_result load_gw(gw *w, ossa_asset **a, ossa_diagnostic *d, const ossa_load_options *o) {
    size_t n;
    uint8_t *bytes = gw_finish(w, GW_GLB, NULL, NULL, &n);
    ossa_result r = ossa_gltf_load_memory(bytes, n, o, a, d);
    free(bytes);
    return r;
}

/* TRIANGLE_STRIP and TRIANGLE_FAN become triangle lists as the glTF specification numbers
 * them (strip triangle i: v_i, v_(i+1+i%2), v_(i+2-i%2); fan: v_(i+1), v_(i+2), v_0), worked
 * by hand for 5 vertices: a non-indexed strip, an indexed fan (indices 4 3 2 1 0); a strip
 * of 2 vertices has no triangle and is skipped with a warning; LINES stays skipped. */
static void strips_and_fans(void **state) {
    (void)state;
    gw *w = gw_create();
    const float pos[5][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {0, 2, 0}};
    const uint16_t fan_idx[5] = {4, 3, 2, 1, 0};
    int p = gw_data(w, GW_FLOAT, false, 5, "VEC3", pos), p2 = gw_data(w, GW_FLOAT, false, 2, "VEC3", pos);
    int fi = gw_data(w, GW_USHORT, false, 5, "SCALAR", fan_idx);
    gw_add(w, "meshes",
           "{\"primitives\": [{\"attributes\": {\"POSITION\": %d}, \"mode\": 5}, "
           "{\"attributes\": {\"POSITION\": %d}, \"indices\": %d, \"mode\": 6}, "
           "{\"attributes\": {\"POSITION\": %d}, \"mode\": 5}, {\"attributes\": {\"POSITION\": %d}, \"mode\": 1}]}",
           p, p, fi, p2, p);
    gw_add(w, "nodes", "{\"mesh\": 0}");
    ossa_asset *a = NULL;
    ossa_diagnostic d;
    ossa_result r = load_gw(w, &a, &d, NULL);
    gw_destroy(w);
    if (r) fail_msg("%s: %s", d.path, d.message);
    assert_int_equal(a->mesh_count, 2);
    const uint32_t strip[9] = {0, 1, 2, 1, 3, 2, 2, 3, 4}, fan[9] = {3, 2, 4, 2, 1, 4, 1, 0, 4};
    const uint32_t *want[2] = {strip, fan};
    for (int m = 0; m < 2; m++) {
        const ossa_mesh *mesh = a->meshes[m];
        assert_int_equal(mesh->source_primitive, m);
        assert_int_equal(mesh->vertex_count, 5);
        assert_int_equal(mesh->index_count, 9);
        for (int k = 0; k < 9; k++)
            if (mesh->indices[k] != want[m][k])
                fail_msg("primitive %d index %d: %u, expected %u", m, k, mesh->indices[k], want[m][k]);
    }
    assert_true(has_warning(a, "meshes[0].primitives[2]: a triangle strip of 2 vertices has no triangle; primitive skipped"));
    assert_true(has_warning(a, "meshes[0].primitives[3]: mode 1 (LINES) is not supported"));
    ossa_asset_destroy(a);
}

static gw *skinned_triangle(uint8_t bad_joint) {
    gw *w = gw_create();
    float pos[3][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
    uint8_t j[3][4] = {{0, 1, 0, 0}, {1, 0, 0, 0}, {0, bad_joint, 0, 0}};
    float wt[3][4] = {{0.5f, 0.5f, 0, 0}, {1, 0, 0, 0}, {0.25f, 0.75f, 0, 0}};
    int p = gw_data(w, GW_FLOAT, false, 3, "VEC3", pos);
    int ja = gw_data(w, GW_UBYTE, false, 3, "VEC4", j);
    int wa = gw_data(w, GW_FLOAT, false, 3, "VEC4", wt);
    gw_add(w, "meshes", "{\"primitives\": [{\"attributes\": {\"POSITION\": %d, \"JOINTS_0\": %d, \"WEIGHTS_0\": %d}}]}", p, ja,
           wa);
    gw_add(w, "nodes", "{\"children\": [1, 2]}");
    gw_add(w, "nodes", "{\"name\": \"a\"}");
    gw_add(w, "nodes", "{\"name\": \"b\", \"translation\": [0, 1, 0]}");
    gw_add(w, "nodes", "{\"mesh\": 0, \"skin\": 0, \"translation\": [9, 9, 9]}");
    gw_add(w, "skins", "{\"joints\": [1, 2]}");
    return w;
}

static void joints_out_of_range(void **state) {
    (void)state;
    gw *w = skinned_triangle(2);
    ossa_asset *a = NULL;
    ossa_diagnostic d;
    assert_int_equal(load_gw(w, &a, &d, NULL), OSSA_ERROR_INVALID_DATA);
    assert_null(a);
    assert_string_equal(d.path, "/accessors/1");
    assert_non_null(strstr(d.message, "accessors[1]: JOINTS index 2 at vertex 2 >= skin 0 joint count 2"));
    gw_destroy(w);
}

static void missing_ibm_is_identity_and_multiple_roots(void **state) {
    (void)state;
    gw *w = skinned_triangle(1);
    ossa_asset *a = NULL;
    ossa_diagnostic d;
    ossa_result r = load_gw(w, &a, &d, NULL);
    if (r) fail_msg("%s", d.message);
    assert_int_equal(a->scene, -1);
    assert_int_equal(a->nodes[3].parent, -1);
    assert_int_equal(a->nodes[0].parent, -1);
    const ossa_skin *s = &a->skeleton->skins[0];
    for (int k = 0; k < 2; k++) {
        ossa_mat4 id = ossa_mat4_identity();
        ot_assert_floats_near(s->inverse_bind[k].m, id.m, 16, 0);
    }
    /* weights 0.25/0.75 on joints (a, b) of vertex 2 */
    const ossa_mesh *m = a->meshes[0];
    assert_int_equal(m->joints[8], a->nodes[1].joint);
    assert_int_equal(m->joints[9], a->nodes[2].joint);
    ot_assert_near(m->weights[9], 0.75, 1e-7);
    ossa_asset_destroy(a);
    gw_destroy(w);
}

static gw *animated_node(const char *interp, uint32_t out_count, const float *times, uint32_t key_count) {
    gw *w = gw_create();
    gw_add(w, "nodes", "{\"name\": \"n\"}");
    float vals[64 * 3];
    for (uint32_t i = 0; i < out_count * 3 && i < 64 * 3; i++) vals[i] = (float)i;
    int ti = gw_data(w, GW_FLOAT, false, key_count, "SCALAR", times);
    int vo = gw_data(w, GW_FLOAT, false, out_count, "VEC3", vals);
    gw_add(w, "animations",
           "{\"samplers\": [{\"input\": %d, \"output\": %d, \"interpolation\": \"%s\"}], \"channels\": [{\"sampler\": 0, "
           "\"target\": {\"node\": 0, \"path\": \"translation\"}}]}",
           ti, vo, interp);
    return w;
}

static void sampler_count_mismatch(void **state) {
    (void)state;
    const float times[3] = {0, 1, 2};
    gw *w = animated_node("CUBICSPLINE", 3, times, 3);
    ossa_asset *a = NULL;
    ossa_diagnostic d;
    assert_int_equal(load_gw(w, &a, &d, NULL), OSSA_ERROR_INVALID_DATA);
    assert_string_equal(d.path, "/animations/0/samplers/0");
    assert_string_equal(d.message, "animations[0].samplers[0]: output count 3, expected 9 for CUBICSPLINE");
    gw_destroy(w);
    w = animated_node("CUBICSPLINE", 9, times, 3);
    assert_int_equal(load_gw(w, &a, &d, NULL), OSSA_OK);
    assert_int_equal(a->clips[0]->tracks[0].translation.interp, OSSA_INTERP_CUBIC);
    ossa_asset_destroy(a);
    gw_destroy(w);
}

static void times_must_increase(void **state) {
    (void)state;
    const float bad[3] = {0, 1, 1};
    gw *w = animated_node("LINEAR", 3, bad, 3);
    ossa_asset *a = NULL;
    ossa_diagnostic d;
    assert_int_equal(load_gw(w, &a, &d, NULL), OSSA_ERROR_INVALID_DATA);
    assert_string_equal(d.path, "/animations/0/samplers/0/input");
    gw_destroy(w);
    const float nan_t[3] = {0, NAN, 2};
    w = animated_node("STEP", 3, nan_t, 3);
    assert_int_equal(load_gw(w, &a, &d, NULL), OSSA_ERROR_INVALID_DATA);
    assert_null(a);
    gw_destroy(w);
}

static void hierarchy_errors(void **state) {
    (void)state;
    ossa_asset *a = NULL;
    ossa_diagnostic d;
    gw *w = gw_create();
    gw_add(w, "nodes", "{\"children\": [2]}");
    gw_add(w, "nodes", "{\"children\": [2]}");
    gw_add(w, "nodes", "{}");
    assert_int_equal(load_gw(w, &a, &d, NULL), OSSA_ERROR_INVALID_DATA);
    assert_non_null(strstr(d.message, "two parents"));
    assert_string_equal(d.path, "/nodes/1/children/0");
    gw_destroy(w);
    w = gw_create();
    gw_add(w, "nodes", "{\"children\": [1]}");
    gw_add(w, "nodes", "{\"children\": [2]}");
    gw_add(w, "nodes", "{\"children\": [0]}");
    assert_int_equal(load_gw(w, &a, &d, NULL), OSSA_ERROR_INVALID_DATA);
    assert_non_null(strstr(d.message, "cycle"));
    gw_destroy(w);
    /* a deep chain (no recursion anywhere) */
    w = gw_create();
    for (int i = 0; i < 5000; i++) {
        if (i + 1 < 5000) gw_add(w, "nodes", "{\"children\": [%d]}", i + 1);
        else gw_add(w, "nodes", "{}");
    }
    assert_int_equal(load_gw(w, &a, &d, NULL), OSSA_OK);
    assert_int_equal(a->skeleton->joint_count, 5000);
    ossa_asset_destroy(a);
    gw_destroy(w);
}

static void accessor_bounds_and_limits(void **state) {
    (void)state;
    ossa_asset *a = NULL;
    ossa_diagnostic d;
    gw *w = gw_create();
    float pos[9] = {0};
    int v = gw_view(w, pos, sizeof pos, 0);
    int acc = gw_accessor(w, v, 0, GW_FLOAT, false, 10, "VEC3", NULL);
    gw_add(w, "meshes", "{\"primitives\": [{\"attributes\": {\"POSITION\": %d}}]}", acc);
    gw_add(w, "nodes", "{\"mesh\": 0}");
    assert_int_equal(load_gw(w, &a, &d, NULL), OSSA_ERROR_INVALID_DATA);
    assert_string_equal(d.path, "/accessors/0");
    assert_non_null(strstr(d.message, "accessors[0]: count 10 exceeds bufferView 0"));
    gw_destroy(w);
    /* no bufferView and a huge count: refused by max_allocation, not allocated */
    w = gw_create();
    acc = gw_accessor(w, -1, 0, GW_FLOAT, false, 4000000000u, "VEC3", NULL);
    gw_add(w, "meshes", "{\"primitives\": [{\"attributes\": {\"POSITION\": %d}}]}", acc);
    gw_add(w, "nodes", "{\"mesh\": 0}");
    assert_int_equal(load_gw(w, &a, &d, NULL), OSSA_ERROR_LIMIT);
    assert_null(a);
    gw_destroy(w);
    /* a small max_allocation refuses an ordinary file */
    src_scene s;
    make_scene(&s, 9);
    w = write_scene(&s);
    ossa_load_options o;
    memset(&o, 0, sizeof o);
    o.max_allocation = 2048;
    assert_int_equal(load_gw(w, &a, &d, &o), OSSA_ERROR_LIMIT);
    assert_null(a);
    o.max_allocation = 64u << 20;
    assert_int_equal(load_gw(w, &a, &d, &o), OSSA_OK);
    ossa_asset_destroy(a);
    gw_destroy(w);
}

static void extensions_and_versions(void **state) {
    (void)state;
    ossa_asset *a = NULL;
    ossa_diagnostic d;
    gw *w = gw_create();
    gw_add(w, "nodes", "{}");
    gw_top(w, "\"extensionsRequired\": [\"EXT_not_here\"], \"extensionsUsed\": [\"EXT_not_here\"]");
    assert_int_equal(load_gw(w, &a, &d, NULL), OSSA_ERROR_UNSUPPORTED);
    assert_string_equal(d.path, "/extensionsRequired/0");
    gw_destroy(w);
    w = gw_create();
    gw_add(w, "nodes", "{}");
    gw_top(w, "\"extensionsUsed\": [\"EXT_whatever\"]");
    assert_int_equal(load_gw(w, &a, &d, NULL), OSSA_OK);
    assert_true(has_warning(a, "EXT_whatever"));
    ossa_asset_destroy(a);
    gw_destroy(w);
    const char *v3 = "{\"asset\": {\"version\": \"3.0\"}}";
    assert_int_equal(ossa_gltf_load_memory(v3, strlen(v3), NULL, &a, &d), OSSA_ERROR_UNSUPPORTED);
    const char *garbage = "{\"asset\": {\"version\": \"2.0\"}, \"nodes\": [ {\"name\": \"a\\u0041\\n\"} ] } x";
    assert_int_equal(ossa_gltf_load_memory(garbage, strlen(garbage), NULL, &a, &d), OSSA_ERROR_PARSE);
    /* nesting is depth-limited (jsmn closes brackets by walking up, so depth bounds the cost) */
    char deep[1200];
    int o = snprintf(deep, sizeof deep, "{\"asset\": {\"version\": \"2.0\"}, \"extras\": ");
    for (int i = 0; i < 127; i++) deep[o + i] = '[', deep[o + 127 + i] = ']';
    deep[o + 254] = '}';
    deep[o + 255] = 0;
    assert_int_equal(ossa_gltf_load_memory(deep, strlen(deep), NULL, &a, &d), OSSA_OK);
    ossa_asset_destroy(a);
    memmove(deep + o + 1, deep + o, strlen(deep + o) + 1);
    deep[o] = '[';
    memmove(deep + o + 129, deep + o + 128, strlen(deep + o + 128) + 1);
    deep[o + 128] = ']';
    assert_int_equal(ossa_gltf_load_memory(deep, strlen(deep), NULL, &a, &d), OSSA_ERROR_PARSE);
    assert_non_null(strstr(d.message, "nesting deeper than 128 levels"));
    const char *escaped = "{\"asset\": {\"version\": \"2.0\"}, \"nodes\": [ {\"name\": \"a\\u0041\\u00e9\\\"\"} ] }";
    assert_int_equal(ossa_gltf_load_memory(escaped, strlen(escaped), NULL, &a, &d), OSSA_OK);
    assert_string_equal(a->nodes[0].name, "aA\xc3\xa9\"");
    ossa_asset_destroy(a);
}

static void shear_matrix_is_kept(void **state) {
    (void)state;
    gw *w = gw_create();
    gw_add(w, "nodes", "{\"matrix\": [1,0,0,0, 0.5,1,0,0, 0,0,1,0, 1,2,3,1]}");
    ossa_asset *a = NULL;
    ossa_diagnostic d;
    assert_int_equal(load_gw(w, &a, &d, NULL), OSSA_OK);
    assert_true(a->nodes[0].had_matrix);
    assert_true(a->nodes[0].matrix_not_trs);
    ot_assert_near(a->nodes[0].matrix.m[4], 0.5, 0);
    ot_assert_near(a->nodes[0].matrix.m[13], 2, 0);
    assert_true(has_warning(a, "nodes[0]: matrix is not a TRS"));
    ossa_asset_destroy(a);
    gw_destroy(w);
}

static void clips_bound_by_name(void **state) {
    (void)state;
    src_scene s;
    make_scene(&s, 6);
    gw *w = write_scene(&s);
    ossa_asset *character = NULL;
    ossa_diagnostic d;
    assert_int_equal(load_gw(w, &character, &d, NULL), OSSA_OK);
    gw_destroy(w);
    /* a clip file whose nodes are "ghost" (unknown) and "hip" (known) */
    w = gw_create();
    gw_add(w, "nodes", "{\"name\": \"ghost\"}");
    gw_add(w, "nodes", "{\"name\": \"hip\"}");
    float times[2] = {0.5f, 1.5f}, vals[2][3] = {{1, 2, 3}, {3, 2, 1}};
    int ti = gw_data(w, GW_FLOAT, false, 2, "SCALAR", times);
    int vo = gw_data(w, GW_FLOAT, false, 2, "VEC3", vals);
    gw_add(w, "animations",
           "{\"name\": \"x\", \"samplers\": [{\"input\": %d, \"output\": %d}], \"channels\": ["
           "{\"sampler\": 0, \"target\": {\"node\": 0, \"path\": \"translation\"}},"
           "{\"sampler\": 0, \"target\": {\"node\": 1, \"path\": \"translation\"}}]}",
           ti, vo);
    size_t n;
    uint8_t *bytes = gw_finish(w, GW_EMBEDDED, NULL, NULL, &n);
    char path[512];
    snprintf(path, sizeof path, "%s", ot_tmp("clips_only.gltf"));
    assert_int_equal(gw_write_file(path, bytes, n), 0);
    ossa_asset *clips = NULL;
    ossa_result r = ossa_gltf_load_clips(path, character->skeleton, NULL, &clips, &d);
    if (r) fail_msg("%s", d.message);
    assert_null(clips->skeleton);
    assert_int_equal(clips->clip_count, 1);
    assert_int_equal(clips->clips[0]->track_count, 1);
    assert_int_equal(clips->clips[0]->tracks[0].joint, (uint32_t)ossa_skeleton_find_joint(character->skeleton, "hip"));
    assert_true(has_warning(clips, "'ghost' is not a joint"));
    ot_assert_near(clips->clips[0]->start, 0.5, 0);
    ossa_asset_destroy(clips);
    ossa_asset_destroy(character);
    free(bytes);
    gw_destroy(w);
}


static void two_skins_and_quantized_positions(void **state) {
    (void)state;
    gw *w = gw_create();
    /* positions as normalised SHORT (KHR_mesh_quantization) */
    int16_t qpos[3][3] = {{32767, 0, -32768}, {16384, -16384, 0}, {0, 100, -100}};
    uint16_t j[3][4] = {{0, 1, 0, 0}, {1, 0, 0, 0}, {1, 1, 0, 0}};
    float wt[3][4] = {{1, 1, 0, 0}, {2, 0, 0, 0}, {0.5f, 0.5f, 0, 0}};
    int p = gw_data(w, GW_SHORT, true, 3, "VEC3", qpos);
    int ja = gw_data(w, GW_USHORT, false, 3, "VEC4", j);
    int wa = gw_data(w, GW_FLOAT, false, 3, "VEC4", wt);
    gw_add(w, "meshes", "{\"primitives\": [{\"attributes\": {\"POSITION\": %d, \"JOINTS_0\": %d, \"WEIGHTS_0\": %d}}]}", p,
           ja, wa);
    gw_add(w, "nodes", "{\"name\": \"m0\", \"mesh\": 0, \"skin\": 1}");
    gw_add(w, "nodes", "{\"name\": \"j0\", \"children\": [2]}");
    gw_add(w, "nodes", "{\"name\": \"j1\", \"children\": [3]}");
    gw_add(w, "nodes", "{\"name\": \"j2\"}");
    gw_add(w, "nodes", "{\"name\": \"m1\", \"mesh\": 0, \"skin\": 0}");
    gw_add(w, "skins", "{\"joints\": [1, 2]}");
    gw_add(w, "skins", "{\"joints\": [3, 1], \"skeleton\": 1}");
    gw_top(w, "\"extensionsUsed\": [\"KHR_mesh_quantization\"], \"extensionsRequired\": [\"KHR_mesh_quantization\"]");
    ossa_asset *a = NULL;
    ossa_diagnostic d;
    ossa_result r = load_gw(w, &a, &d, NULL);
    if (r) fail_msg("%s", d.message);
    /* weights (1, 1) and (2, 0) sum to 2: renormalised, and said so once per primitive instance */
    assert_int_equal(a->warning_count, 2);
    assert_true(has_warning(a, "2 of 3 vertices had weights not summing to 1 (off by up to 1); renormalised"));
    assert_int_equal(a->skeleton->skin_count, 2);
    assert_int_equal(a->mesh_count, 2);
    const ossa_skeleton *sk = a->skeleton;
    /* mesh of node 0 uses skin 1 = nodes (3, 1); mesh of node 4 uses skin 0 = nodes (1, 2) */
    const uint32_t skin_nodes[2][2] = {{1, 2}, {3, 1}};
    for (int mi = 0; mi < 2; mi++) {
        const ossa_mesh *m = a->meshes[mi];
        int skin = mi == 0 ? 1 : 0;
        assert_int_equal(m->skin, skin);
        assert_int_equal(m->node, (int32_t)sk->joint_of_source[mi == 0 ? 0 : 4]);
        for (int v = 0; v < 3; v++) {
            double sum = 0;
            for (int k = 0; k < 4; k++) sum += wt[v][k];
            for (int k = 0; k < 4; k++) {
                assert_int_equal(m->joints[v * 4 + k], sk->joint_of_source[skin_nodes[skin][j[v][k]]]);
                ot_assert_near(m->weights[v * 4 + k], wt[v][k] / sum, 1e-7);
            }
            for (int c = 0; c < 3; c++) ot_assert_near(m->positions[v * 3 + c], fmax(qpos[v][c] / 32767.0, -1.0), 1e-7);
        }
    }
    assert_int_equal(sk->skins[1].root, (int32_t)sk->joint_of_source[1]);
    assert_int_equal(sk->skins[0].root, -1);
    ossa_asset_destroy(a);
    gw_destroy(w);
}

static void container_and_view_errors(void **state) {
    (void)state;
    ossa_asset *a = NULL;
    ossa_diagnostic d;
    /* GLB whose buffer has no uri and no BIN chunk */
    const char *j = "{\"asset\": {\"version\": \"2.0\"}, \"buffers\": [{\"byteLength\": 4}]}    ";
    size_t jl = strlen(j) & ~(size_t)3;
    uint8_t glb[256];
    uint32_t hdr[5] = {0x46546C67u, 2, (uint32_t)(20 + jl), (uint32_t)jl, 0x4E4F534Au};
    memcpy(glb, hdr, sizeof hdr);
    memcpy(glb + 20, j, jl);
    assert_int_equal(ossa_gltf_load_memory(glb, 20 + jl, NULL, &a, &d), OSSA_ERROR_INVALID_DATA);
    assert_string_equal(d.path, "/buffers/0");
    /* bad base64 */
    const char *b64 = "{\"asset\": {\"version\": \"2.0\"}, \"buffers\": [{\"byteLength\": 3, "
                      "\"uri\": \"data:application/octet-stream;base64,AB*D\"}]}";
    assert_int_equal(ossa_gltf_load_memory(b64, strlen(b64), NULL, &a, &d), OSSA_ERROR_INVALID_DATA);
    assert_string_equal(d.path, "/buffers/0");
    /* byteLength larger than the data */
    const char *shortb = "{\"asset\": {\"version\": \"2.0\"}, \"buffers\": [{\"byteLength\": 30, "
                         "\"uri\": \"data:application/octet-stream;base64,AAAA\"}]}";
    assert_int_equal(ossa_gltf_load_memory(shortb, strlen(shortb), NULL, &a, &d), OSSA_ERROR_INVALID_DATA);
    /* byteStride not a multiple of 4 */
    gw *w = gw_create();
    float f[6] = {0};
    gw_view(w, f, sizeof f, 6);
    assert_int_equal(load_gw(w, &a, &d, NULL), OSSA_ERROR_INVALID_DATA);
    assert_string_equal(d.path, "/bufferViews/0");
    gw_destroy(w);
    /* sparse index out of range */
    w = gw_create();
    uint8_t idx[1] = {7};
    float val[3] = {1, 2, 3};
    int iv = gw_view(w, idx, 1, 0), vv = gw_view(w, val, sizeof val, 0);
    char extra[200];
    snprintf(extra, sizeof extra,
             "\"sparse\": {\"count\": 1, \"indices\": {\"bufferView\": %d, \"componentType\": 5121}, \"values\": "
             "{\"bufferView\": %d}}",
             iv, vv);
    int acc = gw_accessor(w, -1, 0, GW_FLOAT, false, 3, "VEC3", extra);
    gw_add(w, "meshes", "{\"primitives\": [{\"attributes\": {\"POSITION\": %d}}]}", acc);
    gw_add(w, "nodes", "{\"mesh\": 0}");
    assert_int_equal(load_gw(w, &a, &d, NULL), OSSA_ERROR_INVALID_DATA);
    assert_string_equal(d.path, "/accessors/0/sparse/indices");
    gw_destroy(w);
}


typedef struct fail_alloc {
    long budget;  /* allocations left before failing; < 0 = unlimited */
    long live;
    long total;
} fail_alloc;

static void *fa_alloc(size_t size, void *user) {
    fail_alloc *f = user;
    if (f->budget == 0) return NULL;
    if (f->budget > 0) f->budget--;
    void *p = malloc(size);
    if (p) f->live++, f->total++;
    return p;
}

static void fa_free(void *ptr, void *user) {
    fail_alloc *f = user;
    if (ptr) f->live--;
    free(ptr);
}

/* Every allocation goes through the caller's allocator, and failing any one of them
 * returns OUT_OF_MEMORY with nothing leaked. */
static void allocator_failure_sweep(void **state) {
    (void)state;
    src_scene s;
    make_scene(&s, 11);
    gw *w = write_scene(&s);
    size_t n;
    uint8_t *bytes = gw_finish(w, GW_GLB, NULL, NULL, &n);
    fail_alloc f = {-1, 0, 0};
    ossa_allocator al = {fa_alloc, fa_free, &f};
    ossa_load_options o;
    memset(&o, 0, sizeof o);
    o.allocator = &al;
    ossa_asset *a = NULL;
    ossa_diagnostic d;
    assert_int_equal(ossa_gltf_load_memory(bytes, n, &o, &a, &d), OSSA_OK);
    check_scene(a, &s);
    assert_true(f.live > 0);
    uint32_t warnings = a->warning_count;
    ossa_asset_destroy(a);
    assert_int_equal(f.live, 0);
    long needed = f.total;
    for (long k = 0; k < needed; k++) {
        f.budget = k;
        f.live = 0;
        a = NULL;
        ossa_result r = ossa_gltf_load_memory(bytes, n, &o, &a, &d);
        if (r != OSSA_OK) {
            assert_int_equal(r, OSSA_ERROR_OUT_OF_MEMORY);
            assert_null(a);
        } else {
            assert_int_equal(a->warning_count, warnings); /* no warning silently dropped */
            ossa_asset_destroy(a);
        }
        if (f.live != 0) fail_msg("failing allocation %ld of %ld leaked %ld blocks", k, needed, f.live);
    }
    free(bytes);
    gw_destroy(w);
}

static void invalid_arguments(void **state) {
    (void)state;
    ossa_asset *a = (ossa_asset *)(uintptr_t)1;
    ossa_diagnostic d;
    assert_int_equal(ossa_gltf_load_memory(NULL, 3, NULL, &a, &d), OSSA_ERROR_INVALID_ARGUMENT);
    assert_null(a);
    assert_int_equal(ossa_gltf_load_file("/nonexistent/x.gltf", NULL, &a, &d), OSSA_ERROR_IO);
    assert_null(a);
    assert_int_equal(ossa_gltf_load_file(NULL, NULL, &a, NULL), OSSA_ERROR_INVALID_ARGUMENT);
    ossa_asset_destroy(NULL);
    assert_int_equal(ossa_asset_find_clip(NULL, "x"), -1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(generated_embedded),
        cmocka_unit_test(generated_external),
        cmocka_unit_test(generated_glb),
        cmocka_unit_test(truncated_prefixes),
        cmocka_unit_test(corrupted_bytes),
        cmocka_unit_test(joints_out_of_range),
        cmocka_unit_test(missing_ibm_is_identity_and_multiple_roots),
        cmocka_unit_test(sampler_count_mismatch),
        cmocka_unit_test(times_must_increase),
        cmocka_unit_test(hierarchy_errors),
        cmocka_unit_test(accessor_bounds_and_limits),
        cmocka_unit_test(extensions_and_versions),
        cmocka_unit_test(shear_matrix_is_kept),
        cmocka_unit_test(clips_bound_by_name),
        cmocka_unit_test(two_skins_and_quantized_positions),
        cmocka_unit_test(container_and_view_errors),
        cmocka_unit_test(allocator_failure_sweep),
        cmocka_unit_test(invalid_arguments),
        cmocka_unit_test(strips_and_fans),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
