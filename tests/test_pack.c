/* The packed .ossa file (pack.h): write → load equals the source field by field (a rich
 * asset generated here: 2 skins, a shear matrix node, every vertex stream, 8 influences,
 * morph targets with default weights, warnings; and every shared glTF asset), the
 * checksum against XXH64's published vectors, every truncation fails cleanly, flipped
 * bytes (checksum repaired, so the section validation sees them) never crash, each
 * hostile field gives the documented error naming its section and item, allocation
 * failure at every point leaks nothing, misaligned caller memory loads. */
#include "test_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asset/pack_internal.h"

/* ---------------------------------------------------------------- a rich generated asset */

static float frand(uint64_t *s, float lo, float hi) { return ot_rand_float(s, lo, hi); }

/* Two clips over the skeleton: LINEAR rotation, STEP translation, CUBICSPLINE scale and a
 * morph-weight track on mesh 0's node; built compressed (clip 0) and lossless (clip 1). */
static void add_clips(ossa_asset *a) {
    uint64_t rng = 99;
    const ossa_skeleton *s = a->skeleton;
    enum { K = 5 };
    static float times[K] = {0.1f, 0.35f, 0.5f, 1.2f, 1.7f}, rot[K * 4], tr[K * 3], sc[K * 9], mw[K * 2];
    for (int k = 0; k < K; k++) {
        ossa_quat q = ot_rand_quat(&rng);
        memcpy(rot + 4 * k, &q, sizeof q);
        for (int c = 0; c < 3; c++) tr[3 * k + c] = frand(&rng, -1, 1);
        for (int c = 0; c < 9; c++) sc[9 * k + c] = c >= 3 && c < 6 ? frand(&rng, 0.5f, 1.5f) : frand(&rng, -0.5f, 0.5f);
        mw[2 * k] = frand(&rng, 0, 1), mw[2 * k + 1] = frand(&rng, 0, 1);
    }
    ossa_transform_track tt[3];
    memset(tt, 0, sizeof tt);
    const uint32_t joints[3] = {s->joint_of_source[1], s->joint_of_source[3], s->joint_of_source[4]};
    ossa_track rt = {.kind = OSSA_TRACK_ROTATION, .interp = OSSA_INTERP_LINEAR, .components = 4, .key_count = K,
                     .times = times, .values = rot};
    ossa_track st = {.kind = OSSA_TRACK_VECTOR, .interp = OSSA_INTERP_STEP, .components = 3, .key_count = K,
                     .times = times, .values = tr};
    ossa_track ct = {.kind = OSSA_TRACK_VECTOR, .interp = OSSA_INTERP_CUBIC, .components = 3, .key_count = K,
                     .times = times, .values = sc};
    /* tracks sorted by joint */
    for (int i = 0; i < 3; i++) {
        int rank = 0;
        for (int k = 0; k < 3; k++) rank += joints[k] < joints[i];
        tt[rank].joint = joints[i];
        if (i == 0) tt[rank].rotation = rt;
        if (i == 1) tt[rank].translation = st;
        if (i == 2) tt[rank].scale = ct;
    }
    ossa_weight_track wt = {.joint = (uint32_t)a->meshes[0]->node,
                            .weights = {.kind = OSSA_TRACK_VECTOR, .interp = OSSA_INTERP_LINEAR, .components = 2,
                                        .key_count = K, .times = times, .values = mw}};
    ossa_clip_desc d = {"turn", true, 3, tt, 1, &wt, 0};
    a->clip_count = 2;
    a->clips = calloc(2, sizeof *a->clips);
    a->built_clip_count = 2;
    a->built_clips = calloc(2, sizeof *a->built_clips);
    for (uint32_t c = 0; c < 2; c++) {
        d.name = c ? "turn (lossless)" : "turn";
        assert_int_equal(ossa_clip_create(&d, NULL, &a->clips[c]), OSSA_OK);
        ossa_clip_build_options o = {.lossless = c == 1};
        assert_int_equal(ossa_clip_build(a->clips[c], s, &o, NULL, &a->built_clips[c], NULL), OSSA_OK);
    }
}

/* 6 joints given children-first (so the skeleton reorders), 2 skins, 3 meshes. */
static ossa_asset *rich_asset(void) {
    uint64_t rng = 12345;
    ossa_asset *a = calloc(1, sizeof *a);
    assert_non_null(a);
    enum { J = 6 };
    const int32_t parents[J] = {3, 0, 0, -1, 3, -1};
    const char *names[J] = {"spine", "arm.L", "arm.R", "hips", "leg", ""};
    ossa_transform rest[J];
    for (int j = 0; j < J; j++) {
        rest[j].translation = (ossa_vec3){frand(&rng, -1, 1), frand(&rng, -1, 1), frand(&rng, -1, 1)};
        rest[j].rotation = ot_rand_quat(&rng);
        rest[j].scale = (ossa_vec3){frand(&rng, 0.5f, 2), 1, frand(&rng, 0.5f, 2)};
    }
    const uint32_t sj0[] = {3, 0, 1, 2}, sj1[] = {4};
    ossa_mat4 ibm0[4], ibm1[1];
    for (int i = 0; i < 4; i++) ibm0[i] = ossa_transform_to_mat4(rest[i]);
    ibm1[0] = ossa_mat4_identity();
    ibm1[0].m[12] = 0.25f;
    ossa_skin_desc skins[2] = {{"body", 4, sj0, ibm0, 3}, {NULL, 1, sj1, ibm1, -1}};
    ossa_skeleton_desc sd = {J, parents, rest, names, 2, skins, 0.3048f}; /* a file in feet */
    assert_int_equal(ossa_skeleton_create(&sd, NULL, &a->skeleton), OSSA_OK);
    const ossa_skeleton *s = a->skeleton;

    a->scene = 0;
    a->node_count = J;
    a->nodes = calloc(J, sizeof *a->nodes);
    for (uint32_t i = 0; i < J; i++) {
        ossa_node_info *n = &a->nodes[i];
        n->joint = s->joint_of_source[i];
        n->name = s->names[n->joint];
        n->parent = parents[i];
        n->mesh = i == 5 ? 0 : (i == 4 ? 1 : -1);
        n->skin = i == 5 ? 0 : (i == 4 ? 1 : -1);
        n->matrix = ossa_transform_to_mat4(rest[i]);
    }
    a->nodes[2].had_matrix = true;
    a->nodes[2].matrix_not_trs = true;
    a->nodes[2].matrix.m[4] = 0.5f; /* shear */

    a->mesh_info_count = 2;
    a->mesh_infos = calloc(2, sizeof *a->mesh_infos);
    a->mesh_infos[0] = (ossa_mesh_info){"body", 2, 2};
    a->mesh_infos[1] = (ossa_mesh_info){"", 1, 0};

    a->mesh_count = 3;
    a->meshes = calloc(3, sizeof *a->meshes);
    for (uint32_t m = 0; m < 3; m++) {
        enum { NV = 7 };
        uint32_t inf = m == 0 ? 8 : (m == 1 ? 4 : 0);
        float pos[NV * 3], nrm[NV * 3], tan[NV * 4], uv0[NV * 2], uv1[NV * 2], wgt[NV * 8], d[3][NV * 3], dw[2] = {0.25f, 0};
        uint16_t jnt[NV * 8];
        uint32_t idx[9] = {0, 1, 2, 2, 3, 4, 4, 5, 6};
        for (int i = 0; i < NV * 3; i++) pos[i] = frand(&rng, -2, 2), nrm[i] = frand(&rng, -1, 1);
        for (int i = 0; i < NV * 4; i++) tan[i] = frand(&rng, -1, 1);
        for (int i = 0; i < NV * 2; i++) uv0[i] = frand(&rng, 0, 1), uv1[i] = frand(&rng, 0, 1);
        for (int k = 0; k < 3; k++)
            for (int i = 0; i < NV * 3; i++) d[k][i] = frand(&rng, -0.1f, 0.1f);
        for (uint32_t v = 0; v < NV; v++) {
            float sum = 0;
            for (uint32_t k = 0; k < inf; k++) sum += wgt[v * inf + k] = frand(&rng, 0, 1);
            for (uint32_t k = 0; k < inf; k++) {
                wgt[v * inf + k] /= sum;
                jnt[v * inf + k] = (uint16_t)(m == 1 ? s->joint_of_source[4] : (v + k) % J);
            }
        }
        ossa_morph_target targets[2] = {{d[0], d[1], d[2]}, {d[1], NULL, NULL}};
        ossa_mesh desc = {0};
        desc.name = m == 2 ? NULL : (m == 0 ? "body" : "leg");
        desc.vertex_count = NV;
        desc.positions = pos;
        desc.normals = m < 2 ? nrm : NULL;
        desc.tangents = m == 0 ? tan : NULL;
        desc.uv0 = m < 2 ? uv0 : NULL;
        desc.uv1 = m == 0 ? uv1 : NULL;
        desc.influences = inf;
        desc.joints = inf ? jnt : NULL;
        desc.weights = inf ? wgt : NULL;
        desc.index_count = m == 2 ? 0 : 9;
        desc.indices = m == 2 ? NULL : idx;
        desc.target_count = m == 0 ? 2 : 0;
        desc.targets = m == 0 ? targets : NULL;
        desc.default_weights = m == 0 ? dw : NULL;
        desc.skin = m == 0 ? 0 : (m == 1 ? 1 : -1);
        desc.node = m == 2 ? -1 : (int32_t)s->joint_of_source[m == 0 ? 5 : 4];
        desc.source_mesh = m == 1 ? 1 : 0;
        desc.source_primitive = m == 2 ? 1 : 0;
        float col[NV * 4];
        for (int i = 0; i < NV * 4; i++) col[i] = frand(&rng, 0, 1);
        desc.material = m == 2 ? -1 : (int32_t)m;
        desc.colors = m == 1 ? NULL : col;
        assert_int_equal(ossa_mesh_create(&desc, NULL, &a->meshes[m]), OSSA_OK);
    }
    /* two images (encoded bytes of an odd length; one that could not be read) and two materials */
    static const uint8_t PNG_BYTES[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 1, 2, 3, 4, 5};
    a->image_count = 2;
    a->images = calloc(2, sizeof *a->images);
    a->images[0] = (ossa_image){"albedo", "", "image/png", PNG_BYTES, sizeof PNG_BYTES};
    a->images[1] = (ossa_image){"", "missing.jpg", "", NULL, 0};
    a->material_count = 2;
    a->materials = calloc(2, sizeof *a->materials);
    a->materials[0] = (ossa_material){"skin", {0.5f, 0.25f, 1, 0.75f},
                                      {0, 1, OSSA_WRAP_CLAMP_TO_EDGE, OSSA_WRAP_MIRRORED_REPEAT, OSSA_FILTER_NEAREST, 9987},
                                      OSSA_ALPHA_MODE_MASK, 0.3f, true};
    a->materials[1] = (ossa_material){"", {1, 1, 1, 1}, {-1, 0, 0, 0, 0, 0}, OSSA_ALPHA_MODE_BLEND, 0.5f, false};
    add_clips(a);
    /* build reports (as `ossa pack` stores them): clip 0 measured on the meshes, clip 1 lossless
     * without a mesh ("none") */
    a->clip_report_count = 2;
    a->clip_reports = calloc(2, sizeof *a->clip_reports);
    a->clip_reports[0] = (ossa_clip_report){1e-4f, 1.8f, 2, 7.5e-5f, 1, 2, 3, 0.35f, 41, 1};
    a->clip_reports[1] = (ossa_clip_report){0.0f, 1.8f, 0, 0.0f, 0, 0, 0, 0.0f, 0, 0};
    a->warning_count = 2;
    a->warnings = calloc(2, sizeof *a->warnings);
    a->warnings[0] = strdup("/nodes/2: matrix has shear");
    a->warnings[1] = strdup("");
    return a; /* a zeroed allocator is malloc/free */
}

