/* The tool's clip builds (tools/ossa/cli_built.c, layers_cli.c), by expected output:
 *   - a build that hits the scratch cap says which cap and how to raise it (`ossa pack` on a
 *     2-joint, 10,000 s clip under --max-build-scratch 1G, the library's default cap), and the
 *     number it gives lets a short clip's build through;
 *   - --progress: one "built clip i/n" line per clip on stderr, stdout untouched (the JSON of
 *     `ossa sample` still parses);
 *   - layer flags honour --precision and --lossless: --lossless equals the editable path to float
 *     rounding (world matrices of every node), a coarse --precision gives a larger error than the
 *     default and stays near its bound;
 *   - flag combinations that cannot be honoured are refused with a message (--precision with
 *     --lossless; rebuild flags on a packed file; render --rest with a clip; --compare with
 *     --skinning; crowd --time with a .gif, --duration with a .png);
 *   - `ossa render` prints the clips' build time apart from the render time. */
#include "test_support.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gltf_writer.h"

#define KEYS 31

/* Runs `tool ARGS` (printf format); returns the exit status, the output in *out (freed by the caller). */
static int tool_run(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int tool_run(char **out, const char *fmt, ...) {
    char args[4096], cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "\"%s\" %s", ot_tool(), args);
    char *o = NULL;
    int st = ot_run(cmd, &o);
    if (out) *out = o;
    else free(o);
    return st;
}

/* Hips ─ Spine ─ Head. "A" (2 s) and "B" (1 s), KEYS keys each of smooth motion: the hips sway,
 * the spine bends about z, the head nods about x. */
static const char *write_layers_file(void) {
    static char path[1024];
    snprintf(path, sizeof path, "%s", ot_tmp("build_layers.glb"));
    gw *w = gw_create();
    gw_add(w, "nodes", "{\"name\": \"Hips\", \"children\": [1]}");
    gw_add(w, "nodes", "{\"name\": \"Spine\", \"children\": [2], \"translation\": [0, 1, 0]}");
    gw_add(w, "nodes", "{\"name\": \"Head\", \"translation\": [0, 1, 0]}");
    for (int c = 0; c < 2; c++) {
        float t[KEYS], hips[KEYS * 3], spine[KEYS * 4], head[KEYS * 4], length = c ? 1.0f : 2.0f;
        for (int k = 0; k < KEYS; k++) {
            double u = (double)k / (KEYS - 1), a = (c ? -0.9 : 0.7) * sin(6.0 * u), b = 0.4 * cos(5.0 * u + c);
            t[k] = (float)(u * length);
            hips[3 * k] = (float)(0.3 * sin(4.0 * u + c)), hips[3 * k + 1] = (float)(0.05 * u), hips[3 * k + 2] = 0;
            spine[4 * k] = 0, spine[4 * k + 1] = 0, spine[4 * k + 2] = (float)sin(a / 2), spine[4 * k + 3] = (float)cos(a / 2);
            head[4 * k] = (float)sin(b / 2), head[4 * k + 1] = 0, head[4 * k + 2] = 0, head[4 * k + 3] = (float)cos(b / 2);
        }
        int a_t = gw_data(w, GW_FLOAT, false, KEYS, "SCALAR", t);
        int a_h = gw_data(w, GW_FLOAT, false, KEYS, "VEC3", hips);
        int a_s = gw_data(w, GW_FLOAT, false, KEYS, "VEC4", spine);
        int a_d = gw_data(w, GW_FLOAT, false, KEYS, "VEC4", head);
        gw_add(w, "animations",
               "{\"name\": \"%s\", \"samplers\": [{\"input\": %d, \"output\": %d}, {\"input\": %d, \"output\": %d}, "
               "{\"input\": %d, \"output\": %d}], \"channels\": [{\"sampler\": 0, \"target\": {\"node\": 0, \"path\": "
               "\"translation\"}}, {\"sampler\": 1, \"target\": {\"node\": 1, \"path\": \"rotation\"}}, {\"sampler\": 2, "
               "\"target\": {\"node\": 2, \"path\": \"rotation\"}}]}",
               c ? "B" : "A", a_t, a_h, a_t, a_s, a_t, a_d);
    }
    gw_add(w, "scenes", "{\"nodes\": [0]}");
    gw_top(w, "\"scene\": 0");
    assert_int_equal(gw_save(&w, GW_GLB, path), 0);
    return path;
}

