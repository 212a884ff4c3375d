/* The ossa tool's option handling and small behaviours (issue 28, item 5), on generated files:
 * --anim clips selected by --clip, a synced render's range, unknown options named, crowd counts
 * checked up front, bench --crowd --json, sample --ik, IK statistics of a one-frame render, empty files, pack --help,
 * and `ossa info`'s materials, images and renormalised-weights warning. Expectations are worked
 * out here from the generated data, not read from the tool. Cases that draw skip without GL. */
#include "test_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ossa/import.h>

#include "gltf_writer.h"

/* ------------------------------------------------------------------ files --- */

/* The PNG header of a 37 x 19 image (signature, IHDR; the rest is not needed to read its size). */
static const uint8_t PNG_37x19[33] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R', 0, 0,
                                      0, 37, 0, 0, 0, 19, 8, 6, 0, 0, 0, 0x12, 0x34, 0x56, 0x78};

/* Root ─ Mid ─ End along +y (1 apart), skinned by a 4-vertex quad, with a material "Red"
 * (factor 1 0 0 1, MASK 0.25, texture = the 37 x 19 PNG) when `material`. Weights: v0 (1),
 * v1 (0.5, 0.5), v2 (0.3, 0.3): off 1 by 0.4, v3 (2 on End): off by 1. Clips: `clip_count`
 * of them, clip k named names[k], `durations[k]` long, moving Root's x from 0 to xs[k]. */
static void write_rig(const char *path, bool material, int clip_count, const char *const *names, const float *durations,
                      const float *xs) {
    gw *w = gw_create();
    const float pos[4][3] = {{-0.2f, 0, 0}, {0.2f, 0, 0}, {0.2f, 2, 0}, {-0.2f, 2, 0}};
    const uint8_t joints[4][4] = {{0, 0, 0, 0}, {0, 1, 0, 0}, {1, 2, 0, 0}, {2, 0, 0, 0}};
    const float weights[4][4] = {{1, 0, 0, 0}, {0.5f, 0.5f, 0, 0}, {0.3f, 0.3f, 0, 0}, {2, 0, 0, 0}};
    const uint16_t idx[6] = {0, 1, 2, 0, 2, 3};
    float ibm[3][16];
    for (int j = 0; j < 3; j++) {
        memset(ibm[j], 0, sizeof ibm[j]);
        ibm[j][0] = ibm[j][5] = ibm[j][10] = ibm[j][15] = 1;
        ibm[j][13] = -(float)j; /* inverse of the rest world: a translation by (0, j, 0) */
    }
    int p = gw_data(w, GW_FLOAT, false, 4, "VEC3", pos), jo = gw_data(w, GW_UBYTE, false, 4, "VEC4", joints);
    int we = gw_data(w, GW_FLOAT, false, 4, "VEC4", weights), ix = gw_data(w, GW_USHORT, false, 6, "SCALAR", idx);
    int ib = gw_data(w, GW_FLOAT, false, 3, "MAT4", ibm);
    gw_add(w, "nodes", "{\"name\": \"Root\", \"children\": [1]}");
    gw_add(w, "nodes", "{\"name\": \"Mid\", \"children\": [2], \"translation\": [0, 1, 0]}");
    gw_add(w, "nodes", "{\"name\": \"End\", \"translation\": [0, 1, 0]}");
    gw_add(w, "nodes", "{\"name\": \"Quad\", \"mesh\": 0, \"skin\": 0}");
    gw_add(w, "skins", "{\"joints\": [0, 1, 2], \"inverseBindMatrices\": %d}", ib);
    gw_add(w, "meshes", "{\"primitives\": [{\"attributes\": {\"POSITION\": %d, \"JOINTS_0\": %d, \"WEIGHTS_0\": %d}, "
                        "\"indices\": %d%s}]}", p, jo, we, ix, material ? ", \"material\": 0" : "");
    if (material) {
        int v = gw_view(w, PNG_37x19, sizeof PNG_37x19, 0);
        gw_add(w, "images", "{\"bufferView\": %d, \"mimeType\": \"image/png\", \"name\": \"swatch\"}", v);
        gw_add(w, "textures", "{\"source\": 0}");
        gw_add(w, "materials", "{\"name\": \"Red\", \"pbrMetallicRoughness\": {\"baseColorFactor\": [1, 0, 0, 1], "
                               "\"baseColorTexture\": {\"index\": 0}}, \"alphaMode\": \"MASK\", \"alphaCutoff\": 0.25}");
    }
    for (int k = 0; k < clip_count; k++) {
        const float t[2] = {0, durations[k]}, x[6] = {0, 0, 0, xs[k], 0, 0};
        int ti = gw_data(w, GW_FLOAT, false, 2, "SCALAR", t), xi = gw_data(w, GW_FLOAT, false, 2, "VEC3", x);
        gw_add(w, "animations", "{\"name\": \"%s\", \"samplers\": [{\"input\": %d, \"output\": %d}], \"channels\": "
                                "[{\"sampler\": 0, \"target\": {\"node\": 0, \"path\": \"translation\"}}]}",
               names[k], ti, xi);
    }
    gw_add(w, "scenes", "{\"nodes\": [0, 3]}");
    gw_top(w, "\"scene\": 0");
    assert_int_equal(gw_save(&w, GW_GLB, path), 0);
}

