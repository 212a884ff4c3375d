/* `ossa render` and `ossa demo` (tools/ossa/cmd_render.c, cmd_demo.c, render_common.c):
 * run the built tool, read its PNG/GIF output back with libpng/giflib and check
 * size, frame count, delays, coverage, motion, CPU = GPU, and a stored rest-pose
 * reference (tests/data/demo_rest_64.png). */
#include "test_support.h"
#include "gltf_writer.h"
#include "image_read.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef ot_image image;
#define frame_of ot_image_frame
#define image_free ot_image_free

/* --------------------------------------------------------------- measures --- */

/* Share of pixels that differ from the top-left (background) pixel by more than `tol` in some channel. */
static double coverage(const image *im, uint32_t f) {
    const uint8_t *p = frame_of(im, f), *bg = p;
    size_t n = (size_t)im->width * im->height, hit = 0;
    for (size_t i = 0; i < n; i++) {
        int d = 0;
        for (size_t c = 0; c < 3; c++) {
            int e = abs((int)p[i * 4 + c] - (int)bg[c]);
            if (e > d) d = e;
        }
        if (d > 24) hit++;
    }
    return (double)hit / (double)n;
}

/* Share of pixels that differ between two frames by more than 24 in some channel. */
static double changed(const uint8_t *a, const uint8_t *b, uint32_t w, uint32_t h) {
    size_t n = (size_t)w * h, hit = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < 3; c++)
            if (abs((int)a[i * 4 + c] - (int)b[i * 4 + c]) > 24) {
                hit++;
                break;
            }
    return (double)hit / (double)n;
}

/* Mean absolute difference per channel (0..255). */
static double mean_abs_diff(const uint8_t *a, const uint8_t *b, uint32_t w, uint32_t h) {
    double sum = 0;
    size_t n = (size_t)w * h;
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < 3; c++) sum += fabs((double)a[i * 4 + c] - (double)b[i * 4 + c]);
    return sum / (double)(n * 3);
}

static const char *tool_or_skip(void) {
    return ot_tool(); /* NULL with the reason given to ot_skip_reason */
}

/* Runs the tool with arguments, returns its exit status; stdout in *out when out != NULL. */
static int run_tool(const char *args, char **out) {
    char cmd[16384];
    snprintf(cmd, sizeof cmd, "\"%s\" %s", ot_tool(), args);
    return ot_run(cmd, out);
}

/* The tool and an offscreen OpenGL context: probed once with a tiny render; without
 * EGL/GL 3.3 the GL cases skip with the tool's reason. */
static const char *gl_tool_or_skip(void) {
    static int state = -1; /* -1 unknown, 0 no, 1 yes */
    static char why[512];  /* the probe's output when it failed */
    if (!tool_or_skip() || !ot_gl_tool()) return NULL;
    if (state < 0) {
        char args[8192], *out = NULL;
        snprintf(args, sizeof args, "render --rest --size 8x8 --out '%s' 2>&1", ot_tmp("render_probe.png"));
        int rc = run_tool(args, &out);
        state = rc == 0;
        if (!state && strstr(out, "no offscreen OpenGL")) state = 0;
        else if (!state) fail_msg("ossa render failed (%d):\n%s", rc, out);
        snprintf(why, sizeof why, "%s", out);
        free(out);
    }
    if (!state) ot_skip_reason("no offscreen OpenGL: %s", why);
    return state ? ot_tool() : NULL;
}

/* Frames a clip span renders at fps (the documented rule, computed here independently):
 * the times from, from + 1/fps, ... below `to`, plus `to` itself unless looping. */
static uint32_t expected_frames(double from, double to, double fps, bool loop) {
    if (!(to > from)) return 1;
    uint32_t n = 0;
    while (from + (double)n / fps < to - 1e-4 / fps) n++;
    return n + (loop ? 0 : 1);
}

#include "demo_character.h" /* support/: the tool's built-in character, checked here */

/* ------------------------------------------------------------------ tests --- */

static void demo_character_is_well_formed(void **state) {
    (void)state;
    ossa_asset *a = demo_character_create();
    assert_non_null(a);
    const ossa_skeleton *sk = a->skeleton;
    assert_non_null(sk);
    assert_true(sk->joint_count >= 13);
    const char *required[] = {"hips", "spine", "chest", "neck", "head", "upper_arm_L", "lower_arm_L", "upper_arm_R",
                              "lower_arm_R", "upper_leg_L", "lower_leg_L", "upper_leg_R", "lower_leg_R"};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        assert_true(ossa_skeleton_find_joint(sk, required[i]) >= 0);
    assert_int_equal(sk->skin_count, 1);
    assert_int_equal(sk->skins[0].joint_count, sk->joint_count);
    /* IBM = inverse of the rest world matrix: their product is the identity for every joint */
    for (uint32_t i = 0; i < sk->skins[0].joint_count; i++) {
        uint32_t j = sk->skins[0].joints[i];
        ossa_mat4 world = ossa_pose_joint_to_model(sk->rest, sk->parents, sk->joint_count, j);
        ossa_mat4 p = ossa_mat4_mul(&world, &sk->skins[0].inverse_bind[i]);
        ossa_mat4 id = ossa_mat4_identity();
        ot_assert_floats_near(p.m, id.m, 16, 1e-5f);
    }
    /* mesh: weights sum to 1 with at most 2 influences, joints in range, unit normals, triangles in range */
    assert_int_equal(a->mesh_count, 1);
    const ossa_mesh *m = a->meshes[0];
    assert_true(m->vertex_count > 500);
    assert_int_equal(m->influences, 4);
    assert_int_equal(m->skin, 0);
    uint32_t blended = 0;
    for (uint32_t v = 0; v < m->vertex_count; v++) {
        float sum = 0;
        uint32_t used = 0;
        for (uint32_t k = 0; k < 4; k++) {
            float w = m->weights[v * 4 + k];
            assert_true(w >= 0);
            assert_true(m->joints[v * 4 + k] < sk->joint_count);
            sum += w;
            used += w > 0;
        }
        ot_assert_near(sum, 1, 1e-5);
        assert_true(used >= 1 && used <= 2);
        blended += used == 2;
        const float *n = m->normals + v * 3;
        ot_assert_near(sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]), 1, 1e-4);
    }
    assert_true(blended > m->vertex_count / 10); /* smooth 2-joint weights around the joints */
    assert_int_equal(m->index_count % 3, 0);
    for (uint32_t i = 0; i < m->index_count; i++) assert_true(m->indices[i] < m->vertex_count);
    /* feet on the ground, about 1.8 m tall */
    ossa_vec3 lo, hi;
    assert_true(ossa_mesh_bounds(m, &lo, &hi));
    ot_assert_near(lo.y, 0, 0.03);
    assert_true(hi.y > 1.6f && hi.y < 2.0f);
    ossa_asset_destroy(a);
}