static uint8_t *pack(const ossa_asset *a, const ossa_pack_options *o, size_t *size) {
    assert_int_equal(ossa_pack_write(a, o, NULL, 0, size), OSSA_OK);
    uint8_t *b = malloc(*size);
    assert_non_null(b);
    size_t again = 0;
    assert_int_equal(ossa_pack_write(a, o, b, *size, &again), OSSA_OK);
    assert_int_equal(again, *size);
    return b;
}

static ossa_asset *load_ok(const void *data, size_t size) {
    ossa_asset *a = NULL;
    ossa_diagnostic d;
    ossa_result r = ossa_pack_load_memory(data, size, NULL, &a, &d);
    if (r) fail_msg("load: %s: %s", ossa_result_string(r), d.message);
    return a;
}

/* ---------------------------------------------------------------- field-by-field equality */

static void eq_bytes(const void *a, const void *b, size_t n, const char *what) {
    if ((a == NULL) != (b == NULL)) fail_msg("%s: present on one side only", what);
    if (a && n && memcmp(a, b, n)) fail_msg("%s differs", what);
}

static void assert_mesh_equal(const ossa_mesh *x, const ossa_mesh *y) {
    size_t nv = x->vertex_count;
    assert_string_equal(x->name, y->name);
    assert_int_equal(x->vertex_count, y->vertex_count);
    assert_int_equal(x->influences, y->influences);
    assert_int_equal(x->index_count, y->index_count);
    assert_int_equal(x->target_count, y->target_count);
    assert_int_equal(x->skin, y->skin);
    assert_int_equal(x->node, y->node);
    assert_int_equal(x->source_mesh, y->source_mesh);
    assert_int_equal(x->source_primitive, y->source_primitive);
    eq_bytes(x->positions, y->positions, nv * 12, "positions");
    eq_bytes(x->normals, y->normals, nv * 12, "normals");
    eq_bytes(x->tangents, y->tangents, nv * 16, "tangents");
    eq_bytes(x->uv0, y->uv0, nv * 8, "uv0");
    eq_bytes(x->uv1, y->uv1, nv * 8, "uv1");
    eq_bytes(x->joints, y->joints, nv * x->influences * 2, "joints");
    eq_bytes(x->weights, y->weights, nv * x->influences * 4, "weights");
    eq_bytes(x->indices, y->indices, (size_t)x->index_count * 4, "indices");
    eq_bytes(x->default_weights, y->default_weights, (size_t)x->target_count * 4, "default weights");
    assert_int_equal(x->material, y->material);
    eq_bytes(x->colors, y->colors, nv * 16, "colors");
    for (uint32_t t = 0; t < x->target_count; t++) {
        eq_bytes(x->targets[t].positions, y->targets[t].positions, nv * 12, "target positions");
        eq_bytes(x->targets[t].normals, y->targets[t].normals, nv * 12, "target normals");
        eq_bytes(x->targets[t].tangents, y->targets[t].tangents, nv * 12, "target tangents");
    }
}

