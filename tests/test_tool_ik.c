/* The tools' IK pass (tools/ossa/ik_pass.c): `ossa render --ik` and the IK key of
 * `ossa view`, run as a user would. A chain pulled to where its end joint already is
 * renders the same picture as no IK; a lifted foot changes it and is reported reached;
 * bad specs are usage errors. */
#include "test_support.h"
#include "image_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int run_tool(const char *args, char **out) {
    char cmd[16384];
    snprintf(cmd, sizeof cmd, "\"%s\" %s 2>&1", ot_tool(), args);
    return ot_run(cmd, out);
}

/* The tool and an offscreen GL context, or a skip with the reason. */
static bool gl_tool(void) {
    if (!ot_tool()) return false; /* the reason given by ot_tool */
    char args[4096], *out = NULL;
    snprintf(args, sizeof args, "render --rest --size 8x8 --out '%s'", ot_tmp("ik_probe.png"));
    int rc = run_tool(args, &out);
    if (rc != 0) ot_skip_reason("no offscreen OpenGL: %s", out);
    free(out);
    return rc == 0;
}

/* Share of pixels differing by more than 24 in some channel. */
static double changed(const ot_image *a, const ot_image *b) {
    size_t n = (size_t)a->width * a->height, hit = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < 3; c++)
            if (abs((int)a->rgba[i * 4 + c] - (int)b->rgba[i * 4 + c]) > 24) {
                hit++;
                break;
            }
    return (double)hit / (double)n;
}

static void render_ik(void **state) {
    (void)state;
    if (!gl_tool()) skip();
    char args[8192], *out = NULL;
    char plain[4096], same[4096], lifted[4096]; /* ot_tmp's storage is static */
    snprintf(plain, sizeof plain, "%s", ot_tmp("ik_plain.png"));
    snprintf(same, sizeof same, "%s", ot_tmp("ik_same.png"));
    snprintf(lifted, sizeof lifted, "%s", ot_tmp("ik_lifted.png"));
    snprintf(args, sizeof args, "render --rest --size 96x96 --out '%s'", plain);
    assert_int_equal(run_tool(args, NULL), 0);
    /* target = the foot's rest position: nothing moves */
    snprintf(args, sizeof args, "render --rest --size 96x96 --ik foot_L --out '%s'", same);
    assert_int_equal(run_tool(args, &out), 0);
    assert_non_null(strstr(out, "IK foot_L"));
    free(out);
    snprintf(args, sizeof args, "render --rest --size 96x96 --ik foot_L:0.38,0.42,0.15 --ik hand_L:2,2,2 --out '%s'",
             lifted);
    assert_int_equal(run_tool(args, &out), 0);
    /* one frame (the rest pose): one solve per chain (the camera's framing pose is not counted) */
    if (!strstr(out, "IK foot_L -> (0.38, 0.42, 0.15): target reached in 1 of 1 solves") ||
        !strstr(out, "IK hand_L -> (2, 2, 2): target reached in 0 of 1 solves"))
        fail_msg("unexpected report:\n%s", out);
    free(out);
    ot_image a, b, c;
    ot_read_png(plain, &a);
    ot_read_png(same, &b);
    ot_read_png(lifted, &c);
    double d_same = changed(&a, &b), d_lifted = changed(&a, &c);
    if (d_same > 0.002 || d_lifted < 0.02) fail_msg("changed pixels: same target %.4f, lifted foot %.4f", d_same, d_lifted);
    ot_image_free(&a);
    ot_image_free(&b);
    ot_image_free(&c);
}

static void render_ik_usage_errors(void **state) {
    (void)state;
    if (!ot_gl_tool()) skip();
    const char *bad[][2] = {{"--ik nope:1,2,3", "no joint named 'nope'"},
                            {"--ik foot_L:1,2", "expects JOINT"},
                            {"--ik foot_L:1,2,3:0,0,1x", "expects JOINT"},
                            {"--ik hips:1,2,3", "needs a parent and a grandparent"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char args[4096], *out = NULL;
        snprintf(args, sizeof args, "render --rest %s --out '%s'", bad[i][0], ot_tmp("ik_bad.png"));
        int rc = run_tool(args, &out);
        if (rc != 2 || !strstr(out, bad[i][1])) fail_msg("%s: exit %d, output:\n%s", bad[i][0], rc, out);
        free(out);
    }
}

static void view_ik_key(void **state) {
    (void)state;
    if (!ot_gl_tool()) skip();
    if (ot_run("command -v xvfb-run > /dev/null 2>&1", NULL) != 0) {
        ot_skip_reason("xvfb-run is not installed: cannot open a window for ossa view");
        skip();
    }
    char cmd[8192], *out = NULL;
    snprintf(cmd, sizeof cmd,
             "LIBGL_ALWAYS_SOFTWARE=1 xvfb-run -a -s \"-screen 0 640x480x24\" \"%s\" view --size 96x96 --frames 4 "
             "--press 2:I,3:I --screenshot '%s' 2>&1",
             ot_tool(), ot_tmp("ik_view.png"));
    int rc = ot_run(cmd, &out);
    if (rc != 0 || !strstr(out, "IK on (2 chains)") || !strstr(out, "IK off")) fail_msg("exit %d:\n%s", rc, out);
    free(out);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(render_ik),
        cmocka_unit_test(render_ik_usage_errors),
        cmocka_unit_test(view_ik_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