/* Both clips are CUBIC; sampled between keys they follow the analytic motion the keys
 * were taken from (values and tangents exact, Hermite in between), and walk loops. */
static void demo_clips_follow_the_analytic_motion(void **state) {
    (void)state;
    ossa_asset *a = demo_character_create();
    assert_non_null(a);
    const ossa_skeleton *sk = a->skeleton;
    int walk = ossa_asset_find_clip(a, "walk"), wave = ossa_asset_find_clip(a, "wave");
    assert_true(walk >= 0 && wave >= 0);
    const ossa_clip *cw = a->clips[walk];
    assert_true(cw->looping);
    ot_assert_near(cw->end - cw->start, 1.0, 1e-6);
    assert_true(a->clips[wave]->end - a->clips[wave]->start > 1.5f);
    ossa_transform pose[DEMO_JOINT_COUNT];
    const ossa_clip *clips[2] = {cw, a->clips[wave]};
    for (int c = 0; c < 2; c++) {
        const ossa_clip *clip = clips[c];
        for (uint32_t i = 0; i < clip->track_count; i++) assert_int_equal(clip->tracks[i].rotation.interp, OSSA_INTERP_CUBIC);
        double worst = 0;
        for (int s = 0; s <= 200; s++) {
            double t = clip->start + (clip->end - clip->start) * (s + 0.37) / 201.0;
            ot_clip_sample(clip, (float)t, false, OSSA_LOOKUP_BINARY, NULL, sk->rest, pose, sk->joint_count);
            demo_pose ref;
            demo_character_analytic_pose(c, t, &ref);
            for (uint32_t d = 0; d < DEMO_JOINT_COUNT; d++) {
                const ossa_quat q = pose[sk->joint_of_source[d]].rotation;
                double dot = fabs(q.x * ref.rot[d][0] + q.y * ref.rot[d][1] + q.z * ref.rot[d][2] + q.w * ref.rot[d][3]);
                double angle = 2 * acos(fmin(1.0, dot));
                if (angle > worst) worst = angle;
            }
            ot_assert_near(pose[sk->joint_of_source[0]].translation.y, ref.hips[1], 2e-3); /* hips */
        }
        print_message("clip '%s': largest angle between CUBIC samples and the analytic motion %.5f rad\n",
                      clip->name, worst);
        if (worst > 0.02) fail_msg("clip %d: CUBIC samples are %.4f rad from the analytic motion", c, worst);
    }
    /* walk loops seamlessly: t and t + 1 s give the same pose */
    ossa_transform p0[DEMO_JOINT_COUNT], p1[DEMO_JOINT_COUNT];
    ot_clip_sample(cw, 0.3f, true, OSSA_LOOKUP_BINARY, NULL, sk->rest, p0, sk->joint_count);
    ot_clip_sample(cw, 1.3f, true, OSSA_LOOKUP_BINARY, NULL, sk->rest, p1, sk->joint_count);
    for (uint32_t j = 0; j < sk->joint_count; j++)
        ot_assert_floats_near(&p0[j].rotation.x, &p1[j].rotation.x, 4, 1e-4f);
    ossa_asset_destroy(a);
}

static void demo_gif_has_both_clips_and_motion(void **state) {
    (void)state;
    if (!gl_tool_or_skip()) skip();
    const char *path = ot_tmp("render_demo.gif");
    remove(path);
    char args[12288], *out = NULL;
    snprintf(args, sizeof args, "demo --size 160x128 --fps 10 --out '%s'", path);
    assert_int_equal(run_tool(args, &out), 0);
    assert_non_null(strstr(out, path)); /* the one-line summary names the file */
    assert_non_null(strstr(out, "frames"));
    free(out);
    image im;
    ot_read_gif(path, &im);
    assert_int_equal(im.width, 160);
    assert_int_equal(im.height, 128);
    /* walk (1 s, looping) twice, then wave (2.2 s, held at its end), at 10 fps */
    uint32_t expect = expected_frames(0, 2.0, 10, true) + expected_frames(0, 2.2, 10, false);
    assert_int_equal(im.frames, expect);
    uint32_t total_cs = 0;
    for (uint32_t f = 0; f < im.frames; f++) {
        assert_true(im.delays_cs[f] >= 9 && im.delays_cs[f] <= 11);
        total_cs += im.delays_cs[f];
        double cov = coverage(&im, f);
        if (cov < 0.03 || cov > 0.70) fail_msg("frame %u covers %.1f%% of the image", f, cov * 100);
    }
    ot_assert_near(total_cs, im.frames * 10.0, 1.0);
    /* frames differ over time: a quarter walk cycle apart, and walk vs mid-wave */
    assert_true(changed(frame_of(&im, 0), frame_of(&im, 3), im.width, im.height) > 0.005);
    assert_true(changed(frame_of(&im, 5), frame_of(&im, 32), im.width, im.height) > 0.005);
    /* a looping clip repeats: frame 0 and frame 10 (t = 0 and t = 1 s of walk) match */
    assert_true(mean_abs_diff(frame_of(&im, 0), frame_of(&im, 10), im.width, im.height) < 1.0);
    /* --frame N with a .png gives the same picture as GIF frame N (up to the GIF palette) */
    const char *png = ot_tmp("render_demo_frame.png");
    char png_path[4096];
    snprintf(png_path, sizeof png_path, "%s", png);
    snprintf(args, sizeof args, "demo --size 160x128 --fps 10 --frame 27 --out '%s' > /dev/null", png_path);
    assert_int_equal(run_tool(args, NULL), 0);
    image one;
    ot_read_png(png_path, &one);
    assert_int_equal(one.width, 160);
    double d = mean_abs_diff(one.rgba, frame_of(&im, 27), 160, 128);
    if (d > 3.0) fail_msg("PNG frame 27 differs from GIF frame 27 by %.2f", d);
    assert_true(mean_abs_diff(one.rgba, frame_of(&im, 20), 160, 128) > d);
    image_free(&one);
    image_free(&im);
}