/* Everything a packed file stores, compared exactly (floats bit for bit). */
static void assert_asset_equal(const ossa_asset *x, const ossa_asset *y, bool warnings) {
    const ossa_skeleton *s = x->skeleton, *t = y->skeleton;
    assert_true((s == NULL) == (t == NULL) || (s && s->joint_count == 0 && !t) || (t && t->joint_count == 0 && !s));
    uint32_t n = s ? s->joint_count : 0;
    assert_int_equal(n, t ? t->joint_count : 0);
    for (uint32_t j = 0; j < n; j++) {
        assert_string_equal(s->names[j], t->names[j]);
        assert_int_equal(s->parents[j], t->parents[j]);
        assert_int_equal(s->source_index[j], t->source_index[j]);
        assert_int_equal(s->joint_of_source[j], t->joint_of_source[j]);
    }
    if (n) {
        eq_bytes(s->rest, t->rest, n * sizeof *s->rest, "rest pose");
        eq_bytes(s->bind, t->bind, n * sizeof *s->bind, "bind pose");
    }
    uint32_t ns = s ? s->skin_count : 0;
    assert_int_equal(ns, t ? t->skin_count : 0);
    for (uint32_t k = 0; k < ns; k++) {
        assert_string_equal(s->skins[k].name, t->skins[k].name);
        assert_int_equal(s->skins[k].joint_count, t->skins[k].joint_count);
        assert_int_equal(s->skins[k].root, t->skins[k].root);
        eq_bytes(s->skins[k].joints, t->skins[k].joints, s->skins[k].joint_count * 4, "skin joints");
        eq_bytes(s->skins[k].inverse_bind, t->skins[k].inverse_bind, s->skins[k].joint_count * 64, "inverse binds");
    }
    assert_int_equal(x->scene, y->scene);
    if (s && t) assert_true(s->metres_per_unit == t->metres_per_unit);
    assert_int_equal(x->node_count, y->node_count);
    for (uint32_t i = 0; i < x->node_count; i++) {
        const ossa_node_info *a = &x->nodes[i], *b = &y->nodes[i];
        assert_string_equal(a->name, b->name);
        assert_int_equal(a->parent, b->parent);
        assert_int_equal(a->mesh, b->mesh);
        assert_int_equal(a->skin, b->skin);
        assert_int_equal(a->joint, b->joint);
        assert_int_equal(a->had_matrix, b->had_matrix);
        assert_int_equal(a->matrix_not_trs, b->matrix_not_trs);
        eq_bytes(a->matrix.m, b->matrix.m, 64, "node matrix");
    }
    assert_int_equal(x->mesh_info_count, y->mesh_info_count);
    for (uint32_t m = 0; m < x->mesh_info_count; m++) {
        assert_string_equal(x->mesh_infos[m].name ? x->mesh_infos[m].name : "", y->mesh_infos[m].name);
        assert_int_equal(x->mesh_infos[m].primitive_count, y->mesh_infos[m].primitive_count);
        assert_int_equal(x->mesh_infos[m].target_count, y->mesh_infos[m].target_count);
    }
    assert_int_equal(x->mesh_count, y->mesh_count);
    for (uint32_t m = 0; m < x->mesh_count; m++) assert_mesh_equal(x->meshes[m], y->meshes[m]);
    assert_int_equal(x->material_count, y->material_count);
    for (uint32_t m = 0; m < x->material_count; m++) {
        const ossa_material *a = &x->materials[m], *b = &y->materials[m];
        const ossa_texture_ref *ta = &a->base_color_texture, *tb = &b->base_color_texture;
        assert_string_equal(a->name, b->name);
        eq_bytes(a->base_color, b->base_color, 16, "base colour");
        assert_int_equal(ta->image, tb->image);
        assert_int_equal(ta->texcoord, tb->texcoord);
        assert_int_equal(ta->wrap_s, tb->wrap_s);
        assert_int_equal(ta->wrap_t, tb->wrap_t);
        assert_int_equal(ta->mag_filter, tb->mag_filter);
        assert_int_equal(ta->min_filter, tb->min_filter);
        assert_int_equal(a->alpha_mode, b->alpha_mode);
        eq_bytes(&a->alpha_cutoff, &b->alpha_cutoff, 4, "alpha cutoff");
        assert_int_equal(a->double_sided, b->double_sided);
    }
    assert_int_equal(x->image_count, y->image_count);
    for (uint32_t i = 0; i < x->image_count; i++) {
        const ossa_image *a = &x->images[i], *b = &y->images[i];
        assert_string_equal(a->name, b->name);
        assert_string_equal(a->uri, b->uri);
        assert_string_equal(a->mime_type, b->mime_type);
        assert_int_equal(a->size, b->size);
        eq_bytes(a->data, b->data, a->size, "image bytes");
    }
    assert_int_equal(y->clip_count, 0);
    assert_int_equal(x->built_clip_count, y->built_clip_count);
    for (uint32_t c = 0; c < x->built_clip_count; c++) {
        size_t n1, n2;
        const void *b1 = ossa_built_clip_data(x->built_clips[c], &n1), *b2 = ossa_built_clip_data(y->built_clips[c], &n2);
        assert_int_equal(n1, n2);
        assert_memory_equal(b1, b2, n1);
    }
    assert_int_equal(warnings ? x->warning_count : 0, y->warning_count);
    for (uint32_t w = 0; w < y->warning_count; w++) assert_string_equal(x->warnings[w], y->warnings[w]);
    assert_int_equal(x->clip_report_count, y->clip_report_count);
    if (x->clip_report_count) assert_memory_equal(x->clip_reports, y->clip_reports, x->clip_report_count * sizeof *x->clip_reports);
}

/* ---------------------------------------------------------------- round trips */

static void checksum_is_xxh64(void **state) {
    (void)state;
    /* XXH64 (seed 0) reference vectors, behind a 48-byte header that the checksum skips */
    static const struct { const char *text; uint64_t hash; } V[] = {
        {"", 0xEF46DB3751D8E999ull},
        {"a", 0xD24EC4F1A98C6E5Bull},
        {"abc", 0x44BC2CF5AD770999ull},
        {"Nobody inspects the spammish repetition", 0xFBCEA83C8A378BF1ull},
    };
    uint8_t buf[128];
    for (size_t i = 0; i < sizeof V / sizeof V[0]; i++) {
        size_t n = strlen(V[i].text);
        memset(buf, 0xAB, OSSA_PACK_HEADER_SIZE);
        memcpy(buf + OSSA_PACK_HEADER_SIZE, V[i].text, n);
        if (n) assert_true(ossa_pack_checksum(buf, OSSA_PACK_HEADER_SIZE + n) == V[i].hash);
    }
    assert_true(ossa_pack_checksum(buf, OSSA_PACK_HEADER_SIZE) == 0);
    assert_true(ossa_pack_checksum(NULL, 100) == 0);
}

static void rich_round_trip(void **state) {
    (void)state;
    ossa_asset *a = rich_asset();
    size_t size;
    uint8_t *b = pack(a, NULL, &size);
    assert_true(ossa_pack_detect(b, size));
    assert_int_equal(size % 16, 0);
    assert_true(pk_rd_u64(b + PKH_FILE_SIZE) == size);
    ossa_asset *l = load_ok(b, size);
    assert_asset_equal(a, l, true);
    /* the loaded asset packs to the same bytes */
    size_t size2;
    uint8_t *b2 = pack(l, NULL, &size2);
    assert_int_equal(size, size2);
    assert_memory_equal(b, b2, size);
    /* warnings can be left out */
    ossa_pack_options o = {.strip_warnings = true};
    size_t size3;
    uint8_t *b3 = pack(a, &o, &size3);
    ossa_asset *l3 = load_ok(b3, size3);
    assert_asset_equal(a, l3, false);
    /* through a file */
    const char *path = ot_tmp("rich.ossa");
    assert_int_equal(ossa_pack_write_file(a, NULL, path), OSSA_OK);
    ossa_asset *lf = NULL;
    assert_int_equal(ossa_pack_load_file(path, NULL, &lf, NULL), OSSA_OK);
    assert_asset_equal(a, lf, true);
    /* misaligned caller memory */
    uint8_t *mis = malloc(size + 3);
    memcpy(mis + 3, b, size);
    ossa_asset *lm = load_ok(mis + 3, size);
    assert_asset_equal(a, lm, true);
    ossa_asset_destroy(lm);
    ossa_asset_destroy(lf);
    ossa_asset_destroy(l3);
    ossa_asset_destroy(l);
    ossa_asset_destroy(a);
    free(mis);
    free(b3);
    free(b2);
    free(b);
}

/* Samples built clip c of both assets at many times (clamped and looping, forward and
 * random): poses and weights bit for bit equal. */
static void assert_same_sampling(const ossa_asset *x, const ossa_asset *y) {
    uint32_t n = x->skeleton->joint_count;
    uint64_t rng = 7;
    for (uint32_t c = 0; c < x->built_clip_count; c++) {
        const ossa_built_clip *p = x->built_clips[c], *q = y->built_clips[c];
        uint32_t nw = ossa_built_clip_weight_count(p);
        assert_int_equal(nw, ossa_built_clip_weight_count(q));
        ossa_sampling_context *cp = NULL, *cq = NULL;
        assert_int_equal(ossa_sampling_context_create(n, nw, NULL, &cp), OSSA_OK);
        assert_int_equal(ossa_sampling_context_create(n, nw, NULL, &cq), OSSA_OK);
        ossa_transform *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b);
        float *wa = calloc(nw + 1, sizeof *wa), *wb = calloc(nw + 1, sizeof *wb);
        float start = ossa_built_clip_start(p), len = ossa_built_clip_duration(p);
        for (int i = 0; i < 400; i++) {
            float t = i < 200 ? start - 0.1f + (len + 0.2f) * (float)i / 199 : frand(&rng, start - 1, start + 3 * len);
            ossa_sample_job j1 = {p, cp, t, (i & 1) != 0, a, n, nw ? wa : NULL, nw, x->skeleton->rest, n, 0};
            ossa_sample_job j2 = {q, cq, t, (i & 1) != 0, b, n, nw ? wb : NULL, nw, y->skeleton->rest, n, 0};
            assert_int_equal(ossa_sample_job_run(&j1), OSSA_OK);
            assert_int_equal(ossa_sample_job_run(&j2), OSSA_OK);
            assert_memory_equal(a, b, n * sizeof *a);
            if (nw) assert_memory_equal(wa, wb, nw * sizeof *wa);
            assert_true(j1.sampled_time == j2.sampled_time);
        }
        free(a), free(b), free(wa), free(wb);
        ossa_sampling_context_destroy(cp);
        ossa_sampling_context_destroy(cq);
    }
}

