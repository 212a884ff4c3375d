/* `ossa pack` and the tool on packed files, by expected output: a generated glTF
 * (a skinned, morphed 3-joint chain with STEP translation, LINEAR rotation, CUBICSPLINE
 * scale and a morph-weight track) and, when present, the shared assets:
 *   - `ossa pack` prints raw / built bytes, ratio, the precision (of the height) and measured
 *     shell and vertex errors per clip;
 *   - `ossa info --json` on the .ossa lists the same nodes, skins, meshes and
 *     primitives as on the glTF, and per clip built_bytes, precision, max_error;
 *   - `ossa sample --lossless` equals the editable default to 1e-6, so does sampling the
 *     .ossa of a lossless pack; `--precision P` stays within P of it (world positions);
 *   - the build report ossa pack stores (precision, skinned-vertex error and where) is what
 *     ossa_clip_build measures, and `ossa info` / `--json` show it ("no build report" without);
 *   - a corrupt .ossa is refused with a message naming the section. */
#include "test_support.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gltf_writer.h"
#include "image_read.h"

static char *run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *run(const char *fmt, ...) {
    char cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    char *out = NULL;
    int st = ot_run(cmd, &out);
    if (st != 0) fail_msg("`%s` exited with %d:\n%.2000s", cmd, st, out ? out : "");
    return out;
}

/* The generated file: joints root → mid → leaf, a 4-vertex mesh skinned to mid and leaf
 * with one morph target, and one clip animating all three interpolations and the weights. */