/* Pixels within 40 (per channel) of an RGB colour. */
static size_t count_color(const image *im, int r, int g, int b) {
    size_t n = 0;
    for (size_t i = 0; i < (size_t)im->width * im->height; i++) {
        const uint8_t *p = im->rgba + i * 4;
        if (abs(p[0] - r) < 40 && abs(p[1] - g) < 40 && abs(p[2] - b) < 40) n++;
    }
    return n;
}

static void plot_draws_curves(void **state) {
    (void)state;
    if (!tool_or_skip()) skip();
    char path[4096], args[12288], *out = NULL;
    snprintf(path, sizeof path, "%s", ot_tmp("plot_walk.png"));
    remove(path);
    snprintf(args, sizeof args, "plot --clip walk --node upper_leg_L --size 600x480 --out '%s'", path);
    assert_int_equal(run_tool(args, &out), 0);
    assert_non_null(strstr(out, "upper_leg_L"));
    free(out);
    image im;
    ot_read_png(path, &im);
    assert_int_equal(im.width, 600);
    assert_int_equal(im.height, 480);
    /* one colour per component: x red, y green, z blue, w grey; the rest is mostly white */
    assert_true(count_color(&im, 219, 51, 46) > 300);
    assert_true(count_color(&im, 46, 158, 56) > 300);
    assert_true(count_color(&im, 41, 92, 217) > 300);
    assert_true(count_color(&im, 115, 115, 115) > 100);
    assert_true(count_color(&im, 255, 255, 255) > 600 * 480 / 2);
    image_free(&im);
    /* a different node draws different curves */
    char path2[4096];
    snprintf(path2, sizeof path2, "%s", ot_tmp("plot_wave.png"));
    snprintf(args, sizeof args, "plot demo --clip wave --node lower_arm_R --size 600x480 --out '%s' > /dev/null", path2);
    assert_int_equal(run_tool(args, NULL), 0);
    image a, b;
    ot_read_png(path, &a);
    ot_read_png(path2, &b);
    assert_true(changed(a.rgba, b.rgba, 600, 480) > 0.005);
    image_free(&a);
    image_free(&b);
    assert_int_equal(run_tool("plot --node nope --out /dev/null.png 2>/dev/null", NULL), 1);
    assert_int_equal(run_tool("plot --out curves.gif 2>/dev/null", NULL), 2);
}

static void bench_prints_a_table(void **state) {
    (void)state;
    if (!tool_or_skip()) skip();
    char *out = NULL;
    assert_int_equal(run_tool("bench --rounds 1 --threads 2", &out), 0);
    const char *rows[] = {"built, forward", "built, random", "lossless, forward", "lossless, random",
                          "forward, cursor", "random, table", "random, binary", "model space + palette", "skin LBS",
                          "skin DQS", "full frame"};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (!strstr(out, rows[i])) fail_msg("bench output lacks '%s':\n%s", rows[i], out);
    /* every table row ends with a positive rate (character-frames per second) */
    size_t rows_seen = 0;
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
        if (strncmp(line, "sample", 6) && strncmp(line, "model", 5) && strncmp(line, "skin", 4) &&
            strncmp(line, "full", 4))
            continue;
        const char *last = strrchr(line, ' ');
        assert_non_null(last);
        assert_true(strtod(last + 1, NULL) > 0);
        rows_seen++;
    }
    assert_true(rows_seen >= 10);
    free(out);
}

static void rest_pose_matches_reference(void **state) {
    (void)state;
    if (!gl_tool_or_skip()) skip();
    const char *src = getenv("OSSA_SOURCE_DIR");
    if (!src) {
        ot_skip_reason("OSSA_SOURCE_DIR is not set: the reference image is not found");
        skip();
    }
    char ref_path[4096];
    snprintf(ref_path, sizeof ref_path, "%s/tests/data/demo_rest_64.png", src);
    image ref;
    ot_read_png(ref_path, &ref);
    const char *modes[2] = {"--gpu", "--cpu"};
    for (int m = 0; m < 2; m++) {
        char name[64], args[12288];
        snprintf(name, sizeof name, "render_rest_%s.png", modes[m] + 2);
        char path[4096];
        snprintf(path, sizeof path, "%s", ot_tmp(name));
        remove(path);
        snprintf(args, sizeof args, "render --rest --size 64x64 %s --out '%s' > /dev/null", modes[m], path);
        assert_int_equal(run_tool(args, NULL), 0);
        image im;
        ot_read_png(path, &im);
        assert_int_equal(im.width, 64);
        assert_int_equal(im.height, 64);
        assert_int_equal(ref.width, 64);
        double cov = coverage(&im, 0);
        assert_true(cov > 0.03 && cov < 0.70);
        double d = mean_abs_diff(im.rgba, ref.rgba, 64, 64);
        if (d > 4.0) fail_msg("%s rest render differs from %s: mean abs diff %.2f", modes[m], ref_path, d);
        image_free(&im);
    }
    /* `--from 0 --to 0` of a clip is a single still frame too */
    image_free(&ref);
}