#define NEED_TOOL()                                                                                                    \
    do {                                                                                                               \
        if (!ot_tool()) skip();                                                                                        \
    } while (0)
#define NEED_GL()                                                                                                      \
    do {                                                                                                               \
        if (!ot_tool() || !ot_gl_tool() || !gl_works()) skip();                                                        \
    } while (0)

/* An offscreen context works (probed once with a tiny render); else the reason is given. */
static bool gl_works(void) {
    static int state = -1;
    if (state < 0) {
        char args[2048], *out = NULL;
        snprintf(args, sizeof args, "render --rest --size 8x8 --out '%s'", ot_tmp("cli_probe.png"));
        state = ot_tool_run(args, &out) == 0;
        if (!state) ot_skip_reason("no offscreen OpenGL: %s", out ? out : "");
        free(out);
    }
    return state == 1;
}

static double json_num(const gj *j, const char *pointer) {
    int t = gj_find(j, pointer);
    if (t < 0) fail_msg("no %s", pointer);
    return gj_num(j, t);
}

/* ------------------------------------------------------------------ tests --- */

/* --anim: --clip 0 (and a name) picks the --anim file's clip, not the model's own. */
static void anim_clip_zero_is_the_anim_files(void **state) {
    (void)state;
    NEED_TOOL();
    const char *model_names[1] = {"Idle"}, *anim_names[2] = {"Walk", "Run"};
    const float model_d[1] = {1}, model_x[1] = {0}, anim_d[2] = {2, 1}, anim_x[2] = {8, 3};
    char model[1024], anim[1024], args[4096], *out = NULL;
    snprintf(model, sizeof model, "%s", ot_tmp("cli_model.glb"));
    snprintf(anim, sizeof anim, "%s", ot_tmp("cli_anim.glb"));
    write_rig(model, false, 1, model_names, model_d, model_x);
    write_rig(anim, false, 2, anim_names, anim_d, anim_x);
    /* sample: Walk at t = 0.5 moves Root to x = 8 * 0.5 / 2 = 2 */
    snprintf(args, sizeof args, "sample '%s' --anim '%s' --clip 0 --time 0.5 --vertices 0", model, anim);
    assert_int_equal(ot_tool_run(args, &out), 0);
    gj *j = gj_parse(out, strlen(out));
    assert_non_null(j);
    assert_string_equal(gj_str(j, gj_find(j, "/clip/name")), "Walk");
    ot_assert_near(json_num(j, "/samples/0/nodes/0/translation/0"), 2.0, 1e-5);
    gj_free(j);
    free(out);
    /* by index 1: Run; the model's own clip follows the --anim file's (index 2) */
    snprintf(args, sizeof args, "sample '%s' --anim '%s' --clip 2 --vertices 0", model, anim);
    assert_int_equal(ot_tool_run(args, &out), 0);
    assert_non_null(strstr(out, "\"Idle\""));
    free(out);
    /* render: the clip it reports playing */
    if (!ot_gl_tool() || !gl_works()) {
        ot_skip_part("render --anim: no GL");
        return;
    }
    snprintf(args, sizeof args, "render '%s' --anim '%s' --clip 0 --size 16x16 --quiet --out '%s'", model, anim,
             ot_tmp("cli_anim.gif"));
    assert_int_equal(ot_tool_run(args, &out), 0);
    if (!strstr(out, "clip 'Walk'")) fail_msg("render played another clip: %s", out);
    free(out);
}