/* root ─ tip: `seconds` of keys at 30 Hz (the root sways in x, the tip turns about z), one clip "long". */
static const char *write_long_file(const char *name, double seconds) {
    static char path[1024];
    snprintf(path, sizeof path, "%s", ot_tmp(name));
    uint32_t n = (uint32_t)(seconds * 30.0) + 1;
    float *t = malloc(sizeof(float) * n), *tr = malloc(sizeof(float) * 3 * n), *rot = malloc(sizeof(float) * 4 * n);
    assert_non_null(t);
    assert_non_null(tr);
    assert_non_null(rot);
    for (uint32_t k = 0; k < n; k++) {
        double s = k / 30.0, a = 0.5 * sin(s * 1.3);
        t[k] = (float)s;
        tr[3 * k] = (float)(0.1 * sin(s * 0.7)), tr[3 * k + 1] = 1, tr[3 * k + 2] = 0;
        rot[4 * k] = 0, rot[4 * k + 1] = 0, rot[4 * k + 2] = (float)sin(a / 2), rot[4 * k + 3] = (float)cos(a / 2);
    }
    gw *w = gw_create();
    int a_t = gw_data(w, GW_FLOAT, false, n, "SCALAR", t);
    int a_r = gw_data(w, GW_FLOAT, false, n, "VEC4", rot);
    int a_tr = gw_data(w, GW_FLOAT, false, n, "VEC3", tr);
    gw_add(w, "nodes", "{\"name\": \"root\", \"children\": [1], \"translation\": [0, 1, 0]}");
    gw_add(w, "nodes", "{\"name\": \"tip\", \"translation\": [0, 1, 0]}");
    gw_add(w, "animations",
           "{\"name\": \"long\", \"samplers\": [{\"input\": %d, \"output\": %d}, {\"input\": %d, \"output\": %d}], "
           "\"channels\": [{\"sampler\": 0, \"target\": {\"node\": 1, \"path\": \"rotation\"}}, {\"sampler\": 1, "
           "\"target\": {\"node\": 0, \"path\": \"translation\"}}]}",
           a_t, a_r, a_t, a_tr);
    gw_add(w, "scenes", "{\"nodes\": [0]}");
    gw_top(w, "\"scene\": 0");
    assert_int_equal(gw_save(&w, GW_GLB, path), 0);
    free(t);
    free(tr);
    free(rot);
    return path;
}

/* ---- caps */

/* The bytes the scratch message asks for ("... to >= N bytes"), or fails the test. */
static double bytes_asked(const char *out) {
    const char *to = out ? strstr(out, "to >= ") : NULL;
    double need = 0;
    if (!to || sscanf(to, "to >= %lf bytes", &need) != 1) fail_msg("no byte count in: %s", out ? out : "");
    return need;
}

static void pack_names_the_scratch_cap(void **state) {
    (void)state;
    if (!ot_tool()) skip();
    const char *file = write_long_file("build_long.glb", 10000.0);
    char *out = NULL;
    /* the library's default cap (1 GiB): the compressed build needs ~2.4 GB */
    int st = tool_run(&out, "pack '%s' '%s' --max-build-scratch 1G 2>&1", file, ot_tmp("build_long.ossa"));
    assert_int_equal(st, 1);
    if (!strstr(out, "clip 'long': max_scratch_bytes:") || !strstr(out, "grid times") ||
        !strstr(out, "raise the cap with --max-build-scratch SIZE") || !strstr(out, "--lossless"))
        fail_msg("the failure does not name the cap and the way past it:\n%s", out);
    assert_true(bytes_asked(out) > 1073741824.0);
    free(out);
    /* a 20 s clip under 100 KB: the number the message gives lets the build through */
    file = write_long_file("build_short.glb", 20.0);
    st = tool_run(&out, "pack '%s' '%s' --max-build-scratch 100K 2>&1", file, ot_tmp("build_short.ossa"));
    assert_int_equal(st, 1);
    double need = bytes_asked(out);
    free(out);
    st = tool_run(&out, "pack '%s' '%s' --max-build-scratch %.0f 2>&1", file, ot_tmp("build_short.ossa"), need);
    if (st != 0 || !strstr(out, "clip 0 'long'")) fail_msg("exit %d with the asked cap:\n%s", st, out);
    free(out);
    st = tool_run(&out, "pack '%s' '%s' --max-build-scratch %.0f 2>&1", file, ot_tmp("build_short.ossa"), need - 1);
    assert_int_equal(st, 1);
    free(out);
}