static void cpu_and_gpu_skinning_agree(void **state) {
    (void)state;
    if (!gl_tool_or_skip()) skip();
    image im[2];
    for (int m = 0; m < 2; m++) {
        char name[64], path[4096], args[12288];
        snprintf(name, sizeof name, "render_walk_%d.png", m);
        snprintf(path, sizeof path, "%s", ot_tmp(name));
        snprintf(args, sizeof args, "render demo --clip walk --from 0.3 --to 0.3 --size 96x96 %s --out '%s' > /dev/null",
                 m ? "--cpu" : "--gpu", path);
        assert_int_equal(run_tool(args, NULL), 0);
        ot_read_png(path, &im[m]);
        assert_int_equal(im[m].width, 96);
    }
    double d = mean_abs_diff(im[0].rgba, im[1].rgba, 96, 96);
    if (d > 1.5) fail_msg("CPU and GPU skinning renders differ: mean abs diff %.2f", d);
    image_free(&im[0]);
    image_free(&im[1]);
}

static void clip_range_and_bones(void **state) {
    (void)state;
    if (!gl_tool_or_skip()) skip();
    const char *gif = ot_tmp("render_wave.gif");
    char args[12288];
    snprintf(args, sizeof args, "render --clip wave --from 0.5 --to 1.5 --fps 8 --size 80x96 --bones --out '%s' > /dev/null",
             gif);
    assert_int_equal(run_tool(args, NULL), 0);
    image im;
    ot_read_gif(gif, &im);
    assert_int_equal(im.width, 80);
    assert_int_equal(im.height, 96);
    assert_int_equal(im.frames, expected_frames(0.5, 1.5, 8, false));
    image_free(&im);
    /* the bone overlay adds yellow pixels over the body */
    image a, b;
    char pa[4096], pb[4096];
    snprintf(pa, sizeof pa, "%s", ot_tmp("render_nobones.png"));
    snprintf(pb, sizeof pb, "%s", ot_tmp("render_bones.png"));
    snprintf(args, sizeof args, "render --clip 1 --from 1 --to 1 --size 128x128 --out '%s' > /dev/null", pa);
    assert_int_equal(run_tool(args, NULL), 0);
    snprintf(args, sizeof args, "render --clip wave --from 1 --to 1 --size 128x128 --bones --out '%s' > /dev/null", pb);
    assert_int_equal(run_tool(args, NULL), 0);
    ot_read_png(pa, &a);
    ot_read_png(pb, &b);
    double c = changed(a.rgba, b.rgba, 128, 128);
    assert_true(c > 0.002 && c < 0.2);
    image_free(&a);
    image_free(&b);
}

static void usage_and_errors(void **state) {
    (void)state;
    if (!tool_or_skip() || !ot_gl_tool()) skip();
    assert_int_equal(run_tool("render --size 0x5 2>/dev/null", NULL), 2);
    assert_int_equal(run_tool("render --fps nope 2>/dev/null", NULL), 2);
    assert_int_equal(run_tool("render --out x.bmp 2>/dev/null", NULL), 2);
    assert_int_equal(run_tool("render --bogus 2>/dev/null", NULL), 2);
    assert_int_equal(run_tool("demo --bogus 2>/dev/null", NULL), 2);
    char *out = NULL;
    assert_int_equal(run_tool("render --clip nope --out /dev/null.png 2>&1", &out), 1);
    assert_non_null(strstr(out, "nope"));
    assert_non_null(strstr(out, "walk")); /* lists the clips it has */
    free(out);
    assert_int_equal(run_tool("render /nonexistent/file.gltf 2>/dev/null", NULL), 1);
}

static void woman_renders(void **state) {
    (void)state;
    if (!gl_tool_or_skip()) skip();
    const char *asset = ot_asset("Woman/Woman.gltf");
    if (!asset) skip();
    char file[4096];
    snprintf(file, sizeof file, "%s", asset);
    ossa_asset *a = NULL;
    assert_int_equal(ossa_gltf_load_file(file, NULL, &a, NULL), OSSA_OK);
    assert_true(a->clip_count > 0);
    double start = a->clips[0]->start, end = a->clips[0]->end;
    ossa_asset_destroy(a);
    const double fps = 6;
    const char *gif = ot_tmp("render_woman.gif");
    char args[12288];
    snprintf(args, sizeof args, "render '%s' --clip 0 --no-loop --fps 6 --size 96x128 --out '%s' > /dev/null", file, gif);
    assert_int_equal(run_tool(args, NULL), 0);
    image im;
    ot_read_gif(gif, &im);
    assert_int_equal(im.width, 96);
    assert_int_equal(im.height, 128);
    assert_int_equal(im.frames, expected_frames(start, end, fps, false));
    assert_true(im.frames > 2);
    bool moved = false;
    for (uint32_t f = 0; f < im.frames; f++) {
        double cov = coverage(&im, f);
        if (cov < 0.03 || cov > 0.70) fail_msg("Woman frame %u covers %.1f%%", f, cov * 100);
        if (f && changed(frame_of(&im, 0), frame_of(&im, f), im.width, im.height) > 0.005) moved = true;
    }
    assert_true(moved);
    image_free(&im);
    /* one PNG frame with the bone overlay and CPU skinning */
    const char *png = ot_tmp("render_woman.png");
    snprintf(args, sizeof args, "render '%s' --from %g --to %g --cpu --bones --size 100x100 --out '%s' > /dev/null",
             file, start, start, png);
    assert_int_equal(run_tool(args, NULL), 0);
    ot_read_png(png, &im);
    assert_int_equal(im.width, 100);
    double cov = coverage(&im, 0);
    assert_true(cov > 0.03 && cov < 0.70);
    image_free(&im);
}

/* A clip that ends where it starts (a walk cycle) renders as a loop by default: the GIF
 * leaves out the end frame that would repeat the first; one that does not (a swing) keeps
 * it; --loop / --no-loop override. A triangle on an animated node, two clips. */
