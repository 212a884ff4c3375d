/* `ossa view` (tools/ossa/cmd_view.c) under Xvfb: the window opens (GLFW, GL 3.3
 * core, Mesa software rendering), plays the clip, and `--frames N --screenshot`
 * saves a PNG showing the character. Skipped with a reason without xvfb-run.
 */
#include "test_support.h"
#include "image_read.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* RGBA8 pixels (malloc'd, caller frees) of a PNG. */
static uint8_t *read_png(const char *path, uint32_t *w, uint32_t *h) {
    ot_image im;
    ot_read_png(path, &im);
    *w = im.width;
    *h = im.height;
    return im.rgba;
}

/* Share of pixels differing from the top-left (background) pixel by more than 24 in a channel. */
static double coverage(const uint8_t *p, uint32_t w, uint32_t h) {
    size_t n = (size_t)w * h, hit = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < 3; c++)
            if (abs((int)p[i * 4 + c] - (int)p[c]) > 24) {
                hit++;
                break;
            }
    return (double)hit / (double)n;
}

static bool have_xvfb(void) {
    if (!ot_gl_tool()) return false; /* the reason given by ot_tool or ot_gl_tool */
    if (ot_run("command -v xvfb-run > /dev/null 2>&1", NULL) != 0) {
        ot_skip_reason("xvfb-run is not installed: cannot open a window for ossa view");
        return false;
    }
    return true;
}

/* Runs `ossa view ARGS` under Xvfb with Mesa's software renderer; returns the exit status. */
static int run_view(const char *args, char **out) {
    char cmd[16384];
    snprintf(cmd, sizeof cmd,
             "LIBGL_ALWAYS_SOFTWARE=1 xvfb-run -a -s \"-screen 0 640x480x24\" \"%s\" view %s", ot_tool(), args);
    return ot_run(cmd, out);
}

static void screenshot_shows_the_character(void **state) {
    (void)state;
    if (!have_xvfb()) skip();
    char path[4096], args[8192], *out = NULL;
    snprintf(path, sizeof path, "%s", ot_tmp("view_demo.png"));
    remove(path);
    snprintf(args, sizeof args, "--frames 10 --screenshot '%s'", path);
    assert_int_equal(run_view(args, &out), 0);
    /* the clip list is printed */
    assert_non_null(strstr(out, "walk"));
    assert_non_null(strstr(out, "wave"));
    free(out);
    uint32_t w = 0, h = 0;
    uint8_t *px = read_png(path, &w, &h);
    assert_int_equal(w, 640);
    assert_int_equal(h, 480);
    double cov = coverage(px, w, h);
    if (cov < 0.03 || cov > 0.70) fail_msg("the character covers %.1f%% of the window", cov * 100);
    free(px);
}

static void playback_advances(void **state) {
    (void)state;
    if (!have_xvfb()) skip();
    uint8_t *px[2];
    uint32_t w[2], h[2];
    const int frames[2] = {2, 20}; /* 1/60 s steps: 0.3 s of walk between them */
    for (int i = 0; i < 2; i++) {
        char name[64], path[4096], args[8192];
        snprintf(name, sizeof name, "view_frames_%d.png", frames[i]);
        snprintf(path, sizeof path, "%s", ot_tmp(name));
        snprintf(args, sizeof args, "demo --size 200x200 --frames %d --screenshot '%s' > /dev/null", frames[i], path);
        assert_int_equal(run_view(args, NULL), 0);
        px[i] = read_png(path, &w[i], &h[i]);
        assert_int_equal(w[i], 200);
        assert_int_equal(h[i], 200);
    }
    size_t changed = 0;
    for (size_t i = 0; i < (size_t)200 * 200; i++)
        for (size_t c = 0; c < 3; c++)
            if (abs((int)px[0][i * 4 + c] - (int)px[1][i * 4 + c]) > 24) {
                changed++;
                break;
            }
    assert_true(changed > 200); /* > 0.5% of the pixels moved */
    free(px[0]);
    free(px[1]);
}

/* Screenshot of `view ARGS --size 160x160 --frames N`; NULL after a skip message. */
static uint8_t *shot(const char *name, const char *args, int frames) {
    char path[4096], cmd[12288];
    snprintf(path, sizeof path, "%s", ot_tmp(name));
    remove(path);
    snprintf(cmd, sizeof cmd, "%s --size 160x160 --frames %d --screenshot '%s' > /dev/null", args, frames, path);
    assert_int_equal(run_view(cmd, NULL), 0);
    uint32_t w = 0, h = 0;
    uint8_t *px = read_png(path, &w, &h);
    if (px) {
        assert_int_equal(w, 160);
        assert_int_equal(h, 160);
    } else {
        ot_skip_reason("ossa view exited 0 but wrote no screenshot %s", path);
    }
    return px;
}

static double mean_abs_diff(const uint8_t *a, const uint8_t *b, size_t pixels) {
    double sum = 0;
    for (size_t i = 0; i < pixels; i++)
        for (size_t c = 0; c < 3; c++) sum += fabs((double)a[i * 4 + c] - (double)b[i * 4 + c]);
    return sum / (double)(pixels * 3);
}

