/* ossa render [FILE] [--clip NAME] [--from T --to T --fps N] [--size WxH]
 *             [--out anim.gif|frame.png] [--bones] [--cpu|--gpu] [--rest] [--loop|--no-loop]
 * Offscreen OpenGL (EGL) render of a clip into an animated GIF or one PNG frame.
 * With --graph G.json [--set NAME=VALUE@TIME]... (graph_cli.h), the animation graph is simulated
 * from time 0 (at 60 frames/s, plus one frame end at every image's time) and the images show
 * --from .. --to of the simulated time (default 0 .. the last --set time + 2 s, at least 3 s). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "commands.h"
#include "graph_cli.h"
#include "ik_pass.h"
#include "image_io.h"
#include "layers_cli.h"
#include "render_common.h"

static int usage(FILE *f) {
    fprintf(f,
            "usage: ossa render [FILE|demo] [--clip NAME|INDEX] [--from T] [--to T] [--fps N] [--size WxH]\n"
            "                   [--out anim.gif|frame.png] [--bones] [--cpu|--gpu] [--rest] [--loop|--no-loop]\n"
            "                   [--ssaa N] [--skinning lbs|dqs] [--compare] [--quiet] [--ik JOINT:x,y,z[:px,py,pz]]...\n"
            "                   [--precision P | --lossless]\n"
            "  FILE     .gltf/.glb/.ossa (default: the built-in demo character); clips play built at the\n"
            "           default precision, layers included (a packed file: as stored)\n"
            "  --precision P  build the clips at precision P (model units); --lossless: keep every key\n"
            "  --clip   clip name or index (default: the first clip); with --anim A, A's clips come first\n"
            "           (--clip 0 = A's first clip; a name is looked up in A first), then the model's own\n"
            "  --from/--to  clip time range in seconds (default: the whole clip; a .png renders --from)\n"
            "  --fps    frames per second of clip time (default 15)\n"
            "  --size   image size (default 320x320)\n"
            "  --out    .gif = every frame, .png = one frame (default render.gif, or render.png for a still)\n"
            "  --ssaa N anti-aliasing: N x N samples per pixel (default 2, 1 = off)\n"
            "  --bones  draw the skeleton over the mesh (the default for a file whose meshes show no motion,\n"
            "           e.g. a skeleton without a skinned mesh)\n"
            "  --cpu    skin on the CPU (ossa_skin_job); --gpu (default): palette texture shader\n"
            "  --rest   render the rest pose (one frame)\n"
            "  --skinning lbs|dqs  linear blend (default) or dual quaternion skinning, CPU and GPU\n"
            "  --compare  LBS on the left half and DQS on the right half of each image (same camera)\n"
            "  --quiet  no progress on stderr (otherwise a line every few seconds when not a terminal)\n"
            IK_PASS_USAGE
            "  --loop / --no-loop  leave out / keep the end frame, which repeats the first when the GIF\n"
            "           loops (default: --loop for a whole clip that ends in the pose it starts in)\n"
            "  --anim SOURCE --retarget  SOURCE's clips retargeted onto FILE (humanoids; also --map MAP.json,\n"
            "           --tpose-fix, --no-contacts, --rest-reference; docs/retargeting.md); --side-by-side: SOURCE playing the\n"
            "           same clip on the left half of each image, FILE on the right\n"
            "  layers:  --clip A --clip B [--weights 0.3,0.7] [--sync] [--additive CLIP[:WEIGHT]] [--mask JOINT]\n"
            "           [--root-motion]  (docs/layers.md)\n"
            "  graphs:  --graph G.json [--set NAME=VALUE@TIME]... [--set TRIGGER@TIME]...  the animation graph\n"
            "           simulated from time 0; --from/--to are simulated times (docs/graphs.md)\n");
    return f == stdout ? 0 : 2;
}

/* True when the clip ends where it starts (every joint's local TRS and every morph weight
 * at `end` equals the one at `start` within 1e-4): played as a loop, its end frame would
 * repeat its first one. glTF has no looping flag, so this is how a file says it loops. */