static void looping_clip_drops_the_end_frame(void **state) {
    (void)state;
    if (!gl_tool_or_skip()) skip();
    const float pos[9] = {-0.5f, 0, 0, 0.5f, 0, 0, 0, 1, 0};
    const float times[3] = {0, 0.5f, 1}, rot[12] = {0, 0, 0, 1, 0, 0, 0.38268343f, 0.92387953f, 0, 0, 0, 1};
    const float swing[12] = {0, 0, 0, 1, 0, 0, 0.38268343f, 0.92387953f, 0, 0, 0.70710678f, 0.70710678f};
    gw *w = gw_create();
    int p = gw_data(w, GW_FLOAT, false, 3, "VEC3", pos);
    int t = gw_data(w, GW_FLOAT, false, 3, "SCALAR", times);
    int r = gw_data(w, GW_FLOAT, false, 3, "VEC4", rot);
    int s = gw_data(w, GW_FLOAT, false, 3, "VEC4", swing);
    gw_add(w, "meshes", "{\"primitives\": [{\"attributes\": {\"POSITION\": %d}}]}", p);
    gw_add(w, "nodes", "{\"name\": \"tri\", \"mesh\": 0}");
    gw_add(w, "animations", "{\"name\": \"cycle\", \"samplers\": [{\"input\": %d, \"output\": %d}], "
                            "\"channels\": [{\"sampler\": 0, \"target\": {\"node\": 0, \"path\": \"rotation\"}}]}", t, r);
    gw_add(w, "animations", "{\"name\": \"swing\", \"samplers\": [{\"input\": %d, \"output\": %d}], "
                            "\"channels\": [{\"sampler\": 0, \"target\": {\"node\": 0, \"path\": \"rotation\"}}]}", t, s);
    size_t n;
    uint8_t *bytes = gw_finish(w, GW_EMBEDDED, NULL, NULL, &n);
    char file[4096], gif[4096], args[12288];
    snprintf(file, sizeof file, "%s", ot_tmp("render_loop.gltf"));
    assert_int_equal(gw_write_file(file, bytes, n), 0);
    free(bytes);
    gw_destroy(w);
    snprintf(gif, sizeof gif, "%s", ot_tmp("render_loop.gif"));
    const struct {
        const char *clip, *flag;
        bool loop;
    } cases[] = {{"cycle", "", true}, {"swing", "", false}, {"cycle", "--no-loop", false}, {"swing", "--loop", true}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(args, sizeof args, "render '%s' --clip %s %s --fps 8 --size 48x48 --out '%s' > /dev/null", file,
                 cases[i].clip, cases[i].flag, gif);
        assert_int_equal(run_tool(args, NULL), 0);
        image im;
        ot_read_gif(gif, &im);
        if (im.frames != expected_frames(0, 1, 8, cases[i].loop))
            fail_msg("%s: %u frames, expected %u", args, im.frames, expected_frames(0, 1, 8, cases[i].loop));
        image_free(&im);
    }
    assert_int_equal(expected_frames(0, 1, 8, true), 8); /* t = 0, 1/8, ..., 7/8: no repeat of t = 0 */
}

/* Morph targets animate in the render (weight tracks, no skin): frames change, and the
 * CPU path (ossa_morph_job) matches the GPU shader path. */
static void morph_cube_animates(void **state) {
    (void)state;
    if (!gl_tool_or_skip()) skip();
    const char *asset = ot_asset("AnimatedMorphCube/AnimatedMorphCube.gltf");
    if (!asset) skip();
    char file[4096], gif[4096], args[12288];
    snprintf(file, sizeof file, "%s", asset);
    snprintf(gif, sizeof gif, "%s", ot_tmp("render_morph.gif"));
    snprintf(args, sizeof args, "render '%s' --fps 4 --no-loop --size 64x64 --out '%s' > /dev/null", file, gif);
    assert_int_equal(run_tool(args, NULL), 0);
    image im;
    ot_read_gif(gif, &im);
    assert_true(im.frames > 2);
    double most = 0;
    for (uint32_t f = 1; f < im.frames; f++) most = fmax(most, changed(frame_of(&im, 0), frame_of(&im, f), 64, 64));
    assert_true(most > 0.01);
    image_free(&im);
    image a, b;
    char pa[4096], pb[4096];
    snprintf(pa, sizeof pa, "%s", ot_tmp("render_morph_gpu.png"));
    snprintf(pb, sizeof pb, "%s", ot_tmp("render_morph_cpu.png"));
    snprintf(args, sizeof args, "render '%s' --from 1 --to 1 --size 64x64 --gpu --out '%s' > /dev/null", file, pa);
    assert_int_equal(run_tool(args, NULL), 0);
    snprintf(args, sizeof args, "render '%s' --from 1 --to 1 --size 64x64 --cpu --out '%s' > /dev/null", file, pb);
    assert_int_equal(run_tool(args, NULL), 0);
    ot_read_png(pa, &a);
    ot_read_png(pb, &b);
    assert_true(mean_abs_diff(a.rgba, b.rgba, 64, 64) < 1.5);
    image_free(&a);
    image_free(&b);
}

/* The camera frames the whole clip, centred: a still at time t is the GIF's frame at t
 * (same camera, whatever range is rendered), and the box around the character over all
 * frames is centred in the image. */