/* ---- progress */

static void progress_lines_on_stderr_only(void **state) {
    (void)state;
    if (!ot_tool()) skip();
    const char *file = write_layers_file();
    char err[1024];
    snprintf(err, sizeof err, "%s", ot_tmp("build_progress.txt"));
    char *out = NULL;
    assert_int_equal(tool_run(&out, "pack '%s' '%s' --progress 2>&1", file, ot_tmp("build_layers.ossa")), 0);
    if (!strstr(out, "ossa pack: built clip 1/2 'A' in ") || !strstr(out, "ossa pack: built clip 2/2 'B' in "))
        fail_msg("no per-clip progress:\n%s", out);
    free(out);
    /* sample builds with --precision: progress on stderr, stdout stays one JSON object */
    assert_int_equal(tool_run(&out, "sample '%s' --clip A --clip B --precision 1e-3 --progress --vertices 0 2> '%s'",
                              file, err),
                     0);
    gj *j = gj_parse(out, strlen(out));
    if (!j) fail_msg("stdout is not JSON:\n%s", out);
    gj_free(j);
    free(out);
    FILE *f = fopen(err, "rb");
    assert_non_null(f);
    char text[4096] = {0};
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    if (!strstr(text, "ossa sample: built clip 1/2 'A'")) fail_msg("no progress on stderr:\n%s", text);
}

/* ---- layers honour --precision / --lossless */

/* `ossa sample FILE LAYERS BUILD --time T...`: every sample's node world matrices, 3 nodes x 16. */
static void sample_worlds(const char *file, const char *build, float *world, int samples) {
    char *out = NULL;
    int st = tool_run(&out,
                      "sample '%s' --clip A --clip B --weights 0.3,0.7 --additive B:0.5 --mask Spine %s --time 0.1 "
                      "--time 0.37 --time 0.5 --time 0.81 --time 1.23 --time 1.9 --vertices 0 2>&1",
                      file, build);
    if (st != 0) fail_msg("sample %s exited %d:\n%s", build, st, out);
    gj *j = gj_parse(out, strlen(out));
    if (!j) fail_msg("not JSON:\n%s", out);
    for (int s = 0; s < samples; s++)
        for (int node = 0; node < 3; node++)
            for (int k = 0; k < 16; k++) {
                char ptr[128];
                snprintf(ptr, sizeof ptr, "/samples/%d/nodes/%d/world/%d", s, node, k);
                world[(s * 3 + node) * 16 + k] = (float)gj_num(j, gj_find(j, ptr));
            }
    gj_free(j);
    free(out);
}

/* Largest distance between the node origins of two sample sets. */
static float origin_error(const float *a, const float *b, int samples) {
    float e = 0;
    for (int i = 0; i < samples * 3; i++) {
        const float *x = a + i * 16 + 12, *y = b + i * 16 + 12;
        float d = sqrtf((x[0] - y[0]) * (x[0] - y[0]) + (x[1] - y[1]) * (x[1] - y[1]) + (x[2] - y[2]) * (x[2] - y[2]));
        if (d > e) e = d;
    }
    return e;
}

static void layers_honour_build_flags(void **state) {
    (void)state;
    if (!ot_tool()) skip();
    enum { SAMPLES = 6 };
    const char *file = write_layers_file();
    float exact[SAMPLES * 48], lossless[SAMPLES * 48], fine[SAMPLES * 48], coarse[SAMPLES * 48];
    sample_worlds(file, "", exact, SAMPLES);
    sample_worlds(file, "--lossless", lossless, SAMPLES);
    sample_worlds(file, "--precision 1e-4", fine, SAMPLES);
    sample_worlds(file, "--precision 0.02", coarse, SAMPLES);
    ot_assert_floats_near(lossless, exact, SAMPLES * 48, 2e-6f);
    float e_fine = origin_error(fine, exact, SAMPLES), e_coarse = origin_error(coarse, exact, SAMPLES);
    print_message("layers: origin error at precision 1e-4: %.3g, at 0.02: %.3g\n", (double)e_fine, (double)e_coarse);
    /* the flags reach the layers: the coarse build is sampled (a larger error), near its bound:
     * each layer's pose within P, their 0.3/0.7 blend within P, plus half the additive layer's P */
    assert_true(e_coarse > e_fine);
    assert_true(e_coarse > 1e-3f);
    assert_true(e_coarse <= 1.5f * 0.02f);
    assert_true(e_fine <= 1.5f * 1e-4f);
}