static bool clip_is_cyclic(const ossa_clip *clip, const ossa_skeleton *sk) {
    if (!(clip->end > clip->start)) return false;
    uint32_t n = sk->joint_count;
    ossa_transform *a = calloc((size_t)n * 2 + 1, sizeof *a), *b = a + n;
    bool same = a != NULL;
    ossa_clip_sample_job job = {.clip = clip, .reference = sk->rest, .reference_count = n, .output = a,
                                .output_count = n};
    if (same) {
        job.time = clip->start;
        same = ossa_clip_sample_job_run(&job) == OSSA_OK;
        job.time = clip->end, job.output = b;
        same = same && ossa_clip_sample_job_run(&job) == OSSA_OK;
    }
    for (uint32_t j = 0; same && j < n; j++) {
        const float *x = &a[j].translation.x, *y = &b[j].translation.x; /* translation, then scale */
        for (int c = 0; c < 3; c++)
            if (fabsf(x[c] - y[c]) > 1e-4f * fmaxf(1.0f, fabsf(x[c])) ||
                fabsf((&a[j].scale.x)[c] - (&b[j].scale.x)[c]) > 1e-4f)
                same = false;
        float d = a[j].rotation.x * b[j].rotation.x + a[j].rotation.y * b[j].rotation.y +
                  a[j].rotation.z * b[j].rotation.z + a[j].rotation.w * b[j].rotation.w;
        if (fabsf(d) < 1.0f - 1e-6f) same = false;
    }
    free(a);
    for (uint32_t k = 0; same && k < clip->weight_track_count; k++) {
        float first[OSSA_MAX_COMPONENTS], last[OSSA_MAX_COMPONENTS];
        ossa_clip_weights_job wj = {.clip = clip, .track = k, .time = clip->start, .output = first,
                                    .output_count = OSSA_MAX_COMPONENTS};
        same = ossa_clip_weights_job_run(&wj) == OSSA_OK;
        wj.time = clip->end, wj.output = last;
        same = same && ossa_clip_weights_job_run(&wj) == OSSA_OK;
        for (uint32_t c = 0; same && c < clip->weight_tracks[k].weights.components; c++)
            if (fabsf(first[c] - last[c]) > 1e-4f) same = false;
    }
    return same;
}

static int render_main(int argc, char **argv, cli_layers *layers, cli_graph *graph);

/* --side-by-side: the --anim SOURCE playing the clip `span` was retargeted from (same name) on the
 * left half, the target scene s on the right, at the same times. */
static bool render_beside_source(scene *s, const clip_span *span, const render_job *job, render_stats *st) {
    const char *anim = cli_load.anim;
    cli_load.anim = NULL; /* the source as it is */
    scene source;
    bool ok = scene_load(&source, anim, "render");
    cli_load.anim = anim;
    if (!ok) return false;
    const char *name = span->built ? ossa_built_clip_name(span->built) : span->clip->name;
    int index = scene_find_clip(&source, name, "render");
    clip_span source_span;
    memset(&source_span, 0, sizeof source_span);
    ok = index >= 0 && scene_clip_span(&source, index, &source_span, "render");
    if (ok) {
        source_span.from = span->from, source_span.to = span->to, source_span.loop = span->loop;
        render_job both = *job;
        both.spans = &source_span;
        both.beside = s;
        both.beside_spans = span;
        ok = render_to_file(&source, &both, st, "render");
    }
    scene_free(&source);
    return ok;
}

/* Flags that cannot be honoured together are refused, not ignored: --precision with
 * --lossless; --rest (no clip is played) with a clip, a time range or build flags. */