static void built_clips_sample_alike(void **state) {
    (void)state;
    ossa_asset *a = rich_asset();
    assert_int_equal(a->built_clip_count, 2);
    assert_true(ossa_built_clip_lossless(a->built_clips[1]));
    size_t size;
    uint8_t *b = pack(a, NULL, &size);
    ossa_asset *l = load_ok(b, size);
    assert_string_equal(ossa_built_clip_name(l->built_clips[1]), "turn (lossless)");
    assert_same_sampling(a, l);
    ossa_asset_destroy(l);
    ossa_asset_destroy(a);
    free(b);
}

/* A built clip made for another rest pose (same joint count) is refused by name: the loader
 * compares each clip's reference hash with the file's skeleton. */
static void built_clip_of_another_rest_pose(void **state) {
    (void)state;
    ossa_asset *a = rich_asset();
    ossa_transform *rest = (ossa_transform *)(uintptr_t)a->skeleton->rest;
    rest[2].translation.x += 0.5f; /* the skeleton changes after the clips were built */
    size_t size;
    uint8_t *b = pack(a, NULL, &size);
    ossa_asset *l = (ossa_asset *)b;
    ossa_diagnostic d;
    assert_int_equal(ossa_pack_load_memory(b, size, NULL, &l, &d), OSSA_ERROR_INVALID_DATA);
    assert_null(l);
    printf("%s: %s\n", d.path, d.message);
    assert_non_null(strstr(d.message, "'turn'"));
    assert_non_null(strstr(d.message, "rest pose"));
    ossa_asset_destroy(a);
    free(b);
}

static void empty_asset_round_trip(void **state) {
    (void)state;
    ossa_asset a;
    memset(&a, 0, sizeof a);
    a.scene = -1;
    size_t size;
    uint8_t *b = pack(&a, NULL, &size);
    ossa_asset *l = load_ok(b, size);
    assert_null(l->skeleton);
    assert_int_equal(l->mesh_count + l->node_count + l->warning_count + l->built_clip_count, 0);
    assert_int_equal(l->scene, -1);
    ossa_asset_destroy(l);
    free(b);
}