static void framing_whole_clip_centred(void **state) {
    (void)state;
    if (!gl_tool_or_skip()) skip();
    char args[8192];
    snprintf(args, sizeof args, "render --clip walk --fps 10 --size 80x80 --ssaa 1 --quiet --out '%s' > /dev/null",
             ot_tmp("frame_walk.gif"));
    assert_int_equal(run_tool(args, NULL), 0);
    snprintf(args, sizeof args, "render --clip walk --from 0.3 --to 0.3 --size 80x80 --ssaa 1 --out '%s' > /dev/null",
             ot_tmp("frame_walk_still.png"));
    assert_int_equal(run_tool(args, NULL), 0);
    image gif, still;
    ot_read_gif(ot_tmp("frame_walk.gif"), &gif);
    ot_read_png(ot_tmp("frame_walk_still.png"), &still);
    assert_true(gif.frames > 4);
    double d = mean_abs_diff(still.rgba, frame_of(&gif, 3), 80, 80);
    printf("[   INFO   ] still at 0.3 s vs GIF frame 3: mean abs diff %.2f\n", d);
    assert_true(d < 4.0); /* GIF palette quantisation only */
    int x0 = 80, x1 = -1, y0 = 80, y1 = -1;
    for (uint32_t f = 0; f < gif.frames; f++) {
        const uint8_t *p = frame_of(&gif, f), *bg = frame_of(&gif, 0);
        for (int y = 0; y < 80; y++)
            for (int x = 0; x < 80; x++) {
                const uint8_t *q = p + (y * 80 + x) * 4;
                if (abs(q[0] - bg[0]) + abs(q[1] - bg[1]) + abs(q[2] - bg[2]) <= 48) continue;
                x0 = x < x0 ? x : x0, x1 = x > x1 ? x : x1, y0 = y < y0 ? y : y0, y1 = y > y1 ? y : y1;
            }
    }
    printf("[   INFO   ] character over the clip: x %d..%d, y %d..%d of 80x80\n", x0, x1, y0, y1);
    assert_true(x1 > x0 && y1 > y0);
    assert_true(abs((x0 + x1) - 79) <= 8 && abs((y0 + y1) - 79) <= 8); /* centre within 4 pixels */
    assert_true(y1 - y0 > 48);                                         /* and it fills the frame */
    image_free(&gif);
    image_free(&still);
}

/* Long renders report progress on stderr also when it is not a terminal (here a pipe):
 * one line per OSSA_PROGRESS_SECONDS (0 = every frame) with frames done and the time
 * left; --quiet silences it. Also a crowd GIF and `bench --crowd`. */
static void progress_lines_and_quiet(void **state) {
    (void)state;
    if (!gl_tool_or_skip()) skip();
    char args[8192], *out = NULL;
    snprintf(args, sizeof args, "render --size 32x32 --ssaa 1 --fps 5 --out '%s' 2>&1 >/dev/null",
             ot_tmp("progress.gif"));
    char cmd[16384];
    snprintf(cmd, sizeof cmd, "OSSA_PROGRESS_SECONDS=0 \"%s\" %s", ot_tool(), args);
    assert_int_equal(ot_run(cmd, &out), 0);
    int lines = 0;
    for (const char *p = out; (p = strstr(p, " frames (")); p++) lines++;
    if (lines < 3 || !strstr(out, "s left")) fail_msg("expected a progress line per frame:\n%s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "OSSA_PROGRESS_SECONDS=0 \"%s\" %s --quiet", ot_tool(), args);
    /* --quiet after the redirections still reaches ossa: the shell passes it as an argument */
    assert_int_equal(ot_run(cmd, &out), 0);
    assert_null(strstr(out, " frames ("));
    free(out);
    /* the crowd writes GIFs too, with the same progress */
    snprintf(cmd, sizeof cmd, "OSSA_PROGRESS_SECONDS=0 \"%s\" crowd --count 4 --size 48x32 --ssaa 1 --duration 0.4 "
             "--fps 10 --out '%s' 2>&1", ot_tool(), ot_tmp("crowd.gif"));
    assert_int_equal(ot_run(cmd, &out), 0);
    assert_non_null(strstr(out, "4/4 frames"));
    free(out);
    image gif;
    ot_read_gif(ot_tmp("crowd.gif"), &gif);
    assert_int_equal(gif.frames, 4);
    assert_true(changed(frame_of(&gif, 0), frame_of(&gif, 2), gif.width, gif.height) > 0.005);
    image_free(&gif);
    assert_int_equal(run_tool("bench --crowd 8 --rounds 1 --threads 2", &out), 0);
    const char *rows[] = {"CPU sampling + model + palettes, editable clips, 1 thread",
                          "CPU sampling + model + palettes, built clips, 2 threads", "characters per 16.7 ms, built clips",
                          "GPU palette upload + instanced draw"};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (!strstr(out, rows[i])) fail_msg("bench --crowd output lacks '%s':\n%s", rows[i], out);
    free(out);
    assert_int_equal(run_tool("crowd --count 0 2>/dev/null", NULL), 2);
    assert_int_equal(run_tool("render --skinning xyz 2>/dev/null", NULL), 2);
}

/* ------------------------------------------- files without a skinned mesh --- */

/* Box over every frame of the pixels more than 48 (sum of channels) away from the
 * top-left pixel of frame 0 (the background); x1 < x0 when nothing is drawn. */
typedef struct pixel_box {
    int x0, x1, y0, y1;
} pixel_box;

static pixel_box drawn_box(const image *im) {
    pixel_box b = {(int)im->width, -1, (int)im->height, -1};
    const uint8_t *bg = frame_of(im, 0);
    for (uint32_t f = 0; f < im->frames; f++) {
        const uint8_t *p = frame_of(im, f);
        for (int y = 0; y < (int)im->height; y++)
            for (int x = 0; x < (int)im->width; x++) {
                const uint8_t *q = p + ((size_t)y * im->width + (size_t)x) * 4;
                if (abs(q[0] - bg[0]) + abs(q[1] - bg[1]) + abs(q[2] - bg[2]) <= 48) continue;
                b.x0 = x < b.x0 ? x : b.x0, b.x1 = x > b.x1 ? x : b.x1;
                b.y0 = y < b.y0 ? y : b.y0, b.y1 = y > b.y1 ? y : b.y1;
            }
    }
    return b;
}

/* Appends a static 80 x 80 quad 300 units behind the origin ("sky", the node after the
 * last one written) and a camera node after it, for a root node to list as children. */