static bool render_flags_consistent(const ossa_clip_build_options *build, bool rest, const char *clip, bool range) {
    if (build->lossless && build->precision > 0) {
        fprintf(stderr, "ossa render: --precision and --lossless exclude each other (lossless keeps every key)\n");
        return false;
    }
    if (rest && (clip || range || build->lossless || build->precision > 0)) {
        fprintf(stderr, "ossa render: --rest renders the rest pose: it takes no %s\n",
                clip ? "--clip or layer flags" : range ? "--from / --to" : "--precision / --lossless");
        return false;
    }
    return true;
}

/* scene pose_fn: the layered pose (layers_cli.h). */
static void pose_layers(void *user, scene *s, float t, bool loop) {
    cli_layers *L = user;
    cli_layers_pose(L, s->asset->skeleton, t, loop, s->locals);
    scene_set_pose(s, s->locals);
    if (L->items[0].built) scene_set_built_weights(s, &L->items[0].sampler);
    else scene_set_weights(s, L->items[0].clip, t, loop);
}

/* scene pose_fn: the graph simulated up to t (graph_cli.h). */
static void pose_graph(void *user, scene *s, float t, bool loop) {
    (void)loop;
    cli_graph *g = user;
    if (!cli_graph_advance(g, t, "render")) return;
    scene_set_pose(s, g->pose);
    scene_set_weights(s, NULL, t, false);
}

/* The span of a --graph render: simulated time from..to (defaults: 0 .. the last --set time
 * + 2 s, at least 3 s); the span's clip only marks it as animated (the pose_fn poses it). */
static bool graph_span(scene *s, const cli_graph *g, bool has_from, float from, bool has_to, float to,
                       clip_span *span) {
    const ossa_asset *a = s->asset;
    memset(span, 0, sizeof *span);
    span->clip = a->clip_count ? a->clips[0] : NULL;
    span->built = span->clip || !a->built_clip_count ? NULL : a->built_clips[0];
    double last = g->set_count ? g->sets[g->set_count - 1].time : 0.0; /* sorted by cli_graph_load */
    span->from = has_from ? from : 0.0f;
    span->to = has_to ? to : (float)(last + 2.0 > 3.0 ? last + 2.0 : 3.0);
    if (!span->clip && !span->built) {
        fprintf(stderr, "ossa render: --graph: the file has no clips\n");
        return false;
    }
    if (span->from < 0.0f || span->to < span->from) {
        fprintf(stderr, "ossa render: --graph: --from %g .. --to %g is not a range of simulated time (>= 0)\n",
                (double)span->from, (double)span->to);
        return false;
    }
    return true;
}

int cmd_render(int argc, char **argv) {
    CLI_REQUIRE_GL("render");
    cli_layers layers;
    memset(&layers, 0, sizeof layers);
    cli_graph graph;
    memset(&graph, 0, sizeof graph);
    int rc = render_main(argc, argv, &layers, &graph);
    cli_layers_free(&layers);
    cli_graph_free(&graph);
    return rc;
}

/* Renders the --graph span; the exit code. */
static int render_graph(scene *s, cli_graph *graph, render_options *o, bool has_from, float from, bool has_to,
                        float to) {
    int rc = cli_graph_load(graph, s->asset, "render");
    clip_span span;
    if (rc) return rc;
    if (!graph_span(s, graph, has_from, from, has_to, to, &span)) return 2;
    s->pose_fn = pose_graph;
    s->pose_user = graph;
    if (!o->out) o->out = span_frame_count(&span, o->fps) > 1 ? "render.gif" : "render.png";
    render_job job = render_options_job(o, &span, 1);
    render_stats st;
    if (!render_to_file(s, &job, &st, "render")) return 1;
    printf("ossa render: %s, graph '%s' over %.2f..%.2f s, %u frame%s %ux%u in %.2f s -> %s\n", s->label, graph->path,
           (double)span.from, (double)span.to, st.frames, st.frames == 1 ? "" : "s", o->width, o->height, st.seconds,
           o->out);
    return 0;
}

/* The command line. */
typedef struct render_args {
    const char *file, *clip_name;
    float from, to;
    bool has_from, has_to, rest, side_by_side;
    int loop; /* --loop 1, --no-loop 0, else -1 (the clip decides) */
    ossa_clip_build_options build;
    render_options o;
} render_args;