/* --sync: the default range is the shared cycle, (2 + 1) / 2 = 1.5 s for equal weights. */
static void synced_render_spans_the_cycle(void **state) {
    (void)state;
    NEED_GL();
    const char *names[2] = {"A", "B"};
    const float d[2] = {2, 1}, x[2] = {4, 4};
    char file[1024], args[4096], *out = NULL;
    snprintf(file, sizeof file, "%s", ot_tmp("cli_sync.glb"));
    write_rig(file, false, 2, names, d, x);
    /* --loop: frames at 0, 0.1, ... below 1.5 = 15 (the first clip's 2 s would give 20) */
    snprintf(args, sizeof args, "render '%s' --clip A --clip B --sync --fps 10 --loop --size 16x16 --quiet --out '%s'",
             file, ot_tmp("cli_sync.gif"));
    assert_int_equal(ot_tool_run(args, &out), 0);
    if (!strstr(out, " 15 frames ")) fail_msg("expected 15 frames (a 1.5 s cycle at 10 fps): %s", out);
    free(out);
}

/* Every command names an option it does not know, then prints its usage (exit 2). */
static void unknown_options_are_named(void **state) {
    (void)state;
    NEED_TOOL();
    const char *commands[] = {"info", "sample", "pack", "bench", "plot", "render", "crowd", "view", "demo"};
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        bool draws = i >= 5;
        if (draws && !ot_gl_tool()) continue; /* without GL they stop before parsing (no_gl.c) */
        char args[256], expect[256], *out = NULL;
        snprintf(args, sizeof args, "%s --frobnicate x y", commands[i]);
        snprintf(expect, sizeof expect, "ossa %s: unknown option '--frobnicate'", commands[i]);
        int rc = ot_tool_run(args, &out);
        if (rc != 2 || !strstr(out, expect) || !strstr(out, "usage: ossa"))
            fail_msg("'%s' exited %d:\n%s", args, rc, out);
        free(out);
    }
}

/* A crowd larger than the palette texture holds is refused at once, naming the maximum:
 * the demo's 17 joints, 256 matrices per row, GL_MAX_TEXTURE_SIZE rows. */
static void crowd_count_checked_up_front(void **state) {
    (void)state;
    NEED_GL();
    char *out = NULL, args[1024];
    snprintf(args, sizeof args, "crowd --count 1000000 --out '%s'", ot_tmp("cli_crowd.png"));
    time_t t0 = time(NULL);
    int rc = ot_tool_run(args, &out);
    if (time(NULL) - t0 > 20) fail_msg("crowd --count 1000000 took %lld s to refuse", (long long)(time(NULL) - t0));
    const char *m = strstr(out, "at most ");
    const char *t = strstr(out, "256 x GL_MAX_TEXTURE_SIZE = 256 x ");
    if (rc != 2 || !m || !t) fail_msg("crowd --count 1000000 exited %d:\n%s", rc, out);
    unsigned long max = strtoul(m + 8, NULL, 10), size = strtoul(t + strlen("256 x GL_MAX_TEXTURE_SIZE = 256 x "), NULL, 10);
    assert_true(size >= 1024);
    assert_int_equal(max, size * 256 / 17); /* the demo character has 17 joints */
    assert_true(max < 1000000);
    free(out);
}