static const char *make_gltf(void) {
    static char path[4096]; /* ot_tmp's storage is reused by the next call */
    snprintf(path, sizeof path, "%s", ot_tmp("pack_chain.gltf"));
    gw *w = gw_create();
    const float pos[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0};
    const float nrm[] = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
    const float delta[] = {0, 0, 0.5f, 0, 0, 0.25f, 0, 0, 0, 0.1f, 0, 0};
    const uint8_t jnt[] = {0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    const float wgt[] = {0.75f, 0.25f, 0, 0, 0.5f, 0.5f, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    const uint16_t idx[] = {0, 1, 2, 2, 1, 3};
    const float ibm[] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -2, 0, 1};
    const float times[] = {0, 0.4f, 1.1f, 2};
    const float step_t[] = {0, 0, 0, 0.5f, 0, 0, 0.5f, 0.25f, 0, -0.25f, 0, 1};
    const float rot[] = {0, 0, 0, 1, 0, 0, 0.38268343f, 0.92387953f, 0.5f, 0.5f, 0.5f, 0.5f, 0, 0.70710678f, 0, 0.70710678f};
    const float cubic_s[] = {0, 0, 0, 1, 1, 1, 0.5f, 0, 0, /**/ 0.5f, 0.5f, 0, 1.5f, 1, 1, 0, 0, 0,
                             /**/ 0, 0, 0, 1, 2, 1, -1, 0, 0, /**/ 0, 0.3f, 0, 0.75f, 1, 1.25f, 0, 0, 0};
    const float mw[] = {0, 1, 0.25f, 0.5f};
    int a_pos = gw_data(w, GW_FLOAT, false, 4, "VEC3", pos);
    int a_nrm = gw_data(w, GW_FLOAT, false, 4, "VEC3", nrm);
    int a_delta = gw_data(w, GW_FLOAT, false, 4, "VEC3", delta);
    int a_jnt = gw_data(w, GW_UBYTE, false, 4, "VEC4", jnt);
    int a_wgt = gw_data(w, GW_FLOAT, false, 4, "VEC4", wgt);
    int a_idx = gw_data(w, GW_USHORT, false, 6, "SCALAR", idx);
    int a_ibm = gw_data(w, GW_FLOAT, false, 2, "MAT4", ibm);
    int a_t = gw_data(w, GW_FLOAT, false, 4, "SCALAR", times);
    int a_tr = gw_data(w, GW_FLOAT, false, 4, "VEC3", step_t);
    int a_rot = gw_data(w, GW_FLOAT, false, 4, "VEC4", rot);
    int a_sc = gw_data(w, GW_FLOAT, false, 12, "VEC3", cubic_s);
    int a_mw = gw_data(w, GW_FLOAT, false, 4, "SCALAR", mw);
    gw_add(w, "meshes",
           "{\"name\": \"sheet\", \"weights\": [0.5], \"primitives\": [{\"attributes\": {\"POSITION\": %d, \"NORMAL\": %d, "
           "\"JOINTS_0\": %d, \"WEIGHTS_0\": %d}, \"indices\": %d, \"targets\": [{\"POSITION\": %d}]}]}",
           a_pos, a_nrm, a_jnt, a_wgt, a_idx, a_delta);
    gw_add(w, "nodes", "{\"name\": \"root\", \"children\": [1], \"translation\": [0, 0.5, 0]}");
    gw_add(w, "nodes", "{\"name\": \"mid\", \"children\": [2], \"translation\": [0, 1, 0]}");
    gw_add(w, "nodes", "{\"name\": \"leaf\", \"translation\": [0, 1, 0], \"scale\": [1, 1, 1]}");
    gw_add(w, "nodes", "{\"name\": \"skinned\", \"mesh\": 0, \"skin\": 0}");
    gw_add(w, "skins", "{\"joints\": [1, 2], \"inverseBindMatrices\": %d}", a_ibm);
    gw_add(w, "scenes", "{\"nodes\": [0, 3]}");
    gw_top(w, "\"scene\": 0");
    gw_add(w, "animations",
           "{\"name\": \"all\", \"samplers\": [{\"input\": %d, \"output\": %d, \"interpolation\": \"STEP\"}, "
           "{\"input\": %d, \"output\": %d}, {\"input\": %d, \"output\": %d, \"interpolation\": \"CUBICSPLINE\"}, "
           "{\"input\": %d, \"output\": %d}], \"channels\": ["
           "{\"sampler\": 0, \"target\": {\"node\": 0, \"path\": \"translation\"}}, "
           "{\"sampler\": 1, \"target\": {\"node\": 1, \"path\": \"rotation\"}}, "
           "{\"sampler\": 2, \"target\": {\"node\": 2, \"path\": \"scale\"}}, "
           "{\"sampler\": 3, \"target\": {\"node\": 3, \"path\": \"weights\"}}]}",
           a_t, a_tr, a_t, a_rot, a_t, a_sc, a_t, a_mw);
    assert_int_equal(gw_save(&w, GW_EMBEDDED, path), 0);
    return path;
}

/* Splits JSON text into its numbers and its skeleton (the text with each number replaced
 * by '#'), so two outputs compare by shape exactly and by value with a tolerance. */
typedef struct nums { double *v; size_t n; char *shape; } nums;

static nums split(const char *s) {
    nums r = {malloc(sizeof(double) * (strlen(s) + 1)), 0, malloc(strlen(s) + 1)};
    size_t o = 0;
    bool in_string = false;
    for (const char *p = s; *p;) {
        if (*p == '"' && (p == s || p[-1] != '\\')) in_string = !in_string;
        if (!in_string && (*p == '-' || (*p >= '0' && *p <= '9'))) {
            char *end;
            r.v[r.n++] = strtod(p, &end);
            r.shape[o++] = '#';
            p = end;
            continue;
        }
        r.shape[o++] = *p++;
    }
    r.shape[o] = 0;
    return r;
}

/* Every number of a within tol (absolute + relative) of b, same shape; returns the max difference. */
static double compare(const char *a, const char *b, double tol) {
    nums x = split(a), y = split(b);
    if (strcmp(x.shape, y.shape)) fail_msg("outputs differ in shape:\n%.1500s\n---\n%.1500s", x.shape, y.shape);
    assert_int_equal(x.n, y.n);
    double worst = 0;
    for (size_t i = 0; i < x.n; i++) {
        double d = fabs(x.v[i] - y.v[i]);
        if (d > worst) worst = d;
        if (d > tol * (1 + fabs(y.v[i]))) fail_msg("number %zu: %.9g vs %.9g (tolerance %g)", i, x.v[i], y.v[i], tol);
    }
    free(x.v), free(x.shape), free(y.v), free(y.shape);
    return worst;
}

/* The output from `"samples"` on (drops "file" and "clip", which name the input). */
static const char *samples_of(const char *out) {
    const char *s = strstr(out, "\"samples\"");
    assert_non_null(s);
    return s;
}

static const char *TIMES = "--time 0 --time 0.2 --time 0.4 --time 0.75 --time 1.1 --time 1.6 --time 2 --time 3";

static void pack_prints_per_clip(void **state) {
    (void)state;
    const char *tool = ot_tool();
    if (!tool) skip();
    const char *gltf = make_gltf();
    char ossa[4096];
    snprintf(ossa, sizeof ossa, "%s", ot_tmp("pack_chain.ossa"));
    char *out = run("%s pack %s %s", tool, gltf, ossa);
    assert_non_null(strstr(out, "clip 0 'all': raw "));
    assert_non_null(strstr(out, " built "));
    assert_non_null(strstr(out, "ratio "));
    assert_non_null(strstr(out, "shell error "));
    assert_non_null(strstr(out, "precision ")); /* model units, then as a fraction of the height */
    assert_non_null(strstr(out, " of height "));
    assert_non_null(strstr(out, "vertex error ") ? strstr(out, "vertex error ") : strstr(out, "no mesh checked"));
    assert_non_null(strstr(out, "wrote "));
    free(out);
    /* info: same nodes, skins, meshes, primitives; built clip numbers */
    char *a = run("%s info %s --json", tool, gltf), *b = run("%s info %s --json", tool, ossa);
    const char *na = strstr(a, "\"nodes\""), *nb = strstr(b, "\"nodes\"");
    const char *ca = strstr(a, "\"clips\""), *cb = strstr(b, "\"clips\"");
    assert_true(na && nb && ca && cb);
    assert_int_equal(ca - na, cb - nb);
    assert_memory_equal(na, nb, (size_t)(ca - na));
    assert_non_null(strstr(cb, "\"name\": \"all\""));
    assert_non_null(strstr(cb, "\"built_bytes\": "));
    /* the default precision of a 2 m glTF character (metres declared): 0.1 mm, tighter than
     * 1e-4 x 2 / 1.8; 5e-5 of its height */
    assert_non_null(strstr(a, "\"metres_per_unit\": 1,"));
    assert_non_null(strstr(b, "\"metres_per_unit\": 1,"));
    assert_non_null(strstr(cb, "\"character_height\": 2,"));
    assert_non_null(strstr(cb, "\"precision\": 9.99999975e-05"));
    assert_non_null(strstr(cb, "\"precision_of_height\": 4.99999987e-05"));
    assert_non_null(strstr(cb, "\"max_error\": "));
    free(a);
    free(b);
    /* the rest pose of the packed file is the glTF's, exactly */
    a = run("%s sample %s --vertices all", tool, gltf);
    b = run("%s sample %s --vertices all", tool, ossa);
    assert_true(compare(samples_of(a), samples_of(b), 0) == 0);
    free(a);
    free(b);
}

/* The number after `"key": ` in `json` (from `from` on); fails when absent. */
static double json_number(const char *from, const char *key) {
    char pattern[128];
    snprintf(pattern, sizeof pattern, "\"%s\": ", key);
    const char *p = strstr(from, pattern);
    if (!p) fail_msg("no %s in %.1500s", pattern, from);
    return strtod(p + strlen(pattern), NULL);
}

/* The build report `ossa pack` stores reaches `ossa info` (text and --json): the same precision
 * and skinned-vertex error, with the same mesh, vertex, joint and time, as ossa_clip_build
 * measures here with the glTF's meshes; a file written without reports says it has none. */
static void info_shows_the_build_report(void **state) {
    (void)state;
    const char *tool = ot_tool();
    if (!tool) skip();
    const char *gltf = make_gltf();
    char ossa[4096], bare[4096];
    snprintf(ossa, sizeof ossa, "%s", ot_tmp("pack_report.ossa"));
    snprintf(bare, sizeof bare, "%s", ot_tmp("pack_report_bare.ossa"));
    free(run("%s pack %s %s", tool, gltf, ossa));
    /* the builder's own stats for clip 0, built with the asset's meshes as ossa pack does */
    ossa_asset *src = NULL;
    assert_int_equal(ossa_gltf_load_file(gltf, NULL, &src, NULL), OSSA_OK);
    ossa_clip_build_options o = {0};
    o.meshes = (const ossa_mesh *const *)src->meshes;
    o.mesh_count = src->mesh_count;
    ossa_built_clip *built = NULL;
    ossa_clip_build_stats st;
    assert_int_equal(ossa_clip_build(src->clips[0], src->skeleton, &o, NULL, &built, &st), OSSA_OK);
    assert_true(st.vertex_meshes == 1 && st.max_vertex_error > 0); /* one skinned mesh, a lossy build */
    /* the loaded packed file holds them exactly */
    ossa_asset *packed = NULL;
    assert_int_equal(ossa_pack_load_file(ossa, NULL, &packed, NULL), OSSA_OK);
    assert_int_equal(packed->clip_report_count, 1);
    const ossa_clip_report *r = &packed->clip_reports[0];
    assert_true(r->precision == ossa_built_clip_options(built).precision);
    assert_true(r->character_height == st.character_height);
    assert_int_equal(r->vertex_meshes, st.vertex_meshes);
    assert_true(r->max_vertex_error == st.max_vertex_error);
    assert_int_equal(r->worst_mesh, st.worst_mesh);
    assert_int_equal(r->worst_vertex, st.worst_vertex);
    assert_int_equal(r->worst_vertex_joint, st.worst_vertex_joint);
    assert_true(r->worst_vertex_time == st.worst_vertex_time);
    assert_int_equal(r->vertex_times, st.vertex_times);
    /* ossa info --json: the same numbers (printed with 9 significant digits) */
    char *out = run("%s info %s --json", tool, ossa);
    const char *rep = strstr(out, "\"report\": {");
    assert_non_null(rep);
    assert_true(fabs(json_number(rep, "max_vertex_error") - st.max_vertex_error) <= 1e-8 * st.max_vertex_error);
    assert_true(fabs(json_number(rep, "precision") - r->precision) <= 1e-8 * r->precision);
    assert_true(fabs(json_number(rep, "precision_of_height") - r->precision / st.character_height) <= 1e-9);
    assert_true(json_number(rep, "worst_mesh") == st.worst_mesh);
    assert_true(json_number(rep, "worst_vertex") == st.worst_vertex);
    assert_true(json_number(rep, "worst_vertex_joint") == st.worst_vertex_joint);
    assert_true(fabs(json_number(rep, "worst_vertex_time") - st.worst_vertex_time) <= 1e-6);
    assert_non_null(strstr(rep, "\"mesh_checked\": true"));
    char name[160];
    snprintf(name, sizeof name, "\"worst_vertex_joint_name\": \"%s\"", src->skeleton->names[st.worst_vertex_joint]);
    assert_non_null(strstr(rep, name));
    free(out);
    /* ossa info (text) and ossa pack of the packed file: the vertex error, its joint by name */
    char line[256];
    snprintf(line, sizeof line, "vertex error %.3g at mesh %u vertex %u joint %u '%s'", (double)st.max_vertex_error,
             st.worst_mesh, st.worst_vertex, st.worst_vertex_joint, src->skeleton->names[st.worst_vertex_joint]);
    out = run("%s info %s", tool, ossa);
    assert_non_null(strstr(out, line));
    free(out);
    out = run("%s pack %s %s", tool, ossa, ot_tmp("pack_report_again.ossa"));
    assert_non_null(strstr(out, line));
    free(out);
    /* a file without the section (as written before it existed): "no build report" */
    {
        ossa_allocator *al = &packed->allocator;
        if (al->free) al->free(packed->clip_reports, al->user);
        else free(packed->clip_reports);
        packed->clip_reports = NULL;
        packed->clip_report_count = 0;
    }
    assert_int_equal(ossa_pack_write_file(packed, NULL, bare), OSSA_OK);
    out = run("%s info %s", tool, bare);
    assert_non_null(strstr(out, "no build report in the file"));
    free(out);
    out = run("%s info %s --json", tool, bare);
    assert_non_null(strstr(out, "\"report\": null"));
    free(out);
    ossa_asset_destroy(packed);
    ossa_built_clip_destroy(built);
    ossa_asset_destroy(src);
}

static void sample_lossless_equals_editable(void **state) {
    (void)state;
    const char *tool = ot_tool();
    if (!tool) skip();
    const char *gltf = make_gltf();
    char *ed = run("%s sample %s --clip all %s --vertices all", tool, gltf, TIMES);
    char *ll = run("%s sample %s --clip all %s --vertices all --lossless", tool, gltf, TIMES);
    compare(ll, ed, 1e-6);
    free(ll);
    /* the .ossa of a lossless pack samples like the glTF */
    char ossa[4096];
    snprintf(ossa, sizeof ossa, "%s", ot_tmp("pack_chain_lossless.ossa"));
    free(run("%s pack %s %s --lossless", tool, gltf, ossa));
    char *pk = run("%s sample %s --clip all %s --vertices all", tool, ossa, TIMES);
    compare(samples_of(pk), samples_of(ed), 1e-6);
    char *info = run("%s info %s --json", tool, ossa);
    assert_non_null(strstr(info, "\"lossless\": true"));
    free(info);
    free(pk);
    free(ed);
}

static void sample_precision_within_bound(void **state) {
    (void)state;
    const char *tool = ot_tool();
    if (!tool) skip();
    const char *gltf = make_gltf();
    char *ed = run("%s sample %s --clip 0 %s", tool, gltf, TIMES);
    char *cp = run("%s sample %s --clip 0 %s --precision 0.001", tool, gltf, TIMES);
    /* same shape; world matrices' translations (joint origins, model space) within the bound */
    nums x = split(cp), y = split(ed);
    assert_string_equal(x.shape, y.shape);
    double worst = 0;
    /* each "world": [16 numbers] of the shape: numbers 12..14 are the joint's model-space origin */
    size_t idx = 0;
    for (const char *q = x.shape; *q; q++) {
        if (!strncmp(q, "\"world\": [", 10))
            for (size_t k = 12; k < 15; k++) {
                double d = fabs(x.v[idx + k] - y.v[idx + k]);
                if (d > worst) worst = d;
            }
        if (*q == '#') idx++;
    }
    printf("precision 0.001: worst joint-origin difference %.3g\n", worst);
    assert_true(worst <= 0.001);
    free(x.v), free(x.shape), free(y.v), free(y.shape);
    free(cp);
    free(ed);
}

static void shared_assets_lossless_pack(void **state) {
    (void)state;
    const char *tool = ot_tool();
    if (!tool) skip();
    static const char *const FILES[] = {"Woman/Woman.gltf", "interpolation_test/interpolation_test.gltf",
                                        "AnimatedMorphCube/AnimatedMorphCube.gltf", "box_animated/box_animated.gltf"};
    for (size_t f = 0; f < sizeof FILES / sizeof FILES[0]; f++) {
        const char *path = ot_asset(FILES[f]);
        if (!path) skip();
        char src[4096], ossa[4096];
        snprintf(src, sizeof src, "%s", path);
        snprintf(ossa, sizeof ossa, "%s", ot_tmp("shared_lossless.ossa"));
        free(run("%s pack %s %s --lossless", tool, src, ossa));
        char *ed = run("%s sample %s --clip 0 --time 0.3 --time 0.71 --time 5", tool, src);
        char *pk = run("%s sample %s --clip 0 --time 0.3 --time 0.71 --time 5", tool, ossa);
        compare(samples_of(pk), samples_of(ed), 1e-6);
        free(ed);
        free(pk);
    }
}

/* Byte-for-byte equality of two files. */
static bool same_file(const char *a, const char *b) {
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    bool same = fa && fb;
    int ca = 0, cb = 0;
    while (same && ca != EOF) {
        ca = fgetc(fa), cb = fgetc(fb);
        same = ca == cb;
    }
    if (fa) fclose(fa);
    if (fb) fclose(fb);
    return same;
}

/* render and bench take the .ossa too; render goes through the built clip at the default
 * precision either way, so the packed file's frame is the glTF's, byte for byte. */
static void render_and_bench_take_packed_files(void **state) {
    (void)state;
    const char *tool = ot_gl_tool();
    if (!tool) skip();
    const char *gltf = make_gltf();
    char ossa[4096], png_a[4096], png_b[4096];
    snprintf(ossa, sizeof ossa, "%s", ot_tmp("pack_render.ossa"));
    snprintf(png_a, sizeof png_a, "%s", ot_tmp("pack_render_gltf.png"));
    snprintf(png_b, sizeof png_b, "%s", ot_tmp("pack_render_ossa.png"));
    free(run("%s pack %s %s", tool, gltf, ossa));
    free(run("%s render %s --clip all --from 0.7 --size 64x64 --out %s", tool, gltf, png_a));
    char *out = run("%s render %s --clip all --from 0.7 --size 64x64 --out %s", tool, ossa, png_b);
    assert_non_null(strstr(out, "clip 'all'"));
    free(out);
    assert_true(same_file(png_a, png_b));
    out = run("%s bench %s --rounds 1 --threads 1", tool, ossa);
    assert_non_null(strstr(out, "built, forward"));
    assert_non_null(strstr(out, "full frame"));
    free(out);
    /* the viewer lists and plays the packed file's built clips */
    if (ot_run("command -v xvfb-run > /dev/null 2>&1", NULL) != 0) {
        ot_skip_part("xvfb-run is not installed: ossa view not tried on the .ossa");
        return;
    }
    out = run("LIBGL_ALWAYS_SOFTWARE=1 xvfb-run -a -s \"-screen 0 320x240x24\" %s view %s --frames 4 --size 64x64 "
              "--screenshot %s --press 2:N",
              tool, ossa, ot_tmp("pack_view.png"));
    assert_non_null(strstr(out, ": 1 built clip\n"));
    assert_non_null(strstr(out, "playing clip 1 'all'"));
    free(out);
}

/* Layers on a packed file: `ossa render --clip all --clip all --weights --mask --sync` poses
 * the lossless .ossa's built clips as the glTF's editable ones (same PNG), and the pose
 * moves with time (a different frame at another time). */
static void render_layers_on_packed_file(void **state) {
    (void)state;
    const char *tool = ot_gl_tool();
    if (!tool) skip();
    const char *gltf = make_gltf();
    char ossa[4096], png[3][4096];
    snprintf(ossa, sizeof ossa, "%s", ot_tmp("pack_layers.ossa"));
    static const char *const NAMES[3] = {"layers_gltf.png", "layers_ossa.png", "layers_ossa0.png"};
    for (int k = 0; k < 3; k++) snprintf(png[k], sizeof png[k], "%s", ot_tmp(NAMES[k]));
    free(run("%s pack %s %s --lossless", tool, gltf, ossa));
    const char *layers = "--clip all --clip all --mask mid --weights 1,3 --sync --size 64x64";
    /* layers on a glTF play built clips too: --lossless makes them the packed lossless ones */
    free(run("%s render %s %s --lossless --from 0.7 --out %s", tool, gltf, layers, png[0]));
    char *out = run("%s render %s %s --from 0.7 --out %s", tool, ossa, layers, png[1]);
    assert_non_null(strstr(out, "clip 'all'"));
    free(out);
    free(run("%s render %s %s --from 0 --out %s", tool, ossa, layers, png[2]));
    assert_true(same_file(png[0], png[1]));
    assert_false(same_file(png[1], png[2]));
}

/* A textured model keeps its materials, image and texture coordinates through a pack:
 * its .ossa renders to the same PNG as the source (before materials were packed, the
 * packed box rendered untextured grey). */
static void textured_model_renders_alike(void **state) {
    (void)state;
    const char *tool = ot_gl_tool();
    if (!tool) skip();
    const char *asset = ot_asset("BoxTextured-glb/BoxTextured.glb");
    if (!asset) skip();
    char src[4096], ossa[4096], png_a[4096], png_b[4096];
    snprintf(src, sizeof src, "%s", asset);
    snprintf(ossa, sizeof ossa, "%s", ot_tmp("box_textured.ossa"));
    snprintf(png_a, sizeof png_a, "%s", ot_tmp("box_textured_glb.png"));
    snprintf(png_b, sizeof png_b, "%s", ot_tmp("box_textured_ossa.png"));
    free(run("%s pack %s %s", tool, src, ossa));
    free(run("%s render %s --size 64x64 --out %s", tool, src, png_a));
    free(run("%s render %s --size 64x64 --out %s", tool, ossa, png_b));
    assert_true(same_file(png_a, png_b));
}

/* Fraction of pixels that differ between two PNGs of the same size. */
static double png_changed(const char *a, const char *b) {
    ot_image x, y;
    ot_read_png(a, &x);
    ot_read_png(b, &y);
    assert_true(x.width == y.width && x.height == y.height);
    size_t n = (size_t)x.width * x.height, diff = 0;
    for (size_t i = 0; i < n; i++) diff += memcmp(x.rgba + 4 * i, y.rgba + 4 * i, 4) != 0;
    ot_image_free(&x);
    ot_image_free(&y);
    return (double)diff / (double)n;
}

/* `ossa plot` on a packed file samples its built clip densely: the lossless .ossa's curves
 * are the glTF's (the plots differ only by the glTF's key markers, key-time grid lines and
 * legend text), the legend and the message say there are no keys, and another node draws
 * another plot. */
static void plot_packed_file(void **state) {
    (void)state;
    const char *tool = ot_tool();
    if (!tool) skip();
    const char *gltf = make_gltf();
    char ossa[4096], png[3][4096];
    snprintf(ossa, sizeof ossa, "%s", ot_tmp("pack_plot.ossa"));
    static const char *const NAMES[3] = {"plot_gltf.png", "plot_ossa.png", "plot_ossa_leaf.png"};
    for (int k = 0; k < 3; k++) snprintf(png[k], sizeof png[k], "%s", ot_tmp(NAMES[k]));
    free(run("%s pack %s %s --lossless", tool, gltf, ossa));
    free(run("%s plot %s --node mid --size 600x480 --out %s", tool, gltf, png[0]));
    char *out = run("%s plot %s --node mid --size 600x480 --out %s", tool, ossa, png[1]);
    assert_non_null(strstr(out, "built clip 'all' node 'mid' (sampled densely, no key markers"));
    free(out);
    out = run("%s plot %s --clip all --size 600x480 --out %s", tool, ossa, png[2]);
    assert_non_null(strstr(out, "node 'root'")); /* the first joint the clip moves */
    free(out);
    free(run("%s plot %s --node leaf --size 600x480 --out %s", tool, ossa, png[2]));
    double same_curves = png_changed(png[0], png[1]), other_node = png_changed(png[1], png[2]);
    printf("plot: glTF vs .ossa %.4f of pixels differ, mid vs leaf %.4f\n", same_curves, other_node);
    assert_true(same_curves > 0 && same_curves < 0.02);
    assert_true(other_node > 2 * same_curves);
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "%s plot %s --node nope --out x.png 2>&1", tool, ossa);
    assert_int_equal(ot_run(cmd, &out), 1);
    assert_non_null(strstr(out, "no node 'nope'"));
    free(out);
}

