/* ossa demo [--out out/demo.gif] [--size WxH] [--fps N] [--bones] [--cpu] [--frame N]
 * Renders the built-in demo character walking (two cycles) then waving into an
 * animated GIF, with nothing but this binary and an EGL driver (Mesa llvmpipe). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "image_io.h"
#include "render_common.h"

int cmd_demo(int argc, char **argv) {
    const char *out = "out/demo.gif";
    uint32_t width = 320, height = 320;
    float fps = 15;
    uint32_t png_frame = 0;
    uint32_t ssaa = 2;
    draw_options draw;
    memset(&draw, 0, sizeof draw);
    draw.background[0] = 0.16f, draw.background[1] = 0.18f, draw.background[2] = 0.22f;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool more = i + 1 < argc;
        if (!strcmp(a, "--out") && more) {
            out = argv[++i];
        } else if (!strcmp(a, "--size") && more) {
            if (!parse_size("demo", argv[++i], &width, &height)) return 2;
        } else if (!strcmp(a, "--fps") && more) {
            if (!parse_float("demo", a, argv[++i], &fps)) return 2;
            if (!(fps > 0 && fps <= 1000)) {
                fprintf(stderr, "ossa demo: --fps must be in (0, 1000]\n");
                return 2;
            }
        } else if (!strcmp(a, "--frame") && more) {
            char *end = NULL;
            long f = strtol(argv[++i], &end, 10);
            if (!*argv[i] || *end || f < 0 || f > 1000000) {
                fprintf(stderr, "ossa demo: --frame expects a frame number (0 = the first)\n");
                return 2;
            }
            png_frame = (uint32_t)f;
        } else if (!strcmp(a, "--ssaa") && more) {
            char *end = NULL;
            long n = strtol(argv[++i], &end, 10);
            if (!*argv[i] || *end || n < 1 || n > 4) {
                fprintf(stderr, "ossa demo: --ssaa expects 1..4 (samples per pixel side)\n");
                return 2;
            }
            ssaa = (uint32_t)n;
        } else if (!strcmp(a, "--bones")) {
            draw.bones = true;
        } else if (!strcmp(a, "--cpu")) {
            draw.cpu = true;
        } else if (!strcmp(a, "--gpu")) {
            draw.cpu = false;
        } else {
            bool help = !strcmp(a, "--help") || !strcmp(a, "-h");
            if (!help) fprintf(stderr, "ossa demo: unknown option or missing value: %s\n", a);
            fprintf(help ? stdout : stderr,
                    "usage: ossa demo [--out out/demo.gif] [--size WxH] [--fps N] [--bones] [--cpu|--gpu]\n"
                    "                 [--frame N] [--ssaa N]\n"
                    "  renders the built-in character's clips (walk twice, then wave) into an animated GIF,\n"
                    "  or frame N of that sequence (default 0) into a .png; defaults 320x320 at 15 fps\n");
            return help ? 0 : 2;
        }
    }
    if (!path_has_ext(out, ".gif") && !path_has_ext(out, ".png")) {
        fprintf(stderr, "ossa demo: --out %s: use a .gif or .png name\n", out);
        return 2;
    }
    scene s;
    if (!scene_load(&s, NULL, "demo")) return 1;
    clip_span spans[2];
    memset(spans, 0, sizeof spans);
    uint32_t n = 0;
    int walk = ossa_asset_find_clip(s.asset, "walk"), wave = ossa_asset_find_clip(s.asset, "wave");
    if (walk >= 0) { /* two walk cycles */
        const ossa_clip *c = s.asset->clips[walk];
        spans[n++] = (clip_span){c, c->start, c->start + 2 * (c->end - c->start), true};
    }
    if (wave >= 0) {
        const ossa_clip *c = s.asset->clips[wave];
        spans[n++] = (clip_span){c, c->start, c->end, false};
    }
    render_job job;
    memset(&job, 0, sizeof job);
    job.spans = spans;
    job.span_count = n;
    job.fps = fps;
    job.width = width;
    job.height = height;
    job.out = out;
    job.png_frame = png_frame;
    job.supersample = ssaa;
    job.draw = draw;
    render_stats st;
    bool ok = render_to_file(&s, &job, &st, "demo");
    if (ok)
        printf("ossa demo: walk x2 + wave, %u frame%s %ux%u at %g fps, rendered in %.2f s -> %s\n", st.frames,
               st.frames == 1 ? "" : "s", width, height, (double)fps, st.seconds, out);
    scene_free(&s);
    return ok ? 0 : 1;
}