/* sample --ik: End reaches a reachable target; the bones keep their lengths (1). */
static void sample_ik_reaches_the_target(void **state) {
    (void)state;
    NEED_TOOL();
    char file[1024], args[4096], *out = NULL;
    snprintf(file, sizeof file, "%s", ot_tmp("cli_ik.glb"));
    write_rig(file, false, 0, NULL, NULL, NULL);
    snprintf(args, sizeof args, "sample '%s' --ik End:1,1,0:1,0,0 --vertices 0", file);
    assert_int_equal(ot_tool_run(args, &out), 0);
    gj *j = gj_parse(out, strlen(out));
    if (!j) fail_msg("not JSON: %s", out);
    double p[3][3];
    for (int n = 0; n < 3; n++)
        for (int c = 0; c < 3; c++) {
            char ptr[96];
            snprintf(ptr, sizeof ptr, "/samples/0/nodes/%d/world/%d", n, 12 + c);
            p[n][c] = json_num(j, ptr);
        }
    ot_assert_near(p[2][0], 1.0, 1e-4);
    ot_assert_near(p[2][1], 1.0, 1e-4);
    ot_assert_near(p[2][2], 0.0, 1e-4);
    double a = 0, b = 0;
    for (int c = 0; c < 3; c++) a += (p[1][c] - p[0][c]) * (p[1][c] - p[0][c]), b += (p[2][c] - p[1][c]) * (p[2][c] - p[1][c]);
    ot_assert_near(sqrt(a), 1.0, 1e-4);
    ot_assert_near(sqrt(b), 1.0, 1e-4);
    assert_string_equal(gj_str(j, gj_find(j, "/samples/0/ik/0/joint")), "End");
    assert_true(strstr(out, "\"reached\": true") != NULL);
    gj_free(j);
    free(out);
    /* an unknown joint is a usage error naming it */
    snprintf(args, sizeof args, "sample '%s' --ik Nope", file);
    assert_int_equal(ot_tool_run(args, &out), 1);
    assert_non_null(strstr(out, "no joint named 'Nope'"));
    free(out);
}

/* One frame = one solve per chain, not the camera-framing poses too. */
static void one_frame_render_counts_one_solve(void **state) {
    (void)state;
    NEED_GL();
    char args[1024], *out = NULL;
    snprintf(args, sizeof args, "render --from 0.5 --to 0.5 --ik foot_L --size 16x16 --out '%s'", ot_tmp("cli_ik.png"));
    assert_int_equal(ot_tool_run(args, &out), 0);
    if (!strstr(out, "of 1 solves")) fail_msg("expected one solve:\n%s", out);
    free(out);
    /* --compare draws each frame twice (LBS, DQS): still one solve per frame; 0, 0.5, 1 at 2 fps */
    snprintf(args, sizeof args, "render --from 0 --to 1 --fps 2 --no-loop --compare --ik foot_L --size 16x16 --quiet "
             "--out '%s'", ot_tmp("cli_ik.gif"));
    assert_int_equal(ot_tool_run(args, &out), 0);
    if (!strstr(out, "3 frames") || !strstr(out, "of 3 solves")) fail_msg("expected 3 frames, 3 solves:\n%s", out);
    free(out);
}

