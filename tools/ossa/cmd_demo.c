/* ossa demo [--out out/demo.gif] [--size WxH] [--fps N] [--bones] [--cpu] [--frame N]
 * Renders the built-in demo character walking (two cycles) then waving into an
 * animated GIF, with nothing but this binary and an EGL driver (Mesa llvmpipe). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "commands.h"
#include "image_io.h"
#include "render_common.h"

int cmd_demo(int argc, char **argv) {
    CLI_REQUIRE_GL("demo");
    render_options o;
    render_options_init(&o, "out/demo.gif");
    uint32_t png_frame = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool more = i + 1 < argc;
        int taken = render_options_parse(&o, "demo", argc, argv, &i);
        if (taken < 0) return 2;
        if (taken) continue;
        if (!strcmp(a, "--frame") && more) {
            char *end = NULL;
            long f = strtol(argv[++i], &end, 10);
            if (!*argv[i] || *end || f < 0 || f > 1000000) {
                fprintf(stderr, "ossa demo: --frame expects a frame number (0 = the first)\n");
                return 2;
            }
            png_frame = (uint32_t)f;
        } else {
            bool help = !strcmp(a, "--help") || !strcmp(a, "-h");
            if (!help) cli_unknown_option("demo", a, !more);
            fprintf(help ? stdout : stderr,
                    "usage: ossa demo [--out out/demo.gif] [--size WxH] [--fps N] [--bones] [--cpu|--gpu]\n"
                    "                 [--frame N] [--ssaa N]\n"
                    "  renders the built-in character's clips (walk twice, then wave) into an animated GIF,\n"
                    "  or frame N of that sequence (default 0) into a .png; defaults 320x320 at 15 fps\n");
            return help ? 0 : 2;
        }
    }
    if (!render_out_ext_ok("demo", o.out) || !render_options_consistent(&o, "demo")) return 2;
    scene s;
    if (!scene_load(&s, NULL, "demo")) return 1;
    clip_span spans[2];
    memset(spans, 0, sizeof spans);
    uint32_t n = 0;
    int walk = ossa_asset_find_clip(s.asset, "walk"), wave = ossa_asset_find_clip(s.asset, "wave");
    /* both clips play built at the default precision */
    if (walk >= 0 && scene_clip_span(&s, walk, &spans[n], "demo")) { /* two walk cycles */
        spans[n].to = spans[n].from + 2 * (spans[n].to - spans[n].from);
        spans[n++].loop = true;
    }
    if (wave >= 0 && scene_clip_span(&s, wave, &spans[n], "demo")) spans[n++].loop = false;
    render_job job = render_options_job(&o, spans, n);
    job.png_frame = png_frame;
    render_stats st;
    bool ok = render_to_file(&s, &job, &st, "demo");
    if (ok)
        printf("ossa demo: walk x2 + wave, %u frame%s %ux%u at %g fps, rendered in %.2f s -> %s\n", st.frames,
               st.frames == 1 ? "" : "s", o.width, o.height, (double)o.fps, st.seconds, o.out);
    scene_free(&s);
    return ok ? 0 : 1;
}