static void add_far_static(gw *w) {
    const float quad[18] = {-40, -40, 0, 40, -40, 0, 40, 40, 0, -40, -40, 0, 40, 40, 0, -40, 40, 0};
    int p = gw_data(w, GW_FLOAT, false, 6, "VEC3", quad);
    int m = gw_add(w, "meshes", "{\"primitives\": [{\"attributes\": {\"POSITION\": %d}}]}", p);
    gw_add(w, "cameras", "{\"type\": \"perspective\", \"perspective\": {\"yfov\": 0.8, \"znear\": 0.1}}");
    gw_add(w, "nodes", "{\"name\": \"sky\", \"mesh\": %d, \"translation\": [0, 0, -300]}", m);
    gw_add(w, "nodes", "{\"name\": \"cam\", \"camera\": 0, \"translation\": [40, 10, 60]}");
}

static void write_doc(gw *w, const char *path) {
    assert_int_equal(gw_save(&w, GW_EMBEDDED, path), 0);
}

/* A skeleton without any mesh (hips, spine, head, two three-joint legs) under a static
 * root node 3 units away from the hips, with a 1 s clip that swings the hips about +Y and
 * the legs about +X (30 degrees); far_static adds the far quad and a camera under the root. */
static void write_skeleton_only(const char *path, bool far_static) {
    const float times[3] = {0, 0.5f, 1};
    const float s = 0.25881905f, c = 0.96592583f; /* sin, cos of 15 degrees */
    const float hips[12] = {0, -s, 0, c, 0, s, 0, c, 0, -s, 0, c};
    const float leg_l[12] = {s, 0, 0, c, -s, 0, 0, c, s, 0, 0, c};
    const float leg_r[12] = {-s, 0, 0, c, s, 0, 0, c, -s, 0, 0, c};
    gw *w = gw_create();
    int t = gw_data(w, GW_FLOAT, false, 3, "SCALAR", times);
    int rh = gw_data(w, GW_FLOAT, false, 3, "VEC4", hips);
    int rl = gw_data(w, GW_FLOAT, false, 3, "VEC4", leg_l);
    int rr = gw_data(w, GW_FLOAT, false, 3, "VEC4", leg_r);
    gw_add(w, "nodes", "{\"name\": \"root\", \"children\": [1%s]}", far_static ? ", 10, 11" : "");
    gw_add(w, "nodes", "{\"name\": \"hips\", \"translation\": [3, 1, 0], \"children\": [2, 4, 7]}");
    gw_add(w, "nodes", "{\"name\": \"spine\", \"translation\": [0, 0.5, 0], \"children\": [3]}");
    gw_add(w, "nodes", "{\"name\": \"head\", \"translation\": [0, 0.35, 0]}");
    gw_add(w, "nodes", "{\"name\": \"leg_L\", \"translation\": [0.15, 0, 0], \"children\": [5]}");
    gw_add(w, "nodes", "{\"name\": \"knee_L\", \"translation\": [0, -0.45, 0], \"children\": [6]}");
    gw_add(w, "nodes", "{\"name\": \"foot_L\", \"translation\": [0, -0.45, 0]}");
    gw_add(w, "nodes", "{\"name\": \"leg_R\", \"translation\": [-0.15, 0, 0], \"children\": [8]}");
    gw_add(w, "nodes", "{\"name\": \"knee_R\", \"translation\": [0, -0.45, 0], \"children\": [9]}");
    gw_add(w, "nodes", "{\"name\": \"foot_R\", \"translation\": [0, -0.45, 0]}");
    if (far_static) add_far_static(w);
    gw_add(w, "animations",
           "{\"name\": \"walk\", \"samplers\": [{\"input\": %d, \"output\": %d}, {\"input\": %d, \"output\": %d}, "
           "{\"input\": %d, \"output\": %d}], \"channels\": ["
           "{\"sampler\": 0, \"target\": {\"node\": 1, \"path\": \"rotation\"}}, "
           "{\"sampler\": 1, \"target\": {\"node\": 4, \"path\": \"rotation\"}}, "
           "{\"sampler\": 2, \"target\": {\"node\": 7, \"path\": \"rotation\"}}]}",
           t, rh, t, rl, t, rr);
    write_doc(w, path);
}

/* Renders `file` into a 96x96 GIF at 8 fps without anti-aliasing; stderr in *err. */
static void render_gif(const char *file, const char *gif, const char *extra, image *im, char **err) {
    char args[12288];
    snprintf(args, sizeof args, "render '%s' --fps 8 --size 96x96 --ssaa 1 --quiet %s --out '%s' 2>&1 >/dev/null",
             file, extra, gif);
    int rc = run_tool(args, err);
    if (rc != 0) fail_msg("%s: exit %d\n%s", args, rc, *err);
    ot_read_gif(gif, im);
}

/* (a) A file with a skeleton and a clip and no mesh draws its skeleton by default (one note
 * on stderr), not a one-colour image; the camera frames the animated joints (not the static
 * root 3 units away): the drawn pixels are centred and fill a fair part of the frame. */
static void skeleton_only_draws_the_skeleton(void **state) {
    (void)state;
    if (!gl_tool_or_skip()) skip();
    char file[4096], gif[4096];
    snprintf(file, sizeof file, "%s", ot_tmp("skeleton_only.gltf"));
    snprintf(gif, sizeof gif, "%s", ot_tmp("skeleton_only.gif"));
    write_skeleton_only(file, false);
    image im;
    char *err = NULL;
    render_gif(file, gif, "", &im, &err);
    const char *note = "no skinned mesh: drawing the skeleton (--bones)";
    const char *at = strstr(err, note);
    if (!at || strstr(at + 1, note)) fail_msg("expected the note once on stderr:\n%s", err);
    free(err);
    assert_true(im.frames > 2);
    pixel_box b = drawn_box(&im);
    printf("[   INFO   ] skeleton over the clip: x %d..%d, y %d..%d of 96x96\n", b.x0, b.x1, b.y0, b.y1);
    if (!(b.x1 > b.x0 && b.y1 > b.y0)) fail_msg("one-colour image: nothing drawn");
    assert_true(abs((b.x0 + b.x1) - 95) <= 12 && abs((b.y0 + b.y1) - 95) <= 12); /* centre within 6 px */
    assert_true(b.y1 - b.y0 > 48);                                              /* half the height at least */
    image_free(&im);
    /* an explicit --bones draws the same, without the note */
    render_gif(file, gif, "--bones", &im, &err);
    assert_null(strstr(err, note));
    free(err);
    pixel_box e = drawn_box(&im);
    assert_true(e.x0 == b.x0 && e.x1 == b.x1 && e.y0 == b.y0 && e.y1 == b.y1);
    image_free(&im);
}