static void corrupt_file_is_refused(void **state) {
    (void)state;
    const char *tool = ot_tool();
    if (!tool) skip();
    const char *gltf = make_gltf();
    char ossa[4096];
    snprintf(ossa, sizeof ossa, "%s", ot_tmp("pack_corrupt.ossa"));
    free(run("%s pack %s %s", tool, gltf, ossa));
    FILE *f = fopen(ossa, "r+b");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fclose(f);
    assert_int_equal(truncate(ossa, size - 16), 0);
    char cmd[8192], *out = NULL;
    snprintf(cmd, sizeof cmd, "%s info %s 2>&1", tool, ossa);
    assert_int_equal(ot_run(cmd, &out), 1);
    assert_non_null(strstr(out, "header says"));
    free(out);
    snprintf(cmd, sizeof cmd, "%s pack %s 2>&1", tool, gltf);
    assert_int_equal(ot_run(cmd, &out), 2);
    free(out);
    /* an unknown clip of a packed file (or of built clips) is an error, not the rest pose */
    free(run("%s pack %s %s", tool, gltf, ossa));
    snprintf(cmd, sizeof cmd, "%s sample %s --clip nope 2>&1", tool, ossa);
    assert_int_equal(ot_run(cmd, &out), 1);
    assert_non_null(strstr(out, "no clip 'nope'"));
    free(out);
    snprintf(cmd, sizeof cmd, "%s sample %s --clip 7 --lossless 2>&1", tool, gltf);
    assert_int_equal(ot_run(cmd, &out), 1);
    free(out);
}