/* argv[*i] and its value (*i moves past it) that render_options, --ik, --graph and the layer
 * flags did not take: CLI_GO_ON, or the exit code. */
static int parse_render_flag(render_args *r, int argc, char **argv, int *i) {
    const char *a = argv[*i];
    bool more = *i + 1 < argc;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
        return usage(stdout);
    } else if (!strcmp(a, "--clip") && more) {
        r->clip_name = argv[++*i];
    } else if (!strcmp(a, "--from") && more) {
        if (!parse_float("render", a, argv[++*i], &r->from)) return 2;
        r->has_from = true;
    } else if (!strcmp(a, "--to") && more) {
        if (!parse_float("render", a, argv[++*i], &r->to)) return 2;
        r->has_to = true;
    } else if (!strcmp(a, "--side-by-side")) {
        r->side_by_side = true;
    } else if (!strcmp(a, "--precision") && more) {
        if (!parse_float("render", a, argv[++*i], &r->build.precision)) return 2;
        if (!(r->build.precision > 0)) {
            fprintf(stderr, "ossa render: --precision expects a positive number of model units\n");
            return 2;
        }
    } else if (!strcmp(a, "--lossless")) {
        r->build.lossless = true;
    } else if (!strcmp(a, "--rest")) {
        r->rest = true;
    } else if (!strcmp(a, "--loop")) {
        r->loop = 1;
    } else if (!strcmp(a, "--no-loop")) {
        r->loop = 0;
    } else if (!take_file_arg("render", a, !more, &r->file)) {
        return usage(stderr);
    }
    return CLI_GO_ON;
}

/* The command line into r, ik, graph and layers, then the flags checked together: CLI_GO_ON,
 * or the exit code. */
static int parse_render_args(render_args *r, ik_pass *ik, cli_graph *graph, cli_layers *layers, int argc, char **argv) {
    *r = (render_args){.loop = -1};
    render_options_init(&r->o, NULL);
    for (int i = 1; i < argc; i++) {
        int taken = render_options_parse(&r->o, "render", argc, argv, &i);
        if (!taken) taken = ik_pass_arg(ik, "render", argc, argv, &i);
        if (!taken) taken = cli_graph_arg(graph, "render", argc, argv, &i);
        if (!taken && (taken = cli_layers_arg(layers, "render", argc, argv, &i)) > 0)
            r->clip_name = cli_layers_first_clip(layers);
        if (taken < 0) return 2;
        int rc = taken ? CLI_GO_ON : parse_render_flag(r, argc, argv, &i);
        if (rc != CLI_GO_ON) return rc;
    }
    if ((r->o.out && !render_out_ext_ok("render", r->o.out)) || !render_options_consistent(&r->o, "render")) return 2;
    if (!render_flags_consistent(&r->build, r->rest, r->clip_name, r->has_from || r->has_to)) return 2;
    if (r->side_by_side && (!cli_load.retarget || r->rest)) {
        fprintf(stderr, "ossa render: --side-by-side shows the source beside the target: it goes with --anim SOURCE "
                        "--retarget (and a clip, not --rest)\n");
        return 2;
    }
    if (cli_graph_check_options(graph, "render")) return 2;
    if (cli_graph_active(graph) && (r->clip_name || layers->count || r->rest)) {
        fprintf(stderr, "ossa render: --graph poses the character itself: it takes no --clip, layer flags or --rest\n");
        return 2;
    }
    return CLI_GO_ON;
}

/* The span rendered: none for --rest or a file without clips; else the clip (--clip, or the
 * first; through the clip built at the default precision, a packed file's own), one shared
 * cycle of synced layers, --from / --to, and whether it loops. CLI_GO_ON, or the exit code. */