static void write_api(void **state) {
    (void)state;
    ossa_asset *a = rich_asset();
    size_t size = 1;
    assert_int_equal(ossa_pack_write(NULL, NULL, NULL, 0, &size), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(size, 0);
    assert_int_equal(ossa_pack_write(a, NULL, NULL, 0, NULL), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_pack_write(a, NULL, NULL, 0, &size), OSSA_OK);
    uint8_t *b = malloc(size);
    size_t got;
    assert_int_equal(ossa_pack_write(a, NULL, b, size - 1, &got), OSSA_ERROR_BUFFER_TOO_SMALL);
    assert_int_equal(got, size);
    /* inconsistent assets are refused */
    a->nodes[1].joint ^= 1;
    assert_int_equal(ossa_pack_write(a, NULL, b, size, &got), OSSA_ERROR_INVALID_ARGUMENT);
    a->nodes[1].joint ^= 1;
    a->meshes[0]->skin = 7;
    assert_int_equal(ossa_pack_write(a, NULL, b, size, &got), OSSA_ERROR_INVALID_ARGUMENT);
    a->meshes[0]->skin = 0;
    assert_int_equal(ossa_pack_write_file(a, NULL, ot_tmp("no/such/dir/x.ossa")), OSSA_ERROR_IO);
    assert_false(ossa_pack_detect(b, 7));
    assert_false(ossa_pack_detect("glTF", 4));
    ossa_asset_destroy(a);
    free(b);
}

static const char *const SHARED[] = {
    "Woman/Woman.gltf",
    "rigged_simple/rigged_simple.gltf",
    "box_animated/box_animated.gltf",
    "interpolation_test/interpolation_test.gltf",
    "triangle/triangle.gltf",
    "simple_skin/simple_skin.gltf",
    "AnimatedMorphCube/AnimatedMorphCube.gltf",
    "BoxTextured-glb/BoxTextured.glb",
    "glTF-Asset-Generator/Positive/Animation_Skin/Animation_Skin_01.gltf",
    "glTF-Asset-Generator/Positive/Buffer_Interleaved/Buffer_Interleaved_00.gltf",
};

static void shared_assets_round_trip(void **state) {
    (void)state;
    if (!ot_asset(SHARED[0])) skip();
    for (size_t i = 0; i < sizeof SHARED / sizeof SHARED[0]; i++) {
        ossa_asset *a = ot_load_asset(SHARED[i]);
        if (a->clip_count) {
            a->built_clips = calloc(a->clip_count, sizeof *a->built_clips);
            for (uint32_t c = 0; c < a->clip_count; c++) {
                ossa_clip_build_options o = {.lossless = (c & 1) != 0};
                assert_int_equal(ossa_clip_build(a->clips[c], a->skeleton, &o, NULL, &a->built_clips[c], NULL), OSSA_OK);
                a->built_clip_count++;
            }
        }
        size_t size;
        uint8_t *b = pack(a, NULL, &size);
        ossa_asset *l = load_ok(b, size);
        assert_asset_equal(a, l, true);
        if (a->built_clip_count) assert_same_sampling(a, l);
        ossa_asset_destroy(l);
        ossa_asset_destroy(a);
        free(b);
    }
}

/* ---------------------------------------------------------------- hostile files */

/* Loads and requires failure with `expect` (0 = any error), a clean diagnostic and no asset. */
static void expect_fail(const uint8_t *b, size_t size, ossa_result expect, const char *message_part) {
    ossa_asset *a = (ossa_asset *)(uintptr_t)1;
    ossa_diagnostic d;
    ossa_result r = ossa_pack_load_memory(b, size, NULL, &a, &d);
    if (r == OSSA_OK) fail_msg("loaded, expected %s (%s)", ossa_result_string(expect), message_part ? message_part : "");
    assert_null(a);
    assert_non_null(memchr(d.message, 0, sizeof d.message));
    if (!d.message[0]) fail_msg("%s without a message", ossa_result_string(r));
    if (expect && r != expect) fail_msg("got %s (%s), expected %s", ossa_result_string(r), d.message, ossa_result_string(expect));
    if (message_part && !strstr(d.message, message_part))
        fail_msg("message '%s' lacks '%s'", d.message, message_part);
}

static void every_truncation_fails(void **state) {
    (void)state;
    ossa_asset *a = rich_asset();
    size_t size;
    uint8_t *b = pack(a, NULL, &size);
    for (size_t len = 1; len < size; len++) {
        uint8_t *p = malloc(len); /* exact-size copy: ASan sees any read past it */
        memcpy(p, b, len);
        expect_fail(p, len, OSSA_ERROR_PARSE, len < OSSA_PACK_HEADER_SIZE ? "" : "header says");
        free(p);
    }
    ossa_asset *none = NULL;
    assert_int_equal(ossa_pack_load_memory(b, 0, NULL, &none, NULL), OSSA_ERROR_INVALID_ARGUMENT);
    /* a truncated file on disk too */
    const char *path = ot_tmp("truncated.ossa");
    FILE *f = fopen(path, "wb");
    fwrite(b, 1, size / 2, f);
    fclose(f);
    ossa_asset *l = NULL;
    ossa_diagnostic d;
    assert_int_equal(ossa_pack_load_file(path, NULL, &l, &d), OSSA_ERROR_PARSE);
    assert_null(l);
    ossa_asset_destroy(a);
    free(b);
}

static void fix_checksum(uint8_t *b, size_t size) {
    uint64_t sum = ossa_pack_checksum(b, size);
    memcpy(b + PKH_CHECKSUM, &sum, 8);
}

/* Checks the invariants a loaded asset must hold (as fuzz/fuzz_pack.c does). */
static void check_invariants(const ossa_asset *a) {
    uint32_t n = a->skeleton ? a->skeleton->joint_count : 0;
    /* built clips that loaded must sample (a flipped key is fine, a crash is not) */
    for (uint32_t c = 0; c < a->built_clip_count; c++) {
        const ossa_built_clip *clip = a->built_clips[c];
        uint32_t nw = ossa_built_clip_weight_count(clip);
        ossa_sampling_context *ctx = NULL;
        assert_int_equal(ossa_sampling_context_create(n, nw, NULL, &ctx), OSSA_OK);
        ossa_transform *pose = calloc(n + 1, sizeof *pose);
        float *w = calloc(nw + 1, sizeof *w);
        float start = ossa_built_clip_start(clip), end = ossa_built_clip_end(clip);
        const float times[] = {start - 1, start, 0.5f * (start + end), end, end + 1, 0.3f * start + 0.7f * end};
        for (size_t i = 0; i < sizeof times / sizeof times[0]; i++) {
            ossa_sample_job j = {clip, ctx, times[i], (i & 1) != 0, pose, n, w, nw, a->skeleton ? a->skeleton->rest : pose, n, 0};
            assert_int_equal(ossa_sample_job_run(&j), OSSA_OK);
        }
        free(pose);
        free(w);
        ossa_sampling_context_destroy(ctx);
    }
    for (uint32_t j = 0; j < n; j++) {
        assert_true(a->skeleton->parents[j] < (int32_t)j);
        assert_int_equal(a->skeleton->joint_of_source[a->skeleton->source_index[j]], j);
    }
    for (uint32_t m = 0; m < a->mesh_count; m++) {
        const ossa_mesh *x = a->meshes[m];
        for (uint32_t i = 0; i < x->index_count; i++) assert_true(x->indices[i] < x->vertex_count);
        for (size_t i = 0; i < (size_t)x->vertex_count * x->influences; i++) assert_true(x->joints[i] < n);
    }
}

static void flipped_bytes_never_crash(void **state) {
    (void)state;
    ossa_asset *a = rich_asset();
    size_t size;
    uint8_t *b = pack(a, NULL, &size);
    uint8_t *p = malloc(size);
    size_t loaded = 0, failed = 0;
    static const uint8_t FLIPS[] = {0x01, 0x80, 0xFF, 0x10};
    for (size_t i = 0; i < size; i++)
        for (size_t f = 0; f < sizeof FLIPS; f++) {
            memcpy(p, b, size);
            p[i] ^= FLIPS[f];
            /* unrepaired: the checksum (or the header check) catches every flip */
            if (f == 0) expect_fail(p, size, 0, NULL);
            if (i >= OSSA_PACK_HEADER_SIZE || i == PKH_CHECKSUM) fix_checksum(p, size);
            ossa_asset *l = NULL;
            ossa_diagnostic d;
            ossa_result r = ossa_pack_load_memory(p, size, NULL, &l, &d);
            if (r == OSSA_OK) {
                check_invariants(l);
                ossa_asset_destroy(l);
                loaded++;
            } else {
                assert_null(l);
                assert_true(d.message[0] != 0);
                failed++;
            }
        }
    printf("flipped bytes: %zu loads, %zu clean failures over %zu bytes\n", loaded, failed, size);
    assert_true(failed > 0 && loaded > 0);
    free(p);
    ossa_asset_destroy(a);
    free(b);
}

/* Offset of section `type` and of its data in a packed file. */
static uint64_t section_of(const uint8_t *b, uint32_t type, uint32_t *index) {
    uint32_t count = pk_rd_u32(b + PKH_SECTION_COUNT);
    for (uint32_t k = 0; k < count; k++) {
        const uint8_t *e = b + OSSA_PACK_HEADER_SIZE + (size_t)k * PK_SECTION_ENTRY;
        if (pk_rd_u32(e) == type) {
            if (index) *index = k;
            return pk_rd_u64(e + PKS_OFFSET);
        }
    }
    fail_msg("no section of type %u", type);
    return 0;
}

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

/* One edit of a fresh packed rich asset, then the expected failure. */
typedef void (*edit_fn)(uint8_t *b, size_t size);
static void expect_edit(edit_fn edit, bool repair, ossa_result expect, const char *message) {
    ossa_asset *a = rich_asset();
    size_t size;
    uint8_t *b = pack(a, NULL, &size);
    edit(b, size);
    if (repair) fix_checksum(b, size);
    expect_fail(b, size, expect, message);
    ossa_asset_destroy(a);
    free(b);
}

static void e_magic(uint8_t *b, size_t s) { (void)s; b[1] = 'X'; }
static void e_version(uint8_t *b, size_t s) { (void)s; put32(b + PKH_VERSION, 2); }
static void e_big_endian(uint8_t *b, size_t s) { (void)s; put32(b + PKH_ENDIAN, 0x04030201u); }
static void e_checksum(uint8_t *b, size_t s) { b[s - 1] ^= 1; }
static void e_section_count(uint8_t *b, size_t s) { (void)s; put32(b + PKH_SECTION_COUNT, 1000); }
static void e_meta_unit_nan(uint8_t *b, size_t s) { (void)s; put32(b + section_of(b, PK_META, NULL) + 4, 0x7fc00000u); }
static void e_meta_unit_negative(uint8_t *b, size_t s) { (void)s; put32(b + section_of(b, PK_META, NULL) + 4, 0xbf800000u); }
static void e_section_past_end(uint8_t *b, size_t s) {
    put64(b + OSSA_PACK_HEADER_SIZE + PKS_SIZE, s);
}
static void e_section_misaligned(uint8_t *b, size_t s) {
    (void)s;
    uint8_t *e = b + OSSA_PACK_HEADER_SIZE + PK_SECTION_ENTRY;
    put64(e + PKS_OFFSET, pk_rd_u64(e + PKS_OFFSET) + 4);
}
static void e_section_overlap(uint8_t *b, size_t s) {
    (void)s;
    uint8_t *e = b + OSSA_PACK_HEADER_SIZE + 2 * PK_SECTION_ENTRY;
    put64(e + PKS_OFFSET, pk_rd_u64(e - PK_SECTION_ENTRY + PKS_OFFSET));
}
static void e_duplicate(uint8_t *b, size_t s) {
    (void)s;
    put32(b + OSSA_PACK_HEADER_SIZE + PK_SECTION_ENTRY + PKS_TYPE, PK_META);
}
static void e_skeleton_size(uint8_t *b, size_t s) {
    (void)s;
    uint32_t k = 0;
    section_of(b, PK_SKELETON, &k);
    uint8_t *e = b + OSSA_PACK_HEADER_SIZE + (size_t)k * PK_SECTION_ENTRY;
    put32(e + PKS_COUNT, pk_rd_u32(e + PKS_COUNT) + 1);
}
static void e_parent_after(uint8_t *b, size_t s) {
    (void)s;
    put32(b + section_of(b, PK_SKELETON, NULL) + 4 * 1, 3); /* joint 1's parent = joint 3 */
}
static void e_source_repeated(uint8_t *b, size_t s) {
    (void)s;
    uint64_t o = section_of(b, PK_SKELETON, NULL) + pk_skeleton_layout_of(6).source_index;
    memcpy(b + o + 4, b + o, 4);
}
static void e_rest_nan(uint8_t *b, size_t s) {
    (void)s;
    uint64_t o = section_of(b, PK_SKELETON, NULL) + pk_skeleton_layout_of(6).rest;
    put32(b + o + 4 * 13, 0x7fc00000u); /* joint 1 rotation.x */
}
static void e_name_offset(uint8_t *b, size_t s) {
    (void)s;
    uint64_t o = section_of(b, PK_SKELETON, NULL) + pk_skeleton_layout_of(6).names;
    put32(b + o + 8, 0xFFFFFF);
}
static void e_strings_unterminated(uint8_t *b, size_t s) {
    uint32_t k = 0;
    section_of(b, PK_STRINGS, &k);
    const uint8_t *e = b + OSSA_PACK_HEADER_SIZE + (size_t)k * PK_SECTION_ENTRY;
    (void)s;
    b[pk_rd_u64(e + PKS_OFFSET) + pk_rd_u64(e + PKS_SIZE) - 1] = 'x';
}
static void e_skin_joint(uint8_t *b, size_t s) {
    (void)s;
    uint64_t o = section_of(b, PK_SKINS, NULL) + pk_skins_layout_of(2, 5).joints;
    put32(b + o + 4, 6);
}
static void e_skin_root(uint8_t *b, size_t s) {
    (void)s;
    put32(b + section_of(b, PK_SKINS, NULL) + PK_SKIN_RECORD + 8, 99);
}
static void e_ibm_inf(uint8_t *b, size_t s) {
    (void)s;
    put32(b + section_of(b, PK_SKINS, NULL) + pk_skins_layout_of(2, 5).inverse_bind + 64 * 4, 0x7f800000u);
}
static void e_node_mesh(uint8_t *b, size_t s) {
    (void)s;
    put32(b + section_of(b, PK_NODES, NULL) + PK_NODE_RECORD * 3, 2);
}
static void e_node_count(uint8_t *b, size_t s) {
    (void)s;
    uint32_t k = 0;
    section_of(b, PK_NODES, &k);
    uint8_t *e = b + OSSA_PACK_HEADER_SIZE + (size_t)k * PK_SECTION_ENTRY;
    put32(e + PKS_COUNT, 5);
    put64(e + PKS_SIZE, 5 * PK_NODE_RECORD);
}
static uint8_t *mesh_rec(uint8_t *b, uint32_t m) { return b + section_of(b, PK_MESHES, NULL) + (size_t)m * PK_MESH_RECORD; }
static void e_mesh_joint(uint8_t *b, size_t s) {
    (void)s;
    uint8_t *r = mesh_rec(b, 0);
    uint16_t v = 77;
    memcpy(b + section_of(b, PK_MESHES, NULL) + pk_rd_u64(r + PKM_STREAMS + 8 * PKST_JOINTS) + 2 * 9, &v, 2);
}
static void e_mesh_index(uint8_t *b, size_t s) {
    (void)s;
    uint8_t *r = mesh_rec(b, 1);
    put32(b + section_of(b, PK_MESHES, NULL) + pk_rd_u64(r + PKM_STREAMS + 8 * PKST_INDICES) + 4 * 4, 7);
}
static void e_mesh_weight_negative(uint8_t *b, size_t s) {
    (void)s;
    uint8_t *r = mesh_rec(b, 1);
    put32(b + section_of(b, PK_MESHES, NULL) + pk_rd_u64(r + PKM_STREAMS + 8 * PKST_WEIGHTS), 0xBF800000u);
}
static void e_mesh_position_nan(uint8_t *b, size_t s) {
    (void)s;
    uint8_t *r = mesh_rec(b, 2);
    put32(b + section_of(b, PK_MESHES, NULL) + pk_rd_u64(r + PKM_STREAMS) + 4 * 5, 0xFFC00000u);
}
static void e_mesh_stream_past(uint8_t *b, size_t s) {
    (void)s;
    uint8_t *r = mesh_rec(b, 0);
    put32(r + PKM_VERTEX_COUNT, 1u << 30);
}
static void e_mesh_stream_shared(uint8_t *b, size_t s) {
    (void)s;
    /* mesh 2 claims every stream byte of the section as its positions: the bytes are
     * referenced twice (an amplification attempt), so the total exceeds the section */
    uint32_t k = 0;
    section_of(b, PK_MESHES, &k);
    uint64_t size = pk_rd_u64(b + OSSA_PACK_HEADER_SIZE + (size_t)k * PK_SECTION_ENTRY + PKS_SIZE);
    uint64_t first = pk_rd_u64(mesh_rec(b, 0) + PKM_STREAMS);
    uint8_t *r2 = mesh_rec(b, 2);
    put64(r2 + PKM_STREAMS, first);
    put32(r2 + PKM_VERTEX_COUNT, (uint32_t)((size - first) / 12));
}
static void e_mesh_influences(uint8_t *b, size_t s) {
    (void)s;
    put32(mesh_rec(b, 1) + PKM_INFLUENCES, 5);
}
static void e_mesh_skin(uint8_t *b, size_t s) {
    (void)s;
    put32(mesh_rec(b, 1) + PKM_SKIN, 0xFFFFFFFFu);
}
static void e_stream_misaligned(uint8_t *b, size_t s) {
    (void)s;
    uint8_t *r = mesh_rec(b, 1);
    put64(r + PKM_STREAMS + 8 * PKST_UV0, pk_rd_u64(r + PKM_STREAMS + 8 * PKST_UV0) + 4);
}
static void e_warning(uint8_t *b, size_t s) {
    (void)s;
    put32(b + section_of(b, PK_WARNINGS, NULL) + 4, 0x80000000u);
}

static uint8_t *clip_rec(uint8_t *b, uint32_t c) { return b + section_of(b, PK_CLIPS, NULL) + (size_t)c * PK_CLIP_RECORD; }
static void e_clip_block_past(uint8_t *b, size_t s) {
    (void)s;
    put64(clip_rec(b, 1) + 8, pk_rd_u64(clip_rec(b, 1) + 8) + 4096);
}
static void e_clip_block_shared(uint8_t *b, size_t s) {
    (void)s;
    put64(clip_rec(b, 1), pk_rd_u64(clip_rec(b, 0)));
    put64(clip_rec(b, 1) + 8, pk_rd_u64(clip_rec(b, 0) + 8));
}
static void e_clip_block_corrupt(uint8_t *b, size_t s) {
    (void)s;
    uint64_t off = section_of(b, PK_CLIPS, NULL) + pk_rd_u64(clip_rec(b, 0));
    memset(b + off, 0xEE, 16); /* the block's own header */
}

static uint8_t *material_rec(uint8_t *b, uint32_t m) {
    return b + section_of(b, PK_MATERIALS, NULL) + (size_t)m * PK_MATERIAL_RECORD;
}
static uint8_t *image_rec(uint8_t *b, uint32_t i) { return b + section_of(b, PK_IMAGES, NULL) + (size_t)i * PK_IMAGE_RECORD; }
static uint8_t *surface_rec(uint8_t *b, uint32_t m) {
    return b + section_of(b, PK_SURFACES, NULL) + (size_t)m * PK_SURFACE_RECORD;
}
static void e_material_image(uint8_t *b, size_t s) { (void)s; put32(material_rec(b, 1) + PKMA_IMAGE, 2); }
static void e_material_texcoord(uint8_t *b, size_t s) { (void)s; put32(material_rec(b, 0) + PKMA_TEXCOORD, 2); }
static void e_material_sampler(uint8_t *b, size_t s) { (void)s; put32(material_rec(b, 0) + PKMA_MIN_FILTER, 70000); }
static void e_material_alpha(uint8_t *b, size_t s) { (void)s; put32(material_rec(b, 1) + PKMA_ALPHA_MODE, 3); }
static void e_material_color(uint8_t *b, size_t s) { (void)s; put32(material_rec(b, 0) + PKMA_BASE_COLOR + 8, 0x7f800000u); }
static void e_material_name(uint8_t *b, size_t s) { (void)s; put32(material_rec(b, 1) + PKMA_NAME, 0x7fffffffu); }
static void e_material_size(uint8_t *b, size_t s) {
    (void)s;
    uint32_t k = 0;
    section_of(b, PK_MATERIALS, &k);
    put32(b + OSSA_PACK_HEADER_SIZE + (size_t)k * PK_SECTION_ENTRY + PKS_COUNT, 3);
}
static void e_image_past(uint8_t *b, size_t s) { (void)s; put64(image_rec(b, 0) + PKI_SIZE, 1u << 30); }
static void e_image_flags(uint8_t *b, size_t s) { (void)s; put32(image_rec(b, 1) + PKI_FLAGS, 6); }
static void e_image_no_flag(uint8_t *b, size_t s) { (void)s; put32(image_rec(b, 0) + PKI_FLAGS, 0); }
static void e_image_shared(uint8_t *b, size_t s) {
    (void)s; /* image 1 claims image 0's bytes */
    put32(image_rec(b, 1) + PKI_FLAGS, PK_IMAGE_HAS_DATA);
    put64(image_rec(b, 1) + PKI_OFFSET, pk_rd_u64(image_rec(b, 0) + PKI_OFFSET));
    put64(image_rec(b, 1) + PKI_SIZE, pk_rd_u64(image_rec(b, 0) + PKI_SIZE));
}
static void e_image_mime(uint8_t *b, size_t s) { (void)s; put32(image_rec(b, 0) + PKI_MIME, 0xfffffff0u); }
static void e_surface_material(uint8_t *b, size_t s) { (void)s; put32(surface_rec(b, 2) + PKSU_MATERIAL, 9); }
static void e_surface_colors_nan(uint8_t *b, size_t s) {
    (void)s;
    uint8_t *sec = b + section_of(b, PK_SURFACES, NULL);
    put32(sec + pk_rd_u64(surface_rec(b, 0) + PKSU_COLORS) + 4 * 13, 0xffc00000u);
}
static void e_surface_colors_past(uint8_t *b, size_t s) { (void)s; put64(surface_rec(b, 2) + PKSU_COLORS, 1u << 20); }
static void e_surface_count(uint8_t *b, size_t s) {
    (void)s;
    uint32_t k = 0;
    section_of(b, PK_SURFACES, &k);
    put32(b + OSSA_PACK_HEADER_SIZE + (size_t)k * PK_SECTION_ENTRY + PKS_COUNT, 2);
}

static uint8_t *report_rec(uint8_t *b, uint32_t c) {
    return b + section_of(b, PK_CLIP_REPORTS, NULL) + (size_t)c * PK_CLIP_REPORT_RECORD;
}
static void e_report_count(uint8_t *b, size_t s) {
    (void)s;
    uint32_t k = 0;
    section_of(b, PK_CLIP_REPORTS, &k);
    put32(b + OSSA_PACK_HEADER_SIZE + (size_t)k * PK_SECTION_ENTRY + PKS_COUNT, 1);
}
static void e_report_fewer(uint8_t *b, size_t s) {
    (void)s; /* one record, the section sized for it: fewer reports than built clips */
    uint32_t k = 0;
    section_of(b, PK_CLIP_REPORTS, &k);
    put32(b + OSSA_PACK_HEADER_SIZE + (size_t)k * PK_SECTION_ENTRY + PKS_COUNT, 1);
    put64(b + OSSA_PACK_HEADER_SIZE + (size_t)k * PK_SECTION_ENTRY + PKS_SIZE, PK_CLIP_REPORT_RECORD);
}
static void e_report_nan(uint8_t *b, size_t s) { (void)s; put32(report_rec(b, 0) + PKCR_MAX_VERTEX_ERROR, 0x7fc00000u); }
static void e_report_joint(uint8_t *b, size_t s) { (void)s; put32(report_rec(b, 0) + PKCR_WORST_JOINT, 99); }
static void e_report_vertex(uint8_t *b, size_t s) { (void)s; put32(report_rec(b, 0) + PKCR_WORST_VERTEX, 1000); }
static void e_report_none(uint8_t *b, size_t s) { (void)s; put32(report_rec(b, 1) + PKCR_WORST_MESH, 1); }

static void hostile_fields(void **state) {
    (void)state;
    expect_edit(e_magic, false, OSSA_ERROR_PARSE, "not a packed .ossa file");
    expect_edit(e_version, false, OSSA_ERROR_UNSUPPORTED, "format version 2");
    expect_edit(e_big_endian, false, OSSA_ERROR_UNSUPPORTED, "big-endian");
    expect_edit(e_checksum, false, OSSA_ERROR_PARSE, "checksum mismatch");
    expect_edit(e_section_count, false, OSSA_ERROR_PARSE, "1000 sections");
    expect_edit(e_section_past_end, true, OSSA_ERROR_PARSE, "section 0 (meta):");
    expect_edit(e_section_misaligned, true, OSSA_ERROR_PARSE, "not 16-byte aligned");
    expect_edit(e_section_overlap, true, OSSA_ERROR_PARSE, "overlaps");
    expect_edit(e_duplicate, true, OSSA_ERROR_PARSE, "a second meta section");
    expect_edit(e_meta_unit_nan, true, OSSA_ERROR_INVALID_DATA, "section 0 (meta): metres per unit nan");
    expect_edit(e_meta_unit_negative, true, OSSA_ERROR_INVALID_DATA, "section 0 (meta): metres per unit -1");
    expect_edit(e_skeleton_size, true, OSSA_ERROR_PARSE, "section 1 (skeleton): ");
    expect_edit(e_parent_after, true, OSSA_ERROR_INVALID_DATA, "section 1 (skeleton) / joint 1: parent 3");
    expect_edit(e_source_repeated, true, OSSA_ERROR_INVALID_DATA, "/ joint 1: source index");
    expect_edit(e_rest_nan, true, OSSA_ERROR_INVALID_DATA, "joint 1: non-finite rest pose");
    expect_edit(e_name_offset, true, OSSA_ERROR_INVALID_DATA, "joint 2: name offset");
    expect_edit(e_strings_unterminated, true, OSSA_ERROR_PARSE, "(strings): the last string");
    expect_edit(e_skin_joint, true, OSSA_ERROR_INVALID_DATA, "section 2 (skins) / skin 0: joint 1 is 6 >= 6 joints");
    expect_edit(e_skin_root, true, OSSA_ERROR_INVALID_DATA, "skin 1: root joint 99");
    expect_edit(e_ibm_inf, true, OSSA_ERROR_INVALID_DATA, "skin 1: inverse bind matrix 0 is not finite");
    expect_edit(e_node_mesh, true, OSSA_ERROR_INVALID_DATA, "section 3 (nodes) / node 3: mesh 2 >= 2 meshes");
    expect_edit(e_node_count, true, OSSA_ERROR_INVALID_DATA, "5 nodes for 6 joints");
    expect_edit(e_mesh_joint, true, OSSA_ERROR_INVALID_DATA, "section 5 (meshes) / mesh 0: vertex 1: joint index 77 >= 6");
    expect_edit(e_mesh_index, true, OSSA_ERROR_INVALID_DATA, "mesh 1: index 4 is 7 >= 7 vertices");
    expect_edit(e_mesh_weight_negative, true, OSSA_ERROR_INVALID_DATA, "mesh 1: a negative joint weight");
    expect_edit(e_mesh_position_nan, true, OSSA_ERROR_INVALID_DATA, "mesh 2: positions: float 5 is not finite");
    expect_edit(e_mesh_stream_past, true, OSSA_ERROR_PARSE, "mesh 0: positions:");
    expect_edit(e_mesh_stream_shared, true, OSSA_ERROR_PARSE, "streams overlap");
    expect_edit(e_mesh_influences, true, OSSA_ERROR_INVALID_DATA, "mesh 1: 5 influences");
    expect_edit(e_mesh_skin, true, OSSA_ERROR_INVALID_DATA, "mesh 1: joint influences without a skin");
    expect_edit(e_stream_misaligned, true, OSSA_ERROR_PARSE, "mesh 1: uv0:");
    expect_edit(e_clip_block_past, true, OSSA_ERROR_PARSE, "section 6 (clips) / clip 1: ");
    expect_edit(e_clip_block_shared, true, OSSA_ERROR_PARSE, "clip 1: blocks overlap");
    expect_edit(e_clip_block_corrupt, true, 0, "section 6 (clips) / clip 0: ");
    expect_edit(e_warning, true, OSSA_ERROR_INVALID_DATA, "section 7 (warnings) / warning 1: name offset");
    expect_edit(e_material_image, true, OSSA_ERROR_INVALID_DATA, "section 8 (materials) / material 1: image 2 >= 2 images");
    expect_edit(e_material_texcoord, true, OSSA_ERROR_INVALID_DATA, "material 0: texture coordinate set 2");
    expect_edit(e_material_sampler, true, OSSA_ERROR_INVALID_DATA, "material 0: sampler value 70000");
    expect_edit(e_material_alpha, true, OSSA_ERROR_INVALID_DATA, "material 1: alpha mode 3");
    expect_edit(e_material_color, true, OSSA_ERROR_INVALID_DATA, "material 0: non-finite base colour");
    expect_edit(e_material_name, true, OSSA_ERROR_INVALID_DATA, "material 1: name offset");
    expect_edit(e_material_size, true, OSSA_ERROR_PARSE, "section 8 (materials): ");
    expect_edit(e_image_past, true, OSSA_ERROR_PARSE, "section 9 (images) / image 0: bytes: ");
    expect_edit(e_image_flags, true, OSSA_ERROR_INVALID_DATA, "image 1: unknown flags 0x6");
    expect_edit(e_image_no_flag, true, OSSA_ERROR_INVALID_DATA, "image 0: 13 bytes");
    expect_edit(e_image_shared, true, OSSA_ERROR_PARSE, "image 1: bytes: offset 64 overlaps");
    expect_edit(e_image_mime, true, OSSA_ERROR_INVALID_DATA, "image 0: name offset");
    expect_edit(e_surface_material, true, OSSA_ERROR_INVALID_DATA, "section 10 (mesh surfaces) / mesh 2: material 9 >= 2");
    expect_edit(e_surface_colors_nan, true, OSSA_ERROR_INVALID_DATA, "mesh 0: colors: float 13 is not finite");
    expect_edit(e_surface_colors_past, true, OSSA_ERROR_PARSE, "section 10 (mesh surfaces) / mesh 2: colors: ");
    expect_edit(e_surface_count, true, OSSA_ERROR_INVALID_DATA, "2 records for 3 meshes");
    expect_edit(e_report_count, true, OSSA_ERROR_PARSE, "section 11 (clip reports): ");
    expect_edit(e_report_fewer, true, OSSA_ERROR_INVALID_DATA, "section 11 (clip reports): 1 reports for 2 built clips");
    expect_edit(e_report_nan, true, OSSA_ERROR_INVALID_DATA, "section 11 (clip reports) / clip 0: max vertex error");
    expect_edit(e_report_joint, true, OSSA_ERROR_INVALID_DATA, "section 11 (clip reports) / clip 0: worst vertex joint 99 >= 6");
    expect_edit(e_report_vertex, true, OSSA_ERROR_INVALID_DATA, "clip 0: worst vertex 1000 >= ");
    expect_edit(e_report_none, true, OSSA_ERROR_INVALID_DATA, "clip 1: a worst vertex without a vertex error");
}

static void unknown_sections_are_skipped(void **state) {
    (void)state;
    ossa_asset *a = rich_asset();
    size_t size;
    uint8_t *b = pack(a, NULL, &size);
    /* retag the warnings section as a type from a later version: skipped */
    uint32_t k = 0;
    section_of(b, PK_WARNINGS, &k);
    put32(b + OSSA_PACK_HEADER_SIZE + (size_t)k * PK_SECTION_ENTRY, 1000);
    fix_checksum(b, size);
    ossa_asset *l = load_ok(b, size);
    assert_asset_equal(a, l, false);
    ossa_asset_destroy(l);
    ossa_asset_destroy(a);
    free(b);
}

/* A file written before materials, images and mesh surfaces existed (the same version:
 * they are sections an older reader skips) loads with default materials and no colours;
 * this reader likewise skips them when they are tagged as unknown. */
static void files_without_surfaces(void **state) {
    (void)state;
    ossa_asset *a = rich_asset();
    size_t size;
    uint8_t *b = pack(a, NULL, &size);
    static const uint32_t NEW_TYPES[] = {PK_MATERIALS, PK_IMAGES, PK_SURFACES};
    for (size_t t = 0; t < 3; t++) {
        uint32_t k = 0;
        section_of(b, NEW_TYPES[t], &k);
        put32(b + OSSA_PACK_HEADER_SIZE + (size_t)k * PK_SECTION_ENTRY, 1000 + (uint32_t)t);
    }
    fix_checksum(b, size);
    ossa_asset *l = load_ok(b, size);
    assert_int_equal(l->material_count, 0);
    assert_int_equal(l->image_count, 0);
    assert_int_equal(l->mesh_count, 3);
    for (uint32_t m = 0; m < 3; m++) {
        assert_int_equal(l->meshes[m]->material, -1);
        assert_null(l->meshes[m]->colors);
        eq_bytes(a->meshes[m]->positions, l->meshes[m]->positions, 7 * 12, "positions");
    }
    ossa_asset_destroy(l);
    ossa_asset_destroy(a);
    free(b);
}

/* Clip reports are optional: a file without them (as written before they existed, one section
 * fewer) or with them tagged as unknown loads with none (NULL, 0); the writer refuses reports
 * its loader would refuse. */
static void files_without_clip_reports(void **state) {
    (void)state;
    ossa_asset *a = rich_asset();
    size_t with_size, size;
    uint8_t *with = pack(a, NULL, &with_size);
    uint32_t k = 0;
    section_of(with, PK_CLIP_REPORTS, &k);
    put32(with + OSSA_PACK_HEADER_SIZE + (size_t)k * PK_SECTION_ENTRY, 1013);
    fix_checksum(with, with_size);
    ossa_asset *l = load_ok(with, with_size);
    assert_int_equal(l->clip_report_count, 0);
    assert_null(l->clip_reports);
    assert_int_equal(l->built_clip_count, 2);
    ossa_asset_destroy(l);
    uint32_t reports = a->clip_report_count;
    a->clip_report_count = 0; /* no reports: no section */
    uint8_t *without = pack(a, NULL, &size);
    assert_int_equal(pk_rd_u32(without + PKH_SECTION_COUNT), pk_rd_u32(with + PKH_SECTION_COUNT) - 1);
    assert_true(size == with_size - pk_align16((uint64_t)reports * PK_CLIP_REPORT_RECORD) - PK_SECTION_ENTRY);
    l = load_ok(without, size);
    assert_int_equal(l->clip_report_count, 0);
    assert_null(l->clip_reports);
    ossa_asset_destroy(l);
    a->clip_report_count = 1; /* one report for two built clips */
    assert_int_equal(ossa_pack_write(a, NULL, NULL, 0, &size), OSSA_ERROR_INVALID_ARGUMENT);
    a->clip_report_count = 2;
    a->clip_reports[0].worst_vertex_joint = 6;
    assert_int_equal(ossa_pack_write(a, NULL, NULL, 0, &size), OSSA_ERROR_INVALID_ARGUMENT);
    a->clip_reports[0].worst_vertex_joint = 3;
    a->clip_reports[1].max_vertex_error = 1.0f; /* a vertex error without a mesh checked */
    assert_int_equal(ossa_pack_write(a, NULL, NULL, 0, &size), OSSA_ERROR_INVALID_ARGUMENT);
    a->clip_reports[1].max_vertex_error = 0.0f;
    assert_int_equal(ossa_pack_write(a, NULL, NULL, 0, &size), OSSA_OK);
    ossa_asset_destroy(a);
    free(with);
    free(without);
}

static void load_file_errors(void **state) {
    (void)state;
    ossa_asset *a = NULL;
    ossa_diagnostic d;
    assert_int_equal(ossa_pack_load_file(ot_tmp("does-not-exist.ossa"), NULL, &a, &d), OSSA_ERROR_IO);
    assert_non_null(strstr(d.message, "cannot open"));
    assert_int_equal(ossa_pack_load_file(ot_tmp(""), NULL, &a, &d), OSSA_ERROR_IO);
    assert_int_equal(ossa_pack_load_file(NULL, NULL, &a, &d), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_pack_load_file("x", NULL, NULL, &d), OSSA_ERROR_INVALID_ARGUMENT);
    const char *empty = ot_tmp("empty.ossa");
    fclose(fopen(empty, "wb"));
    assert_int_equal(ossa_pack_load_file(empty, NULL, &a, &d), OSSA_ERROR_PARSE);
    assert_null(a);
}

static void max_allocation_limit(void **state) {
    (void)state;
    ossa_asset *a = rich_asset();
    size_t size;
    uint8_t *b = pack(a, NULL, &size);
    ossa_load_options o = {0};
    o.max_allocation = size; /* less than twice the file */
    ossa_asset *l = NULL;
    ossa_diagnostic d;
    assert_int_equal(ossa_pack_load_memory(b, size, &o, &l, &d), OSSA_ERROR_LIMIT);
    assert_null(l);
    o.max_allocation = 2 * size;
    assert_int_equal(ossa_pack_load_memory(b, size, &o, &l, &d), OSSA_OK);
    ossa_asset_destroy(l);
    ossa_asset_destroy(a);
    free(b);
}

/* An allocator that fails the n-th allocation and counts what is live. */
typedef struct fail_alloc { int countdown; long live; } fail_alloc;
static void *fa_alloc(size_t size, void *user) {
    fail_alloc *f = user;
    if (f->countdown-- == 0) return NULL;
    f->live++;
    return malloc(size);
}
static void fa_free(void *p, void *user) {
    fail_alloc *f = user;
    if (p) f->live--;
    free(p);
}

static void allocation_failure_every_point(void **state) {
    (void)state;
    ossa_asset *a = rich_asset();
    size_t size;
    uint8_t *b = pack(a, NULL, &size);
    int points = 0;
    for (int n = 0;; n++) {
        fail_alloc f = {n, 0};
        ossa_allocator al = {fa_alloc, fa_free, &f};
        ossa_load_options o = {0};
        o.allocator = &al;
        ossa_asset *l = NULL;
        ossa_diagnostic d;
        ossa_result r = ossa_pack_load_memory(b, size, &o, &l, &d);
        if (r == OSSA_OK) {
            assert_asset_equal(a, l, true);
            ossa_asset_destroy(l);
            assert_int_equal(f.live, 0);
            break;
        }
        assert_int_equal(r, OSSA_ERROR_OUT_OF_MEMORY);
        assert_null(l);
        assert_int_equal(f.live, 0);
        points++;
    }
    assert_true(points > 5);
    ossa_asset_destroy(a);
    free(b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(checksum_is_xxh64),
        cmocka_unit_test(rich_round_trip),
        cmocka_unit_test(empty_asset_round_trip),
        cmocka_unit_test(built_clip_of_another_rest_pose),
        cmocka_unit_test(built_clips_sample_alike),
        cmocka_unit_test(write_api),
        cmocka_unit_test(shared_assets_round_trip),
        cmocka_unit_test(every_truncation_fails),
        cmocka_unit_test(flipped_bytes_never_crash),
        cmocka_unit_test(hostile_fields),
        cmocka_unit_test(unknown_sections_are_skipped),
        cmocka_unit_test(files_without_surfaces),
        cmocka_unit_test(files_without_clip_reports),
        cmocka_unit_test(load_file_errors),
        cmocka_unit_test(max_allocation_limit),
        cmocka_unit_test(allocation_failure_every_point),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