/* (b) The same skeleton with a static quad 300 units away and a camera node: the framing
 * still covers the animated joints only, so the drawing is where it is without them. */
static void framing_leaves_out_static_far_nodes(void **state) {
    (void)state;
    if (!gl_tool_or_skip()) skip();
    char file[4096], gif[4096];
    snprintf(file, sizeof file, "%s", ot_tmp("skeleton_only.gltf"));
    snprintf(gif, sizeof gif, "%s", ot_tmp("skeleton_only.gif"));
    write_skeleton_only(file, false);
    image im;
    char *err = NULL;
    render_gif(file, gif, "", &im, &err);
    free(err);
    pixel_box a = drawn_box(&im);
    image_free(&im);
    snprintf(file, sizeof file, "%s", ot_tmp("skeleton_far_static.gltf"));
    snprintf(gif, sizeof gif, "%s", ot_tmp("skeleton_far_static.gif"));
    write_skeleton_only(file, true);
    render_gif(file, gif, "", &im, &err);
    free(err);
    pixel_box b = drawn_box(&im);
    printf("[   INFO   ] skeleton alone x %d..%d y %d..%d; with a far quad and a camera x %d..%d y %d..%d\n", a.x0,
           a.x1, a.y0, a.y1, b.x0, b.x1, b.y0, b.y1);
    assert_true(a.x1 > a.x0 && b.x1 > b.x0);
    assert_true(abs(a.x0 - b.x0) <= 2 && abs(a.x1 - b.x1) <= 2 && abs(a.y0 - b.y0) <= 2 && abs(a.y1 - b.y1) <= 2);
    image_free(&im);
}

/* (c) A rigid (unskinned) quad on a node that turns 90 degrees about +Z, next to a far static
 * quad and a camera: the camera frames the moving quad, so it is drawn large and the GIF's
 * frames differ (framed on everything, it was a few pixels and the frames were the same). */
static void rigid_mesh_on_an_animated_node_moves(void **state) {
    (void)state;
    if (!gl_tool_or_skip()) skip();
    const float bar[18] = {-0.15f, 0, 0, 0.15f, 0, 0, 0.15f, 1, 0, -0.15f, 0, 0, 0.15f, 1, 0, -0.15f, 1, 0};
    const float times[2] = {0, 1}, rot[8] = {0, 0, 0, 1, 0, 0, 0.70710678f, 0.70710678f};
    gw *w = gw_create();
    int p = gw_data(w, GW_FLOAT, false, 6, "VEC3", bar);
    int t = gw_data(w, GW_FLOAT, false, 2, "SCALAR", times);
    int r = gw_data(w, GW_FLOAT, false, 2, "VEC4", rot);
    gw_add(w, "meshes", "{\"primitives\": [{\"attributes\": {\"POSITION\": %d}}]}", p);
    gw_add(w, "nodes", "{\"name\": \"root\", \"children\": [1, 2, 3]}");
    gw_add(w, "nodes", "{\"name\": \"arm\", \"mesh\": 0, \"translation\": [2, 0, 0]}");
    add_far_static(w);
    gw_add(w, "animations", "{\"name\": \"turn\", \"samplers\": [{\"input\": %d, \"output\": %d}], "
                            "\"channels\": [{\"sampler\": 0, \"target\": {\"node\": 1, \"path\": \"rotation\"}}]}", t, r);
    char file[4096], gif[4096];
    snprintf(file, sizeof file, "%s", ot_tmp("rigid_turn.gltf"));
    snprintf(gif, sizeof gif, "%s", ot_tmp("rigid_turn.gif"));
    write_doc(w, file);
    image im;
    char *err = NULL;
    render_gif(file, gif, "", &im, &err);
    assert_null(strstr(err, "no skinned mesh")); /* the moving mesh shows the motion: no skeleton */
    free(err);
    assert_true(im.frames > 4);
    uint32_t last = im.frames - 1;
    double c = changed(frame_of(&im, 0), frame_of(&im, last), im.width, im.height);
    pixel_box b = drawn_box(&im);
    printf("[   INFO   ] turning quad: %.1f%% of pixels change from frame 0 to %u; drawn x %d..%d y %d..%d\n",
           c * 100, last, b.x0, b.x1, b.y0, b.y1);
    assert_true(c > 0.03);
    assert_true(b.y1 - b.y0 > 48 && b.x1 - b.x0 > 48);
    image_free(&im);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(demo_character_is_well_formed),
        cmocka_unit_test(demo_clips_follow_the_analytic_motion),
        cmocka_unit_test(demo_gif_has_both_clips_and_motion),
        cmocka_unit_test(rest_pose_matches_reference),
        cmocka_unit_test(cpu_and_gpu_skinning_agree),
        cmocka_unit_test(clip_range_and_bones),
        cmocka_unit_test(usage_and_errors),
        cmocka_unit_test(plot_draws_curves),
        cmocka_unit_test(bench_prints_a_table),
        cmocka_unit_test(woman_renders),
        cmocka_unit_test(morph_cube_animates),
        cmocka_unit_test(progress_lines_and_quiet),
        cmocka_unit_test(framing_whole_clip_centred),
        cmocka_unit_test(looping_clip_drops_the_end_frame),
        cmocka_unit_test(skeleton_only_draws_the_skeleton),
        cmocka_unit_test(framing_leaves_out_static_far_nodes),
        cmocka_unit_test(rigid_mesh_on_an_animated_node_moves),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