/* Scripted keys: C cross-fades (0.3 s) to the next clip, so 36 steps of 1/60 s after the
 * key the picture is that clip played alone for 36 steps; G (CPU skinning) looks like the
 * GPU path; B (bones) draws over the body. */
static void keys_crossfade_cpu_bones(void **state) {
    (void)state;
    if (!have_xvfb()) skip();
    const size_t n = 160 * 160;
    uint8_t *fade = shot("view_fade.png", "--press 5:C", 40);
    uint8_t *wave = shot("view_wave36.png", "--clip wave", 36);
    uint8_t *walk = shot("view_walk40.png", "", 40);
    uint8_t *cpu = shot("view_cpu40.png", "--press 1:G", 40);
    uint8_t *bones = shot("view_bones40.png", "--press 1:B", 40);
    if (!fade || !wave || !walk || !cpu || !bones) skip();
    double d_wave = mean_abs_diff(fade, wave, n), d_walk = mean_abs_diff(fade, walk, n);
    if (d_wave > 0.5) fail_msg("after the cross-fade the picture differs from 'wave' alone by %.3f", d_wave);
    assert_true(d_walk > 1.0);
    double d_cpu = mean_abs_diff(cpu, walk, n), d_bones = mean_abs_diff(bones, walk, n);
    if (d_cpu > 1.0) fail_msg("CPU skinning screenshot differs from GPU by %.3f", d_cpu);
    assert_true(d_bones > 0.2);
    free(fade);
    free(wave);
    free(walk);
    free(cpu);
    free(bones);
    /* D toggles dual quaternion skinning: the same picture as --skinning dqs, on the GPU
     * and (G) on the CPU */
    uint8_t *dq_key = shot("view_dqs_key.png", "--press 1:D", 40);
    uint8_t *dq_flag = shot("view_dqs_flag.png", "--skinning dqs", 40);
    uint8_t *dq_cpu = shot("view_dqs_cpu.png", "--skinning dqs --press 1:G", 40);
    if (!dq_key || !dq_flag || !dq_cpu) skip();
    double d_key = mean_abs_diff(dq_key, dq_flag, n), d_dcpu = mean_abs_diff(dq_cpu, dq_flag, n);
    if (d_key > 0.5 || d_dcpu > 1.0) fail_msg("DQS: key vs flag %.3f, CPU vs GPU %.3f", d_key, d_dcpu);
    free(dq_key);
    free(dq_flag);
    free(dq_cpu);
}

/* [ ] move the weight of a second, synced layer playing the next clip: the picture changes,
 * and the key reports the weight. */
static void keys_blend_weight(void **state) {
    (void)state;
    if (!have_xvfb()) skip();
    char path[4096], args[8192], *out = NULL;
    snprintf(path, sizeof path, "%s", ot_tmp("view_blend.png"));
    snprintf(args, sizeof args, "--press '1:]]]]]]]]]]]' --size 160x160 --frames 40 --screenshot '%s'", path);
    assert_int_equal(run_view(args, &out), 0);
    assert_non_null(strstr(out, "blend 1.0 of 'wave' over 'walk'"));
    assert_non_null(strstr(out, "blend 0.5"));
    free(out);
    uint32_t w = 0, h = 0;
    uint8_t *blend = read_png(path, &w, &h);
    uint8_t *walk = shot("view_walk40b.png", "", 40);
    if (!blend || !walk) skip();
    double d = mean_abs_diff(blend, walk, 160 * 160);
    if (d < 0.2) fail_msg("blend weight 1 of the next clip looks like the walk alone (%.3f)", d);
    free(blend);
    free(walk);
}

static void options_and_errors(void **state) {
    (void)state;
    if (!have_xvfb()) skip();
    char path[4096], args[8192];
    snprintf(path, sizeof path, "%s", ot_tmp("view_wave.png"));
    snprintf(args, sizeof args, "--clip wave --cpu --bones --size 160x120 --frames 30 --screenshot '%s' > /dev/null",
             path);
    assert_int_equal(run_view(args, NULL), 0);
    uint32_t w = 0, h = 0;
    uint8_t *px = read_png(path, &w, &h);
    assert_int_equal(w, 160);
    assert_int_equal(h, 120);
    double cov = coverage(px, w, h);
    assert_true(cov > 0.03 && cov < 0.70);
    free(px);
    assert_int_equal(run_view("--frames 0 2>/dev/null", NULL), 2);
    assert_int_equal(run_view("--bogus 2>/dev/null", NULL), 2);
    assert_int_equal(run_view("--press 0:C 2>/dev/null", NULL), 2);
    assert_int_equal(run_view("--press 3:% 2>/dev/null", NULL), 2);
    assert_int_equal(run_view("--clip nope --frames 1 2>/dev/null", NULL), 1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(screenshot_shows_the_character),
        cmocka_unit_test(playback_advances),
        cmocka_unit_test(keys_crossfade_cpu_bones),
        cmocka_unit_test(keys_blend_weight),
        cmocka_unit_test(options_and_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