/* ---- refused combinations */

static void expect_refused(const char *args, const char *message) {
    char *out = NULL;
    int st = tool_run(&out, "%s 2>&1", args);
    if (st == 0 || !strstr(out, message)) fail_msg("`ossa %s` exited %d; expected a refusal with '%s':\n%s", args, st,
                                                   message, out);
    free(out);
}

static void unhonourable_flags_are_refused(void **state) {
    (void)state;
    if (!ot_tool()) skip();
    const char *file = write_layers_file();
    char packed[1024], args[4096];
    snprintf(packed, sizeof packed, "%s", ot_tmp("build_refused.ossa"));
    assert_int_equal(tool_run(NULL, "pack '%s' '%s' > /dev/null 2>&1", file, packed), 0);
    snprintf(args, sizeof args, "sample '%s' --clip A --precision 1e-3 --lossless", file);
    expect_refused(args, "--precision and --lossless exclude each other");
    snprintf(args, sizeof args, "pack '%s' '%s' --precision 1e-3 --lossless", file, ot_tmp("x.ossa"));
    expect_refused(args, "--precision and --lossless exclude each other");
    snprintf(args, sizeof args, "sample '%s' --clip A --lossless", packed);
    expect_refused(args, "cannot rebuild them");
    snprintf(args, sizeof args, "sample '%s' --clip A --clip B --precision 0.01", packed);
    expect_refused(args, "cannot rebuild them");
    snprintf(args, sizeof args, "pack '%s' '%s' --lossless", packed, ot_tmp("y.ossa"));
    expect_refused(args, "cannot rebuild them");
    if (!ot_gl_tool()) {
        ot_skip_part("render refusals: %s", "the tool has no GL");
        return;
    }
    snprintf(args, sizeof args, "render '%s' --rest --clip A --out '%s'", file, ot_tmp("z.png"));
    expect_refused(args, "--rest renders the rest pose");
    snprintf(args, sizeof args, "render '%s' --clip A --lossless --precision 1e-3 --out '%s'", file, ot_tmp("z.png"));
    expect_refused(args, "--precision and --lossless exclude each other");
    snprintf(args, sizeof args, "render '%s' --clip A --lossless --out '%s'", packed, ot_tmp("z.png"));
    expect_refused(args, "cannot rebuild them");
    snprintf(args, sizeof args, "render '%s' --compare --skinning dqs --out '%s'", file, ot_tmp("z.png"));
    expect_refused(args, "--compare draws LBS and DQS side by side");
    expect_refused("crowd demo --time 0.5 --out crowd.gif", "--time applies to a .png output");
    expect_refused("crowd demo --duration 1 --out crowd.png", "--duration applies to a .gif output");
}

/* `ossa render` reports the clips' build time apart from the render time. */
static void render_reports_build_time(void **state) {
    (void)state;
    if (!ot_gl_tool()) skip();
    const char *file = write_layers_file(); /* before ot_tmp: its storage is reused */
    char *out = NULL;
    int st = tool_run(&out, "render '%s' --clip A --from 0.5 --to 0.5 --size 8x8 --ssaa 1 --quiet --out '%s' 2>&1",
                      file, ot_tmp("build_time.png"));
    double render_s = -1, build_s = -1;
    const char *in = out ? strstr(out, " in ") : NULL, *built = out ? strstr(out, "clips built in ") : NULL;
    if (st != 0 || !in || !built || sscanf(in, " in %lf s", &render_s) != 1 ||
        sscanf(built, "clips built in %lf s", &build_s) != 1)
        fail_msg("exit %d, no render and build times:\n%s", st, out ? out : "");
    assert_true(render_s >= 0 && build_s > 0); /* the clip was built (compressed, default precision) */
    free(out);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pack_names_the_scratch_cap),
        cmocka_unit_test(progress_lines_on_stderr_only),
        cmocka_unit_test(layers_honour_build_flags),
        cmocka_unit_test(unhonourable_flags_are_refused),
        cmocka_unit_test(render_reports_build_time),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