/* An empty .gltf / .glb: "empty file" with its name, not a trip through Assimp. */
static void empty_files_are_named(void **state) {
    (void)state;
    assert_int_equal(ossa_format_detect("", 0, "x.glb"), OSSA_FORMAT_EMPTY);
    assert_string_equal(ossa_format_name(OSSA_FORMAT_EMPTY), "empty file");
    ossa_asset *a = NULL;
    ossa_diagnostic d;
    assert_int_equal(ossa_pack_load_memory("", 0, NULL, &a, &d), OSSA_ERROR_INVALID_ARGUMENT);
    assert_true(d.message[0] != 0);
    assert_int_equal(ossa_gltf_load_memory("", 0, NULL, &a, &d), OSSA_ERROR_INVALID_ARGUMENT);
    assert_true(d.message[0] != 0);
    const char *names[2] = {"cli_empty.gltf", "cli_empty.glb"};
    for (int i = 0; i < 2; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s", ot_tmp(names[i]));
        assert_int_equal(gw_write_file(path, "", 0), 0);
        assert_int_not_equal(ossa_import_file(path, OSSA_IMPORTER_AUTO, NULL, &a, &d), OSSA_OK);
        assert_non_null(strstr(d.message, "empty file"));
        if (!ot_tool()) continue;
        char args[2048], *out = NULL;
        snprintf(args, sizeof args, "info '%s'", path);
        assert_int_equal(ot_tool_run(args, &out), 1);
        if (!strstr(out, path) || !strstr(out, "empty file") || strstr(out, "extension only"))
            fail_msg("%s:\n%s", args, out);
        free(out);
    }
}

/* pack --help is help (exit 0 on stdout), like every other command's. */
static void pack_help_exits_zero(void **state) {
    (void)state;
    NEED_TOOL();
    char cmd[1024], *out = NULL;
    snprintf(cmd, sizeof cmd, "\"%s\" pack --help 2>/dev/null", ot_tool());
    assert_int_equal(ot_run(cmd, &out), 0);
    assert_non_null(strstr(out, "usage: ossa pack"));
    free(out);
}

/* info: the material and its image (size from the PNG header), and the weights warning with
 * its count: v2 (sum 0.6) and v3 (sum 2) of the 4 vertices. */