static int render_span(scene *s, const render_args *r, cli_layers *layers, clip_span *span) {
    memset(span, 0, sizeof *span);
    if (r->rest || (!r->clip_name && !s->asset->clip_count && !s->asset->built_clip_count)) return CLI_GO_ON;
    int idx = r->clip_name ? scene_find_clip(s, r->clip_name, "render") : 0;
    if (idx < 0 || !scene_clip_span(s, idx, span, "render")) return 1;
    float cycle = cli_layers_active(layers) ? cli_layers_sync_cycle(layers) : 0;
    if (cycle > 0) span->to = span->from + cycle;
    if (r->has_from) span->from = r->from;
    if (r->has_to) span->to = r->to;
    if (r->has_from && !r->has_to && span->to < span->from) span->to = span->from;
    /* default: a whole clip that ends where it starts loops (a part of one keeps its end); a
     * packed file's clip: its looping flag */
    int loop = r->loop;
    if (loop < 0)
        loop = span->loop ||
               (span->clip && !r->has_from && !r->has_to && clip_is_cyclic(span->clip, s->asset->skeleton));
    span->loop = loop != 0;
    if (span->to < span->from) {
        fprintf(stderr, "ossa render: --to %g is before --from %g\n", (double)span->to, (double)span->from);
        return 2;
    }
    return CLI_GO_ON;
}

/* Renders the span (beside its source with --side-by-side) and says what it wrote: 0, or 1. */
static int render_clip(scene *s, render_args *r, const clip_span *span, ik_pass *ik) {
    render_options *o = &r->o;
    if (!o->out) o->out = span_frame_count(span, o->fps) > 1 ? "render.gif" : "render.png";
    render_job job = render_options_job(o, span, 1);
    render_stats st;
    if (!(r->side_by_side ? render_beside_source(s, span, &job, &st) : render_to_file(s, &job, &st, "render"))) return 1;
    printf("ossa render: %s, clip '%s', %u frame%s %ux%u in %.2f s (%s %s skinning; clips built in %.3g s) -> %s\n",
           s->label, span->built ? ossa_built_clip_name(span->built) : span->clip ? span->clip->name : "(rest pose)",
           st.frames, st.frames == 1 ? "" : "s", o->width, o->height, st.seconds, o->draw.cpu ? "CPU" : "GPU",
           o->draw.compare ? "LBS | DQS" : o->draw.dqs ? "DQS" : "LBS", cli_build_seconds(), o->out);
    ik_pass_report(ik, s, "render");
    return 0;
}

/* The loaded scene posed by the graph, the layers or the clip, with the IK pass after it. */
static int render_scene(scene *s, render_args *r, ik_pass *ik, cli_layers *layers, cli_graph *graph) {
    s->build_options = r->build;
    if (cli_refuse_rebuild(s->asset, &r->build, "render")) return 2;
    if (!ik_pass_resolve(ik, s->asset->skeleton, "render")) return 2;
    if (ik->count) ik_pass_attach(ik, s);
    if (cli_graph_active(graph)) {
        int rc = render_graph(s, graph, &r->o, r->has_from, r->from, r->has_to, r->to);
        if (!rc) ik_pass_report(ik, s, "render");
        return rc;
    }
    if (cli_layers_active(layers)) {
        if (!cli_layers_resolve(layers, s->asset, &s->build_options, "render")) return 1;
        s->pose_fn = pose_layers;
        s->pose_user = layers;
    }
    clip_span span;
    int rc = render_span(s, r, layers, &span);
    return rc != CLI_GO_ON ? rc : render_clip(s, r, &span, ik);
}

static int render_main(int argc, char **argv, cli_layers *layers, cli_graph *graph) {
    static ik_pass ik; /* the scene's post-pose hook points here */
    render_args r;
    int rc = parse_render_args(&r, &ik, graph, layers, argc, argv);
    if (rc != CLI_GO_ON) return rc;
    scene s;
    if (!scene_load(&s, r.file, "render")) return 1;
    rc = render_scene(&s, &r, &ik, layers, graph);
    scene_free(&s);
    return rc;
}
