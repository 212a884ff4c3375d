/* ossa render [FILE] [--clip NAME] [--from T --to T --fps N] [--size WxH]
 *             [--out anim.gif|frame.png] [--bones] [--cpu|--gpu] [--rest] [--loop|--no-loop]
 * Offscreen OpenGL (EGL) render of a clip into an animated GIF or one PNG frame. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "commands.h"
#include "image_io.h"
#include "render_common.h"

static int usage(FILE *f) {
    fprintf(f,
            "usage: ossa render [FILE|demo] [--clip NAME|INDEX] [--from T] [--to T] [--fps N] [--size WxH]\n"
            "                   [--out anim.gif|frame.png] [--bones] [--cpu|--gpu] [--rest] [--loop|--no-loop]\n"
            "                   [--ssaa N]\n"
            "  FILE     .gltf/.glb (default: the built-in demo character)\n"
            "  --clip   clip name or index (default: the first clip)\n"
            "  --from/--to  clip time range in seconds (default: the whole clip; a .png renders --from)\n"
            "  --fps    frames per second of clip time (default 15)\n"
            "  --size   image size (default 320x320)\n"
            "  --out    .gif = every frame, .png = one frame (default render.gif, or render.png for a still)\n"
            "  --ssaa N anti-aliasing: N x N samples per pixel (default 2, 1 = off)\n"
            "  --bones  draw the skeleton over the mesh\n"
            "  --cpu    skin on the CPU (ossa_skin_lbs); --gpu (default): palette texture shader\n"
            "  --rest   render the rest pose (one frame)\n");
    return f == stdout ? 0 : 2;
}

int cmd_render(int argc, char **argv) {
    CLI_REQUIRE_GL("render");
    const char *file = NULL, *clip_name = NULL;
    float from = 0, to = 0;
    bool has_from = false, has_to = false, rest = false;
    int loop = -1;
    render_options o;
    render_options_init(&o, NULL);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool more = i + 1 < argc;
        int taken = render_options_parse(&o, "render", argc, argv, &i);
        if (taken < 0) return 2;
        if (taken) continue;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            return usage(stdout);
        } else if (!strcmp(a, "--clip") && more) {
            clip_name = argv[++i];
        } else if (!strcmp(a, "--from") && more) {
            if (!parse_float("render", a, argv[++i], &from)) return 2;
            has_from = true;
        } else if (!strcmp(a, "--to") && more) {
            if (!parse_float("render", a, argv[++i], &to)) return 2;
            has_to = true;
        } else if (!strcmp(a, "--rest")) {
            rest = true;
        } else if (!strcmp(a, "--loop")) {
            loop = 1;
        } else if (!strcmp(a, "--no-loop")) {
            loop = 0;
        } else if (!take_file_arg("render", a, &file)) {
            return usage(stderr);
        }
    }
    if (o.out && !render_out_ext_ok("render", o.out)) return 2;
    scene s;
    if (!scene_load(&s, file, "render")) return 1;
    clip_span span;
    memset(&span, 0, sizeof span);
    if (!rest && (clip_name || s.asset->clip_count)) {
        int idx = clip_name ? scene_find_clip(&s, clip_name, "render") : 0;
        if (idx < 0) {
            scene_free(&s);
            return 1;
        }
        span.clip = s.asset->clips[idx];
        span.from = has_from ? from : span.clip->start;
        span.to = has_to ? to : span.clip->end;
        if (has_from && !has_to && span.to < span.from) span.to = span.from;
        span.loop = loop >= 0 ? loop != 0 : span.clip->looping;
        if (span.to < span.from) {
            fprintf(stderr, "ossa render: --to %g is before --from %g\n", (double)span.to, (double)span.from);
            scene_free(&s);
            return 2;
        }
    }
    if (!o.out) o.out = span_frame_count(&span, o.fps) > 1 ? "render.gif" : "render.png";
    render_job job = render_options_job(&o, &span, 1);
    render_stats st;
    bool ok = render_to_file(&s, &job, &st, "render");
    if (ok)
        printf("ossa render: %s, clip '%s', %u frame%s %ux%u in %.2f s (%s skinning) -> %s\n", s.label,
               span.clip ? span.clip->name : "(rest pose)", st.frames, st.frames == 1 ? "" : "s", o.width, o.height,
               st.seconds, o.draw.cpu ? "CPU" : "GPU", o.out);
    scene_free(&s);
    return ok ? 0 : 1;
}