/* A glTF whose only clip 'far' turns node 0 from identity to 90 degrees about z between key
 * times -3e38 and 3e38 (valid: finite floats). `ossa sample` (the editable path) gives the
 * halfway slerp at t = 0, 45 degrees about z (z = sin(pi/8) = 0.382683, w = 0.923880), not key
 * 0; `ossa pack` cannot build it (a built clip's clock is float, its span 6e38 s is not) and
 * says so: the clip, the span and FLT_MAX, exit 1. */
static void extreme_key_times_sample_and_pack(void **state) {
    (void)state;
    const char *tool = ot_tool();
    if (!tool) skip();
    char gltf[4096], ossa[4096];
    snprintf(gltf, sizeof gltf, "%s", ot_tmp("pack_far.gltf"));
    snprintf(ossa, sizeof ossa, "%s", ot_tmp("pack_far.ossa"));
    const float times[2] = {-3e38f, 3e38f}, rot[8] = {0, 0, 0, 1, 0, 0, 0.70710678f, 0.70710678f};
    gw *w = gw_create();
    int a_t = gw_data(w, GW_FLOAT, false, 2, "SCALAR", times);
    int a_r = gw_data(w, GW_FLOAT, false, 2, "VEC4", rot);
    gw_add(w, "nodes", "{\"name\": \"root\"}");
    gw_add(w, "scenes", "{\"nodes\": [0]}");
    gw_top(w, "\"scene\": 0");
    gw_add(w, "animations",
           "{\"name\": \"far\", \"samplers\": [{\"input\": %d, \"output\": %d}], \"channels\": "
           "[{\"sampler\": 0, \"target\": {\"node\": 0, \"path\": \"rotation\"}}]}",
           a_t, a_r);
    assert_int_equal(gw_save(&w, GW_EMBEDDED, gltf), 0);
    /* the import keeps a frame-index table (capped by ossa_clip_create, not refused up front) */
    char *out = run("%s info %s", tool, gltf);
    if (strstr(out, "frame-index table")) fail_msg("the table was dropped:\n%.2000s", out);
    free(out);
    out = run("%s sample %s --clip far --time 0", tool, gltf);
    if (!strstr(out, "0.382683") || !strstr(out, "0.92387"))
        fail_msg("not the halfway slerp (0, 0, 0.382683, 0.923880):\n%.2000s", out);
    free(out);
    char cmd[12288];
    snprintf(cmd, sizeof cmd, "%s pack %s %s 2>&1", tool, gltf, ossa);
    assert_int_equal(ot_run(cmd, &out), 1);
    if (!strstr(out, "clip 'far'") || !strstr(out, "FLT_MAX") || !strstr(out, "6e+38"))
        fail_msg("the pack error does not say why:\n%.2000s", out);
    free(out);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pack_prints_per_clip),
        cmocka_unit_test(info_shows_the_build_report),
        cmocka_unit_test(sample_lossless_equals_editable),
        cmocka_unit_test(sample_precision_within_bound),
        cmocka_unit_test(shared_assets_lossless_pack),
        cmocka_unit_test(render_and_bench_take_packed_files),
        cmocka_unit_test(render_layers_on_packed_file),
        cmocka_unit_test(textured_model_renders_alike),
        cmocka_unit_test(plot_packed_file),
        cmocka_unit_test(corrupt_file_is_refused),
        cmocka_unit_test(extreme_key_times_sample_and_pack),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