static void info_lists_materials_and_renormalised_weights(void **state) {
    (void)state;
    NEED_TOOL();
    char file[1024], args[2048], *out = NULL;
    snprintf(file, sizeof file, "%s", ot_tmp("cli_material.glb"));
    write_rig(file, true, 0, NULL, NULL, NULL);
    snprintf(args, sizeof args, "info '%s'", file);
    assert_int_equal(ot_tool_run(args, &out), 0);
    const char *want[] = {"materials: 1", "'Red': base colour (1, 0, 0, 1), texture image 0", "alpha MASK (cutoff 0.25)",
                          "images: 1", "'swatch': (embedded), image/png, 37x19, 33 bytes",
                          "2 of 4 vertices had weights not summing to 1 (off by up to 1)"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (!strstr(out, want[i])) fail_msg("no '%s' in:\n%s", want[i], out);
    free(out);
    snprintf(args, sizeof args, "info '%s' --json 2>/dev/null", file);
    assert_int_equal(ot_tool_run(args, &out), 0);
    gj *j = gj_parse(out, strlen(out));
    if (!j) fail_msg("not JSON: %s", out);
    assert_string_equal(gj_str(j, gj_find(j, "/materials/0/name")), "Red");
    const double rgba[4] = {1, 0, 0, 1};
    for (int c = 0; c < 4; c++) {
        char p[64];
        snprintf(p, sizeof p, "/materials/0/base_color/%d", c);
        ot_assert_near(json_num(j, p), rgba[c], 1e-6);
    }
    assert_string_equal(gj_str(j, gj_find(j, "/materials/0/alpha_mode")), "MASK");
    ot_assert_near(json_num(j, "/materials/0/alpha_cutoff"), 0.25, 1e-6);
    ot_assert_near(json_num(j, "/materials/0/texture/image"), 0, 0);
    ot_assert_near(json_num(j, "/images/0/width"), 37, 0);
    ot_assert_near(json_num(j, "/images/0/height"), 19, 0);
    ot_assert_near(json_num(j, "/images/0/bytes"), 33, 0);
    assert_string_equal(gj_str(j, gj_find(j, "/images/0/mime_type")), "image/png");
    assert_non_null(strstr(gj_str(j, gj_find(j, "/warnings/0")), "2 of 4 vertices"));
    gj_free(j);
    free(out);
}

/* True when text is one JSON object and nothing else but whitespace (depth over braces and
 * brackets outside strings returns to 0 only at its end). */
static bool one_json_object(const char *text) {
    const char *p = text + strspn(text, " \t\r\n");
    if (*p != '{') return false;
    int depth = 0;
    bool in_string = false;
    for (; *p; p++) {
        if (in_string) {
            if (*p == '\\' && p[1]) p++;
            else if (*p == '"') in_string = false;
        } else if (*p == '"') {
            in_string = true;
        } else if (*p == '{' || *p == '[') {
            depth++;
        } else if ((*p == '}' || *p == ']') && --depth == 0) {
            break;
        }
    }
    return *p && p[1 + strspn(p + 1, " \t\r\n")] == 0;
}

/* `ossa bench demo --crowd 50 --threads 2 --json` prints one JSON object with every key issue
 * #23 names: 50 instances, 2 threads, context_bytes = one sampling context sized for the demo's
 * clips (every instance has its own; at most a 17-joint one), positive ms per frame on 1 and 2 threads, and characters per
 * 16.7 ms = instances x (1000 / 60) / ms per frame. --json without --crowd is a usage error. */
static void bench_crowd_json_has_the_issue_keys(void **state) {
    (void)state;
    NEED_TOOL();
    char cmd[8192], *out = NULL;
    snprintf(cmd, sizeof cmd, "\"%s\" bench demo --crowd 50 --threads 2 --json", ot_tool());
    assert_int_equal(ot_run(cmd, &out), 0);
    if (!one_json_object(out)) fail_msg("not one JSON object:\n%s", out);
    gj *j = gj_parse(out, strlen(out));
    if (!j) fail_msg("not JSON:\n%s", out);
    ossa_sampling_context *ctx = NULL;
    assert_int_equal(ossa_sampling_context_create(17, 0, NULL, &ctx), OSSA_OK); /* the demo: 17 joints, no weights */
    double bytes = json_num(j, "/context_bytes"); /* sized for the demo's clips: at most the joint-sized one */
    if (!(bytes > 0 && bytes <= (double)ossa_sampling_context_size(ctx)))
        fail_msg("context_bytes %g, a 17-joint context %zu", bytes, ossa_sampling_context_size(ctx));
    ossa_sampling_context_destroy(ctx);
    ot_assert_near(json_num(j, "/instances"), 50, 0);
    ot_assert_near(json_num(j, "/threads"), 2, 0);
    static const char *const suffix[2] = {"1t", "nt"};
    for (int k = 0; k < 2; k++) {
        char ms_key[64], ch_key[64];
        snprintf(ms_key, sizeof ms_key, "/ms_per_frame_%s", suffix[k]);
        snprintf(ch_key, sizeof ch_key, "/characters_per_16ms_%s", suffix[k]);
        double ms = json_num(j, ms_key), ch = json_num(j, ch_key);
        if (!(ms > 0 && ms < 1000 && ch > 0)) fail_msg("%s %g, %s %g", ms_key, ms, ch_key, ch);
        ot_assert_near(ch, 50 * (1000.0 / 60.0) / ms, 1e-6 * ch);
    }
    printf("[   INFO   ] bench --crowd 50 --json: %s", out);
    gj_free(j);
    free(out);
    assert_int_equal(ot_tool_run("bench demo --json", &out), 2);
    assert_non_null(strstr(out, "--json needs --crowd"));
    free(out);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(anim_clip_zero_is_the_anim_files),
        cmocka_unit_test(synced_render_spans_the_cycle),
        cmocka_unit_test(unknown_options_are_named),
        cmocka_unit_test(crowd_count_checked_up_front),
        cmocka_unit_test(bench_crowd_json_has_the_issue_keys),
        cmocka_unit_test(sample_ik_reaches_the_target),
        cmocka_unit_test(one_frame_render_counts_one_solve),
        cmocka_unit_test(empty_files_are_named),
        cmocka_unit_test(pack_help_exits_zero),
        cmocka_unit_test(info_lists_materials_and_renormalised_weights),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
